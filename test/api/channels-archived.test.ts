// GetDeletedChannelsForTeam: the web app's "Archived channels" view, over real HTTP on the run's database.
import { createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let sysadmin: Actor;
let owner: Actor;
let member: Actor;
let outsider: Actor;
let teamId: string;
let seq = 0;

const unique = (prefix = 'arch') => `${prefix}-${process.pid}-${++seq}`;

interface Channel {
  id: string;
  name: string;
  type: string;
  display_name: string;
  delete_at: number;
}

async function createChannel(as: Actor, type: 'O' | 'P', displayName: string): Promise<Channel> {
  return (await as.api.post('/api/v4/channels', { team_id: teamId, name: unique(), display_name: displayName, type }).expect(201)).body;
}

const archive = (as: Actor, id: string) => as.api.delete(`/api/v4/channels/${id}`).expect(200);
const listed = async (as: Actor, query = ''): Promise<string[]> =>
  ((await as.api.get(`/api/v4/teams/${teamId}/channels/deleted${query}`).expect(200)).body as Channel[]).map((c) => c.display_name);

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  owner = await createUser(server, sysadmin);
  member = await createUser(server, sysadmin);
  outsider = await createUser(server, sysadmin);
  teamId = await createTeam(owner, unique('team'), [member]);
});
afterAll(() => server.close());

describe('GetDeletedChannelsForTeam', () => {
  test('archived public channels, and archived private ones only for their members, by display name; live ones never', async () => {
    const bPublic = await createChannel(owner, 'O', 'B archived public');
    const aPublic = await createChannel(owner, 'O', 'A archived public');
    await createChannel(owner, 'O', 'C live public');
    const ownersPrivate = await createChannel(owner, 'P', 'D archived private');
    for (const c of [bPublic, aPublic, ownersPrivate]) await archive(owner, c.id);

    expect(await listed(owner)).toEqual(['A archived public', 'B archived public', 'D archived private']);
    // The member was never in the private channel: it is not theirs to see.
    expect(await listed(member)).toEqual(['A archived public', 'B archived public']);
    const body = (await member.api.get(`/api/v4/teams/${teamId}/channels/deleted`).expect(200)).body as Channel[];
    expect(body.every((c) => c.delete_at > 0 && c.type === 'O')).toBe(true);
  });

  test('paged with page and per_page', async () => {
    const all = await listed(owner);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(await listed(owner, '?page=0&per_page=2')).toEqual(all.slice(0, 2));
    expect(await listed(owner, '?page=1&per_page=2')).toEqual(all.slice(2, 4));
  });

  test('a caller outside the team is 403; an unknown team 404; no session 401', async () => {
    await outsider.api.get(`/api/v4/teams/${teamId}/channels/deleted`).expect(403);
    await owner.api.get(`/api/v4/teams/${'x'.repeat(26)}/channels/deleted`).expect(404);
    await server.http().get(`/api/v4/teams/${teamId}/channels/deleted`).expect(401);
  });
});
