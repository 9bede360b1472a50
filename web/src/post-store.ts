import type { components } from '../../generated/api';

/**
 * The posts the client holds, and the one merge rule everything goes through: REST pages, `since` catch-ups,
 * WebSocket events and the client's own optimistic posts are all merged by id, keeping the newest version
 * (`update_at`). Deleted posts leave a tombstone, so a copy arriving late (a page fetched before the deletion, a
 * replayed event) cannot bring them back. Merging is therefore idempotent and order-independent: a
 * catch-up that overlaps what an event already delivered adds no duplicate, and nothing is lost when an event
 * arrives before the page it belongs to. No DOM here: unit-tested in Node.
 */

export type Post = components['schemas']['Post'];

/** A post of this client not yet confirmed by the server: its id is its `pending_post_id`. */
export interface LocalState {
  pending?: boolean;
  failed?: boolean;
}
export type ClientPost = Post & LocalState;

export interface PostList {
  /** Post ids, oldest first (the order they are shown in). */
  ids: string[];
  /** Whether older posts exist on the server beyond the oldest one held. */
  hasOlder: boolean;
  /** Whether the newest page was fetched: the list reaches the present. */
  loaded: boolean;
  /** Newest `update_at` of any post merged: the `since` of a catch-up. */
  lastUpdateAt: number;
}

export interface PostsState {
  byId: Record<string, ClientPost>;
  /** Ids of deleted posts: a deletion is final (Mattermost never restores a post), so a tombstone is forever. */
  deleted: Record<string, true>;
  channels: Record<string, PostList>;
  /** Root post id → the thread's ids (root first), once the thread was fetched. */
  threads: Record<string, string[]>;
}

export const emptyPosts: PostsState = { byId: {}, deleted: {}, channels: {}, threads: {} };
export const emptyList: PostList = { ids: [], hasOlder: true, loaded: false, lastUpdateAt: 0 };

export function comparePosts(a: Post, b: Post): number {
  return a.create_at - b.create_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function isNewer(incoming: Post, held: Post | undefined): boolean {
  return !held || incoming.update_at >= held.update_at || (held as ClientPost).pending === true || (held as ClientPost).failed === true;
}

interface Change {
  byId: Record<string, ClientPost>;
  deleted: Record<string, true>;
  /** Ids that must leave every list: deleted posts, and pending copies the server's post replaced. */
  removed: Set<string>;
}

function absorb(state: PostsState, incoming: ClientPost[]): Change {
  const byId = { ...state.byId };
  const deleted = { ...state.deleted };
  const removed = new Set<string>();
  for (const post of incoming) {
    if (deleted[post.id]) continue;
    if (post.delete_at > 0) {
      deleted[post.id] = true;
      delete byId[post.id];
      removed.add(post.id);
      continue;
    }
    if (!isNewer(post, byId[post.id])) continue;
    byId[post.id] = post;
    // The server's copy of our own optimistic post replaces it.
    const pendingId = post.pending_post_id;
    if (pendingId && pendingId !== post.id && byId[pendingId]) {
      delete byId[pendingId];
      removed.add(pendingId);
    }
  }
  return { byId, deleted, removed };
}

/** `ids` without the removed ones, plus the candidates held in byId and not yet there, in display order. */
function placeIn(ids: string[], byId: Record<string, ClientPost>, candidates: Iterable<string>, removed: Set<string>): string[] {
  const kept = removed.size ? ids.filter((id) => !removed.has(id)) : ids;
  const present = new Set(kept);
  const fresh: string[] = [];
  for (const id of candidates) {
    if (!present.has(id) && byId[id]) {
      present.add(id);
      fresh.push(id);
    }
  }
  if (fresh.length === 0) return kept;
  const merged = [...kept, ...fresh];
  merged.sort((a, b) => comparePosts(byId[a], byId[b]));
  return merged;
}

function maxUpdate(since: number, posts: Post[]): number {
  let m = since;
  for (const p of posts) if (p.update_at > m && !(p as ClientPost).pending) m = p.update_at;
  return m;
}

/** A page of a channel's posts fetched from the server: which of them form the list, and the paging flags. */
export interface ListUpdate {
  channelId: string;
  /** Ids of the page's `order` (a PostList also carries thread roots from outside the page: those are not placed). */
  listed: string[];
  hasOlder?: boolean;
  /** The page reaches the present (the newest page, or a catch-up of a list that did). */
  loaded?: boolean;
  /** The page extends the list into the past (a `before` page): its posts are older than the oldest held. */
  older?: boolean;
}

/**
 * Merges posts into the state. Posts from events are placed in their channel's list when the channel has one
 * (replies too: the channel view shows them) and in their thread when the thread was fetched. A fetched page
 * (`update`) places only its listed posts; the first page of a channel also adopts posts that events delivered
 * before it and that are newer than its oldest post (an event can beat the page that should have held it).
 */
export function mergePosts(state: PostsState, incoming: ClientPost[], update?: ListUpdate): PostsState {
  const change = absorb(state, incoming);
  const channels = { ...state.channels };
  const touched = new Set<string>(incoming.map((p) => p.channel_id));
  if (update) touched.add(update.channelId);
  for (const channelId of touched) {
    const isUpdate = update?.channelId === channelId;
    const list = channels[channelId] ?? (isUpdate ? emptyList : undefined);
    if (!list) continue;
    let candidates: string[];
    if (isUpdate) {
      candidates = [...update.listed];
      if (update.loaded && !list.loaded) {
        const listedPosts = update.listed.map((id) => change.byId[id]).filter(Boolean);
        const oldest = listedPosts.length ? Math.min(...listedPosts.map((p) => p.create_at)) : update.hasOlder ? Infinity : -Infinity;
        for (const p of Object.values(change.byId)) if (p.channel_id === channelId && p.create_at >= oldest) candidates.push(p.id);
      }
    } else {
      candidates = incoming.filter((p) => p.channel_id === channelId).map((p) => p.id);
    }
    // A list that does not reach back to the channel's start only grows forward (or by an explicit older page): a
    // post older than its oldest (an edit of an old post, a catch-up) would sit above a gap, hiding it.
    if (list.hasOlder && list.ids.length && !(isUpdate && update.older)) {
      const oldest = change.byId[list.ids[0]] ?? state.byId[list.ids[0]];
      if (oldest) candidates = candidates.filter((id) => !change.byId[id] || comparePosts(change.byId[id], oldest) >= 0);
    }
    channels[channelId] = {
      ids: placeIn(list.ids, change.byId, candidates, change.removed),
      hasOlder: isUpdate && update.hasOlder !== undefined ? update.hasOlder : list.hasOlder,
      loaded: list.loaded || (isUpdate && update.loaded === true),
      lastUpdateAt: maxUpdate(list.lastUpdateAt, incoming.filter((p) => p.channel_id === channelId)),
    };
  }
  // A deletion can reach a list no incoming post belongs to (a deleted reply's root list, a pending copy).
  if (change.removed.size) {
    for (const [channelId, list] of Object.entries(channels)) {
      if (touched.has(channelId)) continue;
      if (list.ids.some((id) => change.removed.has(id))) channels[channelId] = { ...list, ids: list.ids.filter((id) => !change.removed.has(id)) };
    }
  }
  const threads = { ...state.threads };
  for (const [rootId, ids] of Object.entries(threads)) {
    if (change.removed.has(rootId)) {
      delete threads[rootId];
      continue;
    }
    const candidates = incoming.filter((p) => p.root_id === rootId || p.id === rootId).map((p) => p.id);
    if (candidates.length || ids.some((id) => change.removed.has(id))) threads[rootId] = placeIn(ids, change.byId, candidates, change.removed);
  }
  return { byId: change.byId, deleted: change.deleted, channels, threads };
}

/** Records a fetched thread (root first, then replies by time) and merges its posts. */
export function mergeThread(state: PostsState, rootId: string, posts: ClientPost[]): PostsState {
  const merged = mergePosts(state, posts);
  const ids = Object.values(merged.byId)
    .filter((p) => p.id === rootId || p.root_id === rootId)
    .sort(comparePosts)
    .map((p) => p.id);
  return { ...merged, threads: { ...merged.threads, [rootId]: ids } };
}

/** Forgets a channel's list (kept posts stay in byId); the next view fetches it afresh. */
export function dropChannel(state: PostsState, channelId: string): PostsState {
  if (!state.channels[channelId]) return state;
  const channels = { ...state.channels };
  delete channels[channelId];
  return { ...state, channels };
}

/** Marks the client's own pending post as failed (kept, so it can be retried). */
export function markFailed(state: PostsState, pendingId: string): PostsState {
  const post = state.byId[pendingId];
  if (!post) return state;
  return { ...state, byId: { ...state.byId, [pendingId]: { ...post, pending: false, failed: true } } };
}

/** Removes a local (never confirmed) post. */
export function removeLocal(state: PostsState, pendingId: string): PostsState {
  if (!state.byId[pendingId]) return state;
  const byId = { ...state.byId };
  const post = byId[pendingId];
  delete byId[pendingId];
  const channels = { ...state.channels };
  const list = channels[post.channel_id];
  if (list) channels[post.channel_id] = { ...list, ids: list.ids.filter((id) => id !== pendingId) };
  const threads = { ...state.threads };
  if (post.root_id && threads[post.root_id]) threads[post.root_id] = threads[post.root_id].filter((id) => id !== pendingId);
  return { ...state, byId, channels, threads };
}
