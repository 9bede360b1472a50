// The built-in slash commands through ExecuteCommand (Client4's executeCommand where it fits): each one's effect,
// done by the service that owns it (channels, status, posts, search), its replies, and the ephemeral posts they
// send: `ephemeral_message` on the invoking user's sockets only, never stored.
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { eventually } from '../support/eventually';
import { createChannel, createPost, createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { connect, postOf, type Frame, type Socket } from '../support/ws';

const SITE = 'http://parley.example.com';
let server: TestServer;
let world: World;
let admin: Actor;
let member: Actor;
let teamName: string;
let memberSocket: Socket;
let adminSocket: Socket;

const run = (as: Actor, channelId: string, command: string, extra: Record<string, unknown> = {}) => as.api.post('/api/v4/commands/execute', { channel_id: channelId, command, ...extra });
const ephemeralIn = (channelId: string) => (f: Frame) => f.event === 'ephemeral_message' && postOf(f).channel_id === channelId;
const latestPost = async (as: Actor, channelId: string) => {
  const list = (await as.api.get(`/api/v4/channels/${channelId}/posts?per_page=1`).expect(200)).body;
  return list.posts[list.order[0]] as Record<string, any>;
};

/** Runs the command as the member and returns the ephemeral post it sent to the member's socket. */
async function ephemeralReply(channelId: string, command: string, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const from = memberSocket.events.length;
  await run(member, channelId, command, extra).expect(200);
  return postOf(await memberSocket.next(ephemeralIn(channelId), { from }));
}

beforeAll(async () => {
  server = await startTestServer({ MM_SERVICESETTINGS_SITEURL: SITE });
  world = await createWorld(server);
  ({ admin, member } = world);
  teamName = (await admin.api.get(`/api/v4/teams/${world.teamId}`).expect(200)).body.name;
  memberSocket = await connect(server.url, { token: member.token });
  adminSocket = await connect(server.url, { token: admin.token });
});
afterAll(async () => {
  await memberSocket.close();
  await adminSocket.close();
  await server.close();
});
afterEach(() => {
  expect(memberSocket.problems).toEqual([]);
  expect(adminSocket.problems).toEqual([]);
});

describe('ephemeral posts', () => {
  test("an error reply is an ephemeral_message to the user's own sockets only, of type system_ephemeral, never stored", async () => {
    const adminFrom = adminSocket.events.length;
    const post = await ephemeralReply(world.townSquareId, '/code');
    expect(post).toMatchObject({ type: 'system_ephemeral', channel_id: world.townSquareId, user_id: member.id, message: 'A message must be provided with the /code command.', root_id: '' });
    expect(post.id).toMatch(/^[a-z0-9]{26}$/);
    const frame = memberSocket.events.find((f) => f.event === 'ephemeral_message' && postOf(f).id === post.id)!;
    expect(frame.broadcast).toMatchObject({ user_id: member.id, channel_id: world.townSquareId });
    await adminSocket.none((f) => f.event === 'ephemeral_message', 300, adminFrom);
    // Not stored: no read returns it.
    expectAppError(await member.api.get(`/api/v4/posts/${post.id}`), 404);
    const page = (await member.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200)).body;
    expect(page.order).not.toContain(post.id);
  });

  test('run in a thread, the ephemeral reply carries the thread', async () => {
    const root = await createPost(member, world.townSquareId, 'thread root');
    const post = await ephemeralReply(world.townSquareId, '/code', { root_id: root.id });
    expect(post.root_id).toBe(root.id);
  });
});

describe('posting commands', () => {
  test('/me posts a "me" post in italics, as the user; Client4 executeCommand answers the response', async () => {
    const response = await client4For(server, member).executeCommand('/me waves', { channel_id: world.townSquareId, team_id: world.teamId } as never);
    expect(response).toMatchObject({ response_type: 'in_channel', text: '*waves*', type: 'me' });
    expect(await latestPost(member, world.townSquareId)).toMatchObject({ type: 'me', message: '*waves*', user_id: member.id });
    expect((await latestPost(member, world.townSquareId)).props.from_webhook).toBeUndefined();
  });

  test('/shrug appends the escaped shrug; /code indents every line by four spaces', async () => {
    await run(member, world.townSquareId, '/shrug oh well').expect(200);
    expect((await latestPost(member, world.townSquareId)).message).toBe('oh well ¯\\\\\\_(ツ)\\_/¯');
    await run(member, world.townSquareId, '/code a\nb').expect(200);
    expect((await latestPost(member, world.townSquareId)).message).toBe('    a\n    b');
  });

  test('/me in a thread posts the reply into it', async () => {
    const root = await createPost(member, world.townSquareId, 'root for /me');
    await run(member, world.townSquareId, '/me replies', { root_id: root.id }).expect(200);
    const thread = (await member.api.get(`/api/v4/posts/${root.id}/thread`).expect(200)).body;
    expect(Object.values(thread.posts as Record<string, any>).some((p) => p.message === '*replies*' && p.root_id === root.id)).toBe(true);
  });

  test('/echo posts the text as the user, at once or after the delay; a delay over 10000 s is refused', async () => {
    await run(member, world.townSquareId, '/echo hello there').expect(200);
    expect(await latestPost(member, world.townSquareId)).toMatchObject({ message: 'hello there', user_id: member.id, type: '' });
    await run(member, world.townSquareId, '/echo "later on" 1').expect(200);
    expect((await latestPost(member, world.townSquareId)).message).not.toBe('later on');
    await eventually(async () => expect((await latestPost(member, world.townSquareId)).message).toBe('later on'), 5000);
    expect((await ephemeralReply(world.townSquareId, '/echo x 10001')).message).toBe('Delays must be under 10000 seconds.');
  });
});

describe('channel commands', () => {
  test('/join joins a public channel (goto_location to it); a missing or private channel is refused', async () => {
    const id = await createChannel(admin, world.teamId, 'O', [], 'join');
    const name = (await admin.api.get(`/api/v4/channels/${id}`).expect(200)).body.name;
    const res = await run(member, world.townSquareId, `/join ~${name}`).expect(200);
    expect(res.body.goto_location).toBe(`${SITE}/${teamName}/channels/${name}`);
    await member.api.get(`/api/v4/channels/${id}/members/${member.id}`).expect(200);
    expect((await ephemeralReply(world.townSquareId, '/join ~no-such-channel')).message).toBe('Unable to find the channel.');
    const privateId = await createChannel(admin, world.teamId, 'P', [], 'joinp');
    const privateName = (await admin.api.get(`/api/v4/channels/${privateId}`).expect(200)).body.name;
    expect((await ephemeralReply(world.townSquareId, `/join ${privateName}`)).message).toBe('An error occurred while joining the channel.');
    expectAppError(await member.api.get(`/api/v4/channels/${privateId}/members/${member.id}`), 403);
  });

  test('/leave leaves the channel (goto_location town square); town square cannot be left', async () => {
    const id = await createChannel(admin, world.teamId, 'O', [member], 'leave');
    const res = await run(member, id, '/leave').expect(200);
    expect(res.body.goto_location).toBe(`${SITE}/${teamName}/channels/town-square`);
    expectAppError(await admin.api.get(`/api/v4/channels/${id}/members/${member.id}`), 404);
    expect((await ephemeralReply(world.townSquareId, '/leave')).message).toBe('You cannot leave the default channel town-square.');
  });

  test('/msg opens the direct channel and posts the text there; an unknown user is refused', async () => {
    const res = await run(member, world.townSquareId, `/msg @${admin.username} hello admin`).expect(200);
    const dmName = [member.id, admin.id].sort().join('__');
    expect(res.body.goto_location).toBe(`${SITE}/${teamName}/channels/${dmName}`);
    const dm = (await member.api.post('/api/v4/channels/direct', [member.id, admin.id]).expect(201)).body;
    expect(await latestPost(member, dm.id)).toMatchObject({ message: 'hello admin', user_id: member.id });
    expect((await ephemeralReply(world.townSquareId, '/msg @nobody-here hi')).message).toBe('We could not find the user.');
  });

  test('/invite adds a user to the current or a named channel; already there and no permission are told', async () => {
    const guest = await createUser(server, admin);
    await admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: guest.id }).expect(201);
    const id = await createChannel(admin, world.teamId, 'O', [member], 'invite');
    const name = (await admin.api.get(`/api/v4/channels/${id}`).expect(200)).body.name;
    expect((await ephemeralReply(id, `/invite @${guest.username}`)).message).toBe(`@${guest.username} added to the channel.`);
    await admin.api.get(`/api/v4/channels/${id}/members/${guest.id}`).expect(200);
    expect((await ephemeralReply(world.townSquareId, `/invite @${guest.username} ~${name}`)).message).toBe(`@${guest.username} is already in the channel.`);
    const privateId = await createChannel(admin, world.teamId, 'P', [], 'invitep');
    const privateName = (await admin.api.get(`/api/v4/channels/${privateId}`).expect(200)).body.name;
    expect((await ephemeralReply(world.townSquareId, `/invite @${guest.username} ~${privateName}`)).message).toBe(
      `Could not find the channel ${privateName}. Please use the channel handle to identify channels.`,
    );
    expect((await ephemeralReply(world.townSquareId, '/invite')).message).toBe('Missing Username and Channel.');
  });

  test('/kick and /remove remove a member; not in DMs; unknown users and non-members are told', async () => {
    const guest = await createUser(server, admin);
    await admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: guest.id }).expect(201);
    const id = await createChannel(admin, world.teamId, 'O', [member, guest], 'kick');
    expect((await ephemeralReply(id, `/kick @${guest.username}`)).message).toBe(`@${guest.username} was removed from the channel.`);
    expectAppError(await admin.api.get(`/api/v4/channels/${id}/members/${guest.id}`), 404);
    expect((await ephemeralReply(id, `/remove @${guest.username}`)).message).toBe(`${guest.username} is not a member of this channel.`);
    expect((await ephemeralReply(id, '/remove @nobody-here')).message).toBe("We couldn't find the user. They may have been deactivated by the System Administrator.");
    const dm = (await member.api.post('/api/v4/channels/direct', [member.id, admin.id]).expect(201)).body;
    expect((await ephemeralReply(dm.id, `/kick @${admin.username}`, { team_id: world.teamId })).message).toBe("You can't remove someone from a direct message channel.");
  });

  test('/header, /purpose and /rename change the channel; a DM takes only /header', async () => {
    const id = await createChannel(admin, world.teamId, 'O', [member], 'props');
    await run(member, id, '/header The **new** header').expect(200);
    await run(member, id, '/purpose Why we are here').expect(200);
    await run(member, id, '/rename Renamed Channel').expect(200);
    expect((await member.api.get(`/api/v4/channels/${id}`).expect(200)).body).toMatchObject({ header: 'The **new** header', purpose: 'Why we are here', display_name: 'Renamed Channel' });
    expect((await ephemeralReply(id, '/header')).message).toBe('Text must be provided with the /header command.');
    const dm = (await member.api.post('/api/v4/channels/direct', [member.id, admin.id]).expect(201)).body;
    await run(member, dm.id, '/header dm header', { team_id: world.teamId }).expect(200);
    expect((await member.api.get(`/api/v4/channels/${dm.id}`).expect(200)).body.header).toBe('dm header');
    expect((await ephemeralReply(dm.id, '/rename x', { team_id: world.teamId })).message).toBe("You can't rename direct message channels.");
    // A private channel the member is in but whose properties the team admin locked is not a case here: members of
    // Mattermost's default scheme may edit their channels. Someone outside a private channel cannot even run commands in it.
    const privateId = await createChannel(admin, world.teamId, 'P', [], 'propsp');
    expectAppError(await run(member, privateId, '/header x'), 403, 'api.context.permissions.app_error');
  });
});

describe('status commands', () => {
  test.each([
    ['/away', 'away', 'You are now away'],
    ['/dnd', 'dnd', 'Do Not Disturb is enabled. You will not receive desktop or mobile push notifications until Do Not Disturb is turned off.'],
    ['/offline', 'offline', 'You are now offline'],
    ['/online', 'online', 'You are now online'],
  ])('%s sets the status %s', async (command, status, text) => {
    expect((await ephemeralReply(world.townSquareId, command)).message).toBe(text);
    expect((await member.api.get(`/api/v4/users/${member.id}/status`).expect(200)).body.status).toBe(status);
  });
});

describe('/search and /help', () => {
  test('/search answers the results of the same search as SearchPosts, ephemerally', async () => {
    await createPost(member, world.townSquareId, 'the zanzibarian flamingo');
    const reply = await ephemeralReply(world.townSquareId, '/search zanzibarian');
    expect(reply.message).toContain('Search results for "zanzibarian"');
    expect(reply.message).toContain(`@${member.username} in ~town-square: the zanzibarian flamingo`);
    expect(reply.message).toMatch(new RegExp(`\\(\\[jump\\]\\(${SITE}/${teamName}/pl/[a-z0-9]{26}\\)\\)`));
    expect((await ephemeralReply(world.townSquareId, '/search qwertyuiopnothing')).message).toBe('No results for "qwertyuiopnothing".');
  });

  test('/help lists the commands', async () => {
    const reply = await ephemeralReply(world.townSquareId, '/help');
    for (const t of ['/echo', '/join', '/msg', '/invite', '/kick', '/search', '/away']) expect(reply.message).toContain(`\`${t}`);
  });
});

describe('errors', () => {
  test('an unknown trigger is 404 not_found; no trigger is 400 start; an archived channel is 400; a channel one may not post in is 403', async () => {
    await expectClientError(client4For(server, member).executeCommand('/nosuchcommand hi', { channel_id: world.townSquareId } as never), 404, 'api.command.execute_command.not_found.app_error');
    expectAppError(await run(member, world.townSquareId, '/'), 400, 'api.command.execute_command.start.app_error');
    expectAppError(await run(member, world.townSquareId, 'echo hi'), 400, 'api.command.execute_command.start.app_error');
    expectAppError(await run(member, 'not-an-id', '/echo hi'), 400, 'api.command.execute_command.start.app_error');
    const archived = await createChannel(admin, world.teamId, 'O', [member], 'arch');
    await admin.api.delete(`/api/v4/channels/${archived}`).expect(200);
    expectAppError(await run(member, archived, '/echo hi'), 400, 'api.command.execute_command.deleted.error');
  });

  test('the trigger is matched in any letter case; a long unknown trigger is cut in the message', async () => {
    await run(member, world.townSquareId, '/ECHO loud').expect(200);
    expect((await latestPost(member, world.townSquareId)).message).toBe('loud');
    const res = await run(member, world.townSquareId, `/${'x'.repeat(600)}`);
    expectAppError(res, 404, 'api.command.execute_command.not_found.app_error');
    expect(res.body.message).toContain(`${'x'.repeat(512)}...`);
    expect(res.body.message).not.toContain('x'.repeat(513));
  });

  test('with EnableCommands off even built-in commands are 501, as in Mattermost', async () => {
    await admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableCommands: false } }).expect(200);
    try {
      expectAppError(await run(member, world.townSquareId, '/echo hi'), 501, 'api.command.disabled.app_error');
    } finally {
      await admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableCommands: true } }).expect(200);
    }
  });
});
