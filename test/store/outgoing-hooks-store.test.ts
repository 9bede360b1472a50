// The outgoing webhook stores on every database: hooks (lists with their filters), the durable call queue (the
// conditional claim: each due call taken once, leases, retries) and the delivery log (newest first, pruned to 100).
import { newId } from '../../src/lib/ids';
import type { OutgoingWebhook } from '../../src/model';
import type { QueuedCall } from '../../src/store/outgoing-queue-store';
import { channelWithMembers, forEachDatabase, makeChannel, makeTeam, makeUser } from './fixtures';

forEachDatabase((h) => {
  let teamId: string;
  let otherTeamId: string;
  let alice: string;
  let bob: string;
  let publicId: string;
  let privateId: string;

  beforeAll(async () => {
    const [team, other] = [makeTeam(), makeTeam()];
    await h.stores.teams.insert(team);
    await h.stores.teams.insert(other);
    teamId = team.id;
    otherTeamId = other.id;
    const [a, b] = [makeUser(), makeUser()];
    await h.stores.users.insert(a);
    await h.stores.users.insert(b);
    alice = a.id;
    bob = b.id;
    publicId = (await channelWithMembers(h.stores, makeChannel({ team_id: teamId }), [alice, bob])).id;
    privateId = (await channelWithMembers(h.stores, makeChannel({ team_id: teamId, type: 'P' }), [alice])).id;
  });

  let seq = 0;
  function hook(fields: Partial<OutgoingWebhook> = {}): OutgoingWebhook {
    seq++;
    return {
      id: newId(), token: newId(), create_at: seq, update_at: seq, delete_at: 0, creator_id: alice, channel_id: '', team_id: teamId,
      trigger_words: ['deploy', 'ship it'], trigger_when: 0, callback_urls: ['https://a.example.com/x', 'https://b.example.com/y'],
      display_name: 'CI ✓', description: '', content_type: 'application/json', username: '', icon_url: '', ...fields,
    };
  }
  const call = (fields: Partial<QueuedCall> = {}): QueuedCall => ({ id: newId(), hook_id: newId(), post_id: newId(), callback_url: 'https://a.example.com/x', trigger_word: 'deploy', attempt: 0, due_at: 100, create_at: 100, ...fields });

  test('a hook is stored and read back with its arrays; update and soft delete; liveForTeams sees only live hooks of the teams', async () => {
    const h1 = hook();
    const h2 = hook({ team_id: otherTeamId });
    const gone = hook();
    for (const x of [h1, h2, gone]) await h.stores.outgoingHooks.insert(x);
    expect(await h.stores.outgoingHooks.get(h1.id)).toEqual(h1);
    await h.stores.outgoingHooks.update({ ...h1, trigger_words: ['x'], update_at: 99 });
    expect((await h.stores.outgoingHooks.get(h1.id))?.trigger_words).toEqual(['x']);
    await h.stores.outgoingHooks.softDelete(gone.id, 5);
    expect(await h.stores.outgoingHooks.get(gone.id)).toBeUndefined();
    // An update of a hook deleted meanwhile does not revive it.
    await h.stores.outgoingHooks.update(gone);
    expect(await h.stores.outgoingHooks.get(gone.id)).toBeUndefined();
    const live = (await h.stores.outgoingHooks.liveForTeams([teamId])).map((x) => x.id);
    expect(live).toContain(h1.id);
    expect(live).not.toContain(gone.id);
    expect(live).not.toContain(h2.id);
    expect(await h.stores.outgoingHooks.liveForTeams([])).toEqual([]);
  });

  test('list filters by channel, team and creator, pages, and hides private-channel hooks from non-members', async () => {
    const team = makeTeam();
    await h.stores.teams.insert(team);
    const pub = (await channelWithMembers(h.stores, makeChannel({ team_id: team.id }), [alice])).id;
    const priv = (await channelWithMembers(h.stores, makeChannel({ team_id: team.id, type: 'P' }), [alice])).id;
    const wide = hook({ team_id: team.id });
    const onPublic = hook({ team_id: team.id, channel_id: pub, creator_id: bob });
    const onPrivate = hook({ team_id: team.id, channel_id: priv });
    for (const x of [wide, onPublic, onPrivate]) await h.stores.outgoingHooks.insert(x);
    const ids = async (filter: Parameters<typeof h.stores.outgoingHooks.list>[0], page = 0, perPage = 60) =>
      (await h.stores.outgoingHooks.list(filter, page, perPage)).map((x) => x.id);
    expect(await ids({ teamId: team.id })).toEqual([wide.id, onPublic.id, onPrivate.id]);
    expect(await ids({ teamId: team.id, viewerId: bob })).toEqual([wide.id, onPublic.id]);
    expect(await ids({ teamId: team.id, viewerId: alice })).toEqual([wide.id, onPublic.id, onPrivate.id]);
    expect(await ids({ channelId: pub })).toEqual([onPublic.id]);
    expect(await ids({ teamId: team.id, creatorId: bob })).toEqual([onPublic.id]);
    expect(await ids({ teamId: team.id }, 1, 2)).toEqual([onPrivate.id]);
    expect(publicId).not.toBe(privateId);
  });

  test('claimDue takes each due call once: a second claimer finds it taken until its lease ends', async () => {
    const [a, b, later] = [call({ due_at: 10 }), call({ due_at: 20 }), call({ due_at: 1_000_000 })];
    await h.stores.transaction((tx) => tx.outgoingQueue.insertMany([a, b, later]));
    const first = await h.stores.outgoingQueue.claimDue(50, 10, 'claim-one', 5_000);
    expect(first.map((c) => c.id).sort()).toEqual([a.id, b.id].sort());
    expect(first.find((c) => c.id === a.id)).toMatchObject({ hook_id: a.hook_id, post_id: a.post_id, callback_url: a.callback_url, trigger_word: 'deploy', attempt: 0 });
    expect(await h.stores.outgoingQueue.claimDue(50, 10, 'claim-two', 5_000)).toEqual([]);
    // The lease's end is the next due time: a holder that never finishes gives the call back by itself.
    expect(await h.stores.outgoingQueue.nextDue()).toBe(5_000);
    // Only the holder may finish or give back; another claim's calls are untouched.
    await h.stores.outgoingQueue.finish(a.id, 'claim-two');
    await h.stores.outgoingQueue.retryAt(b.id, 'claim-one', 1, 60);
    await h.stores.outgoingQueue.finish(a.id, 'claim-one');
    const retried = await h.stores.outgoingQueue.claimDue(70, 10, 'claim-three', 6_000);
    expect(retried.map((c) => [c.id, c.attempt])).toEqual([[b.id, 1]]);
    const expired = await h.stores.outgoingQueue.claimDue(5_000, 10, 'claim-four', 9_000);
    expect(expired.map((c) => c.id)).toEqual([]);
    await h.stores.outgoingQueue.finish(b.id, 'claim-three');
    await h.stores.outgoingQueue.finish(later.id, '');
    expect(await h.stores.outgoingQueue.nextDue()).toBeUndefined();
  });

  test('two claimers racing over the same due calls never both get one', async () => {
    const calls = Array.from({ length: 30 }, (_, i) => call({ due_at: i }));
    await h.stores.outgoingQueue.insertMany(calls);
    const [x, y] = await Promise.all([h.stores.outgoingQueue.claimDue(100, 30, 'x', 10_000), h.stores.outgoingQueue.claimDue(100, 30, 'y', 10_000)]);
    const xs = new Set(x.map((c) => c.id));
    expect(y.filter((c) => xs.has(c.id))).toEqual([]);
    expect(x.length + y.length).toBe(30);
    for (const c of x) await h.stores.outgoingQueue.finish(c.id, 'x');
    for (const c of y) await h.stores.outgoingQueue.finish(c.id, 'y');
  });

  test('the delivery log lists newest first, never the URL, keeps the newest 100 of an integration', async () => {
    const integration = newId();
    const other = newId();
    for (let i = 1; i <= 103; i++) {
      await h.stores.deliveries.record({ integration_id: integration, kind: 'outgoing_webhook', post_id: `p${i}`, attempt: 1, request_at: 1000 + i, duration_ms: i, status_code: 200, error: '', callback_url: 'https://secret.example.com/?k=1' });
    }
    const otherId = await h.stores.deliveries.record({ integration_id: other, kind: 'command', post_id: '', attempt: 1, request_at: 1, duration_ms: 2.6, status_code: 0, error: 'e'.repeat(900) });
    const recent = await h.stores.deliveries.recent(integration, 100);
    expect(recent).toHaveLength(100);
    expect(recent[0]).toMatchObject({ post_id: 'p103', request_at: 1103, attempt: 1, status_code: 200, error: '' });
    expect(recent[99].post_id).toBe('p4');
    expect(Object.keys(recent[0]).sort()).toEqual(['attempt', 'duration_ms', 'error', 'id', 'post_id', 'request_at', 'status_code']);
    const [{ n }] = await h.db.knex('integration_deliveries').where('integration_id', integration).count({ n: '*' });
    expect(Number(n)).toBe(100);
    const stored = await h.stores.deliveries.get(recent[0].id);
    expect(stored).toMatchObject({ integration_id: integration, kind: 'outgoing_webhook', callback_url: 'https://secret.example.com/?k=1' });
    const o = await h.stores.deliveries.get(otherId);
    expect(o).toMatchObject({ duration_ms: 3, status_code: 0 });
    expect(o?.error).toHaveLength(500);
  });
});
