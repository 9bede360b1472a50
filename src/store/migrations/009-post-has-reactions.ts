import type { Knex } from 'knex';
import { buildingPostsFulltext } from './008-post-search';

// Whether a post has reactions, kept on the post as Mattermost keeps Posts.HasReactions: readers of a page of posts
// look reactions up only for the posts that have some, instead of asking the reactions table about every post.
// Set in the transaction that adds a post's first reaction, cleared in the one that removes its last. Both ALTERs
// rebuild posts, and with it the FULLTEXT index of 008 on MySQL: hence buildingPostsFulltext.

export async function up(knex: Knex): Promise<void> {
  await buildingPostsFulltext(knex, () =>
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
  await buildingPostsFulltext(knex, () => knex.raw('ALTER TABLE posts DROP COLUMN has_reactions'));
}
