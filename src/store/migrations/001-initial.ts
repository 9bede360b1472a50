import type { Knex } from 'knex';

// Column widths follow Mattermost's schema. Message text needs 16383 code points of up to 4 bytes (65532 bytes,
// which fits MySQL TEXT); props may reach 800000 code points, so they get MEDIUMTEXT.

export async function up(knex: Knex): Promise<void> {
  // MySQL's default collations fold case and accents, so "josé@x" would collide with "jose@x"; values are
  // lower-cased before they are stored, so a binary comparison is the exact one. SQLite compares bytes already.
  const exact = (column: Knex.ColumnBuilder) => (knex.client.config.client === 'mysql2' ? column.collate('utf8mb4_bin') : column);
  await knex.schema.createTable('users', (t) => {
    t.string('id', 26).primary();
    t.bigInteger('create_at').notNullable();
    t.bigInteger('update_at').notNullable();
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    exact(t.string('username', 64)).notNullable().unique();
    exact(t.string('email', 128)).notNullable().unique();
    t.string('password', 255).notNullable().defaultTo('');
    t.string('auth_service', 32).notNullable().defaultTo('');
    t.boolean('email_verified').notNullable().defaultTo(false);
    t.string('nickname', 64).notNullable().defaultTo('');
    t.string('first_name', 64).notNullable().defaultTo('');
    t.string('last_name', 64).notNullable().defaultTo('');
    t.string('position', 128).notNullable().defaultTo('');
    t.string('roles', 256).notNullable().defaultTo('');
    t.string('locale', 5).notNullable().defaultTo('en');
    t.text('props').notNullable();
    t.text('notify_props').notNullable();
    t.text('timezone').notNullable();
    t.bigInteger('last_password_update').notNullable().defaultTo(0);
    t.bigInteger('last_picture_update').notNullable().defaultTo(0);
    t.integer('failed_attempts').notNullable().defaultTo(0);
    t.bigInteger('last_activity_at').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('sessions', (t) => {
    t.string('id', 26).primary();
    t.string('token_hash', 64).notNullable().unique();
    t.string('user_id', 26).notNullable().index();
    t.bigInteger('create_at').notNullable();
    t.bigInteger('expires_at').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('user_access_tokens', (t) => {
    t.string('id', 26).primary();
    t.string('token_hash', 64).notNullable().unique();
    t.string('user_id', 26).notNullable().index();
    t.string('description', 512).notNullable().defaultTo('');
    t.boolean('is_active').notNullable().defaultTo(true);
    t.bigInteger('expires_at').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('teams', (t) => {
    t.string('id', 26).primary();
    t.bigInteger('create_at').notNullable();
    t.bigInteger('update_at').notNullable();
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    t.string('display_name', 256).notNullable();
    t.string('name', 64).notNullable().unique();
    t.string('description', 255).notNullable().defaultTo('');
    t.string('email', 128).notNullable().defaultTo('');
    t.string('type', 1).notNullable();
    t.string('company_name', 64).notNullable().defaultTo('');
    t.string('allowed_domains', 1000).notNullable().defaultTo('');
    t.string('invite_id', 32).notNullable().defaultTo('');
    t.boolean('allow_open_invite').notNullable().defaultTo(false);
  });

  await knex.schema.createTable('team_members', (t) => {
    t.string('team_id', 26).notNullable();
    t.string('user_id', 26).notNullable().index();
    t.string('roles', 256).notNullable().defaultTo('');
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    t.boolean('scheme_user').notNullable().defaultTo(true);
    t.boolean('scheme_admin').notNullable().defaultTo(false);
    t.bigInteger('create_at').notNullable().defaultTo(0);
    t.primary(['team_id', 'user_id']);
  });

  await knex.schema.createTable('channels', (t) => {
    t.string('id', 26).primary();
    t.bigInteger('create_at').notNullable();
    t.bigInteger('update_at').notNullable();
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    t.string('team_id', 26).notNullable().defaultTo('');
    t.string('type', 1).notNullable();
    t.string('display_name', 64).notNullable().defaultTo('');
    t.string('name', 64).notNullable();
    t.string('header', 1024).notNullable().defaultTo('');
    t.string('purpose', 250).notNullable().defaultTo('');
    t.bigInteger('last_post_at').notNullable().defaultTo(0);
    t.bigInteger('last_root_post_at').notNullable().defaultTo(0);
    t.bigInteger('total_msg_count').notNullable().defaultTo(0);
    t.bigInteger('total_msg_count_root').notNullable().defaultTo(0);
    t.string('creator_id', 26).notNullable().defaultTo('');
    t.unique(['team_id', 'name']);
  });

  await knex.schema.createTable('channel_members', (t) => {
    t.string('channel_id', 26).notNullable();
    t.string('user_id', 26).notNullable().index();
    t.string('roles', 256).notNullable().defaultTo('');
    t.bigInteger('last_viewed_at').notNullable().defaultTo(0);
    t.bigInteger('msg_count').notNullable().defaultTo(0);
    t.bigInteger('mention_count').notNullable().defaultTo(0);
    t.bigInteger('mention_count_root').notNullable().defaultTo(0);
    t.bigInteger('msg_count_root').notNullable().defaultTo(0);
    t.text('notify_props').notNullable();
    t.bigInteger('last_update_at').notNullable().defaultTo(0);
    t.boolean('scheme_user').notNullable().defaultTo(true);
    t.boolean('scheme_admin').notNullable().defaultTo(false);
    t.primary(['channel_id', 'user_id']);
  });

  await knex.schema.createTable('posts', (t) => {
    t.string('id', 26).primary();
    t.bigInteger('create_at').notNullable();
    t.bigInteger('update_at').notNullable();
    t.bigInteger('edit_at').notNullable().defaultTo(0);
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    t.boolean('is_pinned').notNullable().defaultTo(false);
    t.string('user_id', 26).notNullable();
    t.string('channel_id', 26).notNullable();
    t.string('root_id', 26).notNullable().defaultTo('');
    t.string('original_id', 26).notNullable().defaultTo('');
    t.text('message').notNullable();
    t.string('type', 64).notNullable().defaultTo('');
    t.text('props', 'mediumtext').notNullable();
    t.string('hashtags', 1000).notNullable().defaultTo('');
    t.string('file_ids', 300).notNullable().defaultTo('[]');
    t.string('pending_post_id', 26).notNullable().defaultTo('');
    t.text('metadata').nullable();
    // Channel history is read newest-first by (channel, create_at), and "since" reads by update time: both stay
    // index range scans whatever the channel's size.
    t.index(['channel_id', 'delete_at', 'create_at'], 'idx_posts_channel_create');
    t.index(['channel_id', 'update_at'], 'idx_posts_channel_update');
    t.index(['root_id'], 'idx_posts_root');
  });

  await knex.schema.createTable('incoming_webhooks', (t) => {
    t.string('id', 26).primary();
    t.bigInteger('create_at').notNullable();
    t.bigInteger('update_at').notNullable();
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    t.string('user_id', 26).notNullable();
    t.string('channel_id', 26).notNullable().index();
    t.string('team_id', 26).notNullable().index();
    t.string('display_name', 64).notNullable().defaultTo('');
    t.string('description', 500).notNullable().defaultTo('');
    t.string('username', 64).notNullable().defaultTo('');
    t.string('icon_url', 1024).notNullable().defaultTo('');
    t.boolean('channel_locked').notNullable().defaultTo(false);
  });

  // The runtime-patchable configuration, shared by every process on this database.
  await knex.schema.createTable('configurations', (t) => {
    t.string('id', 26).primary();
    t.text('value', 'mediumtext').notNullable();
    t.bigInteger('create_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'configurations',
    'incoming_webhooks',
    'posts',
    'channel_members',
    'channels',
    'team_members',
    'teams',
    'user_access_tokens',
    'sessions',
    'users',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
