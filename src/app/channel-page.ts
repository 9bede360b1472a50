// A page of GetPostsForChannel, once its ETag did not answer it (PostsService.forChannel): the posts by page, cursor
// or `since`, the neighbours the apps page on from, and the replies' roots.
import { AppError, POST_LIMITS, type Channel, type Post, type PostList, type Session } from '../model';
import type { Stores } from '../store';
import type { SizedPage } from '../store/posts-store';

/** GetPostsForChannel's query, as its handler reads it. */
export interface ChannelPageQuery {
  page: number;
  perPage: number;
  since?: number;
  before?: string;
  after?: string;
  includeDeleted: boolean;
  fetchThreads: boolean;
  collapsedThreads?: boolean;
  collapsedThreadsExtended?: boolean;
}

/** What a page needs of the posts service: posts as served (PostsService.asPage). */
export interface PageServing {
  asPage(posts: Post[], threads: boolean, collapsed?: { userId: string; extended: boolean; session: Session }): Promise<Post[]>;
}

/**
 * A deleted post as readers other than system admins get it: that it existed and was deleted (clients remove it from
 * view), not what it said, carried or attached.
 */
export function emptied(post: Post): Post {
  if (post.delete_at === 0) return post;
  const { has_reactions: _, ...rest } = post;
  return { ...rest, message: '', props: {}, file_ids: [], hashtags: '', metadata: {} };
}

/**
 * Builds the page. Each page read takes one row past its edge, which is the neighbour `prev_post_id` (or
 * `next_post_id`) names; page 0 has no newer post to look up. With `collapsedThreads` the channel is its root posts
 * (see PostsService.forChannel). `includeDeleted` is the query's, already limited to system admins.
 */
export async function channelPage(stores: Stores, serving: PageServing, channel: Channel, q: ChannelPageQuery, includeDeleted: boolean, session: Session): Promise<PostList> {
  const channelId = channel.id;
  const rootsOnly = q.collapsedThreads === true;
  const cursor = { channelId, page: q.page, perPage: q.perPage, includeDeleted, lookahead: 1, rootsOnly };
  const list: PostList = { order: [], posts: {}, next_post_id: '', prev_post_id: '', has_next: false };
  let posts: Post[];
  if (q.since !== undefined) {
    // Deleted posts come too, so that clients learn of the deletions, but emptied (review round 3, M1).
    posts = (rootsOnly ? await stores.posts.rootsSince(channelId, q.since, 1000) : (await stores.posts.since(channelId, q.since, 1000)).reverse()).map(emptied);
  } else {
    // Newest first; `beyond` is the row past the page's oldest (or, after an `after` anchor, its newest) post. A page
    // of large posts ends early, at its byte budget: `beyond` is then the first post left out, which the page's
    // prev_post_id (next_post_id after an anchor) names, so the apps continue from it.
    let beyond: SizedPage['beyond'];
    let anchor: Post | undefined;
    const edge = (page: SizedPage) => {
      beyond = page.beyond;
      return page.posts;
    };
    if (q.before || q.after) {
      const anchorId = (q.before || q.after) as string;
      anchor = await stores.posts.get(anchorId);
      if (!anchor || anchor.channel_id !== channelId) throw AppError.invalidParam(q.before ? 'before' : 'after');
      posts = edge(await stores.posts.aroundWithin(cursor, anchor, q.before ? 'before' : 'after', POST_LIMITS.pageChars));
      if (!q.before) posts.reverse();
    } else {
      posts = edge(await stores.posts.pageWithin(cursor, POST_LIMITS.pageChars));
    }
    if (posts.length > 0) {
      const newest = posts[0];
      const oldest = posts[posts.length - 1];
      // Neighbours are live posts: no row past the edge means none; a live one is it; a deleted one (read only with
      // include_deleted) leaves the question to a query.
      const past = beyond === undefined ? '' : beyond.delete_at === 0 ? beyond.id : undefined;
      // Page 0 starts at the channel's newest post: nothing is newer.
      const pageZero = !q.before && !q.after && q.page === 0;
      // A live anchor is the neighbour of the first page beside it (that page is the run of rows next to it); with
      // collapsed threads only a root is (an anchor may be a reply).
      const liveAnchor = anchor !== undefined && anchor.delete_at === 0 && q.page === 0 && (!rootsOnly || anchor.root_id === '') ? anchor.id : undefined;
      list.next_post_id =
        q.after && past !== undefined
          ? past
          : pageZero
            ? ''
            : q.before && liveAnchor
              ? liveAnchor
              : await stores.posts.neighbourId(channelId, newest, 'after', rootsOnly);
      list.prev_post_id =
        !q.after && past !== undefined ? past : q.after && liveAnchor ? liveAnchor : await stores.posts.neighbourId(channelId, oldest, 'before', rootsOnly);
      list.has_next = list.prev_post_id !== '';
    }
  }
  list.order = posts.map((p) => p.id);
  // Replies in the page come with their root posts (outside `order`), so clients can render the threads.
  let all = posts;
  if (q.fetchThreads && !rootsOnly) {
    const present = new Set(posts.map((p) => p.id));
    const missingRoots = [...new Set(posts.map((p) => p.root_id).filter((id) => id && !present.has(id)))];
    all = [...posts, ...(await stores.posts.getMany(missingRoots)).filter((p) => p.delete_at === 0 || includeDeleted)];
  }
  const threads = channel.total_msg_count !== channel.total_msg_count_root;
  const collapsed = rootsOnly ? { userId: session.userId, extended: q.collapsedThreadsExtended === true, session } : undefined;
  for (const p of await serving.asPage(all, threads, collapsed)) list.posts[p.id] = p;
  return list;
}
