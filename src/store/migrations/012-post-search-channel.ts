import type { Knex } from 'knex';
import { SQLITE_TRIGGERS, docIdFor, indexable } from './008-post-search';

// SQLite: the post's channel joins its message in the FTS5 index (a second column, `channel`, holding the channel id
// as one token), so a search asks the index for `message : (words) AND channel : (the caller's channels)` and FTS5
// hands back only posts the caller may read. Before, the channel was checked after the MATCH: a word frequent in
// channels the caller cannot read made every search for it walk those matches (slower, which told that the word was
// there: review round 3, L4), and a search whose words matched mostly elsewhere read window after window of them (H1).
// Filters-only searches walk `channel : (…)` the same way.
//
// MySQL/MariaDB: nothing to do (the windows of time there read the posts' channel index).

/** The trigger that indexes a new post in its inserting statement (replaced by a queue in 023; back when 023 goes down). */
export async function createSqliteInsertTrigger(knex: Knex, withChannel: boolean): Promise<void> {
  const cols = withChannel ? 'rowid, message, channel' : 'rowid, message';
  const values = withChannel ? 'last_insert_rowid(), NEW.message, NEW.channel_id' : 'last_insert_rowid(), NEW.message';
  await knex.raw(`CREATE TRIGGER post_search_insert AFTER INSERT ON posts WHEN ${indexable('NEW')} BEGIN
    INSERT INTO post_search_docs (doc_id, post_id, channel_id, user_id) VALUES (${docIdFor('NEW')}, NEW.id, NEW.channel_id, NEW.user_id);
    INSERT INTO post_search (${cols}) VALUES (${values});
  END`);
}

/** The FTS5 table, its triggers and its entries, with or without the channel column (012 up and down). */
async function buildSqlite(knex: Knex, withChannel: boolean): Promise<void> {
  for (const trigger of SQLITE_TRIGGERS) await knex.raw(`DROP TRIGGER IF EXISTS ${trigger}`);
  await knex.raw('DROP TABLE IF EXISTS post_search');
  const columns = withChannel ? 'message, channel' : 'message';
  await knex.raw(
    `CREATE VIRTUAL TABLE post_search USING fts5(${columns}, content='', contentless_delete=1, prefix='2 3', tokenize='unicode61 remove_diacritics 2')`,
  );
  // As in 008, with the channel next to the message (a post never changes channel).
  const cols = withChannel ? 'rowid, message, channel' : 'rowid, message';
  const newValues = (doc: string) => (withChannel ? `${doc}, NEW.message, NEW.channel_id` : `${doc}, NEW.message`);
  await createSqliteInsertTrigger(knex, withChannel);
  await knex.raw(`CREATE TRIGGER post_search_update AFTER UPDATE OF message, delete_at, type ON posts BEGIN
    DELETE FROM post_search WHERE rowid IN (SELECT doc_id FROM post_search_docs WHERE post_id = OLD.id);
    DELETE FROM post_search_docs WHERE post_id = OLD.id AND NOT (${indexable('NEW')});
    INSERT INTO post_search_docs (doc_id, post_id, channel_id, user_id)
      SELECT ${docIdFor('NEW')}, NEW.id, NEW.channel_id, NEW.user_id
      WHERE ${indexable('NEW')} AND NOT EXISTS (SELECT 1 FROM post_search_docs WHERE post_id = NEW.id);
    INSERT INTO post_search (${cols}) SELECT ${newValues('doc_id')} FROM post_search_docs WHERE post_id = NEW.id;
  END`);
  await knex.raw(`CREATE TRIGGER post_search_delete AFTER DELETE ON posts BEGIN
    DELETE FROM post_search WHERE rowid IN (SELECT doc_id FROM post_search_docs WHERE post_id = OLD.id);
    DELETE FROM post_search_docs WHERE post_id = OLD.id;
  END`);
  await knex.raw(
    `INSERT INTO post_search (${cols}) SELECT d.doc_id, p.message${withChannel ? ', d.channel_id' : ''} FROM post_search_docs d JOIN posts p ON p.id = d.post_id ORDER BY d.doc_id`,
  );
}

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') await buildSqlite(knex, true);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') await buildSqlite(knex, false);
}
