// The channel, team and user operations of daily use, driven through @mattermost/client's Client4 exactly as the
// web and mobile apps call them, against a real server (real HTTP) on the run's database.
import type { Client4 } from '@mattermost/client';
import { inflateSync } from 'node:zlib';
import { expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { PASSWORD, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let admin: Actor;
let alice: Actor;
let bob: Actor;
let seq = 0;
const unique = (p: string) => `${p}${process.pid}k${++seq}`;

async function client(as: Actor): Promise<Client4> {
  const c = client4For(server);
  await c.login(as.username, PASSWORD);
  return c;
}

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin, { username: unique('alice'), first_name: 'Alice', last_name: 'Liddell' });
  bob = await createUser(server, admin, { username: unique('bob'), nickname: 'bobby' });
});
afterAll(() => server.close());

test('channels: patch, update, stats, my memberships, roles, archive and unarchive, by team name, leave', async () => {
  const a = await client(admin);
  const al = await client(alice);
  const b = await client(bob);
  const team = await a.createTeam({ name: unique('team'), display_name: 'Team', type: 'O' } as never);
  await a.addToTeam(team.id, alice.id);
  await a.addToTeam(team.id, bob.id);
  const channel = await al.createChannel({ team_id: team.id, name: unique('chan'), display_name: 'Chan', type: 'O', purpose: 'p', header: 'h' } as never);
  await al.addToChannel(bob.id, channel.id);

  const patched = await al.patchChannel(channel.id, { header: 'patched **header**' });
  expect(patched).toMatchObject({ id: channel.id, header: 'patched **header**', purpose: 'p' });
  // Client4 sends the whole channel back: header and purpose as given, the rest as it was.
  const updated = await al.updateChannel({ ...patched, display_name: 'Renamed', purpose: 'new purpose' });
  expect(updated).toMatchObject({ display_name: 'Renamed', purpose: 'new purpose', header: 'patched **header**', name: channel.name });
  await expectClientError(al.patchChannel(channel.id, {}), 400, 'api.channel.patch_update_channel.no_changes.app_error');

  const post = await al.createPost({ channel_id: channel.id, message: 'pin me' } as never);
  await al.patchPost({ id: post.id, is_pinned: true } as never);
  expect(await b.getChannelStats(channel.id)).toEqual({ channel_id: channel.id, member_count: 2, guest_count: 0, pinnedpost_count: 1, files_count: -1 });
  expect((await b.getChannelStats(channel.id, true)).files_count).toBe(0);

  const mine = await b.getMyChannelMembers(team.id);
  expect(mine.map((m) => m.channel_id)).toContain(channel.id);
  expect(mine.find((m) => m.channel_id === channel.id)?.msg_count).toBe(0);
  expect(mine.every((m) => m.user_id === bob.id)).toBe(true);

  await al.updateChannelMemberRoles(channel.id, bob.id, 'channel_user channel_admin');
  expect((await b.getChannelMember(channel.id, bob.id)).roles).toBe('channel_user channel_admin');
  await expectClientError(b.updateChannelMemberRoles(channel.id, alice.id, 'channel_admin'), 400, 'api.channel.update_channel_member_roles.unset_user_scheme.app_error');

  expect((await al.getChannelByNameAndTeamName(team.name, channel.name)).id).toBe(channel.id);
  await b.deleteChannel(channel.id);
  await expectClientError(al.getChannelByNameAndTeamName(team.name, channel.name), 404, 'app.channel.get_by_name.missing.app_error');
  expect((await al.getChannelByNameAndTeamName(team.name, channel.name, true)).delete_at).toBeGreaterThan(0);
  await expectClientError(al.createPost({ channel_id: channel.id, message: 'archived' } as never), 400, 'api.post.create_post.can_not_post_to_deleted.error');
  await expectClientError(b.unarchiveChannel(channel.id), 403, 'api.context.permissions.app_error');
  expect((await a.unarchiveChannel(channel.id)).delete_at).toBe(0);

  await b.removeFromChannel(bob.id, channel.id);
  expect((await b.getMyChannelMembers(team.id)).map((m) => m.channel_id)).not.toContain(channel.id);
  const town = await b.getChannelByName(team.id, 'town-square');
  await expectClientError(b.removeFromChannel(bob.id, town.id), 400, 'api.channel.remove.default.app_error');
});

test('users: by usernames, roles, profile pictures, autocomplete', async () => {
  const a = await client(admin);
  const al = await client(alice);
  const team = await a.createTeam({ name: unique('team'), display_name: 'Team', type: 'O' } as never);
  await a.addToTeam(team.id, alice.id);
  await a.addToTeam(team.id, bob.id);
  const channel = await al.createChannel({ team_id: team.id, name: unique('chan'), display_name: 'Chan', type: 'O' } as never);

  const profiles = await al.getProfilesByUsernames([bob.username, alice.username, 'nobody']);
  expect(profiles.map((u) => u.id).sort()).toEqual([alice.id, bob.id].sort());

  await a.updateUserRoles(bob.id, 'system_user system_admin');
  expect((await a.getUser(bob.id)).roles).toBe('system_user system_admin');
  await a.updateUserRoles(bob.id, 'system_user');
  await expectClientError(al.updateUserRoles(alice.id, 'system_user system_admin'), 403, 'api.context.permissions.app_error');

  // The apps put these URLs in <img src>; fetched here with the client's token.
  for (const url of [al.getProfilePictureUrl(bob.id, 0), al.getProfilePictureUrl(bob.id, 1234), al.getDefaultProfilePictureUrl(bob.id)]) {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${al.getToken()}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([128, 128]);
    // IHDR (8 + 25 bytes in), then the image data: 128 rows of a filter byte and 128 RGBA pixels.
    expect(png.toString('ascii', 37, 41)).toBe('IDAT');
    expect(inflateSync(png.subarray(41, 41 + png.readUInt32BE(33))).length).toBe((128 * 4 + 1) * 128);
  }

  const inChannel = await al.autocompleteUsers(alice.username.slice(0, 7), team.id, channel.id);
  expect(inChannel.users.map((u) => u.id)).toEqual([alice.id]);
  const others = await al.autocompleteUsers('bobb', team.id, channel.id);
  expect(others.users).toEqual([]);
  expect(others.out_of_channel?.map((u) => u.id)).toEqual([bob.id]);
  const byFullName = await al.autocompleteUsers('alice lid', team.id, '');
  expect(byFullName.users.map((u) => u.id)).toEqual([alice.id]);
  expect(byFullName.out_of_channel).toBeUndefined();
});

test('users: a password change needs the current one; deactivation ends sessions and login, reactivation allows it again', async () => {
  const carol = await createUser(server, admin);
  const c = await client(carol);
  await expectClientError(c.updateUserPassword(carol.id, 'not-the-password', 'N3w-Passw0rd!'), 400, 'api.user.update_password.incorrect.app_error');
  await c.updateUserPassword(carol.id, PASSWORD, 'N3w-Passw0rd!');
  await expectClientError(client4For(server).login(carol.username, PASSWORD), 401);
  const again = client4For(server);
  await again.login(carol.username, 'N3w-Passw0rd!');
  expect((await again.getMe()).id).toBe(carol.id);

  const al = await client(alice);
  await expectClientError(al.updateUserActive(carol.id, false), 403, 'api.user.update_active.permissions.app_error');
  const a = await client(admin);
  await a.updateUserActive(carol.id, false);
  expect((await a.getUser(carol.id)).delete_at).toBeGreaterThan(0);
  // Her sessions ended with it, and she cannot log in while deactivated.
  await expectClientError(again.getMe(), 401);
  await expectClientError(client4For(server).login(carol.username, 'N3w-Passw0rd!'), 401);
  await a.updateUserActive(carol.id, true);
  expect((await a.getUser(carol.id)).delete_at).toBe(0);
  await client4For(server).login(carol.username, 'N3w-Passw0rd!');
});

test('teams: patch, stats, unreads, leave and remove', async () => {
  const a = await client(admin);
  const al = await client(alice);
  const b = await client(bob);
  const team = await a.createTeam({ name: unique('team'), display_name: 'Team', type: 'O' } as never);
  await a.addToTeam(team.id, alice.id);
  await a.addToTeam(team.id, bob.id);

  // Client4's patchTeam sends the whole team.
  const patched = await a.patchTeam({ ...team, display_name: 'Patched', description: 'About' });
  expect(patched).toMatchObject({ id: team.id, display_name: 'Patched', description: 'About', name: team.name });
  await expectClientError(al.patchTeam({ id: team.id, display_name: 'Mine' } as never), 403, 'api.context.permissions.app_error');
  expect(await al.getTeamStats(team.id)).toEqual({ team_id: team.id, total_member_count: 3, active_member_count: 3 });

  const town = await al.getChannelByName(team.id, 'town-square');
  await al.createPost({ channel_id: town.id, message: `hi @${bob.username}` } as never);
  const unreads = await b.getMyTeamUnreads(true);
  expect(unreads.find((u) => u.team_id === team.id)).toMatchObject({ msg_count: 1, mention_count: 1 });
  // GetTeamUnread has no Client4 method: the same route through the client's fetch options.
  const one = await fetch(`${server.url}/api/v4/users/me/teams/${team.id}/unread`, { headers: { Authorization: `Bearer ${b.getToken()}` } });
  expect(await one.json()).toMatchObject({ team_id: team.id, msg_count: 1, mention_count: 1, mention_count_root: 1, msg_count_root: 1 });

  await b.removeFromTeam(team.id, bob.id);
  expect((await b.getMyTeams()).map((t) => t.id)).not.toContain(team.id);
  expect((await b.getMyTeamUnreads()).map((u) => u.team_id)).not.toContain(team.id);
  await expectClientError(al.removeFromTeam(team.id, admin.id), 403, 'api.context.permissions.app_error');
  await a.removeFromTeam(team.id, alice.id);
  expect(await a.getTeamStats(team.id)).toEqual({ team_id: team.id, total_member_count: 1, active_member_count: 1 });
  await expectClientError(a.removeFromTeam(team.id, alice.id), 400, 'api.team.remove_user_from_team.missing.app_error');
});
