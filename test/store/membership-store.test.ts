// The store queries behind channel and team management, on every available database: archive/restore as one
// conditional update, a user's memberships and unread counts, leaving a team's channels, team member counts, user
// autocomplete (collations, LIKE escaping) and the system admins locked for a role change.
import { newId } from '../../src/lib/ids';
import type { Stores } from '../../src/store';
import { channelWithMembers, forEachDatabase, makeChannel, makePost, makeTeam, makeUser, makeWebhook, writePosts } from './fixtures';
import { eventually } from '../support/eventually';

forEachDatabase((h) => {
  async function user(fields: Parameters<typeof makeUser>[0] = {}) {
    const u = makeUser(fields);
    await h.stores.users.insert(u);
    return u;
  }

  async function team() {
    const t = makeTeam();
    await h.stores.teams.insert(t);
    return t;
  }

  test('setDeleteAt archives and restores once: a second archive (or restore) changes nothing and says so', async () => {
    const t = await team();
    const c = await channelWithMembers(h.stores, makeChannel({ team_id: t.id }), []);
    expect(await h.stores.channels.setDeleteAt(c.id, 50, 51)).toBe(true);
    expect(await h.stores.channels.setDeleteAt(c.id, 60, 61)).toBe(false);
    expect(await h.stores.channels.get(c.id)).toMatchObject({ delete_at: 50, update_at: 51 });
    expect(await h.stores.channels.setDeleteAt(c.id, 0, 70)).toBe(true);
    expect(await h.stores.channels.setDeleteAt(c.id, 0, 80)).toBe(false);
    expect(await h.stores.channels.get(c.id)).toMatchObject({ delete_at: 0, update_at: 70 });
    expect(await h.stores.channels.setDeleteAt(newId(), 5, 5)).toBe(false);
  });

  test('update writes the given settings only; a taken name is a duplicate (collation-exact names otherwise)', async () => {
    const t = await team();
    const a = await channelWithMembers(h.stores, makeChannel({ team_id: t.id, header: 'keep', purpose: 'keep' }), []);
    const b = await channelWithMembers(h.stores, makeChannel({ team_id: t.id }), []);
    expect(await h.stores.channels.update(a.id, { header: '😀 new', update_at: 9 })).toBe(true);
    expect(await h.stores.channels.get(a.id)).toMatchObject({ header: '😀 new', purpose: 'keep', update_at: 9, name: a.name });
    await expect(h.stores.channels.update(b.id, { name: a.name })).rejects.toMatchObject({ kind: 'duplicate' });
    expect(await h.stores.channels.update(newId(), { header: 'x' })).toBe(false);
  });

  test("membersForUser: the team's channels (archived too) and direct channels, not another team's", async () => {
    const [t1, t2] = [await team(), await team()];
    const [u, v] = [await user(), await user()];
    const c1 = await channelWithMembers(h.stores, makeChannel({ team_id: t1.id }), [u.id, v.id]);
    const archived = await channelWithMembers(h.stores, makeChannel({ team_id: t1.id, delete_at: 7 }), [u.id]);
    const dm = await channelWithMembers(h.stores, makeChannel({ team_id: '', type: 'D', name: `${u.id}__${v.id}` }), [u.id, v.id]);
    const other = await channelWithMembers(h.stores, makeChannel({ team_id: t2.id }), [u.id]);
    await channelWithMembers(h.stores, makeChannel({ team_id: t1.id }), [v.id]);
    const ids = (await h.stores.channels.membersForUser(t1.id, u.id)).map((m) => m.channel_id);
    expect(ids.sort()).toEqual([c1.id, archived.id, dm.id].sort());
    expect(ids).not.toContain(other.id);
  });

  test('updateMemberRoles sets the admin flag; a non-member is false', async () => {
    const t = await team();
    const u = await user();
    const c = await channelWithMembers(h.stores, makeChannel({ team_id: t.id }), [u.id]);
    expect(await h.stores.channels.updateMemberRoles(c.id, u.id, { schemeAdmin: true, explicit: '', now: 3 })).toBe(true);
    expect(await h.stores.channels.getMember(c.id, u.id)).toMatchObject({ roles: 'channel_user channel_admin', scheme_admin: true, last_update_at: 3 });
    expect(await h.stores.channels.updateMemberRoles(c.id, newId(), { schemeAdmin: true, explicit: '', now: 3 })).toBe(false);
  });

  test("removeMemberFromTeamChannels drops the user's memberships of that team's channels only", async () => {
    const [t1, t2] = [await team(), await team()];
    const [u, v] = [await user(), await user()];
    const a = await channelWithMembers(h.stores, makeChannel({ team_id: t1.id }), [u.id, v.id]);
    const archived = await channelWithMembers(h.stores, makeChannel({ team_id: t1.id, delete_at: 3 }), [u.id]);
    const dm = await channelWithMembers(h.stores, makeChannel({ team_id: '', type: 'D', name: `${u.id}__${v.id}` }), [u.id, v.id]);
    const other = await channelWithMembers(h.stores, makeChannel({ team_id: t2.id }), [u.id]);
    expect(await h.stores.channels.removeMemberFromTeamChannels(t1.id, u.id)).toBe(2);
    expect(await h.stores.channels.getMember(a.id, u.id)).toBeUndefined();
    expect(await h.stores.channels.getMember(archived.id, u.id)).toBeUndefined();
    expect(await h.stores.channels.getMember(a.id, v.id)).toBeDefined();
    expect(await h.stores.channels.getMember(dm.id, u.id)).toBeDefined();
    expect(await h.stores.channels.getMember(other.id, u.id)).toBeDefined();
  });

  test('unreadsForUser: per channel of live team channels, mark_unread read from the member, one team or all but one', async () => {
    const [t1, t2] = [await team(), await team()];
    const [u, poster] = [await user(), await user()];
    const a = await channelWithMembers(h.stores, makeChannel({ team_id: t1.id }), [u.id, poster.id]);
    const b = await channelWithMembers(h.stores, makeChannel({ team_id: t2.id }), [u.id, poster.id]);
    const gone = await channelWithMembers(h.stores, makeChannel({ team_id: t1.id }), [u.id, poster.id]);
    const dm = await channelWithMembers(h.stores, makeChannel({ team_id: '', type: 'D', name: `${u.id}__${poster.id}` }), [u.id, poster.id]);
    await writePosts(h.stores, a.id, [makePost({ channel_id: a.id, user_id: poster.id, create_at: 10 }), makePost({ channel_id: a.id, user_id: poster.id, create_at: 11 })], new Map([[u.id, { all: 1, root: 1 }]]));
    const root = makePost({ channel_id: b.id, user_id: poster.id, create_at: 12 });
    await writePosts(h.stores, b.id, [root, makePost({ channel_id: b.id, user_id: poster.id, create_at: 13, root_id: root.id })]);
    await writePosts(h.stores, gone.id, [makePost({ channel_id: gone.id, user_id: poster.id, create_at: 14 })]);
    await writePosts(h.stores, dm.id, [makePost({ channel_id: dm.id, user_id: poster.id, create_at: 15 })]);
    await h.stores.channels.setDeleteAt(gone.id, 20, 20);
    await h.db.knex('channel_members').where({ channel_id: b.id, user_id: u.id }).update({ notify_props: JSON.stringify({ mark_unread: 'mention' }) });
    const one = await h.stores.channels.unreadsForUser(u.id, { teamId: t1.id });
    expect(one).toEqual([{ teamId: t1.id, msgCount: 2, msgCountRoot: 2, mentionCount: 1, mentionCountRoot: 1, markUnread: 'all' }]);
    const all = await h.stores.channels.unreadsForUser(u.id, {});
    expect(all.sort((x, y) => (x.teamId < y.teamId ? -1 : 1))).toEqual(
      [
        { teamId: t1.id, msgCount: 2, msgCountRoot: 2, mentionCount: 1, mentionCountRoot: 1, markUnread: 'all' },
        { teamId: t2.id, msgCount: 2, msgCountRoot: 1, mentionCount: 0, mentionCountRoot: 0, markUnread: 'mention' },
      ].sort((x, y) => (x.teamId < y.teamId ? -1 : 1)),
    );
    expect((await h.stores.channels.unreadsForUser(u.id, { excludeTeamId: t1.id })).map((r) => r.teamId)).toEqual([t2.id]);
  });

  test('activeMemberCount counts active users; pinnedPostCount live pinned posts', async () => {
    const t = await team();
    const [u, v, w] = [await user(), await user(), await user({ delete_at: 4 })];
    const c = await channelWithMembers(h.stores, makeChannel({ team_id: t.id }), [u.id, v.id, w.id]);
    expect(await h.stores.channels.activeMemberCount(c.id)).toBe(2);
    await writePosts(h.stores, c.id, [
      makePost({ channel_id: c.id, user_id: u.id, create_at: 1, is_pinned: true }),
      makePost({ channel_id: c.id, user_id: u.id, create_at: 2, is_pinned: true, delete_at: 3 }),
      makePost({ channel_id: c.id, user_id: u.id, create_at: 3 }),
    ]);
    expect(await h.stores.channels.pinnedPostCount(c.id)).toBe(1);
  });

  test('team removeMember ends a membership once, clearing its roles; memberCounts counts current members', async () => {
    const t = await team();
    const [admin, u, off] = [await user(), await user(), await user({ delete_at: 2 })];
    for (const [m, isAdmin] of [[admin, true], [u, false], [off, false]] as const) await h.stores.teams.insertMember({ team_id: t.id, user_id: m.id, scheme_admin: isAdmin, create_at: 1 });
    expect(await h.stores.teams.memberCounts(t.id)).toEqual({ total: 3, active: 2 });
    expect(await h.stores.teams.removeMember(t.id, admin.id, 9)).toBe(true);
    expect(await h.stores.teams.removeMember(t.id, admin.id, 10)).toBe(false);
    expect(await h.stores.teams.getMember(t.id, admin.id)).toMatchObject({ delete_at: 9, roles: 'team_user', scheme_admin: false });
    expect(await h.stores.teams.memberCounts(t.id)).toEqual({ total: 2, active: 1 });
    expect(await h.stores.teams.memberCounts(newId())).toEqual({ total: 0, active: 0 });
  });

  test('softDeleteForChannel deletes the live hooks of one channel', async () => {
    const t = await team();
    const u = await user();
    const [c, d] = [await channelWithMembers(h.stores, makeChannel({ team_id: t.id }), [u.id]), await channelWithMembers(h.stores, makeChannel({ team_id: t.id }), [u.id])];
    const [h1, h2, h3] = [makeWebhook({ channel_id: c.id, team_id: t.id, user_id: u.id }), makeWebhook({ channel_id: c.id, team_id: t.id, user_id: u.id }), makeWebhook({ channel_id: d.id, team_id: t.id, user_id: u.id })];
    for (const hook of [h1, h2, h3]) await h.stores.webhooks.insert(hook);
    expect(await h.stores.webhooks.softDeleteForChannel(c.id, 33)).toBe(2);
    expect(await h.db.knex('incoming_webhooks').where({ id: h1.id }).first()).toMatchObject({ delete_at: 33, update_at: 33 });
    expect(await h.stores.webhooks.get(h2.id)).toBeUndefined();
    expect(await h.stores.webhooks.get(h3.id)).toMatchObject({ delete_at: 0 });
  });

  describe('users', () => {
    const tag = `ac${newId().slice(0, 5)}`;
    let teamId: string;
    let channelId: string;
    const made: Record<string, string> = {};
    beforeAll(async () => {
      const t = makeTeam();
      await h.stores.teams.insert(t);
      teamId = t.id;
      const specs: Record<string, Parameters<typeof makeUser>[0]> = {
        zoe: { username: `${tag}zoe`, first_name: 'Zoë', last_name: 'Ångström', nickname: 'Zed' },
        ana: { username: `${tag}ana`, first_name: 'Ana', last_name: 'Smith', nickname: '' },
        pct: { username: `${tag}p%t`, first_name: '', last_name: '', nickname: '' },
        off: { username: `${tag}off`, first_name: 'Ann', last_name: '', nickname: '', delete_at: 4 },
      };
      for (const [key, fields] of Object.entries(specs)) {
        const u = makeUser(fields);
        await h.stores.users.insert(u);
        made[key] = u.id;
        await h.stores.teams.insertMember({ team_id: teamId, user_id: u.id, scheme_admin: false, create_at: 1 });
      }
      channelId = (await channelWithMembers(h.stores, makeChannel({ team_id: teamId }), [made.zoe])).id;
    });
    const search = (stores: Stores, words: string[], extra: Partial<Parameters<Stores['users']['autocomplete']>[0]> = {}) =>
      stores.users.autocomplete({ words, fullNames: true, limit: 100, ...extra }).then((list) => list.map((u) => u.username));

    test('autocomplete: prefixes of username, nickname and names in any case; active users; LIKE characters literal', async () => {
      expect(await search(h.stores, [tag])).toEqual([`${tag}ana`, `${tag}p%t`, `${tag}zoe`]);
      expect(await search(h.stores, ['zed'])).toEqual([`${tag}zoe`]);
      expect(await search(h.stores, ['SMI'])).toEqual([`${tag}ana`]);
      expect(await search(h.stores, ['ana', 'smith'])).toEqual([`${tag}ana`]);
      expect(await search(h.stores, ['ana', 'jones'])).toEqual([]);
      expect(await search(h.stores, ['smi'], { fullNames: false })).toEqual([]);
      expect(await search(h.stores, [`${tag}p%`])).toEqual([`${tag}p%t`]);
      expect(await search(h.stores, [`${tag}_`])).toEqual([]);
      expect(await search(h.stores, [tag], { limit: 1 })).toEqual([`${tag}ana`]);
    });

    test('autocomplete: in a channel, and in the team outside it', async () => {
      expect(await search(h.stores, [tag], { inChannel: channelId })).toEqual([`${tag}zoe`]);
      expect(await search(h.stores, [tag], { inTeam: teamId, notInChannel: channelId })).toEqual([`${tag}ana`, `${tag}p%t`]);
    });

    test('activeAdminIdsForUpdate: the active system admins, and on MySQL they stay locked until the transaction ends', async () => {
      const admins = [makeUser({ roles: 'system_user system_admin' }), makeUser({ roles: 'system_admin system_user' }), makeUser({ roles: 'system_user system_admin', delete_at: 3 })];
      for (const a of admins) await h.stores.users.insert(a);
      await h.stores.users.insert(makeUser({ roles: 'system_user system_adminx' }));
      const ids = await h.stores.transaction((tx) => tx.users.activeAdminIdsForUpdate());
      expect(ids).toEqual(expect.arrayContaining([admins[0].id, admins[1].id]));
      expect(ids).not.toContain(admins[2].id);
      expect(ids).toHaveLength(2);
      if (h.dialect !== 'mysql') return;
      // A second transaction reading them waits for the first to end.
      let release: () => void = () => undefined;
      const held = new Promise<void>((r) => (release = r));
      const order: string[] = [];
      const first = h.stores.transaction(async (tx) => {
        await tx.users.activeAdminIdsForUpdate();
        order.push('first locked');
        await held;
        await tx.users.update(admins[0].id, { roles: 'system_user' });
        order.push('first done');
      });
      await eventually(() => expect(order).toContain('first locked'));
      const second = h.stores.transaction(async (tx) => {
        const seen = await tx.users.activeAdminIdsForUpdate();
        order.push(`second saw ${seen.length}`);
      });
      // A fixed pause on purpose: the claim is that the second transaction stays blocked while the first holds the lock.
      await new Promise((r) => setTimeout(r, 300));
      release();
      await Promise.all([first, second]);
      expect(order).toEqual(['first locked', 'first done', 'second saw 1']);
    });
  });
});
