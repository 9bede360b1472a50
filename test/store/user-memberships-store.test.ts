// The store queries behind a user's memberships across all teams (GetTeamMembersForUser, GetChannelsForUser,
// GetChannelMembersWithTeamDataForUser), on every available database: every team, direct channels, the archive filters,
// the team columns (none for a direct channel), the order by id and the bounds.
import { channelWithMembers, forEachDatabase, makeChannel, makeTeam, makeUser } from './fixtures';

forEachDatabase((h) => {
  async function team(fields: Parameters<typeof makeTeam>[0] = {}) {
    const t = makeTeam(fields);
    await h.stores.teams.insert(t);
    return t;
  }

  async function world() {
    const [u, v] = [makeUser(), makeUser()];
    await h.stores.users.insert(u);
    await h.stores.users.insert(v);
    const [t1, t2] = [await team({ display_name: 'Émile', update_at: 42 }), await team({ display_name: 'Two', update_at: 7 })];
    const c1 = await channelWithMembers(h.stores, makeChannel({ team_id: t1.id }), [u.id, v.id]);
    const c2 = await channelWithMembers(h.stores, makeChannel({ team_id: t2.id, type: 'P' }), [u.id]);
    const archived = await channelWithMembers(h.stores, makeChannel({ team_id: t1.id, delete_at: 100 }), [u.id]);
    const dm = await channelWithMembers(h.stores, makeChannel({ team_id: '', type: 'D', name: `${u.id}__${v.id}` }), [u.id, v.id]);
    await channelWithMembers(h.stores, makeChannel({ team_id: t1.id }), [v.id]);
    return { u, v, t1, t2, c1, c2, archived, dm };
  }

  test('listAllForUser: every team and the direct channels, by id; archived ones with includeDeleted, since lastDeleteAt', async () => {
    const w = await world();
    const ids = async (opts: { includeDeleted: boolean; lastDeleteAt: number; limit: number }) => (await h.stores.channels.listAllForUser(w.u.id, opts)).map((c) => c.id);
    const live = [w.c1.id, w.c2.id, w.dm.id].sort();
    expect(await ids({ includeDeleted: false, lastDeleteAt: 0, limit: 100 })).toEqual(live);
    expect(await ids({ includeDeleted: true, lastDeleteAt: 0, limit: 100 })).toEqual([...live, w.archived.id].sort());
    expect(await ids({ includeDeleted: true, lastDeleteAt: 100, limit: 100 })).toEqual([...live, w.archived.id].sort());
    expect(await ids({ includeDeleted: true, lastDeleteAt: 101, limit: 100 })).toEqual(live);
    expect(await ids({ includeDeleted: false, lastDeleteAt: 0, limit: 2 })).toEqual(live.slice(0, 2));
    expect((await h.stores.channels.listAllForUser(w.u.id, { includeDeleted: false, lastDeleteAt: 0, limit: 100 })).find((c) => c.id === w.c2.id)).toEqual(w.c2);
  });

  test("membersWithTeamsOfUser: the user's memberships by channel id with their team's names and update time; a window pages them", async () => {
    const w = await world();
    const all = await h.stores.channels.membersWithTeamsOfUser(w.u.id, { offset: 0, limit: 100 });
    expect(all.map((m) => m.channel_id)).toEqual([w.c1.id, w.c2.id, w.archived.id, w.dm.id].sort());
    const byChannel = new Map(all.map((m) => [m.channel_id, m]));
    expect(byChannel.get(w.c1.id)).toMatchObject({ user_id: w.u.id, roles: 'channel_user', team_display_name: 'Émile', team_name: w.t1.name, team_update_at: 42 });
    expect(byChannel.get(w.c2.id)).toMatchObject({ team_display_name: 'Two', team_name: w.t2.name, team_update_at: 7 });
    expect(byChannel.get(w.dm.id)).toMatchObject({ team_display_name: '', team_name: '', team_update_at: 0 });
    const pages = [
      ...(await h.stores.channels.membersWithTeamsOfUser(w.u.id, { offset: 0, limit: 3 })),
      ...(await h.stores.channels.membersWithTeamsOfUser(w.u.id, { offset: 3, limit: 3 })),
    ];
    expect(pages).toEqual(all);
  });

  test('membershipsOfUser: every team membership row, the left ones too, by team id, at most limit', async () => {
    const u = makeUser();
    await h.stores.users.insert(u);
    const teams = [await team(), await team(), await team()];
    for (const t of teams) await h.stores.teams.insertMember({ team_id: t.id, user_id: u.id, scheme_admin: t === teams[1], create_at: 1 });
    await h.stores.teams.removeMember(teams[2].id, u.id, 55);
    const rows = await h.stores.teams.membershipsOfUser(u.id, 10);
    const sorted = [...teams].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(rows.map((m) => m.team_id)).toEqual(sorted.map((t) => t.id));
    expect(rows.find((m) => m.team_id === teams[1].id)).toMatchObject({ roles: 'team_user team_admin', scheme_admin: true, delete_at: 0 });
    expect(rows.find((m) => m.team_id === teams[2].id)).toMatchObject({ delete_at: 55, scheme_admin: false });
    expect((await h.stores.teams.membershipsOfUser(u.id, 2)).map((m) => m.team_id)).toEqual(sorted.slice(0, 2).map((t) => t.id));
  });
});
