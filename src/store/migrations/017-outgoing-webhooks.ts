import type { Knex } from 'knex';

// Outgoing webhooks, as Mattermost keeps them (trigger words and callback URLs as JSON arrays), the durable queue of
// their calls, the delivery log every kind of integration call writes to, and the incoming hooks' signing secret.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outgoing_webhooks', (t) => {
    t.string('id', 26).primary();
    t.string('token', 26).notNullable();
    t.bigInteger('create_at').notNullable();
    t.bigInteger('update_at').notNullable();
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    t.string('creator_id', 26).notNullable();
    // '' for a hook that watches every public channel of the team.
    t.string('channel_id', 26).notNullable().defaultTo('');
    t.string('team_id', 26).notNullable();
    t.text('trigger_words').notNullable();
    t.integer('trigger_when').notNullable().defaultTo(0);
    t.text('callback_urls').notNullable();
    t.string('display_name', 64).notNullable().defaultTo('');
    t.string('description', 500).notNullable().defaultTo('');
    t.string('content_type', 128).notNullable().defaultTo('');
    t.string('username', 64).notNullable().defaultTo('');
    t.text('icon_url').notNullable();
    // Every post in a public or private channel reads its team's live hooks: this index answers it alone.
    t.index(['team_id', 'delete_at'], 'idx_outgoing_webhooks_team');
    t.index(['creator_id'], 'idx_outgoing_webhooks_creator');
  });
  // One row per call still to be made (a matching post × a callback URL), written in the post's own transaction: a
  // post's 201 means its calls will be made. `due_at` is when the next attempt may start; a claim moves it to the
  // end of the claimer's lease, so a call whose process died becomes due again by itself.
  await knex.schema.createTable('outgoing_queue', (t) => {
    t.string('id', 26).primary();
    t.string('hook_id', 26).notNullable();
    t.string('post_id', 26).notNullable();
    t.text('callback_url').notNullable();
    t.text('trigger_word').notNullable();
    // Attempts made so far.
    t.integer('attempt').notNullable().defaultTo(0);
    t.bigInteger('due_at').notNullable();
    // Who holds the call now ('' for nobody): the conditional claim writes it, and only its holder may finish it.
    t.string('claim', 26).notNullable().defaultTo('');
    t.bigInteger('create_at').notNullable();
    t.index(['due_at'], 'idx_outgoing_queue_due');
  });
  await knex.schema.createTable('integration_deliveries', (t) => {
    t.string('id', 26).primary();
    t.string('integration_id', 26).notNullable();
    t.string('kind', 32).notNullable();
    t.string('post_id', 26).notNullable().defaultTo('');
    t.integer('attempt').notNullable();
    t.bigInteger('request_at').notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('status_code').notNullable();
    t.string('error', 500).notNullable().defaultTo('');
    // The URL called, for redelivery; never listed (it may hold a secret of the integration's).
    t.text('callback_url').nullable();
    t.index(['integration_id', 'request_at'], 'idx_integration_deliveries_integration');
  });
  // The key interactive actions on an incoming webhook's posts are signed with ('' until one is made).
  await knex.schema.alterTable('incoming_webhooks', (t) => {
    t.string('signing_secret', 64).notNullable().defaultTo('');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('incoming_webhooks', (t) => {
    t.dropColumn('signing_secret');
  });
  await knex.schema.dropTableIfExists('integration_deliveries');
  await knex.schema.dropTableIfExists('outgoing_queue');
  await knex.schema.dropTableIfExists('outgoing_webhooks');
}
