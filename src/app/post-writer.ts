import type { Channel, Post, PostOrigin, SealedActions } from '../model';
import type { Stores, TxStores } from '../store';
import { GroupCommit } from '../store/group-commit';
import type { PostWrite } from '../store/posts-store';
import { sealActions } from './attachment-actions';
import type { Deps } from './deps';
import { sendEphemeral } from './ephemeral';
import { queueEmailNotifications } from './email-notifications';
import type { NotifyDecision } from './notify-rules';
import { PostNotifier, keywordIndexFor } from './post-notifications';
import { writeThreads } from './thread-writes';

export { mentionTexts } from './notify-rules';

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
  precondition?: (tx: TxStores, memo: Map<string, Promise<unknown>>) => Promise<boolean>;
  /**
   * A webhook request's Idempotency-Key, recorded with these posts' ids in the same transaction: stored if and only if
   * the posts are. A concurrent claim of the same key by another process fails the transaction (a duplicate key);
   * the caller then replays the winner's answer.
   */
  idempotency?: { hookId: string; keyHash: string; expiredBefore: number };
  /** Filled by the writer: the users each post mentions (post id → user ids), for the `posted` event. */
  mentioned?: Map<string, string[]>;
  /**
   * Filled by the writer, threads collapsed: the followers each reply is told to (post id → user ids; replies followed
   * by anyone), for the `posted` event's `followers`.
   */
  followers?: Map<string, string[]>;
  /**
   * Filled by the writer inside the transaction: post id → who it notifies (notify-rules.ts), for the posts that can
   * notify anyone (absent: nobody).
   */
  notifications?: Map<string, NotifyDecision>;
  /** Filled by the writer for replies: thread id → users who started following it with them (thread_updated). */
  newFollowers?: Map<string, Set<string>>;
  /** Set by the writer: its transaction recorded notification emails (the email worker is woken after commit). */
  emailQueued?: boolean;
  /**
   * Posts made through CreatePost (Mattermost's TriggerWebhooks): only these fire outgoing webhooks. Webhook posts,
   * integrations' replies, edits and system posts leave it unset, so no hook can call itself in a loop.
   */
  triggerWebhooks?: boolean;
  /** Set inside the transaction: outgoing webhook calls were queued with these posts (the worker is woken after commit). */
  outgoingQueued?: boolean;
  /**
   * The integration that made these posts (an incoming webhook, an outgoing webhook's or a command's reply): their
   * interactive actions' calls are signed with its secret. Set by the producer; never from a client.
   */
  origin?: PostOrigin;
  /**
   * Set by the writer before the commit: the private part of the posts' interactive actions (post id → integrations),
   * taken out of their props (attachment-actions.ts) and stored beside them in the same transaction.
   */
  sealed?: Map<string, SealedActions>;
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

/**
 * Threads collapsed: each reply decided again with its thread's followers as this transaction leaves them (Mattermost
 * reads them after following the thread for the root's author, the replier and whoever is mentioned), one read per
 * thread. Only who follows changes: the mentions, already counted, stay the same.
 */
async function tellFollowers(notifier: PostNotifier, commits: PostCommit[]): Promise<void> {
  for (const c of commits) {
    for (const post of c.posts) {
      if (post.root_id === '') continue;
      const decision = await notifier.decide(post, c.channel, await notifier.followersOf(post.root_id));
      if (!decision) continue;
      c.notifications?.set(post.id, decision);
      if (decision.followers) c.followers?.set(post.id, decision.followers);
    }
  }
}

/**
 * The write path of every post (API and webhook): a group commit, so concurrent callers share one transaction (one
 * fsync), with everything a post changes besides itself (channel counters, mention counts, the poster's read state)
 * written in the same transaction.
 */
export class PostWriter {
  readonly group: GroupCommit<PostCommit, boolean>;
  /** Told of every commit that committed and holds replies (the threads' events); set by the composition root. */
  onReplies?: (commit: PostCommit) => void;
  /** Told when a committed transaction recorded notification emails (wakes the email worker); set by the composition root. */
  onEmailQueued?: () => void;
  /**
   * Queues the outgoing webhook calls of commits that trigger webhooks, inside their transaction (outgoing-hooks.ts);
   * set by the composition root.
   */
  queueOutgoing?: (tx: TxStores, commits: PostCommit[]) => Promise<void>;
  /** Told when a committed transaction queued outgoing webhook calls (wakes the delivery worker). */
  onOutgoingQueued?: () => void;

  constructor(private readonly deps: Deps) {
    this.group = new GroupCommit(deps.stores, (tx, commits) => this.commitBatch(tx, commits), {
      concurrency: deps.stores.concurrentWriters,
      recover: (commits) => findCommitted(deps.stores, commits),
    });
  }

  /**
   * Commits posts through the group commit. Resolves true once the transaction holding them has committed, false
   * when their precondition failed and nothing was written.
   */
  async submit(commit: PostCommit): Promise<boolean> {
    this.seal(commit);
    await keywordIndexFor(this.deps.stores).refresh();
    const committed = await this.group.submit(commit);
    if (committed && this.onReplies && commit.posts.some((p) => p.root_id !== '')) this.onReplies(commit);
    if (committed && commit.emailQueued) this.onEmailQueued?.();
    if (committed && commit.outgoingQueued) this.onOutgoingQueued?.();
    if (committed) this.warnChannelWideDropped(commit);
    return committed;
  }

  /**
   * Every post leaves here without its actions' integrations (URL and context): the props written, returned and
   * published are the sealed ones, so no read of a post can show them. Once per commit, outside the transaction (a
   * retried transaction writes the same ids).
   */
  private seal(commit: PostCommit): void {
    if (commit.sealed) return;
    for (const post of commit.posts) {
      const split = sealActions(post.props, commit.origin);
      if (!split) continue;
      post.props = split.props;
      (commit.sealed ??= new Map()).set(post.id, split.sealed);
    }
  }

  /** A channel-wide mention the channel is too large for reached nobody: its poster is told (Mattermost's warning). */
  private warnChannelWideDropped(commit: PostCommit): void {
    for (const post of commit.posts) {
      const dropped = commit.notifications?.get(post.id)?.channelWideSuppressed;
      if (!dropped) continue;
      const max = this.deps.config.get().TeamSettings.MaxNotificationsPerChannel;
      const message = `${dropped} has been disabled because the channel has more than ${max} users.`;
      sendEphemeral(this.deps, post.user_id, { channel_id: post.channel_id, root_id: post.root_id, message });
    }
  }

  private async commitBatch(tx: TxStores, commits: PostCommit[]): Promise<boolean[]> {
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
  private async commitAll(tx: TxStores, commits: PostCommit[]): Promise<void> {
    if (commits.length === 0) return;
    const now = this.deps.now();
    // Members are read only for posts that can notify someone (notify-rules.ts), once per channel per transaction.
    const notifier = new PostNotifier(tx, this.deps);
    const writes: PostWrite[] = [];
    for (const c of commits) {
      const mentions = new Map<string, { all: number; root: number }>();
      c.mentioned = new Map();
      c.followers = new Map();
      c.notifications = new Map();
      for (const post of c.posts) {
        const decision = await notifier.decide(post, c.channel);
        if (!decision) continue;
        c.notifications.set(post.id, decision);
        c.mentioned.set(post.id, decision.mentioned);
        for (const userId of decision.mentioned) {
          const n = mentions.get(userId) ?? { all: 0, root: 0 };
          n.all++;
          if (post.root_id === '') n.root++;
          mentions.set(userId, n);
        }
      }
      writes.push({ channelId: c.channel.id, posts: c.posts, mentions, viewedBy: c.markViewed ? c.posts[0]?.user_id : undefined });
    }
    await tx.posts.writeMany(writes);
    const sealed = commits.flatMap((c) => (c.sealed ? [...c.sealed].map(([postId, s]) => ({ postId, sealed: s })) : []));
    if (sealed.length > 0) await tx.postActions.insertMany(sealed);
    // Replies only: a commit of root posts (the webhook hot path) does no thread work at all.
    if (commits.some((c) => c.posts.some((p) => p.root_id !== ''))) {
      await writeThreads(tx, commits, { now, mentioned: (post, channel) => notifier.mentioned(post, channel) });
      if (notifier.threadsCollapsed) await tellFollowers(notifier, commits);
    }
    for (const c of commits) {
      if (c.idempotency) await tx.webhooks.recordIdempotency({ ...c.idempotency, postIds: c.posts.map((p) => p.id), now });
    }
    // Outgoing webhook calls, queued with the posts that make them: a 201 means the calls will be made.
    const firing = commits.filter((c) => c.triggerWebhooks);
    if (firing.length > 0 && this.queueOutgoing) await this.queueOutgoing(tx, firing);
    // Notification emails, recorded with the posts they are about (no statement when nobody gets one).
    const emailQueued = await queueEmailNotifications(tx, commits, now);
    for (const c of commits) c.emailQueued = emailQueued;
  }
}
