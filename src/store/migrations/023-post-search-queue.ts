import type { Knex } from 'knex';
import { indexable, rebuildSqlite } from './008-post-search';
import { createSqliteInsertTrigger } from './012-post-search-channel';

// SQLite: a new post is indexed after its transaction, not inside it. The insert trigger of 012 tokenised the message
// into FTS5 and found the post's doc id inside the writing transaction, about 60 µs a post on the path every webhook
// and CreatePost waits for (its group commit holds the one write connection meanwhile); indexed in batches after the
// commit the same work is about 7 µs a post. The trigger now only queues the post's id; SearchIndexer (search-queue.ts)
// indexes the queue within a moment of the commit, and a search indexes what is queued before it looks, so a post is
// found by any search that starts after its `ok`. Edits and deletions keep their triggers (rare, and they must see the
// index as it is): an edit of a post still queued indexes it there and then, and the queue skips it afterwards.
//
// MySQL/MariaDB: nothing to do (InnoDB's FULLTEXT index is maintained at commit).

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') return;
  await knex.raw('CREATE TABLE post_search_queue (seq INTEGER PRIMARY KEY, post_id VARCHAR(26) NOT NULL)');
  await knex.raw('DROP TRIGGER IF EXISTS post_search_insert');
  await knex.raw(`CREATE TRIGGER post_search_insert AFTER INSERT ON posts WHEN ${indexable('NEW')} BEGIN
    INSERT INTO post_search_queue (post_id) VALUES (NEW.id);
  END`);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') return;
  await knex.raw('DROP TRIGGER IF EXISTS post_search_insert');
  await knex.raw('DROP TABLE post_search_queue');
  await createSqliteInsertTrigger(knex, true);
  // What was still queued is not in the index: built again from the posts, as 012 leaves it.
  await rebuildSqlite(knex, true);
}
