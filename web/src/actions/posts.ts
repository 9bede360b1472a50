import { rest } from '../api';
import { errorText } from '../error-text';
import type { FileInfo } from '../files';
import { sendTyping } from '../live/connection';
import { dropChannel, markFailed, mergePosts, removeLocal, type ClientPost } from '../post-store';
import { appStore } from '../state/app-store';
import { readMember } from '../state/selectors';
import { closeRhs } from './panels';
import { POSTS_PAGE, takePrefetchedPosts } from './prefetch';
import { ensureUsers } from './users';

/** A channel's posts: loading pages, catching up, and the user's own posting, editing and deleting. */

export async function loadLatest(channelId: string): Promise<void> {
  performance.mark('parley:posts-requested');
  const early = takePrefetchedPosts(channelId);
  try {
    const page = await (early ?? rest.posts(channelId, { per_page: POSTS_PAGE })).catch((err) => {
      if (early) return rest.posts(channelId, { per_page: POSTS_PAGE });
      throw err;
    });
    await ensureUsers(Object.values(page.posts).map((p) => p.user_id));
    appStore.set((s) => ({ posts: mergePosts(s.posts, Object.values(page.posts), { channelId, listed: page.order, hasOlder: page.prev_post_id !== '', loaded: true }) }));
  } catch (err) {
    appStore.set((s) => ({ channelErrors: { ...s.channelErrors, [channelId]: errorText(err) } }));
  }
}

export async function loadOlder(channelId: string): Promise<void> {
  const state = appStore.get();
  const list = state.posts.channels[channelId];
  if (!list?.loaded || !list.hasOlder || state.loadingOlder[channelId]) return;
  const oldest = list.ids.find((id) => !state.posts.byId[id]?.pending && !state.posts.byId[id]?.failed);
  if (!oldest) return;
  appStore.set((s) => ({ loadingOlder: { ...s.loadingOlder, [channelId]: true } }));
  try {
    const page = await rest.posts(channelId, { before: oldest, per_page: POSTS_PAGE });
    await ensureUsers(Object.values(page.posts).map((p) => p.user_id));
    appStore.set((s) => ({
      posts: mergePosts(s.posts, Object.values(page.posts), { channelId, listed: page.order, hasOlder: page.order.length > 0 && page.prev_post_id !== '', older: true }),
    }));
  } catch (err) {
    appStore.set((s) => ({ channelErrors: { ...s.channelErrors, [channelId]: errorText(err) } }));
  } finally {
    appStore.set((s) => ({ loadingOlder: { ...s.loadingOlder, [channelId]: false } }));
  }
}

/** Brings a loaded channel up to date after events may have been missed: everything changed since, or afresh. */
export async function catchUp(channelId: string): Promise<void> {
  const list = appStore.get().posts.channels[channelId];
  if (!list?.loaded || list.lastUpdateAt === 0) {
    appStore.set((s) => ({ posts: dropChannel(s.posts, channelId) }));
    return loadLatest(channelId);
  }
  try {
    // A margin before the newest change seen: posts committed out of time order are fetched again (merged, not doubled).
    const page = await rest.posts(channelId, { since: list.lastUpdateAt - 5000 });
    if (page.order.length >= 1000) {
      appStore.set((s) => ({ posts: dropChannel(s.posts, channelId) }));
      return loadLatest(channelId);
    }
    await ensureUsers(Object.values(page.posts).map((p) => p.user_id));
    appStore.set((s) => ({ posts: mergePosts(s.posts, Object.values(page.posts), { channelId, listed: page.order }) }));
  } catch {
    // The next reconnect tries again.
  }
}

let lastPendingAt = 0;

/** Sends a message (with the files uploaded for it: their FileInfos show in the pending copy at once). */
export async function sendPost(channelId: string, message: string, rootId = '', files: FileInfo[] = []): Promise<void> {
  const me = appStore.get().me;
  if (!me) return;
  const now = Math.max(Date.now(), lastPendingAt + 1);
  lastPendingAt = now;
  // Mattermost's web app shape: "<user id>:<ms>"; a retry with it is answered with the first post, not a copy.
  const pendingId = `${me.id}:${now}`;
  const local: ClientPost = {
    id: pendingId,
    pending_post_id: pendingId,
    create_at: now,
    update_at: now,
    delete_at: 0,
    user_id: me.id,
    channel_id: channelId,
    root_id: rootId,
    message,
    type: '',
    props: {},
    ...(files.length ? { file_ids: files.map((f) => f.id), metadata: { files } } : {}),
    pending: true,
  };
  appStore.set((s) => ({ posts: mergePosts(s.posts, [local]) }));
  await submit(local);
}

async function submit(local: ClientPost): Promise<void> {
  try {
    const fileIds = local.file_ids?.length ? local.file_ids : undefined;
    const created = await rest.createPost({ channel_id: local.channel_id, message: local.message, root_id: local.root_id || undefined, pending_post_id: local.pending_post_id, file_ids: fileIds });
    appStore.set((s) => ({ posts: mergePosts(s.posts, [created]) }));
    appStore.set((s) => {
      const member = s.members[local.channel_id];
      return member ? { members: { ...s.members, [local.channel_id]: readMember(member, s.channels[local.channel_id]) } } : {};
    });
  } catch {
    appStore.set((s) => ({ posts: markFailed(s.posts, local.id) }));
  }
}

export function retryPost(pendingId: string): void {
  const post = appStore.get().posts.byId[pendingId];
  if (!post?.failed) return;
  const again = { ...post, failed: false, pending: true };
  appStore.set((s) => ({ posts: { ...s.posts, byId: { ...s.posts.byId, [pendingId]: again } } }));
  void submit(again);
}

export function discardPost(pendingId: string): void {
  appStore.set((s) => ({ posts: removeLocal(s.posts, pendingId) }));
}

export async function editPost(postId: string, message: string): Promise<string | undefined> {
  try {
    const post = await rest.patchPost(postId, message);
    appStore.set((s) => ({ posts: mergePosts(s.posts, [post]) }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export async function deletePost(postId: string): Promise<string | undefined> {
  try {
    await rest.deletePost(postId);
    const post = appStore.get().posts.byId[postId];
    if (post) appStore.set((s) => ({ posts: mergePosts(s.posts, [{ ...post, delete_at: Date.now() }]) }));
    const rhs = appStore.get().rhs;
    if (rhs?.kind === 'thread' && rhs.rootId === postId) closeRhs();
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

let lastTypingSent = 0;
let lastTypingKey = '';

/** Tells the others this user is typing (at most every 3 s per place; Mattermost's apps wait 5 s between). */
export function userTyping(channelId: string, rootId = ''): void {
  const key = `${channelId}:${rootId}`;
  const now = Date.now();
  if (key === lastTypingKey && now - lastTypingSent < 3000) return;
  lastTypingKey = key;
  lastTypingSent = now;
  sendTyping(channelId, rootId);
}
