import { AppError, POST_LIMITS, type Post, type PostList, type Session, type Versioned } from '../model';
import { Authz } from './authz';
import { channelNotFound } from './channel-errors';
import type { Deps } from './deps';
import type { PostsService } from './posts';

/** GetPostsAroundLastUnread's options, already defaulted and clamped as Mattermost's URL parameters are. */
export interface UnreadQuery {
  limitBefore: number;
  limitAfter: number;
  fetchThreads: boolean;
  /** Collapsed reply threads: root posts only, each with its thread (as GetPostsForChannel's collapsedThreads). */
  collapsedThreads?: boolean;
  collapsedThreadsExtended?: boolean;
}

/**
 * Each side of the first unread post reads at most half of a channel page's byte budget (at least one post each), so
 * the answer stays within one page's budget however large the posts around it are (review round 3, H3).
 */
const SIDE_CHARS = POST_LIMITS.pageChars / 2;

/**
 * GetPostsAroundLastUnread, as Mattermost answers it: the first unread post (the oldest live one created after the
 * member's last_viewed_at), `limitBefore` older posts and `limitAfter` - 1 newer ones, newest first; the cursors name
 * the posts just past each end. A member who never viewed the channel, or has nothing unread, gets the latest
 * `limitBefore` posts: GetPostsForChannel's page 0, ETag and 304 included (Mattermost's handler does the same).
 *
 * With `collapsedThreads` every part counts root posts only (the first unread root, the roots around it, the
 * cursors), as Mattermost's GetPostIdAfterTime and GetPostsBefore/After do in that mode, and each root carries its
 * thread for the path's user. Mattermost also puts the first unread root's replies in `posts` (its thread read); they
 * are left out here: a thread may be long, the answer keeps its byte budget, and the apps show no replies in a
 * channel in that mode.
 */
export async function postsAroundLastUnread(
  deps: Deps,
  posts: PostsService,
  userId: string,
  channelId: string,
  q: UnreadQuery,
  session: Session,
): Promise<Versioned<PostList>> {
  const { stores } = deps;
  const authz = new Authz(deps);
  if (userId !== session.userId) authz.requireSystem(session, 'edit_other_users');
  const found = await stores.channels.getForReading(channelId, userId);
  if (!found) throw channelNotFound();
  const { channel, member } = found;
  // The membership read is the path user's: it is the caller's own only when they are the same user.
  if (!(await authz.channel(session, channel, 'read_channel', userId === session.userId ? member : undefined))) throw AppError.forbidden('read_channel');
  if (q.limitAfter === 0) {
    throw new AppError('api.context.invalid_url_param.app_error', 'Invalid or missing limit_after parameter in request URL.', 400);
  }
  if (!member) throw AppError.notFound('app.channel.get_member.missing.app_error', 'No channel member found for that user ID and channel ID.');
  const rootsOnly = q.collapsedThreads === true;
  const unread = member.last_viewed_at === 0 ? undefined : await stores.posts.firstAfter(channelId, member.last_viewed_at, rootsOnly);
  if (!unread) {
    // The same options as GetPostsForChannel's handler gives page 0: the same ETag.
    const page = { page: 0, perPage: q.limitBefore, includeDeleted: false, fetchThreads: q.fetchThreads, collapsedThreads: rootsOnly, collapsedThreadsExtended: q.collapsedThreadsExtended === true };
    return posts.forChannel(channelId, page, session);
  }
  const side = (perPage: number, direction: 'before' | 'after') =>
    stores.posts.aroundWithin({ channelId, page: 0, perPage, includeDeleted: false, rootsOnly }, unread, direction, SIDE_CHARS);
  const newer = await side(q.limitAfter - 1, 'after');
  const older = await side(q.limitBefore, 'before');
  // Newer posts come nearest first (oldest first): reversed, the whole answer is newest first.
  const ordered: Post[] = [...newer.posts.reverse(), unread, ...older.posts];
  const list: PostList = {
    order: ordered.map((p) => p.id),
    posts: {},
    // Live reads only: the row past each side is the live neighbour there (Mattermost's GetPostIdAfterTime/BeforeTime).
    next_post_id: newer.beyond?.id ?? '',
    prev_post_id: older.beyond?.id ?? '',
    has_next: false,
  };
  list.has_next = list.prev_post_id !== '';
  let all = ordered;
  if (q.fetchThreads && !rootsOnly) {
    // Replies come with their root posts (outside `order`), as GetPostsForChannel sends them.
    const present = new Set(ordered.map((p) => p.id));
    const missingRoots = [...new Set(ordered.map((p) => p.root_id).filter((id) => id && !present.has(id)))];
    all = [...ordered, ...(await stores.posts.getMany(missingRoots)).filter((p) => p.delete_at === 0)];
  }
  const threads = channel.total_msg_count !== channel.total_msg_count_root;
  const collapsed = rootsOnly ? { userId, extended: q.collapsedThreadsExtended === true, session } : undefined;
  for (const p of await posts.asPage(all, threads, collapsed)) list.posts[p.id] = p;
  // No ETag around an unread post (as Mattermost): always built.
  return { build: async () => list };
}
