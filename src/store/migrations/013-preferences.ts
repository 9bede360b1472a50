import type { Knex } from 'knex';

// Users' preferences, as Mattermost keeps them: one row per (user, category, name). Saved posts are preferences too
// (flagged_post/<post id>), read by GetFlaggedPostsForUser through the primary key (user_id, category).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('preferences', (t) => {
    t.string('user_id', 26).notNullable();
    // The table's own collation, as Mattermost's: `name` joins posts.id for saved posts, and a different collation
    // would keep MySQL from using the posts' primary key for that join.
    t.string('category', 32).notNullable();
    t.string('name', 32).notNullable();
    // Up to 20000 code points: more than MySQL's TEXT holds in utf8mb4 (65535 bytes).
    t.text('value', 'mediumtext').notNullable();
    t.primary(['user_id', 'category', 'name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('preferences');
}
