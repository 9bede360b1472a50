// Finding channels by name: AutocompleteChannelsForTeam (the channel switcher and ~mentions),
// AutocompleteChannelsForTeamForSearch (the search box's `in:`) and SearchChannels (browse channels), through Client4.
import type { Channel } from '@mattermost/types/channels';
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createChannel, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let admin: Actor;
let alice: Actor;
let bob: Actor;
let outsider: Actor;
let teamId: string;
let otherTeamId: string;
const tag = `s${process.pid}`;

/** A channel with the given display name and purpose (its name derived from the display name). */
async function channel(owner: Actor, type: 'O' | 'P', displayName: string, members: Actor[] = [], purpose = '', team = teamId): Promise<string> {
  const name = `${displayName.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${tag}`.slice(0, 64);
  const id = (await owner.api.post('/api/v4/channels', { team_id: team, name, display_name: displayName, type, purpose }).expect(201)).body.id as string;
  if (members.length) await owner.api.post(`/api/v4/channels/${id}/members`, { user_ids: members.map((m) => m.id) }).expect(201);
  return id;
}

const names = (list: Channel[]) => list.map((c) => c.display_name);

let releaseId: string;
let releaseNotesId: string;
let secretReleaseId: string;
let aliceSecretId: string;
let percentId: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin, { username: `alice${tag}`, nickname: 'Ally' });
  bob = await createUser(server, admin, { username: `bob${tag}` });
  outsider = await createUser(server, admin);
  teamId = await createTeam(admin, `search${tag}`, [alice, bob]);
  otherTeamId = await createTeam(admin, `searchother${tag}`, [alice, bob]);
  releaseId = await channel(admin, 'O', 'Release Planning', [alice]);
  releaseNotesId = await channel(admin, 'O', 'Notes', [], 'where the release notes are drafted');
  secretReleaseId = await channel(admin, 'P', 'Secret Release', []);
  aliceSecretId = await channel(admin, 'P', 'Alice Release Room', [alice]);
  percentId = await channel(admin, 'O', '100% done', [alice]);
  await channel(admin, 'O', '100 x done', [alice]);
  await channel(admin, 'O', 'Release Elsewhere', [alice], '', otherTeamId);
  const archived = await channel(admin, 'O', 'Release Archive', [alice]);
  await admin.api.delete(`/api/v4/channels/${archived}`).expect(200);
});
afterAll(() => server.close());

describe('AutocompleteChannelsForTeam', () => {
  test("the team's public channels and the caller's private ones whose name, display name or purpose contains the term, by display name", async () => {
    const found = await client4For(server, alice).autocompleteChannels(teamId, 'release');
    expect(names(found)).toEqual(['Alice Release Room', 'Notes', 'Release Planning']);
    expect(found.map((ch) => ch.id)).toEqual([aliceSecretId, releaseNotesId, releaseId]);
    // Bob is in none of the private channels: he sees the public ones only.
    const asBob = await client4For(server, bob).autocompleteChannels(teamId, 'RELEASE');
    expect(names(asBob)).toEqual(['Notes', 'Release Planning']);
    expect(asBob.map((ch) => ch.id)).not.toContain(secretReleaseId);
  });

  test('every word must be found; the term is trimmed; an empty term lists the first channels', async () => {
    const c = client4For(server, alice);
    expect(names(await c.autocompleteChannels(teamId, '  planning release '))).toEqual(['Release Planning']);
    expect(names(await c.autocompleteChannels(teamId, 'planning nothing'))).toEqual([]);
    const all = await c.autocompleteChannels(teamId, '');
    expect(names(all)).toEqual(expect.arrayContaining(['Town Square', 'Off-Topic', 'Release Planning', 'Alice Release Room']));
    expect(names(all)).not.toContain('Secret Release');
    expect(names(all)).not.toContain('Release Archive');
    expect(names(all)).not.toContain('Release Elsewhere');
  });

  test('% and _ in the term match themselves, not any characters', async () => {
    const c = client4For(server, alice);
    expect((await c.autocompleteChannels(teamId, '100%')).map((ch) => ch.id)).toEqual([percentId]);
    expect(names(await c.autocompleteChannels(teamId, '%'))).toEqual(['100% done']);
    expect(names(await c.autocompleteChannels(teamId, '_'))).toEqual([]);
  });

  test('at most 50 channels', async () => {
    const team = await createTeam(admin, `many${tag}`, [alice]);
    for (let i = 0; i < 52; i++) await createChannel(admin, team, 'O', [], `bulk${String(i).padStart(2, '0')}`);
    expect(await client4For(server, alice).autocompleteChannels(team, 'bulk')).toHaveLength(50);
  });

  test('a team the caller is not in: 403; a term over 64 characters: 400', async () => {
    await expectClientError(client4For(server, outsider).autocompleteChannels(teamId, 'release'), 403, 'api.context.permissions.app_error');
    expectAppError(await alice.api.get(`/api/v4/teams/${teamId}/channels/autocomplete?name=${'a'.repeat(65)}`), 400, 'api.context.invalid_param.app_error');
    await alice.api.get(`/api/v4/teams/${teamId}/channels/autocomplete?name=${'a'.repeat(64)}`).expect(200);
  });
});

describe('AutocompleteChannelsForTeamForSearch', () => {
  test("only the caller's own channels (public and private) of the team, and their direct channels by the other user's name", async () => {
    const dm = (await alice.api.post('/api/v4/channels/direct', [alice.id, bob.id]).expect(201)).body.id as string;
    const c = client4For(server, alice);
    expect(names(await c.autocompleteChannelsForSearch(teamId, 'release'))).toEqual(['Alice Release Room', 'Release Planning']);
    const byName = await c.autocompleteChannelsForSearch(teamId, `bob${tag}`);
    expect(byName.map((ch) => [ch.id, ch.display_name])).toEqual([[dm, `bob${tag}`]]);
    // Bob finds the same direct channel by Alice's nickname, shown under her username.
    const byNickname = await client4For(server, bob).autocompleteChannelsForSearch(teamId, 'ally');
    expect(byNickname.map((ch) => [ch.id, ch.display_name])).toEqual([[dm, `alice${tag}`]]);
    // Not the public channels bob has not joined.
    expect(names(await client4For(server, bob).autocompleteChannelsForSearch(teamId, 'release'))).toEqual([]);
  });

  test('sorted by display name, letter case ignored', async () => {
    const list = await client4For(server, alice).autocompleteChannelsForSearch(teamId, '');
    const shown = names(list);
    expect(shown).toEqual([...shown].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0)));
    expect(shown).toEqual(expect.arrayContaining(['Town Square', 'Release Planning']));
    expect(shown).not.toContain('Notes');
  });

  test('a team the caller is not in: 403', async () => {
    await expectClientError(client4For(server, outsider).autocompleteChannelsForSearch(teamId, 'release'), 403, 'api.context.permissions.app_error');
  });
});

describe('SearchChannels', () => {
  test("the team's public channels containing every word, by display name (private ones never)", async () => {
    const c = client4For(server, bob);
    expect(names(await c.searchChannels(teamId, 'release'))).toEqual(['Notes', 'Release Planning']);
    expect((await c.searchChannels(teamId, 'notes drafted')).map((ch) => ch.id)).toEqual([releaseNotesId]);
    expect((await client4For(server, alice).searchChannels(teamId, 'release')).map((ch) => ch.id)).toEqual([releaseNotesId, releaseId]);
    // Private channels never, not even for their members or the admin.
    expect(await client4For(server, admin).searchChannels(teamId, 'secret')).toEqual([]);
    expect((await client4For(server, alice).searchChannels(teamId, 'room')).map((ch) => ch.id)).not.toContain(aliceSecretId);
  });

  test('an empty or absent term lists the public channels; the other ChannelSearch fields are accepted', async () => {
    const empty = (await bob.api.post(`/api/v4/teams/${teamId}/channels/search`, {}).expect(200)).body as Channel[];
    expect(names(empty)).toEqual(expect.arrayContaining(['Town Square', 'Notes', 'Release Planning', '100% done']));
    expect(empty.every((ch) => ch.type === 'O')).toBe(true);
    const withExtras = await bob.api.post(`/api/v4/teams/${teamId}/channels/search`, { term: 'planning', public: true, private: false, deleted: null, include_deleted: false, page: 0, per_page: 10 }).expect(200);
    expect(names(withExtras.body)).toEqual(['Release Planning']);
  });

  test('a caller outside the team: 404 app.team.get_member.missing.app_error; a term over 64 characters or a body that is not an object: 400', async () => {
    await expectClientError(client4For(server, outsider).searchChannels(teamId, 'release'), 404, 'app.team.get_member.missing.app_error');
    expectAppError(await bob.api.post(`/api/v4/teams/${teamId}/channels/search`, { term: 'x'.repeat(65) }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await bob.api.post(`/api/v4/teams/${teamId}/channels/search`, ['release']), 400, 'api.context.invalid_param.app_error');
  });

  test('at most 100 channels', async () => {
    const team = await createTeam(admin, `hundred${tag}`, [bob]);
    for (let i = 0; i < 101; i++) await createChannel(admin, team, 'O', [], `lot${String(i).padStart(3, '0')}`);
    expect(await client4For(server, bob).searchChannels(team, 'lot')).toHaveLength(100);
  });
});
