import { isValidId } from '../lib/ids';
import { codePointLength } from '../lib/text';
import type { Stores } from '../store';
import { GroupCommit } from '../store/group-commit';
import type { PostWrite } from '../store/posts-store';
import { Authz } from './authz';
import { channelNotFound } from './channels';
import type { Deps } from './deps';
import { AppError } from './errors';
import { PendingPosts } from './pending-posts';
import { newPost } from './records';
import type { Channel, Post, PostList, PostMetadata, Session } from './model';
import { ChannelAudience, mentionedMembers, parseMentions } from './mentions';
import { MAX_POST_RUNES, MAX_USER_PROPS_RUNES } from './rules';

/** Props only the server sets: an ordinary post cannot pose as a webhook post or override its author's name. */
export const SERVER_PROPS = ['from_webhook', 'override_username', 'override_icon_url', 'override_icon_emoji', 'webhook_display_name'];

export interface CreatePostInput {
  channel_id: string;
  message: string;
  root_id?: string;
  file_ids?: string[];
  props?: Record<string, unknown>;
  pending_post_id?: string;
  metadata?: { priority?: { priority?: string; requested_ack?: boolean; persistent_notifications?: boolean } };
}

export interface PostPatch {
  message?: string;
  is_pinned?: boolean;
  file_ids?: string[];
  props?: Record<string, unknown>;
  has_reactions?: boolean;
}

const PRIORITY_FIELDS = ['priority', 'requested_ack', 'persistent_notifications'] as const;

const postNotFound = () => AppError.notFound('app.post.get.app_error', 'Unable to get the post.');

export function checkMessageLength(message: string): void {
  if (codePointLength(message) > MAX_POST_RUNES) {
    throw AppError.badRequest('model.post.is_valid.message_length.app_error', `Message must be ${MAX_POST_RUNES} characters or fewer.`);
  }
}

export function checkPropsSize(props: Record<string, unknown>): void {
  if (codePointLength(JSON.stringify(props)) > MAX_USER_PROPS_RUNES) {
    throw AppError.badRequest('model.post.is_valid.props.app_error', `Props must be ${MAX_USER_PROPS_RUNES} characters or fewer when serialised.`);
  }
}

/** Texts that can mention someone: the message and, for Slack attachments, their pretext, text and field values. */
export function mentionTexts(post: Post): string[] {
  const texts = [post.message];
  const attachments = post.props.attachments;
  if (Array.isArray(attachments)) {
    for (const a of attachments) {
      if (!a || typeof a !== 'object') continue;
      const att = a as Record<string, unknown>;
      for (const key of ['pretext', 'text']) if (typeof att[key] === 'string') texts.push(att[key] as string);
      if (Array.isArray(att.fields)) for (const f of att.fields) if (f && typeof f.value === 'string') texts.push(f.value);
    }
  }
  return texts;
}

/** One caller's posts for a (group) commit: the posts of one channel and what they change besides themselves. */
export interface PostCommit {
  channel: Channel;
  posts: Post[];
  /** Webhook posts may mention their own creator; ordinary posts never mention their author. */
  allowSelfMention: boolean;
  /** Ordinary posts mark the channel read for their poster; webhook posts do not. */
  markViewed: boolean;
  /**
   * Checked inside the commit's transaction before anything is written; false leaves these posts out (nothing of
   * them is written) and `submit` resolves false. `memo` is shared by the commits of one transaction, so equal checks
   * can run once.
   */
  precondition?: (tx: Stores, memo: Map<string, Promise<unknown>>) => Promise<boolean>;
}

/**
 * Whether the transaction that wrote these commits committed after all (its answer lost with the connection). Post
 * ids are fresh random ids and a transaction is all or nothing, so a commit whose posts are all stored proves it did;
 * the other commits of that transaction wrote nothing (their precondition failed: false). A commit found only in part
 * collided with rows that were there before: no proof of anything.
 */
export async function findCommitted(stores: Stores, commits: Array<{ posts: Post[] }>): Promise<boolean[] | undefined> {
  const found = await stores.posts.existing(commits.flatMap((c) => c.posts.map((p) => p.id)));
  const complete = commits.map((c) => c.posts.length > 0 && c.posts.every((p) => found.has(p.id)));
  return complete.some(Boolean) ? complete : undefined;
}

export class PostsService {
  private readonly authz: Authz;
  readonly group: GroupCommit<PostCommit, boolean>;
  private readonly pending: PendingPosts;

  constructor(private readonly deps: Deps) {
    this.authz = new Authz(deps);
    this.pending = new PendingPosts(() => deps.now());
    this.group = new GroupCommit(deps.stores, (tx, commits) => this.commitBatch(tx, commits), {
      concurrency: deps.stores.concurrentWriters,
      recover: (commits) => findCommitted(deps.stores, commits),
    });
  }

  /**
   * Commits posts through the group commit: concurrent callers share one transaction (one fsync). Resolves true once
   * the transaction holding them has committed, false when their precondition failed and nothing was written.
   */
  submit(commit: PostCommit): Promise<boolean> {
    return this.group.submit(commit);
  }

  private async commitBatch(tx: Stores, commits: PostCommit[]): Promise<boolean[]> {
    const memo = new Map<string, Promise<unknown>>();
    const passed: boolean[] = [];
    for (const c of commits) passed.push(c.precondition ? await c.precondition(tx, memo) : true);
    await this.commitAll(tx, commits.filter((_, i) => passed[i]));
    return passed;
  }

  /**
   * Writes the posts of several commits with everything they change (channel counters, mention counts, the posters'
   * read state) inside `tx`, as few statements as the store can make of them.
   */
  private async commitAll(tx: Stores, commits: PostCommit[]): Promise<void> {
    if (commits.length === 0) return;
    const config = this.deps.config.get();
    const now = this.deps.now();
    // Members are read only for a channel where someone can be mentioned: most posts name nobody, and in a direct
    // channel the other member is always mentioned. Read once per channel per transaction.
    const audiences = new Map<string, Promise<ChannelAudience['members']>>();
    const writes: PostWrite[] = [];
    for (const c of commits) {
      const mentions = new Map<string, { all: number; root: number }>();
      for (const post of c.posts) {
        const keys = parseMentions(mentionTexts(post));
        if (c.channel.type !== 'D' && !keys.channel && !keys.all && !keys.here && keys.usernames.size === 0) continue;
        let members = audiences.get(c.channel.id);
        if (!members) {
          members = tx.channels.audience(c.channel.id);
          audiences.set(c.channel.id, members);
        }
        const mentioned = mentionedMembers(keys, { channelType: c.channel.type, members: await members }, {
          posterId: post.user_id,
          allowSelf: c.allowSelfMention,
          maxChannelWide: config.TeamSettings.MaxNotificationsPerChannel,
          now,
        });
        for (const userId of mentioned) {
          const n = mentions.get(userId) ?? { all: 0, root: 0 };
          n.all++;
          if (post.root_id === '') n.root++;
          mentions.set(userId, n);
        }
      }
      writes.push({ channelId: c.channel.id, posts: c.posts, mentions, viewedBy: c.markViewed ? c.posts[0]?.user_id : undefined });
    }
    await tx.posts.writeMany(writes);
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
    if (input.file_ids && input.file_ids.length > 0) {
      throw AppError.badRequest('api.post.create_post.file_ids.app_error', 'File attachments are not supported by this server.');
    }
    const props: Record<string, unknown> = { ...(input.props ?? {}) };
    for (const key of SERVER_PROPS) delete props[key];
    checkPropsSize(props);
    const rootId = input.root_id ?? '';
    if (rootId) await this.checkRoot(rootId, channel.id);
    const metadata: PostMetadata = {};
    if (input.metadata?.priority) {
      if (rootId) throw AppError.badRequest('api.post.create_post.post_priority.reply_not_allowed', 'Post priority can only be set on root posts.');
      // Only the known fields: anything else a client adds would be stored and served back to everyone.
      const given = input.metadata.priority;
      metadata.priority = Object.fromEntries(PRIORITY_FIELDS.filter((k) => given[k] !== undefined).map((k) => [k, given[k]]));
    }
    const write = async () => {
      const post = newPost(
        { user_id: session.userId, channel_id: channel.id, message: input.message, root_id: rootId, props, pending_post_id: input.pending_post_id ?? '', metadata },
        this.deps.now(),
      );
      await this.submit({ channel, posts: [post], allowSelfMention: false, markViewed: true });
      return post;
    };
    if (!input.pending_post_id) return write();
    // A retry of a post already made (same author, same pending id) gets that post back, not a second copy. The
    // request's own checks ran first: a retry must still be allowed to post here.
    const alive = async (id: string) => {
      const post = await stores.posts.get(id);
      return post && post.delete_at === 0 ? post : undefined;
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

  private async withReplyStats(posts: Post[]): Promise<Post[]> {
    const roots = posts.filter((p) => p.root_id === '').map((p) => p.id);
    const stats = await this.deps.stores.posts.replyStats(roots);
    return posts.map((p) => {
      const s = stats.get(p.root_id || p.id);
      return s ? { ...p, reply_count: s.count, last_reply_at: s.last } : p;
    });
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

  async forChannel(
    channelId: string,
    q: { page: number; perPage: number; since?: number; before?: string; after?: string; includeDeleted: boolean; fetchThreads: boolean },
    session: Session,
  ): Promise<PostList> {
    const { stores } = this.deps;
    const channel = await stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    const includeDeleted = q.includeDeleted && this.authz.system(session, 'manage_system');
    const cursor = { channelId, page: q.page, perPage: q.perPage, includeDeleted };
    let posts: Post[];
    if (q.since !== undefined) {
      posts = (await stores.posts.since(channelId, q.since, 1000)).reverse();
    } else if (q.before || q.after) {
      const anchorId = (q.before || q.after) as string;
      const anchor = await stores.posts.get(anchorId);
      if (!anchor || anchor.channel_id !== channelId) throw AppError.invalidParam(q.before ? 'before' : 'after');
      posts = await stores.posts.around(cursor, anchor, q.before ? 'before' : 'after');
      if (!q.before) posts.reverse();
    } else {
      posts = await stores.posts.page(cursor);
    }
    const list: PostList = { order: posts.map((p) => p.id), posts: {}, next_post_id: '', prev_post_id: '', has_next: false };
    if (posts.length > 0 && q.since === undefined) {
      const newest = posts[0];
      const oldest = posts[posts.length - 1];
      list.next_post_id = await stores.posts.neighbourId(channelId, newest, 'after');
      list.prev_post_id = await stores.posts.neighbourId(channelId, oldest, 'before');
      list.has_next = list.prev_post_id !== '';
    }
    // Replies in the page come with their root posts (outside `order`), so clients can render the threads.
    let all = posts;
    if (q.fetchThreads) {
      const present = new Set(posts.map((p) => p.id));
      const missingRoots = [...new Set(posts.map((p) => p.root_id).filter((id) => id && !present.has(id)))];
      all = [...posts, ...(await stores.posts.getMany(missingRoots)).filter((p) => p.delete_at === 0 || includeDeleted)];
    }
    for (const p of await this.withReplyStats(all)) list.posts[p.id] = p;
    return list;
  }

  async patch(postId: string, patch: PostPatch, session: Session): Promise<Post> {
    const { stores } = this.deps;
    const { post, channel } = await this.readable(postId, session, false);
    const own = post.user_id === session.userId;
    await this.authz.requireChannel(session, channel, own ? 'edit_post' : 'edit_others_posts');
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
    if (patch.file_ids !== undefined && patch.file_ids.length > 0) {
      throw AppError.badRequest('api.post.create_post.file_ids.app_error', 'File attachments are not supported by this server.');
    }
    await stores.posts.update(post.id, fields);
    const [updated] = await this.withReplyStats([{ ...post, ...fields }]);
    return updated;
  }

  async delete(postId: string, session: Session): Promise<void> {
    const { stores } = this.deps;
    const { post, channel } = await this.readable(postId, session, false);
    await this.authz.requireChannel(session, channel, post.user_id === session.userId ? 'delete_post' : 'delete_others_posts');
    await stores.posts.softDelete(post, await this.changeTime(post));
  }

  async thread(
    postId: string,
    q: { perPage: number; fromCreateAt: number; fromPost: string; direction: string },
    session: Session,
  ): Promise<PostList> {
    const { stores } = this.deps;
    const { post } = await this.readable(postId, session, false);
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
    for (const p of await this.withReplyStats(posts)) list.posts[p.id] = p;
    return list;
  }
}
