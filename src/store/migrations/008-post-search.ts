import type { Knex } from 'knex';

// Full-text search of posts' messages.
//
// MySQL/MariaDB: a FULLTEXT index on posts.message. InnoDB keeps it up to date with every write to the table, inside
// the writing transaction (what a search sees changes when the transaction commits). It is created with stopwords
// off, so "the", "about" or "will" can be searched for; words shorter than innodb_ft_min_token_size (3) are not
// indexed (see SearchStore for how a search treats them).
//
// SQLite: an FTS5 table holding only the index (contentless: the text stays in posts), plus post_search_docs, which
// maps each indexed post to the FTS5 row id and keeps what the access filter reads (channel, author) next to it. The
// row id is create_at × 1024 + a sequence within the millisecond, so the index hands matches back newest first
// without sorting, and a search stops as soon as it has a page. Posts' own rowids are not used: VACUUM may renumber
// them. Triggers on posts keep both tables up to date in the writing statement itself, so every write path (the post
// writer, edits, deletes, webhook posts, each part of a split message, bulk loads) indexes in its own transaction.
// Deleted posts and system messages are not indexed.

/** Doc ids per millisecond of create_at (SearchStore turns times into doc ids with it). */
export const SQLITE_DOC_SLOTS = 1024;
/** The largest create_at whose doc ids stay below 2^53, so JavaScript numbers hold them exactly (year 2248). */
export const SQLITE_MAX_CREATE_AT = 8796093022207;

export const SQLITE_TRIGGERS = ['post_search_insert', 'post_search_update', 'post_search_delete'];

/** The doc id a new post gets: the next free slot of its millisecond (or, past 1024 posts in one, after the last). */
export function docIdFor(post: string): string {
  const base = `(MIN(MAX(${post}.create_at, 0), ${SQLITE_MAX_CREATE_AT}) * ${SQLITE_DOC_SLOTS})`;
  return `(SELECT CASE
      WHEN MAX(doc_id) IS NULL THEN ${base}
      WHEN MAX(doc_id) < ${base} + ${SQLITE_DOC_SLOTS - 1} THEN MAX(doc_id) + 1
      ELSE (SELECT MAX(doc_id) + 1 FROM post_search_docs)
    END FROM post_search_docs WHERE doc_id BETWEEN ${base} AND ${base} + ${SQLITE_DOC_SLOTS - 1})`;
}

/** Whether a post (NEW or OLD in a trigger) belongs in the index: alive, and not a system message. */
export const indexable = (post: string) => `${post}.delete_at = 0 AND substr(${post}.type, 1, 7) <> 'system_'`;

async function upSqlite(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE post_search_docs (
    doc_id INTEGER PRIMARY KEY,
    post_id VARCHAR(26) NOT NULL UNIQUE,
    channel_id VARCHAR(26) NOT NULL,
    user_id VARCHAR(26) NOT NULL
  )`);
  // unicode61 folds case and (remove_diacritics 2) accents; prefix indexes make `ab*` and `abc*` as cheap as a word.
  await knex.raw(
    `CREATE VIRTUAL TABLE post_search USING fts5(message, content='', contentless_delete=1, prefix='2 3', tokenize='unicode61 remove_diacritics 2')`,
  );
  await knex.raw(`CREATE TRIGGER post_search_insert AFTER INSERT ON posts WHEN ${indexable('NEW')} BEGIN
    INSERT INTO post_search_docs (doc_id, post_id, channel_id, user_id) VALUES (${docIdFor('NEW')}, NEW.id, NEW.channel_id, NEW.user_id);
    INSERT INTO post_search (rowid, message) VALUES (last_insert_rowid(), NEW.message);
  END`);
  // An edit re-indexes the message under the same doc id; a deletion (or a post turned into a system message) leaves
  // the index. Only writes that name these columns fire it: pinning does not re-index.
  await knex.raw(`CREATE TRIGGER post_search_update AFTER UPDATE OF message, delete_at, type ON posts BEGIN
    DELETE FROM post_search WHERE rowid IN (SELECT doc_id FROM post_search_docs WHERE post_id = OLD.id);
    DELETE FROM post_search_docs WHERE post_id = OLD.id AND NOT (${indexable('NEW')});
    INSERT INTO post_search_docs (doc_id, post_id, channel_id, user_id)
      SELECT ${docIdFor('NEW')}, NEW.id, NEW.channel_id, NEW.user_id
      WHERE ${indexable('NEW')} AND NOT EXISTS (SELECT 1 FROM post_search_docs WHERE post_id = NEW.id);
    INSERT INTO post_search (rowid, message) SELECT doc_id, NEW.message FROM post_search_docs WHERE post_id = NEW.id;
  END`);
  await knex.raw(`CREATE TRIGGER post_search_delete AFTER DELETE ON posts BEGIN
    DELETE FROM post_search WHERE rowid IN (SELECT doc_id FROM post_search_docs WHERE post_id = OLD.id);
    DELETE FROM post_search_docs WHERE post_id = OLD.id;
  END`);
  await rebuildSqlite(knex);
}

/**
 * Fills the index from the posts table (what the migration does for existing posts, and what a bulk load that went
 * around the triggers can run again): oldest first, so doc ids follow creation order. `withChannel`: the FTS5 table
 * has the channel column of migration 012 (what SearchStore.rebuild fills).
 */
export async function rebuildSqlite(knex: Knex, withChannel = false): Promise<void> {
  await knex.raw('DELETE FROM post_search');
  await knex.raw('DELETE FROM post_search_docs');
  // Up to 1024 posts per millisecond in one statement; any beyond that (never seen in practice) one by one.
  await knex.raw(`INSERT INTO post_search_docs (doc_id, post_id, channel_id, user_id)
    SELECT MIN(MAX(create_at, 0), ${SQLITE_MAX_CREATE_AT}) * ${SQLITE_DOC_SLOTS} + n - 1, id, channel_id, user_id FROM (
      SELECT id, channel_id, user_id, create_at, ROW_NUMBER() OVER (PARTITION BY create_at ORDER BY id) AS n
      FROM posts WHERE ${indexable('posts')}
    ) WHERE n <= ${SQLITE_DOC_SLOTS} ORDER BY create_at, id`);
  const overflow = (await knex.raw(`SELECT id FROM posts WHERE ${indexable('posts')} AND id NOT IN (SELECT post_id FROM post_search_docs) ORDER BY create_at, id`)) as Array<{ id: string }>;
  for (const { id } of overflow) {
    await knex.raw(`INSERT INTO post_search_docs (doc_id, post_id, channel_id, user_id) SELECT ${docIdFor('p')}, p.id, p.channel_id, p.user_id FROM posts p WHERE p.id = ?`, [id]);
  }
  await knex.raw(
    withChannel
      ? 'INSERT INTO post_search (rowid, message, channel) SELECT d.doc_id, p.message, d.channel_id FROM post_search_docs d JOIN posts p ON p.id = d.post_id ORDER BY d.doc_id'
      : 'INSERT INTO post_search (rowid, message) SELECT d.doc_id, p.message FROM post_search_docs d JOIN posts p ON p.id = d.post_id ORDER BY d.doc_id',
  );
}

async function downSqlite(knex: Knex): Promise<void> {
  for (const trigger of SQLITE_TRIGGERS) await knex.raw(`DROP TRIGGER IF EXISTS ${trigger}`);
  await knex.raw('DROP TABLE IF EXISTS post_search');
  await knex.raw('DROP TABLE IF EXISTS post_search_docs');
}

/**
 * Runs `build` (a statement that creates or rebuilds posts' FULLTEXT index on MySQL/MariaDB: adding the index, or any
 * column change to posts, which rebuilds the table) with stopwords off: the index keeps the stopword setting of the
 * session that built it, and built with the default list it no longer finds `the` or `will` ("to the office" finds
 * nothing). Session-scoped, on the migration's own connection; a no-op wrapper elsewhere.
 */
export async function buildingPostsFulltext(knex: Knex, build: () => Promise<unknown>): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  if (mysql) await knex.raw('SET SESSION innodb_ft_enable_stopword = OFF');
  await build();
  if (mysql) await knex.raw('SET SESSION innodb_ft_enable_stopword = DEFAULT');
}

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    await buildingPostsFulltext(knex, () => knex.raw('ALTER TABLE posts ADD FULLTEXT INDEX idx_posts_message_fts (message)'));
  } else {
    await upSqlite(knex);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    await knex.raw('ALTER TABLE posts DROP INDEX idx_posts_message_fts');
  } else {
    await downSqlite(knex);
  }
}
