import { api, call, type Post } from '../api';
import { errorText } from '../error-text';
import { mergePosts } from '../post-store';
import { appStore } from '../state/app-store';
import type { AppState } from '../state/app-state';
import { ensureUsers } from './users';

/** Pinned posts: pinning from the post menu, the channel's list in the right-hand panel, the count in the header. */

function newestFirst(ids: string[], byId: AppState['posts']['byId']): string[] {
  return [...ids].sort((a, b) => (byId[b]?.create_at ?? 0) - (byId[a]?.create_at ?? 0));
}

/**
 * What a post's new copy changes in the pinned lists and counts: called with each post_edited (and the user's own
 * pin/unpin) before the copy is merged, so the copy held is the one before.
 */
export function pinsAfterEdit(s: AppState, post: Post): Partial<AppState> {
  const held = s.posts.byId[post.id];
  const was = held?.is_pinned === true;
  const now = post.is_pinned === true && post.delete_at === 0;
  if (held && was === now) return {};
  if (!held && !now) return {};
  const channelId = post.channel_id;
  const out: Partial<AppState> = {};
  const list = s.pins.byChannel[channelId];
  if (list) {
    const kept = list.filter((id) => id !== post.id);
    const byId = { ...s.posts.byId, [post.id]: post };
    out.pins = { ...s.pins, byChannel: { ...s.pins.byChannel, [channelId]: now ? newestFirst([...kept, post.id], byId) : kept } };
  }
  const counts = s.memberCounts[channelId];
  // A post not held before: whether it was pinned is unknown, so the count is left alone.
  if (counts?.pinned !== undefined && held) out.memberCounts = { ...s.memberCounts, [channelId]: { ...counts, pinned: Math.max(0, counts.pinned + (now ? 1 : -1)) } };
  return out;
}

/** Applies a post's new copy (post_edited, or the answer to a pin): the lists and counts, then the post. */
export function postChanged(post: Post): void {
  appStore.set((s) => ({ ...pinsAfterEdit(s, post), posts: mergePosts(s.posts, [post]) }));
}

export async function setPinned(postId: string, pinned: boolean): Promise<string | undefined> {
  try {
    const path = pinned ? '/api/v4/posts/{post_id}/pin' : '/api/v4/posts/{post_id}/unpin';
    await call(api.POST(path, { params: { path: { post_id: postId } } }));
    const post = appStore.get().posts.byId[postId];
    // The post_edited event brings the server's copy; meanwhile the change shows at once.
    if (post && post.is_pinned !== pinned) postChanged({ ...post, is_pinned: pinned });
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export function openPinned(channelId: string): void {
  appStore.set({ rhs: { kind: 'pinned', channelId } });
  void loadPinned(channelId);
}

/** GetPinnedPosts: the channel's pinned posts, newest first. */
export async function loadPinned(channelId: string): Promise<void> {
  try {
    const list = await call(api.GET('/api/v4/channels/{channel_id}/pinned', { params: { path: { channel_id: channelId } } }));
    const posts = Object.values(list.posts);
    await ensureUsers(posts.map((p) => p.user_id));
    appStore.set((s) => {
      const merged = mergePosts(s.posts, posts);
      const ids = newestFirst(posts.filter((p) => p.is_pinned && p.delete_at === 0).map((p) => p.id), merged.byId);
      const counts = s.memberCounts[channelId];
      return {
        posts: merged,
        pins: { ...s.pins, byChannel: { ...s.pins.byChannel, [channelId]: ids }, errors: { ...s.pins.errors, [channelId]: '' } },
        memberCounts: counts ? { ...s.memberCounts, [channelId]: { ...counts, pinned: ids.length } } : s.memberCounts,
      };
    });
  } catch (err) {
    appStore.set((s) => ({ pins: { ...s.pins, errors: { ...s.pins.errors, [channelId]: errorText(err) } } }));
  }
}
