import { DUPLICATE, rejection, makeTeam, makeUser, openStores, forEachDatabase } from './fixtures';

forEachDatabase((h) => {
  test('teams round-trip; names are unique', async () => {
    const team = makeTeam({ type: 'I', allow_open_invite: false, description: 'd', email: 'e@example.com', company_name: 'c', allowed_domains: 'x.com' });
    await h.stores.teams.insert(team);
    expect(await h.stores.teams.get(team.id)).toEqual(team);
    expect(await h.stores.teams.getByName(team.name)).toEqual(team);
    expect(await h.stores.teams.getByName(team.name.toUpperCase())).toBeUndefined();
    expect(await h.stores.teams.getByName(`${team.name} `)).toBeUndefined();
    expect(await rejection(h.stores.teams.insert(makeTeam({ name: team.name })))).toMatch(DUPLICATE);
  });

  test('list and count: open-only for plain users, live teams only, by display name', async () => {
    const fresh = await openStores({ dialect: h.dialect });
    try {
      const b = makeTeam({ display_name: 'B' });
      const a = makeTeam({ display_name: 'A' });
      const closed = makeTeam({ display_name: 'C', type: 'I', allow_open_invite: false });
      const deleted = makeTeam({ display_name: 'D', delete_at: 9 });
      for (const t of [b, a, closed, deleted]) await fresh.stores.teams.insert(t);
      expect((await fresh.stores.teams.list({ openOnly: true, page: 0, perPage: 60 })).map((t) => t.id)).toEqual([a.id, b.id]);
      expect((await fresh.stores.teams.list({ openOnly: false, page: 0, perPage: 60 })).map((t) => t.id)).toEqual([a.id, b.id, closed.id]);
      expect((await fresh.stores.teams.list({ openOnly: false, page: 1, perPage: 2 })).map((t) => t.id)).toEqual([closed.id]);
      expect(await fresh.stores.teams.count({ openOnly: true })).toBe(2);
      expect(await fresh.stores.teams.count({ openOnly: false })).toBe(3);
    } finally {
      await fresh.close();
    }
  });

  test('members: roles from scheme flags, reactivation, listing by user id or username, deleted users excluded on request', async () => {
    const team = makeTeam();
    await h.stores.teams.insert(team);
    const zed = makeUser({ username: 'zed-store' });
    const amy = makeUser({ username: 'amy-store' });
    const old = makeUser({ username: 'old-store', delete_at: 5 });
    for (const u of [zed, amy, old]) await h.stores.users.insert(u);
    await h.stores.teams.insertMember({ team_id: team.id, user_id: zed.id, scheme_admin: true, create_at: 1 });
    await h.stores.teams.insertMember({ team_id: team.id, user_id: amy.id, scheme_admin: false, create_at: 1 });
    await h.stores.teams.insertMember({ team_id: team.id, user_id: old.id, scheme_admin: false, create_at: 1 });
    expect(await h.stores.teams.getMember(team.id, zed.id)).toEqual({
      team_id: team.id,
      user_id: zed.id,
      roles: 'team_user team_admin',
      delete_at: 0,
      scheme_guest: false,
      scheme_user: true,
      scheme_admin: true,
      explicit_roles: '',
    });
    expect((await h.stores.teams.getMember(team.id, amy.id))?.roles).toBe('team_user');

    const byId = await h.stores.teams.listMembers(team.id, { page: 0, perPage: 60, byUsername: false, excludeDeletedUsers: false });
    expect(byId.map((m) => m.user_id)).toEqual([zed.id, amy.id, old.id].sort());
    const byName = await h.stores.teams.listMembers(team.id, { page: 0, perPage: 60, byUsername: true, excludeDeletedUsers: true });
    expect(byName.map((m) => m.user_id)).toEqual([amy.id, zed.id]);

    expect((await h.stores.teams.listForUser(amy.id)).map((t) => t.id)).toEqual([team.id]);
    await h.db.knex('team_members').where({ team_id: team.id, user_id: amy.id }).update({ delete_at: 10 });
    expect(await h.stores.teams.listForUser(amy.id)).toEqual([]);
    expect((await h.stores.teams.listMembers(team.id, { page: 0, perPage: 60, byUsername: false, excludeDeletedUsers: false })).map((m) => m.user_id)).not.toContain(amy.id);
    await h.stores.teams.reactivateMember(team.id, amy.id);
    expect((await h.stores.teams.getMember(team.id, amy.id))?.delete_at).toBe(0);
  });
});
