import type { Knex } from 'knex';

// Collapsed reply threads, as Mattermost keeps them: `threads`, one row per root post that has (had) replies, kept by
// the post writer in the transaction of each reply (and by reply deletion); `thread_memberships`, one row per user
// and thread they follow or once followed. Unread replies are not stored: they are the thread's replies newer than
// the membership's last_viewed, counted when read.
//
// Threads started before this migration are built from the posts (bounded batches of root posts), so they show up in
// the apps' Threads view; their followers (root author and repliers) start with everything read, as Mattermost marks
// existing threads read when collapsed threads are first turned on, instead of an influx of unread threads.

const BATCH = 500;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('threads', (t) => {
    t.string('post_id', 26).primary();
    t.string('channel_id', 26).notNullable();
    // The channel's team ('' for direct and group channels), copied here as Mattermost's ThreadTeamId: a team's
    // threads list and read-all filter on it without joining channels.
    t.string('team_id', 26).notNullable().defaultTo('');
    t.integer('reply_count').notNullable().defaultTo(0);
    t.bigInteger('last_reply_at').notNullable().defaultTo(0);
    // A JSON array of user ids, oldest replier first; at most one entry per channel member.
    t.text('participants', 'mediumtext').notNullable();
    // The root post's delete_at: a deleted root hides its thread from lists (unless deleted=true).
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    // The root post asked for urgent priority (metadata.priority.priority = "urgent").
    t.boolean('is_urgent').notNullable().defaultTo(false);
    t.index(['channel_id'], 'idx_threads_channel');
  });
  await knex.schema.createTable('thread_memberships', (t) => {
    t.string('post_id', 26).notNullable();
    t.string('user_id', 26).notNullable();
    t.boolean('following').notNullable().defaultTo(true);
    t.bigInteger('last_viewed').notNullable().defaultTo(0);
    t.bigInteger('last_updated').notNullable().defaultTo(0);
    t.integer('unread_mentions').notNullable().defaultTo(0);
    // The thread's followers (events after a reply) by the primary key; a user's threads by the second index.
    t.primary(['post_id', 'user_id']);
    t.index(['user_id', 'following'], 'idx_thread_memberships_user');
  });
  await backfill(knex);
}

type Row = Record<string, unknown>;
const n = (v: unknown) => Number(v ?? 0);
const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));

function isUrgent(metadata: unknown): boolean {
  if (typeof metadata !== 'string' || metadata === '') return false;
  try {
    return (JSON.parse(metadata) as { priority?: { priority?: unknown } }).priority?.priority === 'urgent';
  } catch {
    return false;
  }
}

/** Builds the threads of the root posts that have replies, BATCH roots at a time in root id order. */
async function backfill(knex: Knex): Promise<void> {
  const now = Date.now();
  let after = '';
  for (;;) {
    const rootIds = ((await knex('posts').where('root_id', '>', after).distinct('root_id').orderBy('root_id').limit(BATCH)) as Row[]).map((r) => s(r.root_id));
    if (rootIds.length === 0) return;
    after = rootIds[rootIds.length - 1];
    const roots = (await knex('posts as p')
      .leftJoin('channels as c', 'c.id', 'p.channel_id')
      .whereIn('p.id', rootIds)
      .where('p.root_id', '')
      .select('p.id', 'p.channel_id', 'p.user_id', 'p.delete_at', 'p.metadata', 'c.team_id')
      // from_webhook is a server-set prop (never a client's): a webhook's root post makes its creator no follower.
      .select(knex.raw(`CASE WHEN p.props LIKE '%"from_webhook":"true"%' THEN 1 ELSE 0 END AS from_webhook`))) as Row[];
    if (roots.length === 0) continue;
    const ids = roots.map((r) => s(r.id));
    const stats = new Map<string, { count: number; last: number }>();
    for (const r of (await knex('posts').whereIn('root_id', ids).where('delete_at', 0).groupBy('root_id').select('root_id').count({ c: '*' }).max({ m: 'create_at' })) as Row[]) {
      stats.set(s(r.root_id), { count: n(r.c), last: n(r.m) });
    }
    const participants = new Map<string, string[]>();
    const repliers = (await knex('posts')
      .whereIn('root_id', ids)
      .where('delete_at', 0)
      .groupBy('root_id', 'user_id')
      .select('root_id', 'user_id')
      .max({ m: 'create_at' })
      .orderBy([{ column: 'root_id' }, { column: 'm' }, { column: 'user_id' }])) as Row[];
    for (const r of repliers) participants.set(s(r.root_id), [...(participants.get(s(r.root_id)) ?? []), s(r.user_id)]);
    const threads: Row[] = [];
    const members: Row[] = [];
    for (const root of roots) {
      const id = s(root.id);
      const stat = stats.get(id) ?? { count: 0, last: 0 };
      const people = participants.get(id) ?? [];
      threads.push({
        post_id: id,
        channel_id: s(root.channel_id),
        team_id: s(root.team_id),
        reply_count: stat.count,
        last_reply_at: stat.last,
        participants: JSON.stringify(people),
        delete_at: n(root.delete_at),
        is_urgent: isUrgent(root.metadata),
      });
      const followers = new Set(people);
      if (n(root.from_webhook) === 0) followers.add(s(root.user_id));
      for (const userId of followers) members.push({ post_id: id, user_id: userId, following: true, last_viewed: stat.last, last_updated: now, unread_mentions: 0 });
    }
    await knex.transaction(async (trx) => {
      for (let i = 0; i < threads.length; i += 100) await trx('threads').insert(threads.slice(i, i + 100));
      for (let i = 0; i < members.length; i += 200) await trx('thread_memberships').insert(members.slice(i, i + 200));
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('thread_memberships');
  await knex.schema.dropTableIfExists('threads');
}
