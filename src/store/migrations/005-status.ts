import type { Knex } from 'knex';

// Users' presence (online, away, dnd, offline), as Mattermost keeps it: one row per user who has ever had one.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('status', (t) => {
    t.string('user_id', 26).primary();
    t.string('status', 32).notNullable();
    t.boolean('manual').notNullable().defaultTo(false);
    t.bigInteger('last_activity_at').notNullable().defaultTo(0);
    // Unix seconds, as Mattermost's API has it; 0 for "until changed".
    t.bigInteger('dnd_end_time').notNullable().defaultTo(0);
    // What a timed dnd returns to.
    t.string('prev_status', 32).notNullable().defaultTo('');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('status');
}
