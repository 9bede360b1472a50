import type { Knex } from 'knex';

// Email notifications still to send: written in the post's own transaction (so a committed post never loses its
// notification, and a rolled-back one never sends one), deleted once the SMTP server has taken the email. A row is
// claimed by one worker at a time (claim_token and claimed_until, set by a conditional UPDATE by primary key): with
// several processes on one database each email goes out once.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('email_outbox', (t) => {
    t.string('id', 26).primary();
    // The recipient.
    t.string('user_id', 26).notNullable();
    t.string('post_id', 26).notNullable();
    t.string('channel_id', 26).notNullable();
    // The channel's team ('' for direct and group channels): a batch is dropped when its user viewed the team since.
    t.string('team_id', 26).notNullable().defaultTo('');
    // The post's create_at: where a batch's interval starts.
    t.bigInteger('create_at').notNullable();
    // When the row may next be tried: at once, at its batch's end, or after a failed attempt's backoff.
    t.bigInteger('next_attempt_at').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('claim_token', 26).notNullable().defaultTo('');
    // A claim older than this is a worker that died: the row is free again (it may resend what was in flight).
    t.bigInteger('claimed_until').notNullable().defaultTo(0);
    // The worker's lookup: rows due now and not claimed.
    t.index(['next_attempt_at'], 'email_outbox_due');
    // A user's whole batch, claimed together (then by primary key: see EmailOutboxStore.claim).
    t.index(['user_id'], 'email_outbox_user');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('email_outbox');
}
