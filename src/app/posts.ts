// Posts as their readers get them (GetPost, a channel's pages, threads, pinned posts, by ids), and the service the
// app exposes as `app.posts`: creating (post-create.ts) and changing posts (post-edits.ts) are their own concerns,
// reached through it so that handlers and other services see one surface.
import { isValidId } from '../lib/ids';
import { AppError, type Channel, type Post, type PostList, type Session, type Versioned } from '../model';
import { Authz } from './authz';
import { channelNotFound } from './channel-errors';
import { channelPage, emptied, type ChannelPageQuery } from './channel-page';
import type { Deps } from './deps';
import { PostCreator } from './post-create';
import { PostEdits } from './post-edits';
import { withFileMetadata } from './post-files';
import { must, rootError, rootIdError } from './post-rules';
import type { PostWriter } from './post-writer';
import { postsAroundLastUnread, type UnreadQuery } from './posts-unread';
import { withReactions } from './reactions';
import type { Realtime } from './realtime';
import type { StatusService } from './status';
import type { ThreadsService } from './threads';

export type { ChannelPageQuery } from './channel-page';

const postNotFound = () => AppError.notFound('app.post.get.app_error', 'Unable to get the post.');

/** Mattermost's limit on GetPostsByIds. */
const POSTS_BY_IDS_MAX = 1000;

export class PostsService {
  private readonly authz: Authz;
  private readonly creator: PostCreator;
  private readonly edits: PostEdits;

  constructor(
    private readonly deps: Deps,
    writer: PostWriter,
    realtime: Realtime,
    status: StatusService,
    private readonly threads: ThreadsService,
  ) {
    this.authz = new Authz(deps);
    this.creator = new PostCreator(deps, this, writer, realtime, status);
    this.edits = new PostEdits(deps, this, realtime, threads);
  }

  // Creating (post-create.ts) and changing posts (post-edits.ts).
  readonly create: PostCreator['create'] = (...a) => this.creator.create(...a);
  readonly patch: PostEdits['patch'] = (...a) => this.edits.patch(...a);
  readonly update: PostEdits['update'] = (...a) => this.edits.update(...a);
  readonly setPinned: PostEdits['setPinned'] = (...a) => this.edits.setPinned(...a);
  readonly delete: PostEdits['delete'] = (...a) => this.edits.delete(...a);

  /** A root post given as a reply target must exist, be alive and sit in the same channel (post-rules.ts). */
  async checkRoot(rootId: string, channelId: string): Promise<void> {
    must(rootIdError(rootId));
    must(rootError(await this.deps.stores.posts.get(rootId), channelId));
  }

  /** A post the session may read, and its channel; a deleted one only for a system admin who asks for it. */
  async readable(postId: string, session: Session, includeDeleted: boolean): Promise<{ post: Post; channel: Channel }> {
    const { stores } = this.deps;
    const post = await stores.posts.get(postId);
    if (!post) throw postNotFound();
    const channel = await stores.channels.get(post.channel_id);
    if (!channel) throw postNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    if (post.delete_at !== 0 && !(includeDeleted && this.authz.system(session, 'manage_system'))) throw postNotFound();
    return { post, channel };
  }

  async get(postId: string, includeDeleted: boolean, session: Session): Promise<Post> {
    const { post } = await this.readable(postId, session, includeDeleted);
    const [withStats] = await this.withReplyStats([post]);
    return withStats;
  }

  /**
   * Posts as served: with their threads' reply counts, their reactions and their files. `threads: false` says the
   * posts come from a channel that has never had a reply (its message count equals its root count: the post writer
   * moves both in one statement), so there are no replies to count.
   */
  async withReplyStats(posts: Post[], threads = true): Promise<Post[]> {
    let out = posts;
    if (threads) {
      const stats = await this.deps.stores.posts.replyStats(posts.filter((p) => p.root_id === '').map((p) => p.id));
      out = posts.map((p) => {
        const s = stats.get(p.root_id || p.id);
        return s ? { ...p, reply_count: s.count, last_reply_at: s.last } : p;
      });
    }
    return withFileMetadata(this.deps.stores, await withReactions(this.deps.stores, out));
  }

  /**
   * A channel page's posts as served: withReplyStats, or, for a collapsed-threads read (`collapsed`), root posts with
   * their threads as the thread store keeps them (ThreadsService.onRoots: counts, participants, is_following for the
   * given user).
   */
  async asPage(posts: Post[], threads: boolean, collapsed?: { userId: string; extended: boolean; session: Session }): Promise<Post[]> {
    if (!collapsed) return this.withReplyStats(posts, threads);
    return this.threads.onRoots(await this.withReplyStats(posts, false), collapsed.userId, collapsed.extended, collapsed.session);
  }

  /**
   * The channel's version for ETag purposes: cheap, and it changes with every new, edited or deleted post. The
   * message count covers new posts sharing a millisecond with the last change; edits and deletions always move
   * the last update time (PostEdits.changeTime).
   */
  async channelEtag(channelId: string, session: Session, variant: string): Promise<string> {
    const channel = await this.deps.stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    const last = await this.deps.stores.posts.lastUpdateAt(channelId);
    return `${channelId}.${channel.total_msg_count}.${last}.${variant}`;
  }

  /**
   * GetPostsForChannel: the channel, the caller's membership and the channel's last change read in one statement, and
   * the ETag from them; the page is read only when built (an unchanged channel is answered 304 without it). Each page
   * read takes one row past its edge, which is the neighbour `prev_post_id` (or `next_post_id`) names; page 0 has no
   * newer post to look up.
   *
   * With `collapsedThreads` (Mattermost's collapsed reply threads) the channel is its root posts: pages, cursors and
   * neighbours count roots only (on their own index), `since` answers the roots changed or replied to since, replies'
   * roots are not fetched (there are no replies), and each root carries its thread (ThreadsService.onRoots). The page
   * budgets are the same.
   */
  async forChannel(
    channelId: string,
    q: ChannelPageQuery,
    session: Session,
  ): Promise<Versioned<PostList>> {
    const { stores } = this.deps;
    const found = await stores.channels.getForReading(channelId, session.userId);
    if (!found) throw channelNotFound();
    const { channel, member, lastUpdateAt } = found;
    if (!(await this.authz.channel(session, channel, 'read_channel', member))) throw AppError.forbidden('read_channel');
    // What is served of deleted posts is in the ETag: a system admin asking for them gets another answer than others.
    const includeDeleted = q.includeDeleted && this.authz.system(session, 'manage_system');
    const etag = q.since === undefined ? `${channelId}.${channel.total_msg_count}.${lastUpdateAt}.${JSON.stringify({ ...q, includeDeleted })}` : undefined;
    // The channel's newest page (not a collapsed-threads one: it says what the caller follows) is the same for every
    // member and the most read: it is shared, as in Mattermost's last-posts cache.
    const shared = q.page === 0 && !q.before && !q.after && q.collapsedThreads !== true;
    return { etag, shared, build: () => channelPage(stores, this, channel, q, includeDeleted, session) };
  }

  /** GetPostsAroundLastUnread: the posts around the user's first unread post (posts-unread.ts). */
  aroundLastUnread(userId: string, channelId: string, q: UnreadQuery, session: Session): Promise<Versioned<PostList>> {
    return postsAroundLastUnread(this.deps, this, userId, channelId, q, session);
  }

  /**
   * GetPostThread. `skipFetchThreads` (without collapsed threads) answers the post alone, as Mattermost does; with
   * `collapsedThreads` the root carries its thread as a collapsed-threads page serves it (ThreadsService.onRoots).
   */
  async thread(
    postId: string,
    q: { perPage: number; fromCreateAt: number; fromPost: string; direction: string; skipFetchThreads?: boolean; collapsedThreads?: boolean; collapsedThreadsExtended?: boolean },
    session: Session,
  ): Promise<PostList> {
    const { stores } = this.deps;
    const { post } = await this.readable(postId, session, false);
    const collapsed = q.collapsedThreads ? { userId: session.userId, extended: q.collapsedThreadsExtended === true, session } : undefined;
    if (q.skipFetchThreads && !collapsed) {
      const [alone] = await this.withReplyStats([post]);
      return { order: [alone.id], posts: { [alone.id]: alone }, next_post_id: '', prev_post_id: '', has_next: false };
    }
    const rootId = post.root_id || post.id;
    const all = await stores.posts.thread(rootId, false);
    const root = all.find((p) => p.id === rootId);
    let replies = all.filter((p) => p.id !== rootId);
    let hasNext = false;
    if (q.perPage > 0) {
      const down = q.direction !== 'up';
      let from = q.fromCreateAt;
      if (q.fromPost) from = all.find((p) => p.id === q.fromPost)?.create_at ?? from;
      if (!down) replies = replies.reverse();
      if (from > 0) replies = replies.filter((p) => (down ? p.create_at > from : p.create_at < from));
      hasNext = replies.length > q.perPage;
      replies = replies.slice(0, q.perPage);
    }
    const posts = root ? [root, ...replies] : replies;
    posts.sort((a, b) => b.create_at - a.create_at || (b.id < a.id ? -1 : 1));
    const list: PostList = { order: posts.map((p) => p.id), posts: {}, next_post_id: '', prev_post_id: '', has_next: hasNext };
    const served = await this.withReplyStats(posts);
    for (const p of collapsed ? await this.threads.onRoots(served, collapsed.userId, collapsed.extended, collapsed.session) : served) list.posts[p.id] = p;
    return list;
  }

  /** GetPinnedPosts: the channel's pinned posts, oldest first as in Mattermost, in one list without paging. */
  async pinned(channelId: string, session: Session): Promise<PostList> {
    const { stores } = this.deps;
    const channel = await stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    const posts = await this.withReplyStats(await stores.posts.pinned(channelId));
    const list: PostList = { order: posts.map((p) => p.id), posts: {}, next_post_id: '', prev_post_id: '', has_next: false };
    for (const p of posts) list.posts[p.id] = p;
    return list;
  }

  /**
   * GetPostsByIds: the posts the caller may read, newest first. Unknown ids and posts of unreadable channels are left
   * out; none of the ids being a post at all is a 404, as in Mattermost. Mattermost returns a deleted post whole; here
   * its content is emptied, so that the deletion shows without what was deleted (anyone with the id could read it).
   */
  async byIds(postIds: string[], session: Session): Promise<Post[]> {
    const { stores } = this.deps;
    const ids = [...new Set(postIds)];
    if (ids.length === 0) throw AppError.invalidParam('post_ids');
    if (ids.length > POSTS_BY_IDS_MAX) {
      throw AppError.badRequest('api.post.posts_by_ids.invalid_body.request_error', `At most ${POSTS_BY_IDS_MAX} post ids can be requested at once.`);
    }
    const found = await stores.posts.getMany(ids.filter(isValidId));
    if (found.length === 0) throw postNotFound();
    const readable = new Map<string, boolean>();
    const posts: Post[] = [];
    for (const post of found) {
      let ok = readable.get(post.channel_id);
      if (ok === undefined) {
        const channel = await stores.channels.get(post.channel_id);
        ok = channel !== undefined && (await this.authz.channel(session, channel, 'read_channel'));
        readable.set(post.channel_id, ok);
      }
      if (!ok) continue;
      posts.push(emptied(post));
    }
    posts.sort((a, b) => b.create_at - a.create_at || (b.id < a.id ? -1 : 1));
    return this.withReplyStats(posts);
  }
}
