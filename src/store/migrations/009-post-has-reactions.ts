import type { Knex } from 'knex';

// Whether a post has reactions, kept on the post as Mattermost keeps Posts.HasReactions: readers of a page of posts
// look reactions up only for the posts that have some, instead of asking the reactions table about every post.
// Set in the transaction that adds a post's first reaction, cleared in the one that removes its last.

/**
 * On MySQL/MariaDB a column change to posts rebuilds the table and, with it, 008's FULLTEXT index, which takes the
 * stopword setting of the session that rebuilds it: kept off, as 008 created it (else "to the office" finds nothing).
 * Session-scoped, on the migration's own connection.
 */
async function alteringPosts(knex: Knex, alter: () => Promise<unknown>): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  if (mysql) await knex.raw('SET SESSION innodb_ft_enable_stopword = OFF');
  await alter();
  if (mysql) await knex.raw('SET SESSION innodb_ft_enable_stopword = DEFAULT');
}

export async function up(knex: Knex): Promise<void> {
  await alteringPosts(knex, () =>
    knex.schema.alterTable('posts', (t) => {
      t.boolean('has_reactions').notNullable().defaultTo(false);
    }),
  );
  await knex('posts')
    .whereIn('id', knex('reactions').distinct('post_id').where('delete_at', 0))
    .update({ has_reactions: true });
}

export async function down(knex: Knex): Promise<void> {
  // Plain DROP COLUMN on both databases: Knex's SQLite dropColumn rebuilds the table, which would drop the search
  // triggers on posts (migration 008).
  await alteringPosts(knex, () => knex.raw('ALTER TABLE posts DROP COLUMN has_reactions'));
}
