import type { Knex } from 'knex';

// Custom slash commands and their response URLs, as Mattermost keeps them (Commands, CommandWebhooks). Commands are
// read by team (executing, listing, the trigger uniqueness check); response URLs by id, and expire by creation time.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('commands', (t) => {
    t.string('id', 26).primary();
    t.string('token', 26).notNullable();
    t.bigInteger('create_at').notNullable();
    t.bigInteger('update_at').notNullable();
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    t.string('creator_id', 26).notNullable();
    t.string('team_id', 26).notNullable();
    t.string('trigger', 128).notNullable();
    t.string('method', 1).notNullable();
    t.string('username', 64).notNullable().defaultTo('');
    t.text('icon_url').notNullable();
    t.boolean('auto_complete').notNullable().defaultTo(false);
    t.text('auto_complete_desc').notNullable();
    t.text('auto_complete_hint').notNullable();
    t.string('display_name', 64).notNullable().defaultTo('');
    t.string('description', 128).notNullable().defaultTo('');
    t.text('url').notNullable();
    t.string('plugin_id', 190).notNullable().defaultTo('');
    t.index(['team_id', 'delete_at'], 'idx_commands_team');
  });
  await knex.schema.createTable('command_webhooks', (t) => {
    t.string('id', 26).primary();
    t.bigInteger('create_at').notNullable();
    t.string('command_id', 26).notNullable();
    t.string('user_id', 26).notNullable();
    t.string('channel_id', 26).notNullable();
    t.string('root_id', 26).notNullable().defaultTo('');
    t.integer('use_count').notNullable().defaultTo(0);
    t.index(['create_at'], 'idx_command_webhooks_create_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('command_webhooks');
  await knex.schema.dropTableIfExists('commands');
}
