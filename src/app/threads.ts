import { isValidId } from '../lib/ids';
import {
  AppError,
  THREAD_LIMITS,
  type Channel,
  type FollowedThread,
  type Post,
  type Session,
  type ThreadListQuery,
  type ThreadRecord,
  type UserThread,
  type UserThreadList,
} from '../model';
import type { TxStores } from '../store';
import { Authz } from './authz';
import type { Deps } from './deps';
import { isSystemAdmin } from './permissions';
import { PostNotifier } from './post-notifications';
import type { PostCommit } from './post-writer';
import type { Realtime, UserEvent } from './realtime';
import { sanitizeUser } from './sanitize';

/** GetUserThreads' query as the handler reads it (Mattermost's parameters, unvalidated). */
export interface ThreadListInput {
  before?: string;
  after?: string;
  perPage?: number;
  extended?: boolean;
  deleted?: boolean;
  unread?: boolean;
  since?: number;
  totalsOnly?: boolean;
  threadsOnly?: boolean;
}

/** How many replies after a read time have their mentions counted again (the oldest ones). */
const MENTION_RECOUNT_MAX = 1000;

const threadNotFound = () => AppError.notFound('app.user.get_threads_for_user.not_found', 'Thread not found or not followed.');

/** A deleted root as readers see it in a thread: that it was deleted, not what it said. */
function emptied(post: Post): Post {
  if (post.delete_at === 0) return post;
  const { has_reactions: _, ...rest } = post;
  return { ...rest, message: '', props: {}, file_ids: [], hashtags: '', metadata: {} };
}

/**
 * Collapsed reply threads: the threads a user follows and their read state (Mattermost's ThreadMemberships), read and
 * changed through the API, and the thread events to the user's own sockets. The counters themselves move with each
 * reply in the post writer's transaction (thread-writes.ts).
 */
export class ThreadsService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
  }

  private get enabled(): boolean {
    return this.deps.config.get().ServiceSettings.CollapsedThreads !== 'disabled';
  }

  /** Mattermost's SessionHasPermissionToUser: oneself, or edit_other_users for anyone else. */
  private requireUser(userId: string, session: Session): void {
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
  }

  /** Mattermost's SessionHasPermissionToChannelByPost: a post that does not exist is a 403 as one not readable. */
  private async readablePost(postId: string, session: Session): Promise<{ post: Post; channel: Channel }> {
    const post = isValidId(postId) ? await this.deps.stores.posts.get(postId) : undefined;
    const channel = post ? await this.deps.stores.channels.get(post.channel_id) : undefined;
    if (!post || !channel || !(await this.authz.channel(session, channel, 'read_channel'))) throw AppError.forbidden('read_channel');
    return { post, channel };
  }

  async list(userId: string, teamId: string, input: ThreadListInput, session: Session): Promise<UserThreadList> {
    this.requireUser(userId, session);
    await this.authz.requireTeam(session, teamId, 'view_team');
    const before = input.before ?? '';
    const after = input.after ?? '';
    if (before !== '' && after !== '') throw AppError.badRequest('api.getThreadsForUser.bad_params', 'Before and after cannot be used together.');
    if (input.totalsOnly && input.threadsOnly) throw AppError.badRequest('api.getThreadsForUser.bad_only_params', 'totalsOnly and threadsOnly cannot be used together.');
    const given = input.perPage ?? THREAD_LIMITS.perPageDefault;
    const perPage = given === 0 ? THREAD_LIMITS.perPageWhenZero : Math.min(given, THREAD_LIMITS.perPageMax);
    const q: ThreadListQuery = { teamId, perPage, before, after, unread: input.unread === true, deleted: input.deleted === true, since: input.since ?? 0 };
    const { stores } = this.deps;
    const result: UserThreadList = { total: 0, total_unread_threads: 0, total_unread_mentions: 0, total_unread_urgent_mentions: 0, threads: [] };
    if (!input.threadsOnly) {
      const t = await stores.threads.totals(userId, teamId, q.deleted);
      result.total = q.unread ? t.unreadThreads : t.total;
      result.total_unread_threads = t.unreadThreads;
      result.total_unread_mentions = t.unreadMentions;
      result.total_unread_urgent_mentions = t.unreadUrgentMentions;
    }
    if (!input.totalsOnly) result.threads = await this.responses(await stores.threads.list(userId, q), input.extended === true, session);
    return result;
  }

  /** The participants of these threads as whole users, sanitized for the viewer (one read for all of them). */
  private async participantUsers(threads: ThreadRecord[], session: Session | null): Promise<Map<string, UserThread['participants'][number]>> {
    const users = new Map<string, UserThread['participants'][number]>();
    const ids = [...new Set(threads.flatMap((t) => t.participants))];
    if (ids.length === 0) return users;
    const config = this.deps.config.get();
    const viewer = session ? { userId: session.userId, isAdmin: isSystemAdmin(session.roles) } : null;
    for (const u of await this.deps.stores.users.getMany(ids)) users.set(u.id, sanitizeUser(u, viewer, config));
    return users;
  }

  /**
   * Root posts as collapsed-thread reads serve them (Mattermost's threaded response): each with its thread's reply
   * count, last reply time and participants ({id} each, or whole sanitized users when `extended`; none on a root
   * without replies), and `is_following` for `userId` wherever they have a membership of the thread (following or
   * not; absent without one, as Mattermost's outer join leaves it). Replies pass unchanged. Two keyed reads, and one
   * of users when extended.
   */
  async onRoots(posts: Post[], userId: string, extended: boolean, session: Session): Promise<Post[]> {
    const rootIds = posts.filter((p) => p.root_id === '').map((p) => p.id);
    if (rootIds.length === 0) return posts;
    const { stores } = this.deps;
    const threads = await stores.threads.getMany(rootIds);
    const memberships = await stores.threads.memberships(userId, rootIds);
    const users = extended ? await this.participantUsers([...threads.values()], session) : new Map<string, UserThread['participants'][number]>();
    return posts.map((p) => {
      if (p.root_id !== '') return p;
      const t = threads.get(p.id);
      const m = memberships.get(p.id);
      const out: Post = { ...p, reply_count: t?.reply_count ?? 0, last_reply_at: t?.last_reply_at ?? 0 };
      if (t) out.participants = t.participants.flatMap((id) => (extended ? (users.has(id) ? [users.get(id)!] : []) : [{ id }]));
      if (m) out.is_following = m.following;
      return out;
    });
  }

  /** Threads as served: each with its root post and its participants ({id}, or whole users when extended). */
  private async responses(threads: FollowedThread[], extended: boolean, session: Session | null): Promise<UserThread[]> {
    if (threads.length === 0) return [];
    const { stores } = this.deps;
    const posts = new Map((await stores.posts.getMany(threads.map((t) => t.post_id))).map((p) => [p.id, p]));
    const users = extended ? await this.participantUsers(threads, session) : new Map<string, UserThread['participants'][number]>();
    const out: UserThread[] = [];
    for (const t of threads) {
      const post = posts.get(t.post_id);
      if (!post) continue;
      out.push({
        id: t.post_id,
        reply_count: t.reply_count,
        last_reply_at: t.last_reply_at,
        last_viewed_at: t.last_viewed,
        participants: t.participants.flatMap((id) => (extended ? (users.has(id) ? [users.get(id)!] : []) : [{ id }])),
        post: emptied({ ...post, reply_count: t.reply_count, last_reply_at: t.last_reply_at }),
        unread_replies: t.unread_replies,
        unread_mentions: t.unread_mentions,
        is_urgent: t.is_urgent,
        delete_at: t.delete_at,
      });
    }
    return out;
  }

  /** GetThreadForUser: the user's membership must exist and follow a thread that has replies. */
  private async followedThread(userId: string, threadId: string, extended: boolean, session: Session | null): Promise<UserThread> {
    const { stores } = this.deps;
    const membership = await stores.threads.membership(userId, threadId);
    if (!membership) throw AppError.notFound('app.user.get_thread_membership_for_user.not_found', 'Thread membership not found.');
    if (!membership.following) throw threadNotFound();
    const followed = await stores.threads.followedOne(userId, threadId);
    const [thread] = followed ? await this.responses([followed], extended, session) : [];
    if (!thread) throw threadNotFound();
    return thread;
  }

  async get(userId: string, threadId: string, extended: boolean, session: Session): Promise<UserThread> {
    this.requireUser(userId, session);
    await this.readablePost(threadId, session);
    return this.followedThread(userId, threadId, extended, session);
  }

  /** StartFollowingThread / StopFollowingThread: following also reads the thread as of now (Mattermost's). */
  async setFollowing(userId: string, teamId: string, threadId: string, following: boolean, session: Session): Promise<void> {
    this.requireUser(userId, session);
    await this.readablePost(threadId, session);
    const { stores } = this.deps;
    const now = this.deps.now();
    const current = await stores.threads.membership(userId, threadId);
    const m = current ?? { post_id: threadId, user_id: userId, following, last_viewed: 0, last_updated: now, unread_mentions: 0 };
    if (!current || current.following !== following || following) {
      m.following = following;
      if (following) {
        m.last_viewed = now;
        m.unread_mentions = 0;
      }
      m.last_updated = now;
      await stores.threads.saveMembership(m);
    }
    const thread = await stores.threads.get(threadId);
    this.realtime.userEvents(() => [{ event: 'thread_follow_changed', userId, teamId, data: { thread_id: threadId, state: following, reply_count: thread?.reply_count ?? 0 } }]);
  }

  /** UpdateThreadReadForUser: read up to `timestamp`, following again, mentions after it counted again. */
  async readUntil(userId: string, teamId: string, threadId: string, timestamp: number, session: Session): Promise<UserThread> {
    this.requireUser(userId, session);
    const { post, channel } = await this.readablePost(threadId, session);
    return this.markRead(userId, teamId, post, channel, timestamp, session);
  }

  /** SetThreadUnreadByPostId: unread from the post on (read until just before it). */
  async unreadFrom(userId: string, teamId: string, threadId: string, postId: string, session: Session): Promise<UserThread> {
    this.requireUser(userId, session);
    const { post: root, channel } = await this.readablePost(threadId, session);
    const post = isValidId(postId) ? await this.deps.stores.posts.get(postId) : undefined;
    if (!post || post.delete_at !== 0) throw AppError.notFound('app.post.get.app_error', 'Unable to get the post.');
    if (post.root_id !== threadId && post.id !== threadId) {
      throw AppError.badRequest('app.user.update_thread_read_for_user_by_post.app_error', 'The post is not part of the thread.');
    }
    return this.markRead(userId, teamId, root, channel, post.create_at - 1, session);
  }

  private async markRead(userId: string, teamId: string, root: Post, channel: Channel, timestamp: number, session: Session): Promise<UserThread> {
    const { stores } = this.deps;
    const now = this.deps.now();
    const before = await stores.threads.followedOne(userId, root.id);
    const mentions = await this.countMentions(userId, root, channel, timestamp);
    await stores.threads.saveMembership({ post_id: root.id, user_id: userId, following: true, last_viewed: timestamp, last_updated: now, unread_mentions: mentions });
    const thread = await this.followedThread(userId, root.id, false, session);
    this.realtime.userEvents(() => [
      {
        event: 'thread_read_changed',
        userId,
        teamId,
        data: {
          thread_id: root.id,
          timestamp,
          unread_mentions: thread.unread_mentions,
          unread_replies: thread.unread_replies,
          previous_unread_mentions: before?.unread_mentions ?? 0,
          previous_unread_replies: before?.unread_replies ?? 0,
          channel_id: channel.id,
        },
      },
    ]);
    return thread;
  }

  /** The replies after `after` that mention the user (Mattermost's countThreadMentions), by the post writer's rule. */
  private async countMentions(userId: string, root: Post, channel: Channel, after: number): Promise<number> {
    const replies = await this.deps.stores.threads.repliesAfter(root.id, after, MENTION_RECOUNT_MAX);
    if (replies.length === 0) return 0;
    const notifier = new PostNotifier(this.deps.stores, this.deps);
    let n = 0;
    for (const reply of replies) {
      const post = { id: '', channel_id: channel.id, root_id: root.id, type: '', ...reply };
      if ((await notifier.mentioned(post, channel)).includes(userId)) n++;
    }
    return n;
  }

  /** UpdateThreadsReadForUser: everything read as of now. */
  async readAll(userId: string, teamId: string, session: Session): Promise<void> {
    this.requireUser(userId, session);
    await this.authz.requireTeam(session, teamId, 'view_team');
    await this.deps.stores.threads.readAll(userId, teamId, this.deps.now());
    this.realtime.userEvents(() => [{ event: 'thread_read_changed', userId, teamId, data: {} }]);
  }

  /**
   * A reply was deleted, inside its transaction: the thread's counters, and the unread mentions it had given to users
   * who had not read past it (Mattermost's RemoveNotifications). Returns who lost one, for thread_updated.
   */
  async replyDeleted(tx: TxStores, reply: Post, channel: Channel): Promise<string[]> {
    await tx.threads.replyDeleted(reply.root_id, reply.user_id);
    const mentioned = [...(await new PostNotifier(tx, this.deps).mentioned(reply, channel))].sort();
    const now = this.deps.now();
    await tx.threads.removeMentions(reply.root_id, mentioned, reply.create_at, now);
    return mentioned;
  }

  /** thread_updated to some of a thread's followers (all of them when `only` is absent), as each follows it. */
  publishUpdated(rootId: string, teamId: string, previous: (f: { user_id: string; unread_replies: number; unread_mentions: number }) => { replies: number; mentions: number }, only?: Set<string>): void {
    if (!this.enabled) return;
    this.realtime.userEvents(async (): Promise<UserEvent[]> => {
      const { stores } = this.deps;
      const followers = (await stores.threads.followers(rootId)).filter((f) => !only || only.has(f.user_id));
      const thread = followers.length > 0 ? await stores.threads.get(rootId) : undefined;
      if (!thread) return [];
      const base = followers.map((f) => ({ ...thread, last_viewed: f.last_viewed, unread_mentions: f.unread_mentions, unread_replies: f.unread_replies }));
      const responses = await this.responses(base, true, null);
      return responses.map((r, i) => {
        const f = followers[i];
        const p = previous(f);
        return { event: 'thread_updated', userId: f.user_id, teamId, data: { thread: JSON.stringify(r), previous_unread_replies: p.replies, previous_unread_mentions: p.mentions } };
      });
    });
  }

  /** After a commit with replies: thread_updated to every follower of each thread replied to. */
  repliesCommitted(commit: PostCommit): void {
    const byRoot = new Map<string, Post[]>();
    for (const p of commit.posts) if (p.root_id !== '') byRoot.set(p.root_id, [...(byRoot.get(p.root_id) ?? []), p]);
    for (const [rootId, replies] of byRoot) {
      const started = commit.newFollowers?.get(rootId) ?? new Set<string>();
      const mentionsOf = (userId: string) => replies.filter((r) => commit.mentioned?.get(r.id)?.includes(userId)).length;
      this.publishUpdated(rootId, commit.channel.team_id, (f) =>
        started.has(f.user_id)
          ? { replies: 0, mentions: 0 }
          : { replies: Math.max(f.unread_replies - replies.length, 0), mentions: Math.max(f.unread_mentions - mentionsOf(f.user_id), 0) },
      );
    }
  }

  /** Unread followed threads and their mentions per team, for GetTeamsUnreadForUser with include_collapsed_threads. */
  async teamUnreads(userId: string, teamIds: string[]): Promise<Map<string, { threads: number; mentions: number; urgent: number }>> {
    return this.deps.stores.threads.teamUnreads(userId, teamIds);
  }
}
