import type { Knex } from 'knex';
import { IDEMPOTENCY_KEY_HASH_LENGTH } from '../../model/limits';

// `systems`: named server-wide facts written once (the first admin), whose unique key decides races between
// processes. `webhook_idempotency`: the answer to each Idempotency-Key a hook has seen in the last 24 hours, written in
// the transaction of the posts it reports.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('systems', (t) => {
    t.string('name', 64).primary();
    t.text('value').notNullable();
  });
  await knex.schema.createTable('webhook_idempotency', (t) => {
    t.string('hook_id', 26).notNullable();
    t.string('key_hash', IDEMPOTENCY_KEY_HASH_LENGTH).notNullable();
    t.text('post_ids').notNullable();
    t.bigInteger('create_at').notNullable();
    t.primary(['hook_id', 'key_hash']);
    t.index(['create_at'], 'idx_webhook_idempotency_create');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_idempotency');
  await knex.schema.dropTableIfExists('systems');
}
