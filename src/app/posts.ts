import { isValidId } from '../lib/ids';
import { codePointLength } from '../lib/text';
import { AppError, POST_LIMITS, SERVER_PROPS, type Channel, type CreatePostInput, type Post, type PostList, type PostMetadata, type PostPatch, type PostUpdate, type SealedActions, type Session, type Versioned } from '../model';
import { ActionRuleError, checkPropsActions } from './attachment-actions';
import { actionPropsError, resealProps } from './action-props';
import { Authz } from './authz';
import { channelNotFound } from './channels';
import type { Deps } from './deps';
import { PendingPosts } from './pending-posts';
import type { PostCommit, PostWriter } from './post-writer';
import type { Realtime } from './realtime';
import type { StatusService } from './status';
import type { ThreadsService } from './threads';
import { newPost } from './records';
import { withReactions } from './reactions';
import { attachFiles, filesRefused, normalizeFileIds, withFileMetadata } from './post-files';
import type { SizedPage } from '../store/posts-store';
import { postsAroundLastUnread, type UnreadQuery } from './posts-unread';

const PRIORITY_FIELDS = ['priority', 'requested_ack', 'persistent_notifications'] as const;

const postNotFound = () => AppError.notFound('app.post.get.app_error', 'Unable to get the post.');

const systemMessage = () => AppError.badRequest('api.post.update_post.system_message.app_error', 'Unable to update system message.');

/** Mattermost's limit on GetPostsByIds. */
const POSTS_BY_IDS_MAX = 1000;

/** Props from a client with the server-set ones (webhook identity) kept as the post has them: an edit never adds or drops them. */
function withServerProps(post: Post, given: Record<string, unknown>): Record<string, unknown> {
  const props: Record<string, unknown> = { ...given };
  for (const key of SERVER_PROPS) {
    delete props[key];
    if (key in post.props) props[key] = post.props[key];
  }
  return props;
}

export function checkMessageLength(message: string): void {
  if (codePointLength(message) > POST_LIMITS.messageRunes) {
    throw AppError.badRequest('model.post.is_valid.message_length.app_error', `Message must be ${POST_LIMITS.messageRunes} characters or fewer.`);
  }
}

/** Whether props serialised as JSON fit POST_LIMITS.propsBytes (UTF-8 bytes). */
export function propsFit(props: Record<string, unknown>): boolean {
  const json = JSON.stringify(props);
  // A UTF-16 unit is at most 3 UTF-8 bytes: most props are decided without counting bytes.
  return json.length * 3 <= POST_LIMITS.propsBytes || (json.length <= POST_LIMITS.propsBytes && Buffer.byteLength(json) <= POST_LIMITS.propsBytes);
}

/** Mattermost's id for props that are too large (its Post.IsValid), with Parley's lower bound. */
export function checkPropsSize(props: Record<string, unknown>): void {
  if (!propsFit(props)) {
    throw AppError.badRequest('model.post.is_valid.props.app_error', `Props must be ${POST_LIMITS.propsBytes} bytes or fewer when serialised as JSON.`);
  }
}

/**
 * A deleted post as readers other than system admins get it: that it existed and was deleted (clients remove it from
 * view), not what it said, carried or attached.
 */
function emptied(post: Post): Post {
  if (post.delete_at === 0) return post;
  const { has_reactions: _, ...rest } = post;
  return { ...rest, message: '', props: {}, file_ids: [], hashtags: '', metadata: {} };
}

function sameIds(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id));
}

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

export class PostsService {
  private readonly authz: Authz;
  private readonly pending: PendingPosts;

  constructor(
    private readonly deps: Deps,
    private readonly writer: PostWriter,
    private readonly realtime: Realtime,
    private readonly status: StatusService,
    private readonly threads: ThreadsService,
  ) {
    this.authz = new Authz(deps);
    this.pending = new PendingPosts(() => deps.now());
  }

  /** A root post given as a reply target must exist, be alive and sit in the same channel. */
  async checkRoot(rootId: string, channelId: string): Promise<void> {
    if (!isValidId(rootId)) throw AppError.badRequest('api.post.create_post.root_id.app_error', 'Invalid RootId parameter.');
    const root = await this.deps.stores.posts.get(rootId);
    if (!root || root.delete_at !== 0 || root.channel_id !== channelId || root.root_id !== '') {
      throw AppError.badRequest('api.post.create_post.root_id.app_error', 'Invalid RootId parameter.');
    }
  }

  async create(input: CreatePostInput, session: Session): Promise<Post> {
    const { stores } = this.deps;
    if (!isValidId(input.channel_id)) throw AppError.invalidParam('channel_id');
    const channel = await stores.channels.get(input.channel_id);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'create_post');
    if (channel.delete_at !== 0) {
      throw AppError.badRequest('api.post.create_post.can_not_post_to_deleted.error', 'Can not post to deleted channel.');
    }
    checkMessageLength(input.message);
    const fileIds = normalizeFileIds(input.file_ids);
    if (fileIds.length > 0) await this.authz.requireChannel(session, channel, 'upload_file');
    const props: Record<string, unknown> = { ...(input.props ?? {}) };
    for (const key of SERVER_PROPS) delete props[key];
    // The BOT marker, as Mattermost sets it: from the author's account, never from the client. A bot's session is
    // always one of its access tokens (bots cannot log in), which knows the account is a bot.
    if (session.isBot) props.from_bot = 'true';
    checkPropsSize(props);
    // Interactive actions by their rules; the writer keeps their integrations apart (attachment-actions.ts).
    try {
      checkPropsActions(props);
    } catch (err) {
      if (err instanceof ActionRuleError) throw actionPropsError(err);
      throw err;
    }
    const rootId = input.root_id ?? '';
    if (rootId) await this.checkRoot(rootId, channel.id);
    const metadata: PostMetadata = {};
    if (input.metadata?.priority) {
      if (rootId) throw AppError.badRequest('api.post.create_post.post_priority.reply_not_allowed', 'Post priority can only be set on root posts.');
      // Only the known fields: anything else a client adds would be stored and served back to everyone. A null field
      // is not given (Mattermost's PostPriority fields are pointers).
      const given = input.metadata.priority;
      metadata.priority = Object.fromEntries(PRIORITY_FIELDS.filter((k) => given[k] !== undefined && given[k] !== null).map((k) => [k, given[k]]));
    }
    const write = async () => {
      const post = newPost(
        { user_id: session.userId, channel_id: channel.id, message: input.message, root_id: rootId, props, pending_post_id: input.pending_post_id ?? '', metadata, file_ids: fileIds },
        this.deps.now(),
      );
      // The files are attached in the post's own transaction, or the post is not written (see attachFiles).
      const files = fileIds.length > 0 ? attachFiles(post, fileIds, post.create_at) : undefined;
      const commit: PostCommit = { channel, posts: [post], allowSelfMention: false, markViewed: true, precondition: files?.precondition, triggerWebhooks: true };
      if (!(await this.writer.submit(commit))) throw filesRefused();
      if (files) post.metadata = { ...post.metadata, files: files.infos() };
      // Posting is activity: the author is online (Mattermost's set_online).
      this.status.activity(session.userId, true).catch((err: unknown) => this.deps.onBackgroundError(err, 'status not updated'));
      this.realtime.posted([post], {
        channel,
        senderName: async () => `@${(await this.deps.stores.users.get(post.user_id))?.username ?? ''}`,
        setOnline: true,
        mentioned: commit.mentioned,
      });
      return post;
    };
    if (!input.pending_post_id) return write();
    // A retry of a post already made (same author, same pending id) gets that post back, not a second copy. The
    // request's own checks ran first: a retry must still be allowed to post here.
    const alive = async (id: string) => {
      const post = await stores.posts.get(id);
      return post && post.delete_at === 0 ? (await withFileMetadata(stores, [post]))[0] : undefined;
    };
    return this.pending.once(`${session.userId}:${input.pending_post_id}`, write, alive);
  }

  private async readable(postId: string, session: Session, includeDeleted: boolean): Promise<{ post: Post; channel: Channel }> {
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
   * the last update time (see changeTime).
   */
  async channelEtag(channelId: string, session: Session, variant: string): Promise<string> {
    const channel = await this.deps.stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    const last = await this.deps.stores.posts.lastUpdateAt(channelId);
    return `${channelId}.${channel.total_msg_count}.${last}.${variant}`;
  }

  /**
   * The update time of an edit or deletion: now, but always past the channel's last change, so that the channel's
   * ETag and `since` readers notice it even when another post changed in the same millisecond.
   */
  private async changeTime(post: Post): Promise<number> {
    const last = await this.deps.stores.posts.lastUpdateAt(post.channel_id);
    return Math.max(this.deps.now(), post.update_at + 1, last + 1);
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
    const etag = q.since === undefined ? `${channelId}.${channel.total_msg_count}.${lastUpdateAt}.${JSON.stringify(q)}` : undefined;
    return { etag, build: () => this.channelPage(channel, q, session) };
  }

  private async channelPage(channel: Channel, q: ChannelPageQuery, session: Session): Promise<PostList> {
    const { stores } = this.deps;
    const channelId = channel.id;
    const includeDeleted = q.includeDeleted && this.authz.system(session, 'manage_system');
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
    for (const p of collapsed ? await this.asPage(all, threads, collapsed) : await this.withReplyStats(all, threads)) list.posts[p.id] = p;
    return list;
  }

  /** GetPostsAroundLastUnread: the posts around the user's first unread post (posts-unread.ts). */
  aroundLastUnread(userId: string, channelId: string, q: UnreadQuery, session: Session): Promise<Versioned<PostList>> {
    return postsAroundLastUnread(this.deps, this, userId, channelId, q, session);
  }

  async patch(postId: string, patch: PostPatch, session: Session): Promise<Post> {
    const { stores } = this.deps;
    const { post, channel } = await this.readable(postId, session, false);
    const own = post.user_id === session.userId;
    await this.authz.requireChannel(session, channel, own ? 'edit_post' : 'edit_others_posts');
    // As UpdatePost, pins and reactions: an archived channel's posts stay as they were (Mattermost's PatchPost id).
    if (channel.delete_at !== 0) {
      throw AppError.badRequest('api.post.patch_post.can_not_update_post_in_deleted.error', 'Can not update a post in an archived channel.');
    }
    const now = await this.changeTime(post);
    const fields: Partial<Post> = { update_at: now };
    if (patch.message !== undefined && patch.message !== post.message) {
      checkMessageLength(patch.message);
      fields.message = patch.message;
      fields.edit_at = now;
    }
    if (patch.is_pinned !== undefined) fields.is_pinned = patch.is_pinned;
    if (patch.props !== undefined) {
      const props: Record<string, unknown> = { ...patch.props };
      // Server-set props survive a patch unchanged: editing never turns a post into (or out of) a webhook post.
      for (const key of SERVER_PROPS) {
        delete props[key];
        if (key in post.props) props[key] = post.props[key];
      }
      checkPropsSize(props);
      fields.props = props;
    }
    // Actions sent back as clients see them keep their integrations; new ones are checked and kept apart.
    const actions = fields.props ? await resealProps(stores, post, fields.props, false) : undefined;
    if (actions) fields.props = actions.props;
    // A post's files are set when it is created; a patch may repeat them (clients send the post back) but not change them.
    if (patch.file_ids !== undefined && !sameIds(patch.file_ids, post.file_ids)) {
      throw AppError.badRequest('api.post.create_post.file_ids.app_error', "Changing a post's files is not supported.");
    }
    await this.writeEdit(post.id, fields, actions);
    const [updated] = await this.withReplyStats([{ ...post, ...fields }]);
    this.realtime.postEdited(updated);
    return updated;
  }

  /** An edit's fields, and its actions' integrations when they changed, in one transaction. */
  private async writeEdit(postId: string, fields: Partial<Post>, actions: { sealed?: SealedActions; changed: boolean } | undefined): Promise<void> {
    if (!actions?.changed) return this.deps.stores.posts.update(postId, fields);
    await this.deps.stores.transaction(async (tx) => {
      await tx.posts.update(postId, fields);
      await tx.postActions.replace(postId, actions.sealed);
    });
  }

  async delete(postId: string, session: Session): Promise<void> {
    const { stores } = this.deps;
    const { post, channel } = await this.readable(postId, session, false);
    await this.authz.requireChannel(session, channel, post.user_id === session.userId ? 'delete_post' : 'delete_others_posts');
    const deletedAt = await this.changeTime(post);
    // The thread's counters move with the deletion, in its transaction: a reply's, or the root's deletion time.
    const unmentioned = await stores.transaction(async (tx) => {
      await tx.posts.softDelete(post, deletedAt);
      if (post.root_id === '') {
        await tx.threads.setDeleted(post.id, deletedAt);
        return [];
      }
      return this.threads.replyDeleted(tx, post, channel);
    });
    if (post.root_id !== '') this.threads.publishUpdated(post.root_id, channel.team_id, () => ({ replies: 0, mentions: 0 }), new Set(unmentioned));
    await stores.files.deleteForThread(post.id, deletedAt);
    this.realtime.postDeleted({ ...post, delete_at: deletedAt, update_at: deletedAt }, session.userId);
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

  /**
   * UpdatePost: the whole editable part of a post replaced, as Mattermost's PUT does it (message, is_pinned and props
   * from the body, absent ones empty; file_ids absent kept). A post that does not exist or was deleted fails the
   * permission check (403), as in Mattermost; editing someone else's post needs edit_post and edit_others_posts.
   */
  async update(postId: string, body: PostUpdate, session: Session): Promise<Post> {
    const { stores } = this.deps;
    if (body.id !== postId) throw AppError.invalidParam('id');
    const { post, channel } = await this.changeable(postId, session, 'edit_post');
    if (post.user_id !== session.userId) await this.authz.requireChannel(session, channel, 'edit_others_posts');
    if (post.type.startsWith('system_')) throw systemMessage();
    if (channel.delete_at !== 0) {
      throw AppError.badRequest('api.post.update_post.can_not_update_post_in_deleted.error', 'Can not update a post in an archived channel.');
    }
    const message = body.message ?? '';
    checkMessageLength(message);
    const fileIds = body.file_ids ?? post.file_ids;
    if (fileIds.length !== post.file_ids.length || fileIds.some((id, i) => id !== post.file_ids[i])) {
      throw AppError.badRequest('api.post.create_post.file_ids.app_error', 'File attachments are not supported by this server.');
    }
    const given = withServerProps(post, body.props ?? {});
    checkPropsSize(given);
    const actions = await resealProps(stores, post, given, false);
    const props = actions.props;
    const now = await this.changeTime(post);
    const fields: Partial<Post> = { update_at: now, message, is_pinned: body.is_pinned ?? false, props };
    if (message !== post.message) fields.edit_at = now;
    await this.writeEdit(post.id, fields, actions);
    const [updated] = await this.withReplyStats([{ ...post, ...fields }]);
    this.realtime.postEdited(updated);
    return updated;
  }

  /**
   * PinPost and UnpinPost: anyone who can read the post may pin or unpin it, as in Mattermost. The edit time does not
   * move (the message is unchanged); the update time does, and the channel hears of it through post_edited.
   */
  async setPinned(postId: string, pinned: boolean, session: Session): Promise<void> {
    const { post, channel } = await this.changeable(postId, session, 'read_channel');
    if (channel.delete_at !== 0) {
      throw AppError.badRequest('api.post.patch_post.can_not_update_post_in_deleted.error', 'Can not update a post in an archived channel.');
    }
    if (post.type.startsWith('system_')) throw systemMessage();
    const fields: Partial<Post> = { update_at: await this.changeTime(post), is_pinned: pinned };
    await this.deps.stores.posts.update(post.id, fields);
    const [updated] = await this.withReplyStats([{ ...post, ...fields }]);
    this.realtime.postEdited(updated);
  }

  /** A live post and its channel, for a change needing `permission` there; one missing or deleted is that 403. */
  private async changeable(postId: string, session: Session, permission: 'edit_post' | 'read_channel'): Promise<{ post: Post; channel: Channel }> {
    const { stores } = this.deps;
    const post = await stores.posts.get(postId);
    const channel = post && post.delete_at === 0 ? await stores.channels.get(post.channel_id) : undefined;
    if (!post || !channel) throw AppError.forbidden(permission);
    await this.authz.requireChannel(session, channel, permission);
    return { post, channel };
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
