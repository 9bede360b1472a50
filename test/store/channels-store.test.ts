import { DUPLICATE, rejection, channelWithMembers, makeChannel, makePost, makeTeam, makeUser, writePosts, forEachDatabase } from './fixtures';

forEachDatabase((h) => {
  let teamId: string;
  let otherTeamId: string;
  let alice: string;
  let bob: string;
  let gone: string; // a deactivated user

  beforeAll(async () => {
    const team = makeTeam();
    const otherTeam = makeTeam();
    await h.stores.teams.insert(team);
    await h.stores.teams.insert(otherTeam);
    teamId = team.id;
    otherTeamId = otherTeam.id;
    const users = [makeUser({ last_activity_at: 1234 }), makeUser(), makeUser({ delete_at: 99 })];
    for (const u of users) await h.stores.users.insert(u);
    [alice, bob, gone] = users.map((u) => u.id);
  });

  describe('channels', () => {
    test('insert, get and getByName (deleted ones only when asked)', async () => {
      const ch = makeChannel({ team_id: teamId, type: 'P', display_name: 'Secret', header: 'h', purpose: 'p', creator_id: alice });
      await h.stores.channels.insert(ch);
      expect(await h.stores.channels.get(ch.id)).toEqual(ch);
      expect(await h.stores.channels.getByName(teamId, ch.name, false)).toEqual(ch);
      expect(await h.stores.channels.getByName(otherTeamId, ch.name, true)).toBeUndefined();
      // Exact names only, whatever the database's collation.
      expect(await h.stores.channels.getByName(teamId, ch.name.toUpperCase(), true)).toBeUndefined();
      expect(await h.stores.channels.getByName(teamId, `${ch.name} `, true)).toBeUndefined();

      const deleted = makeChannel({ team_id: teamId, delete_at: 5 });
      await h.stores.channels.insert(deleted);
      expect(await h.stores.channels.getByName(teamId, deleted.name, false)).toBeUndefined();
      expect((await h.stores.channels.getByName(teamId, deleted.name, true))?.id).toBe(deleted.id);
    });

    test('(team_id, name) is unique; the same name in another team is fine', async () => {
      const ch = makeChannel({ team_id: teamId });
      await h.stores.channels.insert(ch);
      expect(await rejection(h.stores.channels.insert(makeChannel({ team_id: teamId, name: ch.name })))).toMatch(DUPLICATE);
      await h.stores.channels.insert(makeChannel({ team_id: otherTeamId, name: ch.name }));
    });

    test('listPublic: live open channels of the team, by display name, paged', async () => {
      const t = makeTeam();
      await h.stores.teams.insert(t);
      const b = makeChannel({ team_id: t.id, display_name: 'B' });
      const a = makeChannel({ team_id: t.id, display_name: 'A' });
      const c = makeChannel({ team_id: t.id, display_name: 'C' });
      for (const ch of [b, a, c, makeChannel({ team_id: t.id, type: 'P', display_name: 'A0' }), makeChannel({ team_id: t.id, display_name: 'A1', delete_at: 3 })]) {
        await h.stores.channels.insert(ch);
      }
      await h.stores.channels.insert(makeChannel({ team_id: otherTeamId, display_name: 'A2' }));
      expect((await h.stores.channels.listPublic(t.id, 0, 60)).map((x) => x.id)).toEqual([a.id, b.id, c.id]);
      expect((await h.stores.channels.listPublic(t.id, 1, 2)).map((x) => x.id)).toEqual([c.id]);
    });

    test("listForUser: the user's channels of the team plus team-less direct channels", async () => {
      const t = makeTeam();
      await h.stores.teams.insert(t);
      const mine = await channelWithMembers(h.stores, makeChannel({ team_id: t.id, display_name: 'mine' }), [alice]);
      await channelWithMembers(h.stores, makeChannel({ team_id: t.id, display_name: 'theirs' }), [bob]);
      await channelWithMembers(h.stores, makeChannel({ team_id: otherTeamId, display_name: 'elsewhere' }), [alice]);
      const dm = await channelWithMembers(h.stores, makeChannel({ team_id: '', type: 'D', name: [alice, bob].sort().join('__'), display_name: '' }), [alice, bob]);
      const archived = await channelWithMembers(h.stores, makeChannel({ team_id: t.id, display_name: 'old', delete_at: 500 }), [alice]);
      const older = await channelWithMembers(h.stores, makeChannel({ team_id: t.id, display_name: 'older', delete_at: 100 }), [alice]);

      const live = await h.stores.channels.listForUser(t.id, alice, false, 0);
      expect(live.map((c) => c.id).sort()).toEqual([mine.id, dm.id].sort());
      const all = await h.stores.channels.listForUser(t.id, alice, true, 0);
      expect(all.map((c) => c.id).sort()).toEqual([mine.id, dm.id, archived.id, older.id].sort());
      const recent = await h.stores.channels.listForUser(t.id, alice, true, 200);
      expect(recent.map((c) => c.id).sort()).toEqual([mine.id, dm.id, archived.id].sort());
    });
  });

  describe('members', () => {
    test('roles come from the scheme flags; notify props get defaults', async () => {
      const ch = makeChannel({ team_id: teamId });
      await h.stores.channels.insert(ch);
      await h.stores.channels.insertMember({ channel_id: ch.id, user_id: alice, scheme_admin: true, now: 77, msg_count: 3, msg_count_root: 2 });
      await h.stores.channels.insertMember({ channel_id: ch.id, user_id: bob, scheme_admin: false, now: 78, msg_count: 0, msg_count_root: 0 });
      expect(await h.stores.channels.getMember(ch.id, alice)).toEqual({
        channel_id: ch.id,
        user_id: alice,
        roles: 'channel_user channel_admin',
        last_viewed_at: 0,
        msg_count: 3,
        mention_count: 0,
        mention_count_root: 0,
        urgent_mention_count: 0,
        msg_count_root: 2,
        notify_props: { desktop: 'default', push: 'default', email: 'default', mark_unread: 'all', ignore_channel_mentions: 'default', channel_auto_follow_threads: 'off' },
        last_update_at: 77,
        scheme_guest: false,
        scheme_user: true,
        scheme_admin: true,
        explicit_roles: '',
      });
      expect((await h.stores.channels.getMember(ch.id, bob))?.roles).toBe('channel_user');
      expect(await rejection(h.stores.channels.insertMember({ channel_id: ch.id, user_id: bob, scheme_admin: false, now: 79, msg_count: 0, msg_count_root: 0 }))).toMatch(DUPLICATE);
    });

    test('listMembers pages by user id; memberUserIds lists all; removeMember reports what it removed', async () => {
      const ch = await channelWithMembers(h.stores, makeChannel({ team_id: teamId }), [bob, alice, gone]);
      const sorted = [alice, bob, gone].sort();
      expect((await h.stores.channels.listMembers(ch.id, 0, 2)).map((m) => m.user_id)).toEqual(sorted.slice(0, 2));
      expect((await h.stores.channels.listMembers(ch.id, 1, 2)).map((m) => m.user_id)).toEqual(sorted.slice(2));
      expect((await h.stores.channels.memberUserIds(ch.id)).sort()).toEqual(sorted);
      expect(await h.stores.channels.removeMember(ch.id, bob)).toBe(1);
      expect(await h.stores.channels.removeMember(ch.id, bob)).toBe(0);
      expect(await h.stores.channels.getMember(ch.id, bob)).toBeUndefined();
    });

    test('notifyAudience: live members with their settings and stored status; setNotifyProps replaces a membership\'s', async () => {
      const ch = await channelWithMembers(h.stores, makeChannel({ team_id: teamId }), [alice, bob, gone]);
      await h.stores.status.save({ user_id: bob, status: 'dnd', manual: true, last_activity_at: 5, dnd_end_time: 77, prev_status: 'online' });
      const props = { desktop: 'none', mark_unread: 'mention', ignore_channel_mentions: 'on' };
      expect(await h.stores.channels.setNotifyProps(ch.id, alice, props, 4321)).toBe(true);
      expect(await h.stores.channels.setNotifyProps(ch.id, 'x'.repeat(26), props, 4321)).toBe(false);
      const audience = await h.stores.channels.notifyAudience(ch.id);
      const aliceRecord = await h.stores.users.get(alice);
      expect(audience.map((m) => m.userId).sort()).toEqual([alice, bob].sort());
      expect(audience.find((m) => m.userId === alice)).toEqual({
        userId: alice,
        username: aliceRecord?.username,
        firstName: aliceRecord?.first_name,
        isBot: false,
        lastActivityAt: 1234,
        notifyProps: aliceRecord?.notify_props,
        channelNotifyProps: props,
        stored: undefined,
      });
      expect(audience.find((m) => m.userId === bob)?.stored).toEqual({ status: 'dnd', manual: true, dnd_end_time: 77, prev_status: 'online' });
      expect((await h.stores.channels.getMember(ch.id, alice))?.last_update_at).toBe(4321);
    });

    test('notifyKeywordHolders: live users with mention keys, first name on, or comments on', async () => {
      const base = { email: 'true', desktop: 'mention', mention_keys: '', first_name: 'false', comments: 'never' };
      const users = [
        makeUser({ notify_props: { ...base, mention_keys: 'deploy' } }),
        makeUser({ notify_props: { ...base, first_name: 'true' }, first_name: 'Ann' }),
        makeUser({ notify_props: { ...base, comments: 'root' } }),
        makeUser({ notify_props: { ...base } }),
        makeUser({ notify_props: { ...base, mention_keys: 'x' }, delete_at: 5 }),
      ];
      for (const u of users) await h.stores.users.insert(u);
      const found = new Map((await h.stores.users.notifyKeywordHolders(100000)).map((u) => [u.id, u]));
      expect(users.map((u) => found.has(u.id))).toEqual([true, true, true, false, false]);
      expect(found.get(users[1].id)).toEqual({ id: users[1].id, first_name: 'Ann', notify_props: users[1].notify_props });
    });
  });

  describe('counters', () => {
    test('posts move the channel total; view catches the member up and clears mentions, for that user and channel only', async () => {
      const a = await channelWithMembers(h.stores, makeChannel({ team_id: teamId }), [alice, bob]);
      const b = await channelWithMembers(h.stores, makeChannel({ team_id: teamId }), [alice, bob]);
      const root = makePost({ channel_id: a.id, user_id: alice, create_at: 10 });
      await writePosts(h.stores, a.id, [root, makePost({ channel_id: a.id, user_id: alice, create_at: 11, root_id: root.id })], new Map([[bob, { all: 2, root: 1 }]]));
      await writePosts(h.stores, b.id, [makePost({ channel_id: b.id, user_id: alice, create_at: 12 })], new Map([[bob, { all: 1, root: 1 }]]));
      await writePosts(h.stores, a.id, [makePost({ channel_id: a.id, user_id: bob, create_at: 13 })], new Map([[alice, { all: 1, root: 1 }]]));

      expect(await h.stores.channels.get(a.id)).toMatchObject({ total_msg_count: 3, total_msg_count_root: 2 });
      expect(await h.stores.channels.getMember(a.id, bob)).toMatchObject({ msg_count: 0, msg_count_root: 0, mention_count: 2, mention_count_root: 1 });

      await h.stores.channels.view([a.id], bob, 500);
      expect(await h.stores.channels.getMember(a.id, bob)).toMatchObject({
        msg_count: 3,
        msg_count_root: 2,
        mention_count: 0,
        mention_count_root: 0,
        last_viewed_at: 500,
        last_update_at: 500,
      });
      // Not viewed: bob in b, alice in a.
      expect(await h.stores.channels.getMember(b.id, bob)).toMatchObject({ msg_count: 0, mention_count: 1 });
      expect(await h.stores.channels.getMember(a.id, alice)).toMatchObject({ mention_count: 1 });

      await h.stores.channels.view([a.id, b.id], alice, 600);
      for (const ch of [a, b]) {
        const total = (await h.stores.channels.get(ch.id))?.total_msg_count;
        expect(await h.stores.channels.getMember(ch.id, alice)).toMatchObject({ msg_count: total, mention_count: 0, last_viewed_at: 600 });
      }
      await h.stores.channels.view([], alice, 700);
      expect((await h.stores.channels.getMember(a.id, alice))?.last_viewed_at).toBe(600);
    });
  });
});
