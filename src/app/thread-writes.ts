import type { Channel, Post } from '../model';
import type { TxStores } from '../store';

/** One commit's replies as the thread writer needs them. */
export interface ReplyCommit {
  channel: Channel;
  posts: Post[];
  /** Post id → the users the post mentions (the post writer's count, one rule for mentions). */
  mentioned?: Map<string, string[]>;
  /** Ordinary replies mark the thread read for their poster; webhook replies do not. */
  markViewed: boolean;
  /** Filled here: thread id → users who started following it with these replies (their previous counts are 0). */
  newFollowers?: Map<string, Set<string>>;
}

export interface ThreadWriteContext {
  now: number;
  /** The users a post mentions: the post writer's rule (notify-rules.ts), members read once per transaction. */
  mentioned(post: Post, channel: Channel): Promise<string[]>;
}

interface RootGroup {
  channel: Channel;
  replies: Post[];
  mentions: Map<string, number>;
  viewers: Map<string, number>;
  commits: ReplyCommit[];
}

/**
 * What replies change besides themselves, in their own transaction (Mattermost's thread bookkeeping): the thread's
 * counters and participants, and who follows it (the root's author unless a webhook posted it, whoever replies,
 * whoever a reply mentions; on a thread's first reply also whoever the root post mentions), with the mentioned
 * users' unread mentions and the replier's read state. A user who stopped following stays so unless mentioned.
 * Root posts change nothing here: the caller skips this when a commit holds none.
 */
export async function writeThreads(tx: TxStores, commits: ReplyCommit[], ctx: ThreadWriteContext): Promise<void> {
  const groups = new Map<string, RootGroup>();
  for (const c of commits) {
    for (const post of c.posts) {
      if (post.root_id === '') continue;
      let g = groups.get(post.root_id);
      if (!g) {
        g = { channel: c.channel, replies: [], mentions: new Map(), viewers: new Map(), commits: [] };
        groups.set(post.root_id, g);
      }
      g.replies.push(post);
      if (!g.commits.includes(c)) g.commits.push(c);
      for (const userId of c.mentioned?.get(post.id) ?? []) g.mentions.set(userId, (g.mentions.get(userId) ?? 0) + 1);
      if (c.markViewed) g.viewers.set(post.user_id, Math.max(g.viewers.get(post.user_id) ?? 0, post.create_at));
    }
  }
  if (groups.size === 0) return;
  // In id order, as the post writer locks channels: concurrent batches lock threads in the same order.
  const rootIds = [...groups.keys()].sort();
  const existing = await tx.threads.getMany(rootIds);
  const fresh = rootIds.filter((id) => !existing.has(id));
  const roots = new Map((await tx.posts.getMany(fresh)).map((p) => [p.id, p]));
  await tx.threads.ensure(
    fresh.map((id) => {
      const g = groups.get(id)!;
      const priority = roots.get(id)?.metadata.priority as { priority?: unknown } | undefined;
      return { post_id: id, channel_id: g.channel.id, team_id: g.channel.team_id, is_urgent: priority?.priority === 'urgent' };
    }),
  );
  for (const rootId of rootIds) {
    const g = groups.get(rootId)!;
    await tx.threads.addReplies(rootId, g.replies.map((p) => ({ userId: p.user_id, createAt: p.create_at })));
    const candidates = new Set<string>([...g.replies.map((p) => p.user_id), ...g.mentions.keys()]);
    const root = roots.get(rootId);
    if (root) {
      if (root.props.from_webhook !== 'true') candidates.add(root.user_id);
      for (const id of await rootMentions(root, g.channel, ctx)) candidates.add(id);
    }
    const known = await tx.threads.members(rootId, [...candidates]);
    const started = new Set([...candidates].filter((id) => !known.has(id)));
    for (const c of g.commits) {
      c.newFollowers ??= new Map();
      c.newFollowers.set(rootId, started);
    }
    await tx.threads.follow(rootId, [...started], ctx.now);
    await tx.threads.addMentions(rootId, g.mentions, ctx.now);
    for (const [userId, at] of g.viewers) await tx.threads.markViewedByReplier(rootId, userId, at, ctx.now);
  }
}

/** The members a root post mentions (Mattermost counts them as followers; not in direct channels). */
async function rootMentions(root: Post, channel: Channel, ctx: ThreadWriteContext): Promise<Set<string>> {
  if (channel.type === 'D') return new Set();
  return new Set(await ctx.mentioned(root, channel));
}
