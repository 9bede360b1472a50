import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

// `login_attempts`: the failed password checks of every login id and session, counted in one table keyed by a digest
// (an account's id, an unknown login id, a session's id), so that an unknown login id is counted exactly where, and
// with exactly the writes, a real account is: its lock state survives restarts and is shared by processes alike.
// The counts of users.failed_attempts move here (the column stays, unused, at 0).

/** The same digest as src/app/login-lock.ts's accountKey (kept here: a migration must not change with the code). */
const accountKey = (userId: string) => createHash('sha256').update(`account:${userId}`).digest('hex');

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('login_attempts', (t) => {
    t.string('key_hash', 64).primary();
    t.integer('failures').notNullable().defaultTo(0);
    t.bigInteger('locked_until').notNullable().defaultTo(0);
    t.integer('lockouts').notNullable().defaultTo(0);
    t.bigInteger('last_failure_at').notNullable().defaultTo(0);
    t.integer('version').notNullable().defaultTo(0);
    t.index(['last_failure_at'], 'idx_login_attempts_last_failure');
  });
  const now = Date.now();
  const counted = (await knex('users').select('id', 'failed_attempts').where('failed_attempts', '>', 0)) as Array<{ id: string; failed_attempts: number }>;
  for (const row of counted) {
    // An account locked by the old rule (its count at the then default limit, 10) stays locked for a first 15 minutes.
    const failures = Number(row.failed_attempts);
    await knex('login_attempts').insert({
      key_hash: accountKey(row.id),
      failures,
      locked_until: failures >= 10 ? now + 15 * 60 * 1000 : 0,
      lockouts: failures >= 10 ? 1 : 0,
      last_failure_at: now,
      version: 0,
    });
  }
  await knex('users').where('failed_attempts', '>', 0).update({ failed_attempts: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('login_attempts');
}
