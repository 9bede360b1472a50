import type { Knex } from 'knex';

// The web and mobile apps send pending_post_id as "<user id>:<millisecond timestamp>", 40 characters: the 26 of the
// initial schema made MySQL refuse every post they sent. The API allows 64. SQLite does not enforce a VARCHAR's
// length, so only MySQL's column changes (rebuilding a large SQLite posts table for nothing would be slow).

const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await knex.schema.alterTable('posts', (t) => {
    t.string('pending_post_id', 64).notNullable().defaultTo('').alter();
  });
}

export async function down(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  // Narrowing would fail on stored longer values; they are cut to what the old column holds.
  await knex('posts').whereRaw('CHAR_LENGTH(pending_post_id) > 26').update({ pending_post_id: knex.raw('LEFT(pending_post_id, 26)') });
  await knex.schema.alterTable('posts', (t) => {
    t.string('pending_post_id', 26).notNullable().defaultTo('').alter();
  });
}
