// The team store's invite and member-role writes (#25) on every database: a team by its invite id (exactly that id,
// whatever the collation folds), member roles set on current memberships only, and migration 021's index.
import * as teamInvites from '../../src/store/migrations/021-team-invites';
import { forEachDatabase, makeTeam, makeUser } from './fixtures';

forEachDatabase((h) => {
  test('getByInviteId finds the team by exactly its invite id; unknown and other-case ids find nothing', async () => {
    const team = makeTeam({ invite_id: 'abcdefghijklmnopqrstuvwxyz' });
    await h.stores.teams.insert(team);
    await h.stores.teams.insert(makeTeam());
    expect((await h.stores.teams.getByInviteId('abcdefghijklmnopqrstuvwxyz'))?.id).toBe(team.id);
    expect(await h.stores.teams.getByInviteId('ABCDEFGHIJKLMNOPQRSTUVWXYZ')).toBeUndefined();
    expect(await h.stores.teams.getByInviteId('zzzzzzzzzzzzzzzzzzzzzzzzzz')).toBeUndefined();
    await h.stores.teams.update(team.id, { invite_id: 'bcdefghijklmnopqrstuvwxyza' });
    expect(await h.stores.teams.getByInviteId('abcdefghijklmnopqrstuvwxyz')).toBeUndefined();
    expect((await h.stores.teams.getByInviteId('bcdefghijklmnopqrstuvwxyza'))?.id).toBe(team.id);
  });

  test('updateMemberRoles sets the scheme flags of a current membership; a removed or missing one is left alone', async () => {
    const team = makeTeam();
    await h.stores.teams.insert(team);
    const [a, b] = [makeUser(), makeUser()];
    await h.stores.users.insert(a);
    await h.stores.users.insert(b);
    await h.stores.teams.insertMember({ team_id: team.id, user_id: a.id, scheme_admin: false, create_at: 1 });
    await h.stores.teams.insertMember({ team_id: team.id, user_id: b.id, scheme_admin: false, create_at: 1 });
    expect(await h.stores.teams.updateMemberRoles(team.id, a.id, { scheme_user: true, scheme_admin: true, explicit_roles: '' })).toBe(true);
    expect(await h.stores.teams.getMember(team.id, a.id)).toMatchObject({ roles: 'team_user team_admin', scheme_user: true, scheme_admin: true, explicit_roles: '' });
    expect(await h.stores.teams.updateMemberRoles(team.id, a.id, { scheme_user: true, scheme_admin: false, explicit_roles: '' })).toBe(true);
    expect(await h.stores.teams.getMember(team.id, a.id)).toMatchObject({ roles: 'team_user', scheme_admin: false });
    await h.stores.teams.removeMember(team.id, b.id, 5);
    expect(await h.stores.teams.updateMemberRoles(team.id, b.id, { scheme_user: true, scheme_admin: true, explicit_roles: '' })).toBe(false);
    expect(await h.stores.teams.getMember(team.id, b.id)).toMatchObject({ scheme_admin: false, delete_at: 5 });
    expect(await h.stores.teams.updateMemberRoles(team.id, makeUser().id, { scheme_user: true, scheme_admin: false, explicit_roles: '' })).toBe(false);
  });

  test('migration 021 adds the invite_id index and takes it away again, under existing teams', async () => {
    const names = async () => {
      if (h.dialect === 'sqlite') return ((await h.db.knex.raw("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'teams'")) as Array<{ name: string }>).map((r) => r.name);
      const [rows] = (await h.db.knex.raw("SELECT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'teams'")) as [Array<{ name: string }>];
      return rows.map((r) => r.name);
    };
    expect(await names()).toContain('idx_teams_invite_id');
    await teamInvites.down(h.db.knex);
    expect(await names()).not.toContain('idx_teams_invite_id');
    await teamInvites.up(h.db.knex);
    expect(await names()).toContain('idx_teams_invite_id');
    expect((await h.db.knex('teams').count({ n: '*' }))[0].n).not.toBe(0);
  });
});
