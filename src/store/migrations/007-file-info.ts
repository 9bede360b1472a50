import type { Knex } from 'knex';
import { FILE_LIMITS } from '../../model/limits';

// Uploaded files (Mattermost's FileInfo): one row per file, with where its bytes and derived images are stored.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('file_info', (t) => {
    t.string('id', 26).primary();
    t.string('user_id', 26).notNullable();
    t.string('channel_id', 26).notNullable();
    // '' until a post attaches the file.
    t.string('post_id', 26).notNullable().defaultTo('');
    t.bigInteger('create_at').notNullable();
    t.bigInteger('update_at').notNullable();
    t.bigInteger('delete_at').notNullable().defaultTo(0);
    t.string('path', FILE_LIMITS.path).notNullable();
    t.string('thumbnail_path', FILE_LIMITS.path).notNullable().defaultTo('');
    t.string('preview_path', FILE_LIMITS.path).notNullable().defaultTo('');
    t.string('name', FILE_LIMITS.name + 1).notNullable();
    t.string('extension', FILE_LIMITS.extension).notNullable().defaultTo('');
    t.bigInteger('size').notNullable();
    t.string('mime_type', FILE_LIMITS.mimeType).notNullable().defaultTo('');
    t.integer('width').notNullable().defaultTo(0);
    t.integer('height').notNullable().defaultTo(0);
    t.boolean('has_preview_image').notNullable().defaultTo(false);
    t.text('mini_preview').nullable();
    // A post's files are read with every page of posts that has some.
    t.index(['post_id'], 'idx_file_info_post');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('file_info');
}
