import type { Channel, Post } from '../model';
import type { Stores, TxStores } from '../store';
import { GroupCommit } from '../store/group-commit';
import type { PostWrite } from '../store/posts-store';
import type { Deps } from './deps';
import { type ChannelAudience, mentionedMembers, parseMentions } from './mentions';
import { writeThreads } from './thread-writes';

/** Texts that can mention someone: the message and, for Slack attachments, their pretext, text and field values. */
export function mentionTexts(post: Pick<Post, 'message' | 'props'>): string[] {
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
  precondition?: (tx: TxStores, memo: Map<string, Promise<unknown>>) => Promise<boolean>;
  /**
   * A webhook request's Idempotency-Key, recorded with these posts' ids in the same transaction: stored if and only if
   * the posts are. A concurrent claim of the same key by another process fails the transaction (a duplicate key);
   * the caller then replays the winner's answer.
   */
  idempotency?: { hookId: string; keyHash: string; expiredBefore: number };
  /** Filled by the writer: the users each post mentions (post id → user ids), for the `posted` event. */
  mentioned?: Map<string, string[]>;
  /** Filled by the writer for replies: thread id → users who started following it with them (thread_updated). */
  newFollowers?: Map<string, Set<string>>;
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
 * The write path of every post (API and webhook): a group commit, so concurrent callers share one transaction (one
 * fsync), with everything a post changes besides itself (channel counters, mention counts, the poster's read state)
 * written in the same transaction.
 */
export class PostWriter {
  readonly group: GroupCommit<PostCommit, boolean>;
  /** Told of every commit that committed and holds replies (the threads' events); set by the composition root. */
  onReplies?: (commit: PostCommit) => void;

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
    const committed = await this.group.submit(commit);
    if (committed && this.onReplies && commit.posts.some((p) => p.root_id !== '')) this.onReplies(commit);
    return committed;
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
    const config = this.deps.config.get();
    const now = this.deps.now();
    // Members are read only for a channel where someone can be mentioned: most posts name nobody, and in a direct
    // channel the other member is always mentioned. Read once per channel per transaction.
    const audiences = new Map<string, Promise<ChannelAudience['members']>>();
    const writes: PostWrite[] = [];
    for (const c of commits) {
      const mentions = new Map<string, { all: number; root: number }>();
      c.mentioned = new Map();
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
        c.mentioned.set(post.id, [...mentioned]);
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
    // Replies only: a commit of root posts (the webhook hot path) does no thread work at all.
    if (commits.some((c) => c.posts.some((p) => p.root_id !== ''))) {
      const audience = (channelId: string) => {
        let members = audiences.get(channelId);
        if (!members) {
          members = tx.channels.audience(channelId);
          audiences.set(channelId, members);
        }
        return members;
      };
      await writeThreads(tx, commits, { now, maxChannelWide: config.TeamSettings.MaxNotificationsPerChannel, mentionTexts, audience });
    }
    for (const c of commits) {
      if (c.idempotency) await tx.webhooks.recordIdempotency({ ...c.idempotency, postIds: c.posts.map((p) => p.id), now });
    }
  }
}
