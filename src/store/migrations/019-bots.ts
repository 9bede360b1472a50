import type { Knex } from 'knex';

// Bot accounts, as Mattermost keeps them: a bot is a user (its username, display name as first_name, sessions, posts,
// memberships) with one row in `bots` for what only bots have: the owner, the icon's time and the bot's own
// create/update/delete times. `is_bot` and `bot_description` sit on the user row itself, so every read of a user
// carries them without a join, and the description has one home (Bot.description reads it from there).
// Bots are listed in creation order, all of them or one owner's (GetBots for a caller holding only read_bots).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.boolean('is_bot').notNullable().defaultTo(false);
    // Up to 1024 code points (Mattermost's BotDescriptionMaxRunes): 4096 bytes in utf8mb4, TEXT rather than a wide
    // VARCHAR on a table whose row size MySQL counts. Null reads as ''.
    t.text('bot_description').nullable();
  });
  await knex.schema.createTable('bots', (t) => {
    t.string('user_id', 26).primary();
    // A user id (plugin owners do not exist here).
    t.string('owner_id', 26).notNullable();
    t.bigInteger('last_icon_update').notNullable().defaultTo(0);
    t.bigInteger('create_at').notNullable();
    t.bigInteger('update_at').notNullable();
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    t.index(['owner_id', 'create_at'], 'idx_bots_owner');
    t.index(['create_at'], 'idx_bots_create_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('bots');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('bot_description');
    t.dropColumn('is_bot');
  });
}
