import type { Channel, IncomingWebhook, UserRecord } from '../../src/model';
import type { HookProbe } from '../../src/store/webhooks-store';
import { newId } from '../../src/lib/ids';
import { channelWithMembers, forEachDatabase, makeChannel, makeTeam, makeUser, makeWebhook, useStores, type StoreHarness } from './fixtures';

const ids = (hooks: IncomingWebhook[]) => hooks.map((x) => x.id);

/** A live hook by a live creator, posting to a channel the creator is a member of. */
interface World {
  hook: IncomingWebhook;
  channel: Channel;
  creator: UserRecord;
  /** A live user who is not a member of the channel. */
  outsider: UserRecord;
  /** Another channel of the team, the creator not a member. */
  elsewhere: Channel;
}

async function world(h: StoreHarness): Promise<World> {
  const team = makeTeam();
  await h.stores.teams.insert(team);
  const creator = makeUser({ update_at: 3 });
  const outsider = makeUser({ update_at: 4 });
  await h.stores.users.insert(creator);
  await h.stores.users.insert(outsider);
  const channel = await channelWithMembers(h.stores, makeChannel({ team_id: team.id, type: 'P', create_at: 6 }), [creator.id]);
  const elsewhere = await channelWithMembers(h.stores, makeChannel({ team_id: team.id, create_at: 8 }), [outsider.id]);
  const hook = { ...makeWebhook({ channel_id: channel.id, team_id: team.id, user_id: creator.id }), update_at: 5 };
  await h.stores.webhooks.insert(hook);
  return { hook, channel, creator, outsider, elsewhere };
}

forEachDatabase((h) => {
  test('insert and get round-trip every field; a deleted or unknown hook is undefined', async () => {
    const hook: IncomingWebhook = {
      ...makeWebhook({ channel_id: newId(), team_id: newId(), user_id: newId() }),
      create_at: 10,
      update_at: 11,
      display_name: 'Build bot',
      description: 'Posts CI results 😀',
      username: 'ci-bot',
      icon_url: 'https://example.com/ci.png',
      channel_locked: true,
    };
    await h.stores.webhooks.insert(hook);
    expect(await h.stores.webhooks.get(hook.id)).toEqual(hook);

    const deleted = { ...makeWebhook({ channel_id: newId(), team_id: newId(), user_id: newId() }), delete_at: 12 };
    await h.stores.webhooks.insert(deleted);
    expect(await h.stores.webhooks.get(deleted.id)).toBeUndefined();
    expect(await h.stores.webhooks.get(newId())).toBeUndefined();
  });

  test('update replaces every field of that hook only', async () => {
    const [hook, other] = [makeWebhook({ channel_id: newId(), team_id: newId(), user_id: newId() }), makeWebhook({ channel_id: newId(), team_id: newId(), user_id: newId() })];
    await h.stores.webhooks.insert(hook);
    await h.stores.webhooks.insert(other);
    const changed = { ...hook, update_at: 40, channel_id: newId(), display_name: 'renamed', description: 'd', username: 'u', icon_url: 'i', channel_locked: true };
    await h.stores.webhooks.update(changed);
    expect(await h.stores.webhooks.get(hook.id)).toEqual(changed);
    expect(await h.stores.webhooks.get(other.id)).toEqual(other);
  });

  test('update does not bring back a hook deleted since it was read (a concurrent DELETE stands)', async () => {
    const hook = makeWebhook({ channel_id: newId(), team_id: newId(), user_id: newId() });
    await h.stores.webhooks.insert(hook);
    const read = (await h.stores.webhooks.get(hook.id))!;
    await h.stores.webhooks.softDelete(hook.id, 30);
    await h.stores.webhooks.update({ ...read, display_name: 'renamed', update_at: 40 });
    expect(await h.stores.webhooks.get(hook.id)).toBeUndefined();
    expect(await h.db.knex('incoming_webhooks').where({ id: hook.id }).first()).toMatchObject({ delete_at: 30, update_at: 30, display_name: hook.display_name });
  });

  test('softDelete hides the hook and stamps it once; deleting again keeps the first time', async () => {
    const hook = makeWebhook({ channel_id: newId(), team_id: newId(), user_id: newId() });
    await h.stores.webhooks.insert(hook);
    await h.stores.webhooks.softDelete(hook.id, 70);
    expect(await h.stores.webhooks.get(hook.id)).toBeUndefined();
    const row = () => h.db.knex('incoming_webhooks').where({ id: hook.id }).first();
    expect(await row()).toMatchObject({ delete_at: 70, update_at: 70 });
    await h.stores.webhooks.softDelete(hook.id, 80);
    expect(await row()).toMatchObject({ delete_at: 70, update_at: 70 });
  });

  describe('list and count', () => {
    // A database of its own: an unfiltered list is every hook in it.
    const l = useStores(h.dialect);
    const [t1, t2, alice, bob] = [newId(), newId(), newId(), newId()];
    const hook = (team: string, user: string, createAt: number, deleteAt = 0) => ({ ...makeWebhook({ channel_id: newId(), team_id: team, user_id: user }), create_at: createAt, delete_at: deleteAt });
    // Two hooks created in the same millisecond: ordered by id.
    const [a, b] = [hook(t1, alice, 20), hook(t1, bob, 20)].sort((x, y) => (x.id < y.id ? -1 : 1));
    const older = hook(t1, alice, 10);
    const otherTeam = hook(t2, alice, 5);
    const deleted = hook(t1, alice, 1, 3);

    beforeAll(async () => {
      for (const x of [a, b, older, otherTeam, deleted]) await l.stores.webhooks.insert(x);
    });

    test.each<[string, { teamId?: string; userId?: string }, IncomingWebhook[]]>([
      ['every live hook, oldest first, ties by id', {}, [otherTeam, older, a, b]],
      ['of a team', { teamId: t1 }, [older, a, b]],
      ['of another team', { teamId: t2 }, [otherTeam]],
      ['of a user', { userId: alice }, [otherTeam, older, ...[a, b].filter((x) => x.user_id === alice)]],
      ['of a team and a user', { teamId: t1, userId: bob }, [bob === a.user_id ? a : b]],
      ['of a team and a user with none there', { teamId: t2, userId: bob }, []],
      ['of an unknown team', { teamId: newId() }, []],
    ])('%s', async (_case, filter, want) => {
      expect(ids(await l.stores.webhooks.list({ ...filter, page: 0, perPage: 60 }))).toEqual(ids(want));
      expect(await l.stores.webhooks.count(filter)).toBe(want.length);
    });

    test('page and perPage', async () => {
      expect(ids(await l.stores.webhooks.list({ page: 0, perPage: 3 }))).toEqual(ids([otherTeam, older, a]));
      expect(ids(await l.stores.webhooks.list({ page: 1, perPage: 3 }))).toEqual(ids([b]));
      expect(ids(await l.stores.webhooks.list({ teamId: t1, page: 1, perPage: 2 }))).toEqual(ids([b]));
      expect(await l.stores.webhooks.list({ page: 2, perPage: 2 })).toEqual([]);
    });
  });

  // The webhook cache serves hooks, channels, creators and memberships from memory; the post's transaction probes
  // their versions and commits only if they still match. So each field must move whenever what it reports changes.
  describe('probe', () => {
    const probe = (w: World, channelId = w.channel.id, userId = w.creator.id) => h.stores.webhooks.probe(w.hook.id, channelId, userId);
    const channelRow = (c: Channel) => h.db.knex('channels').where({ id: c.id });

    test('reports the versions of the hook, the target channel and the creator, and the membership', async () => {
      const w = await world(h);
      expect(await probe(w)).toEqual({ hookUpdateAt: 5, channelUpdateAt: 6, channelDeleteAt: 0, creatorUpdateAt: 3, creatorDeleteAt: 0, isMember: true });
      // Run in the post's own transaction, as the app does, it answers the same.
      expect(await h.stores.transaction((tx) => tx.webhooks.probe(w.hook.id, w.channel.id, w.creator.id))).toEqual(await probe(w));
    });

    test.each<[string, (w: World) => Promise<unknown>, Partial<HookProbe>]>([
      ['the hook is updated', (w) => h.stores.webhooks.update({ ...w.hook, display_name: 'renamed', update_at: 50 }), { hookUpdateAt: 50 }],
      ['the channel is updated', (w) => channelRow(w.channel).update({ header: 'new', update_at: 60 }), { channelUpdateAt: 60 }],
      ['the channel is archived (update_at untouched)', (w) => channelRow(w.channel).update({ delete_at: 70 }), { channelDeleteAt: 70 }],
      ['the creator is updated', (w) => h.stores.users.update(w.creator.id, { nickname: 'new', update_at: 80 }), { creatorUpdateAt: 80 }],
      ['the creator is deactivated (update_at untouched)', (w) => h.stores.users.update(w.creator.id, { delete_at: 90 }), { creatorDeleteAt: 90 }],
      ['the creator leaves the channel', (w) => h.stores.channels.removeMember(w.channel.id, w.creator.id), { isMember: false }],
      ['another user leaves a channel, or joins', async (w) => {
        await h.stores.channels.removeMember(w.elsewhere.id, w.outsider.id);
        await h.stores.channels.insertMember({ channel_id: w.channel.id, user_id: w.outsider.id, scheme_admin: false, now: 1, msg_count: 0, msg_count_root: 0 });
      }, {}],
      ['another hook of the channel is updated', (w) => h.stores.webhooks.insert({ ...w.hook, id: newId(), update_at: 99 }), {}],
    ])('moves when %s, and nothing else moves', async (_case, change, moved) => {
      const w = await world(h);
      const before = await probe(w);
      await change(w);
      expect(await probe(w)).toEqual({ ...before, ...moved });
    });

    test('membership: the given user in the given channel', async () => {
      const w = await world(h);
      // The outsider is not in the hook's channel until added.
      expect((await probe(w, w.channel.id, w.outsider.id))?.isMember).toBe(false);
      await h.stores.channels.insertMember({ channel_id: w.channel.id, user_id: w.outsider.id, scheme_admin: false, now: 1, msg_count: 0, msg_count_root: 0 });
      expect((await probe(w, w.channel.id, w.outsider.id))?.isMember).toBe(true);
      // A channel other than the hook's own (a hook not locked to it): that channel's versions, and the creator is not
      // a member there.
      expect(await probe(w, w.elsewhere.id)).toEqual({ hookUpdateAt: 5, channelUpdateAt: 8, channelDeleteAt: 0, creatorUpdateAt: 3, creatorDeleteAt: 0, isMember: false });
      await h.stores.channels.insertMember({ channel_id: w.elsewhere.id, user_id: w.creator.id, scheme_admin: false, now: 1, msg_count: 0, msg_count_root: 0 });
      expect((await probe(w, w.elsewhere.id))?.isMember).toBe(true);
    });

    test.each<[string, (w: World) => Promise<HookProbe | undefined>]>([
      ['the hook was deleted', async (w) => {
        await h.stores.webhooks.softDelete(w.hook.id, 100);
        return probe(w);
      }],
      ['the hook does not exist', (w) => h.stores.webhooks.probe(newId(), w.channel.id, w.creator.id)],
      ['the channel does not exist', (w) => probe(w, newId())],
    ])('nothing when %s', async (_case, run) => {
      const w = await world(h);
      expect(await run(w)).toBeUndefined();
    });
  });
});
