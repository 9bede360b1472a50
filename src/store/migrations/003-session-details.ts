import type { Knex } from 'knex';

// What a session needs beyond its token: the CSRF token a browser session sends back in X-CSRF-Token (cookie
// authentication), when it was last used and from which device, as GetSessions shows them.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => {
    t.string('csrf_token', 26).notNullable().defaultTo('');
    t.bigInteger('last_activity_at').notNullable().defaultTo(0);
    t.string('device_id', 512).notNullable().defaultTo('');
    t.text('props').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => {
    t.dropColumn('props');
    t.dropColumn('device_id');
    t.dropColumn('last_activity_at');
    t.dropColumn('csrf_token');
  });
}
