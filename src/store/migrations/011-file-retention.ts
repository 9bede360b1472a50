import type { Knex } from 'knex';

// The reads of file storage limits and clean-ups (FileSettings.MaxUserStorageBytes, UnattachedRetentionHours,
// DeletedRetentionHours): each upload sums its uploader's stored bytes (by user_id), and the hourly purge finds
// deleted files past their retention (by delete_at). Unattached uploads are found through idx_file_info_post
// (post_id = '').
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('file_info', (t) => {
    t.index(['user_id'], 'idx_file_info_user');
    t.index(['delete_at'], 'idx_file_info_delete_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('file_info', (t) => {
    t.dropIndex(['user_id'], 'idx_file_info_user');
    t.dropIndex(['delete_at'], 'idx_file_info_delete_at');
  });
}
