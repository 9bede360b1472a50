// Bot accounts (CreateBot, PatchBot, GetBot, GetBots, DisableBot, EnableBot, AssignBot, ConvertBotToUser,
// ConvertUserToBot) over real HTTP, through Client4 where it has a method; bots' users (is_bot, bot_description), their
// tokens (created by the owner, working with EnableUserAccessTokens off), their refused password login, and a bot used
// as a client: token login, a post marked from_bot, a `posted` event on its WebSocket.
import type { Client4 } from '@mattermost/client';
import type { Response } from 'supertest';
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { PASSWORD, createChannel, createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { connect } from '../support/ws';

let server: TestServer;
let world: World;
let admin: Client4;
let seq = 0;
/** CreateBot by the admin on a server with the default config. */
let defaultAnswer: Response;
const setConfig = (service: Record<string, unknown>) => world.admin.api.put('/api/v4/config/patch', { ServiceSettings: service }).expect(200);
const name = (p = 'bot') => `${p}${process.pid}b${++seq}`;

const BOT_HIDDEN = 'store.sql_bot.get.missing.app_error';

beforeAll(async () => {
  // Personal access tokens stay off (the default): a bot's tokens must work anyway. Bot creation is turned on through
  // the API (a setting given in the environment could not be turned off again by the test below).
  server = await startTestServer();
  world = await createWorld(server);
  admin = client4For(server, world.admin);
  defaultAnswer = await world.admin.api.post('/api/v4/bots', { username: name() });
  await setConfig({ EnableBotAccountCreation: true });
});
afterAll(() => server.close());

type BotJson = { user_id: string; username: string; display_name: string; description: string; owner_id: string; create_at: number; update_at: number; delete_at: number };

async function newBot(fields: Record<string, string> = {}): Promise<BotJson> {
  return (await admin.createBot({ username: name(), ...fields } as never)) as unknown as BotJson;
}

/** A token for the bot, made by its owner (the admin). */
async function botToken(botId: string): Promise<string> {
  const token = await admin.createUserAccessToken(botId, 'bot token');
  return token.token as string;
}


describe('creating bots', () => {
  test('createBot: 201, owned by the caller; its user is a bot with the description, e-mail <username>@localhost, no password login', async () => {
    const username = name('Deploy');
    const bot = await newBot({ username, display_name: 'Deploy', description: 'Posts deployments' });
    expect(bot).toEqual({
      user_id: expect.stringMatching(/^[a-z0-9]{26}$/),
      username: username.toLowerCase(),
      display_name: 'Deploy',
      description: 'Posts deployments',
      owner_id: world.admin.id,
      last_icon_update: 0,
      create_at: expect.any(Number),
      update_at: bot.create_at,
      delete_at: 0,
    });
    const user = await admin.getUser(bot.user_id);
    expect(user).toMatchObject({ id: bot.user_id, username: bot.username, first_name: 'Deploy', is_bot: true, bot_description: 'Posts deployments', email: `${bot.username}@localhost`, roles: 'system_user' });
    // Every read of a user carries it: by name, by ids, in lists.
    expect(await admin.getUserByUsername(bot.username)).toMatchObject({ is_bot: true, bot_description: 'Posts deployments' });
    expect((await admin.getProfilesByIds([bot.user_id, world.member.id])).map((u) => [u.id, u.is_bot])).toEqual(
      expect.arrayContaining([[bot.user_id, true], [world.member.id, false]]),
    );
    const seenByMember = await client4For(server, world.member).getUser(bot.user_id);
    expect(seenByMember).toMatchObject({ is_bot: true, bot_description: 'Posts deployments' });
  });

  test('EnableBotAccountCreation is off by default: an admin gets 403 api.bot.create_disabled', () => {
    expectAppError(defaultAnswer, 403, 'api.bot.create_disabled');
  });

  test('EnableBotAccountCreation off: 403 api.bot.create_disabled for an admin; a member is refused by the permission first', async () => {
    await setConfig({ EnableBotAccountCreation: false });
    try {
      await expectClientError(admin.createBot({ username: name() } as never), 403, 'api.bot.create_disabled');
      await expectClientError(client4For(server, world.member).createBot({ username: name() } as never), 403, 'api.context.permissions.app_error');
    } finally {
      await setConfig({ EnableBotAccountCreation: true });
    }
  });

  test('a member may not create bots (create_bot is a system admin permission by default)', async () => {
    expectAppError(await world.member.api.post('/api/v4/bots', { username: name() }), 403, 'api.context.permissions.app_error');
  });

  test('bad input: a taken name, an invalid name, a description too long, no username', async () => {
    expectAppError(await world.admin.api.post('/api/v4/bots', { username: world.member.username }), 400, 'app.user.save.username_exists.app_error');
    expectAppError(await world.admin.api.post('/api/v4/bots', { username: 'not a name!' }), 400, 'model.bot.is_valid.username.app_error');
    expectAppError(await world.admin.api.post('/api/v4/bots', { username: name(), description: 'd'.repeat(1025) }), 400, 'model.bot.is_valid.description.app_error');
    expectAppError(await world.admin.api.post('/api/v4/bots', { username: name(), display_name: 'n'.repeat(65) }), 400, 'model.bot.is_valid.user_id.app_error');
    expectAppError(await world.admin.api.post('/api/v4/bots', { display_name: 'no name' }), 400);
    // 1024 characters (not bytes) is still fine.
    await world.admin.api.post('/api/v4/bots', { username: name(), description: 'é'.repeat(1024) }).expect(201);
  });

  test('a bot cannot create bots', async () => {
    const bot = await newBot();
    const asBot = client4For(server, { token: await botToken(bot.user_id) });
    await expectClientError(asBot.createBot({ username: name() } as never), 403, 'api.context.permissions.app_error');
  });
});

describe('reading bots', () => {
  test('getBot; a member (no read_bots) gets the same 404 as for a bot that does not exist; ETag and 304', async () => {
    const bot = await newBot({ description: 'read me' });
    expect(await admin.getBot(bot.user_id)).toEqual(bot);
    await expectClientError(client4For(server, world.member).getBot(bot.user_id), 404, BOT_HIDDEN);
    expectAppError(await world.admin.api.get(`/api/v4/bots/${'x'.repeat(26)}`), 404, BOT_HIDDEN);
    // An ordinary user is no bot.
    expectAppError(await world.admin.api.get(`/api/v4/bots/${world.member.id}`), 404, BOT_HIDDEN);
    const first = await world.admin.api.get(`/api/v4/bots/${bot.user_id}`).expect(200);
    expect(first.headers.etag).toEqual(expect.any(String));
    await world.admin.api.get(`/api/v4/bots/${bot.user_id}`).set('If-None-Match', first.headers.etag).expect(304);
    // A rename through PatchUser changes what the bot shows, and so its ETag.
    await world.admin.api.put(`/api/v4/users/${bot.user_id}/patch`, { first_name: 'Renamed' }).expect(200);
    const after = await world.admin.api.get(`/api/v4/bots/${bot.user_id}`).set('If-None-Match', first.headers.etag).expect(200);
    expect(after.body.display_name).toBe('Renamed');
  });

  test('getBots pages in creation order; a member gets 403; getBotsIncludeDeleted and getBotsOrphaned filter', async () => {
    const made = [await newBot(), await newBot(), await newBot()];
    const all = (await admin.getBots(0, 200)) as unknown as BotJson[];
    const ids = all.map((b) => b.user_id);
    expect(ids).toEqual(expect.arrayContaining(made.map((b) => b.user_id)));
    const positions = made.map((b) => ids.indexOf(b.user_id));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // Pages split the same order.
    const page0 = (await admin.getBots(0, 2)) as unknown as BotJson[];
    const page1 = (await admin.getBots(1, 2)) as unknown as BotJson[];
    expect([...page0, ...page1].map((b) => b.user_id)).toEqual(ids.slice(0, 4));
    await expectClientError(client4For(server, world.member).getBots(), 403, 'api.context.permissions.app_error');

    await admin.disableBot(made[0].user_id);
    expect(((await admin.getBots(0, 200)) as unknown as BotJson[]).map((b) => b.user_id)).not.toContain(made[0].user_id);
    const withDeleted = (await admin.getBotsIncludeDeleted(0, 200)) as unknown as BotJson[];
    expect(withDeleted.find((b) => b.user_id === made[0].user_id)?.delete_at).toBeGreaterThan(0);

    // Orphaned: the owner is deactivated.
    const owner = await createUser(server, world.admin);
    await admin.assignBot(made[1].user_id, owner.id);
    expect(((await admin.getBotsOrphaned(0, 200)) as unknown as BotJson[]).map((b) => b.user_id)).not.toContain(made[1].user_id);
    await world.admin.api.delete(`/api/v4/users/${owner.id}`).expect(200);
    const orphans = (await admin.getBotsOrphaned(0, 200)) as unknown as BotJson[];
    expect(orphans.map((b) => b.user_id)).toContain(made[1].user_id);
    expect(orphans.map((b) => b.user_id)).not.toContain(made[2].user_id);
  });

  test('GetBots has an ETag that changes when a bot does', async () => {
    const bot = await newBot();
    const first = await world.admin.api.get('/api/v4/bots?per_page=200').expect(200);
    await world.admin.api.get('/api/v4/bots?per_page=200').set('If-None-Match', first.headers.etag).expect(304);
    await admin.patchBot(bot.user_id, { description: 'changed' } as never);
    await world.admin.api.get('/api/v4/bots?per_page=200').set('If-None-Match', first.headers.etag).expect(200);
  });
});

describe('changing bots', () => {
  test('patchBot changes the bot and its user; nothing else moves; a member is told it does not exist', async () => {
    const bot = await newBot({ display_name: 'Old', description: 'old' });
    const newName = name('renamed');
    const patched = (await admin.patchBot(bot.user_id, { username: newName, display_name: 'New', description: 'new' } as never)) as unknown as BotJson;
    expect(patched).toMatchObject({ user_id: bot.user_id, username: newName, display_name: 'New', description: 'new', owner_id: world.admin.id, create_at: bot.create_at });
    expect(patched.update_at).toBeGreaterThan(bot.update_at);
    expect(await admin.getUser(bot.user_id)).toMatchObject({ username: newName, first_name: 'New', bot_description: 'new', email: `${newName}@localhost` });
    // Only the description: the rest stays.
    const again = (await admin.patchBot(bot.user_id, { description: 'newer' } as never)) as unknown as BotJson;
    expect(again).toMatchObject({ username: newName, display_name: 'New', description: 'newer' });
    expectAppError(await world.admin.api.put(`/api/v4/bots/${bot.user_id}`, { username: world.member.username }), 400, 'app.user.save.username_exists.app_error');
    await expectClientError(client4For(server, world.member).patchBot(bot.user_id, { description: 'x' } as never), 404, BOT_HIDDEN);
  });

  test('assignBot: to another user; never to a bot (403) or to nobody (404)', async () => {
    const bot = await newBot();
    const other = await newBot();
    const assigned = (await admin.assignBot(bot.user_id, world.member.id)) as unknown as BotJson;
    expect(assigned.owner_id).toBe(world.member.id);
    expect(((await admin.getBot(bot.user_id)) as unknown as BotJson).owner_id).toBe(world.member.id);
    await expectClientError(admin.assignBot(bot.user_id, other.user_id), 403, 'api.context.permissions.app_error');
    await expectClientError(admin.assignBot(bot.user_id, 'x'.repeat(26)), 404, 'app.user.missing_account.const');
    await expectClientError(client4For(server, world.member).assignBot(other.user_id, world.member.id), 404, BOT_HIDDEN);
  });
});

describe("a bot's tokens and logins", () => {
  test('its owner creates tokens with EnableUserAccessTokens off; an ordinary user still cannot (501)', async () => {
    const bot = await newBot();
    const token = await admin.createUserAccessToken(bot.user_id, 'ci');
    expect(token).toMatchObject({ user_id: bot.user_id, description: 'ci', token: expect.stringMatching(/^[a-z0-9]{26}$/) });
    const me = await client4For(server, { token: token.token as string }).getMe();
    expect(me).toMatchObject({ id: bot.user_id, is_bot: true });
    // Personal access tokens for people stay off.
    await expectClientError(admin.createUserAccessToken(world.member.id, 'person'), 501, 'app.user_access_token.disabled');
    await expectClientError(admin.createUserAccessToken(world.admin.id, 'self'), 501, 'app.user_access_token.disabled');
    // A member may not make tokens for someone else's bot.
    await expectClientError(client4For(server, world.member).createUserAccessToken(bot.user_id, 'x'), 403);
  });

  test('a bot cannot log in with a password: 401 api.user.login.bot_login_forbidden.app_error', async () => {
    const bot = await newBot();
    expectAppError(await server.http().post('/api/v4/users/login', { login_id: bot.username, password: PASSWORD }), 401, 'api.user.login.bot_login_forbidden.app_error');
    expectAppError(await server.http().post('/api/v4/users/login', { login_id: `${bot.username}@localhost`, password: '' }), 400);
  });

  test('disableBot: its tokens stop working and its socket closes; enableBot: the same token works again', async () => {
    const bot = await newBot();
    const token = await botToken(bot.user_id);
    const asBot = client4For(server, { token });
    await asBot.getMe();
    const socket = await connect(server.url, { token });
    const disabled = (await admin.disableBot(bot.user_id)) as unknown as BotJson;
    expect(disabled.delete_at).toBeGreaterThan(0);
    expect((await socket.closed).code).toBeGreaterThan(0);
    await expectClientError(asBot.getMe(), 401, 'api.context.session_expired.app_error');
    expect((await admin.getUser(bot.user_id)).delete_at).toBeGreaterThan(0);
    await expectClientError(admin.getBot(bot.user_id), 404, BOT_HIDDEN);
    expect((await world.admin.api.get(`/api/v4/bots/${bot.user_id}?include_deleted=true`).expect(200)).body.delete_at).toBe(disabled.delete_at);
    // Disabling again changes nothing.
    expect(await admin.disableBot(bot.user_id)).toEqual(disabled);
    const enabled = (await admin.enableBot(bot.user_id)) as unknown as BotJson;
    expect(enabled.delete_at).toBe(0);
    expect((await asBot.getMe()).id).toBe(bot.user_id);
    await expectClientError(client4For(server, world.member).disableBot(bot.user_id), 404, BOT_HIDDEN);
    await expectClientError(client4For(server, world.member).enableBot(bot.user_id), 404, BOT_HIDDEN);
  });
});

describe('a bot as a client (Client4 with its token)', () => {
  let bot: BotJson;
  let asBot: Client4;
  let channelId: string;
  let token: string;

  beforeAll(async () => {
    bot = await newBot({ display_name: 'Poster' });
    token = await botToken(bot.user_id);
    asBot = client4For(server, { token });
    await admin.addToTeam(world.teamId, bot.user_id);
    channelId = await createChannel(world.admin, world.teamId, 'O', [world.member], 'botroom');
    await admin.addToChannel(bot.user_id, channelId);
  });

  test('posts carry props.from_bot "true", set by the server; nobody else can set it', async () => {
    const post = await asBot.createPost({ channel_id: channelId, message: 'deployed', props: { from_bot: 'false', card: 'kept' } } as never);
    expect(post.user_id).toBe(bot.user_id);
    expect(post.props).toEqual({ from_bot: 'true', card: 'kept' });
    expect((await admin.getPost(post.id)).props.from_bot).toBe('true');
    // A person's post never carries it, whatever the client sends.
    const human = await client4For(server, world.member).createPost({ channel_id: channelId, message: 'me', props: { from_bot: 'true' } } as never);
    expect(human.props.from_bot).toBeUndefined();
    // An edit by the bot keeps it.
    const edited = await asBot.patchPost({ id: post.id, message: 'deployed v2', props: {} } as never);
    expect(edited.props.from_bot).toBe('true');
  });

  test('listens on the WebSocket with its token and receives the posted event of a member', async () => {
    const socket = await connect(server.url, { token });
    try {
      const from = socket.events.length;
      const post = await client4For(server, world.member).createPost({ channel_id: channelId, message: `hello @${bot.username}` } as never);
      const event = await socket.next((f) => f.event === 'posted' && JSON.parse(f.data?.post).id === post.id, { from });
      expect(event.broadcast?.channel_id).toBe(channelId);
      expect(JSON.parse(event.data?.mentions ?? '[]')).toContain(bot.user_id);
      expect(socket.problems).toEqual([]);
    } finally {
      await socket.close();
    }
  });

  test('a member sees the bot as a bot in the channel', async () => {
    const members = await client4For(server, world.member).getProfilesInChannel(channelId, 0, 100);
    expect(members.find((u) => u.id === bot.user_id)).toMatchObject({ is_bot: true, bot_description: '' });
  });
});

describe('converting', () => {
  test('convert_to_bot: a user becomes a bot owned by itself; its sessions end and its password stops working', async () => {
    const person: Actor = await createUser(server, world.admin, { first_name: 'Ada' });
    const res = await world.admin.api.post(`/api/v4/users/${person.id}/convert_to_bot`).expect(200);
    expect(res.body).toMatchObject({ user_id: person.id, username: person.username, display_name: 'Ada', owner_id: person.id, delete_at: 0 });
    await person.api.get('/api/v4/users/me').expect(401);
    expectAppError(await server.http().post('/api/v4/users/login', { login_id: person.username, password: PASSWORD }), 401, 'api.user.login.bot_login_forbidden.app_error');
    expect(await admin.getUser(person.id)).toMatchObject({ is_bot: true });
    expectAppError(await world.admin.api.post(`/api/v4/users/${person.id}/convert_to_bot`), 400, 'api.context.invalid_param.app_error');
    expectAppError(await world.member.api.post(`/api/v4/users/${world.admin.id}/convert_to_bot`), 403, 'api.context.permissions.app_error');
    expectAppError(await world.admin.api.post(`/api/v4/users/${'x'.repeat(26)}/convert_to_bot`), 404, 'app.user.missing_account.const');
  });

  test('convert_to_user: a password is required; the bot becomes a user who logs in; set_system_admin makes an admin', async () => {
    const bot = await newBot({ description: 'soon a person' });
    const token = await botToken(bot.user_id);
    expectAppError(await world.admin.api.post(`/api/v4/bots/${bot.user_id}/convert_to_user`, { email: 'x@example.com' }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await world.member.api.post(`/api/v4/bots/${bot.user_id}/convert_to_user`, { password: PASSWORD }), 403, 'api.context.permissions.app_error');
    const email = `${name('person')}@example.com`;
    const user = (await world.admin.api.post(`/api/v4/bots/${bot.user_id}/convert_to_user?set_system_admin=true`, { password: PASSWORD, email }).expect(200)).body;
    expect(user).toMatchObject({ id: bot.user_id, is_bot: false, bot_description: '', email, roles: 'system_user system_admin' });
    expectAppError(await world.admin.api.get(`/api/v4/bots/${bot.user_id}`), 404, BOT_HIDDEN);
    await server.http().post('/api/v4/users/login', { login_id: bot.username, password: PASSWORD }).expect(200);
    // Its old token is now a person's personal access token: off on this server.
    await server.http(token).get('/api/v4/users/me').expect(401);
    expectAppError(await world.admin.api.post(`/api/v4/bots/${'x'.repeat(26)}/convert_to_user`, { password: PASSWORD }), 404, BOT_HIDDEN);
  });
});
