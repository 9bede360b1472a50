import type { Knex } from 'knex';

// Users' sidebar categories per team, and where they placed channels in them, as Mattermost keeps them
// (SidebarCategories, SidebarChannels). Only channels a user placed have a row: one never placed is shown in the
// Channels or Direct Messages category when the sidebar is read, so joining a channel or opening a direct message
// writes nothing here.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sidebar_categories', (t) => {
    // A default category's id is `{type}_{user_id}_{team_id}` (up to 69 characters); a custom one's a 26-char id.
    t.string('id', 128).primary();
    t.string('user_id', 26).notNullable();
    t.string('team_id', 26).notNullable();
    t.bigInteger('sort_order').notNullable();
    t.string('sorting', 64).notNullable();
    t.string('type', 64).notNullable();
    t.string('display_name', 255).notNullable();
    t.boolean('muted').notNullable();
    t.boolean('collapsed').notNullable();
    t.index(['user_id', 'team_id']);
  });
  await knex.schema.createTable('sidebar_channels', (t) => {
    t.string('user_id', 26).notNullable();
    // The category's team ('' never: direct channels are placed per team), kept here so that the key below makes a
    // channel sit in at most one category of a user's sidebar on a team.
    t.string('team_id', 26).notNullable();
    t.string('channel_id', 26).notNullable();
    t.string('category_id', 128).notNullable();
    t.bigInteger('sort_order').notNullable();
    t.primary(['user_id', 'team_id', 'channel_id']);
    t.index(['category_id', 'sort_order']);
    // Leaving a channel drops its rows (by channel and user).
    t.index(['channel_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sidebar_channels');
  await knex.schema.dropTableIfExists('sidebar_categories');
}
