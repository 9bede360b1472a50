import type { Knex } from 'knex';

// One outbox row per recipient and channel in a transaction, listing its posts, instead of one row per post and
// recipient. A row and its three index entries cost about 9 µs on SQLite inside the post's transaction (measured with
// the webhook's writes on a synced WAL database), which was a tenth of the cheapest post when every post mentions
// someone offline; a stream of posts mentioning the same people (a CI webhook's on-call, a busy channel's owner)
// commits dozens of posts per transaction, and now writes one row for them per recipient. The worker still sends
// one email per post (or a batch) and records each send before the next (email-worker.ts).
//
// `post_ids`: the posts' ids in post order, comma-separated (ids are 26 characters of [a-z0-9], no commas; at most
// MAX_POSTS_PER_ROW of them, see email-notifications.ts: far below TEXT's 64 KiB on MySQL). The drop of `post_id` is
// a plain DROP COLUMN on both databases (the column has no index; SQLite 3.35+ drops it in place).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('email_outbox', (t) => {
    t.text('post_ids').notNullable().defaultTo('');
  });
  await knex('email_outbox').update({ post_ids: knex.ref('post_id') });
  await knex.raw('ALTER TABLE email_outbox DROP COLUMN post_id');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('email_outbox', (t) => {
    t.string('post_id', 26).notNullable().defaultTo('');
  });
  // A row listing several posts becomes a row per post again (ids made from the row's, distinct and still sortable).
  const rows = (await knex('email_outbox').select()) as Array<Record<string, unknown>>;
  for (const row of rows) {
    const posts = String(row.post_ids).split(',').filter(Boolean);
    await knex('email_outbox').where('id', String(row.id)).update({ post_id: posts[0] ?? '' });
    // post_ids written as '' (MySQL gives a TEXT column no default); it is dropped next.
    const extra = posts.slice(1).map((postId, i) => ({ ...row, id: `${String(row.id).slice(0, 22)}${String(i).padStart(4, '0')}`, post_id: postId, post_ids: '' }));
    if (extra.length) await knex('email_outbox').insert(extra);
  }
  await knex.raw('ALTER TABLE email_outbox DROP COLUMN post_ids');
}
