import type { Knex } from 'knex';

// Emoji reactions to posts, as Mattermost keeps them: one row per (post, user, emoji), soft-deleted on removal so a
// reaction added again revives its row. The primary key leads with post_id: every read is "the reactions of these
// posts".
export async function up(knex: Knex): Promise<void> {
  // Exact (binary) comparison on MySQL as on SQLite: "Smile" and "smile" are two emoji on both.
  const exact = (column: Knex.ColumnBuilder) => (knex.client.config.client === 'mysql2' ? column.collate('utf8mb4_bin') : column);
  await knex.schema.createTable('reactions', (t) => {
    t.string('post_id', 26).notNullable();
    t.string('user_id', 26).notNullable();
    // Mattermost's EmojiNameMaxLength; names are ASCII letters, digits, '-', '+' and '_'.
    exact(t.string('emoji_name', 64).notNullable());
    t.string('channel_id', 26).notNullable();
    t.bigInteger('create_at').notNullable();
    t.bigInteger('update_at').notNullable();
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    t.primary(['post_id', 'user_id', 'emoji_name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('reactions');
}
