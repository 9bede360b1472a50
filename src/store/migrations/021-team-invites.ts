import type { Knex } from 'knex';

// Team invite links: sign-up with `iid`, AddTeamMemberFromInvite and GetTeamInviteInfo find the team by its
// invite id, a lookup by anyone (GetTeamInviteInfo needs no session) that must not scan the teams table.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('teams', (t) => {
    t.index(['invite_id'], 'idx_teams_invite_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('teams', (t) => {
    t.dropIndex(['invite_id'], 'idx_teams_invite_id');
  });
}
