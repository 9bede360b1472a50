import type { Knex } from 'knex';

// Channel pages of root posts only (collapsed reply threads: GetPostsForChannel and GetPostsAroundLastUnread with
// collapsedThreads=true). A page of roots is read newest first by (channel_id, root_id = '', delete_at = 0,
// create_at): an index range whatever share of the channel is replies. The 001 index (channel_id, delete_at,
// create_at) alone would walk every reply between two roots: in a channel of long threads, a page of 60 roots read
// thousands of rows.
//
// `since` in that mode also returns the roots whose threads had replies since then (Mattermost moves the root's
// update time with each reply; Parley leaves the root untouched and reads the thread's last_reply_at instead): the
// threads of a channel by last_reply_at. That index starts with channel_id, so it replaces the 015 one on channel_id.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('posts', (t) => {
    t.index(['channel_id', 'root_id', 'delete_at', 'create_at'], 'idx_posts_channel_root');
  });
  await knex.schema.alterTable('threads', (t) => {
    t.index(['channel_id', 'last_reply_at'], 'idx_threads_channel_reply');
  });
  await knex.schema.alterTable('threads', (t) => {
    t.dropIndex(['channel_id'], 'idx_threads_channel');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('threads', (t) => {
    t.index(['channel_id'], 'idx_threads_channel');
  });
  await knex.schema.alterTable('threads', (t) => {
    t.dropIndex(['channel_id', 'last_reply_at'], 'idx_threads_channel_reply');
  });
  await knex.schema.alterTable('posts', (t) => {
    t.dropIndex(['channel_id', 'root_id', 'delete_at', 'create_at'], 'idx_posts_channel_root');
  });
}
