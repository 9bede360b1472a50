// Authorisation matrix (issue "Measure and harden"). Every operation of generated/openapi.json is called with its
// path parameters filled with real ids of a fixture world and a valid body:
//   - without a token, with a made-up token and with a logged-out token: 401, unless the operation is public
//     (its security allows {} or is []), where the answer is anything but 401 (and never a 5xx);
//   - with a plain member's token: 403 where the member lacks the permission (admin operations, other users'
//     objects, a team or private channel they are not in), and a success where they have it, so every 403 above is
//     shown to come from the permission check rather than from a wrong id in the fixture;
//   - with the system admin's token: a success everywhere (the same fixture ids are right).
// The table must name every operation of the spec: a new operation without a row fails the suite.
import { createServer, type Server } from 'node:http';
import sharp from 'sharp';
import { loadSpec } from '../../src/spec';
import { createUser, createWorld, login, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { createHook } from '../webhooks/hooks-support';
import { send, type RawAnswer } from '../support/http';
import { eventually } from '../support/eventually';
import { checkAnswer } from './support/answers';

const spec = loadSpec() as Record<string, any>;

interface Operation {
  operationId: string;
  method: string;
  path: string;
  public: boolean;
}

const operations: Operation[] = Object.entries(spec.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method, op]) => ['get', 'post', 'put', 'delete', 'patch'].includes(method) && op?.operationId)
    .map(([method, op]) => {
      const security = (op.security ?? spec.security ?? []) as Array<Record<string, unknown>>;
      return { operationId: op.operationId, method: method.toUpperCase(), path, public: security.length === 0 || security.some((s) => Object.keys(s).length === 0) };
    }),
);

let server: TestServer;
let world: World;
let outsider: Actor;
let otherTeamId: string;
let privateId: string;
let offTopicId: string;
let adminPostId: string;
let privatePostId: string;
let hookId: string;
let publicFileId: string;
let privateFileId: string;
let seq = 0;
const unique = (p: string) => `${p}${process.pid}m${++seq}`;

beforeAll(async () => {
  server = await startTestServer({
    MM_SERVICESETTINGS_ENABLEUSERACCESSTOKENS: 'true',
    MM_SERVICESETTINGS_ENABLEBOTACCOUNTCREATION: 'true',
    // DoPostAction's integration runs on 127.0.0.1.
    MM_SERVICESETTINGS_ALLOWEDUNTRUSTEDINTERNALCONNECTIONS: '127.0.0.1',
  });
  world = await createWorld(server);
  outsider = await createUser(server, world.admin);
  otherTeamId = (await world.admin.api.post('/api/v4/teams', { name: unique('other'), display_name: 'Other', type: 'I' }).expect(201)).body.id;
  privateId = (await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: unique('priv'), display_name: 'P', type: 'P' }).expect(201)).body.id;
  offTopicId = (await world.admin.api.get(`/api/v4/teams/${world.teamId}/channels/name/off-topic`).expect(200)).body.id;
  adminPostId = (await world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'admin post' }).expect(201)).body.id;
  privatePostId = (await world.admin.api.post('/api/v4/posts', { channel_id: privateId, message: 'private post' }).expect(201)).body.id;
  hookId = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'matrix' })).id;
  // Images, so that their thumbnails and previews exist: every read of them can succeed.
  const png = await sharp({ create: { width: 8, height: 4, channels: 3, background: '#3366cc' } }).png().toBuffer();
  const uploadAs = async (channelId: string) => {
    const form = uploadForm(channelId, png);
    const res = await send(server.url, { method: 'POST', path: '/api/v4/files', headers: { Authorization: `Bearer ${world.admin.token}`, 'Content-Type': form.contentType }, body: form.body });
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.text}`);
    return JSON.parse(res.text).file_infos[0].id as string;
  };
  publicFileId = await uploadAs(world.townSquareId);
  privateFileId = await uploadAs(privateId);
});
afterAll(() => server.close());

/** An integration on 127.0.0.1 that answers every action call 200 `{}` (DoPostAction's rows; the matrix allows it). */
let integration: Promise<{ url: string; server: Server }> | undefined;
function actionIntegration(): Promise<{ url: string; server: Server }> {
  return (integration ??= new Promise((resolve) => {
    const srv = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
    });
    srv.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(srv.address() as { port: number }).port}/action`, server: srv }));
  }));
}
afterAll(async () => {
  if (integration) (await integration).server.close();
});
/** A post of the admin's with one button (id `go`) calling the integration above. */
async function actionPost(channelId: string): Promise<string> {
  const { url } = await actionIntegration();
  const props = { attachments: [{ text: 'matrix', actions: [{ id: 'go', name: 'Go', integration: { url, context: { n: 1 } } }] }] };
  return (await world.admin.api.post('/api/v4/posts', { channel_id: channelId, message: 'actions', props }).expect(201)).body.id;
}

type Who = 'admin' | 'member';

/** One call of an operation: path parameters, query, body; built lazily (some create what they act on). */
interface Call {
  params?: Record<string, string | Promise<string>>;
  query?: string;
  body?: unknown;
  /** A body that is not JSON (an upload form). */
  raw?: { contentType: string; body: Buffer };
}

/** UploadFile's multipart form: the channel, then one file. */
function uploadForm(channelId: string, bytes: Buffer = Buffer.from('matrix')): { contentType: string; body: Buffer } {
  const head = `--m\r\nContent-Disposition: form-data; name="channel_id"\r\n\r\n${channelId}\r\n--m\r\nContent-Disposition: form-data; name="files"; filename="m.png"\r\n\r\n`;
  return { contentType: 'multipart/form-data; boundary=m', body: Buffer.concat([Buffer.from(head), bytes, Buffer.from('\r\n--m--\r\n')]) };
}

interface Row {
  /** What the call is, for the test name. */
  name: string;
  /** The call for the given caller (the caller matters for "self" cases and for objects it must own). */
  call: (who: Who) => Promise<Call> | Call;
  /**
   * What a plain member gets: 403, a 404 (where a 403 would reveal that the thing exists), a success, or 400 where
   * the operation cannot be completed over plain HTTP (the WebSocket upgrade).
   */
  member: 400 | 403 | 404 | 'ok';
  /** The AppError id of the member's 403, when not the generic permissions one. */
  errorId?: string;
  /** Whether the admin's call succeeds too (false where the row is about someone else's object of the member). */
  adminOk?: boolean;
}

const me = (who: Who) => (who === 'admin' ? world.admin : world.member);

/** A public channel the caller is a member of, with a post of theirs; for the delete/patch rows. */
async function ownPost(who: Who): Promise<string> {
  return (await me(who).api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'mine' }).expect(201)).body.id;
}

async function freshHook(): Promise<string> {
  return (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'fresh' })).id;
}

/** An outgoing webhook of the admin's on town square, fired by its own fresh trigger word (its calls are refused). */
async function freshOutgoingHook(word = unique('w')): Promise<string> {
  const body = { team_id: world.teamId, channel_id: world.townSquareId, trigger_words: [word], callback_urls: ['http://127.0.0.1:9/matrix'] };
  return (await world.admin.api.post('/api/v4/hooks/outgoing', body).expect(201)).body.id;
}
let outgoingFixture: Promise<{ hookId: string; deliveryId: string }> | undefined;
/** One outgoing webhook with one logged attempt: a post fires it, and its call to 127.0.0.1 is refused (no allow list). */
function outgoingWithDelivery(): Promise<{ hookId: string; deliveryId: string }> {
  return (outgoingFixture ??= (async () => {
    const word = unique('w');
    const id = await freshOutgoingHook(word);
    await world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: `${word} go` }).expect(201);
    const deliveryId = await eventually(async () => {
      const res = await world.admin.api.get(`/api/v4/hooks/outgoing/${id}/deliveries`).expect(200);
      if (res.body.length === 0) throw new Error('no attempt logged yet');
      return res.body[0].id as string;
    });
    return { hookId: id, deliveryId };
  })());
}

/** A custom command's body for the fixture's team (a fresh trigger each time). */
function commandBody(): Record<string, unknown> {
  return { team_id: world.teamId, trigger: unique('cmd'), method: 'P', url: 'https://integration.example.com/command' };
}

/** A new custom command of the admin's on the fixture's team. */
async function freshCommand(): Promise<string> {
  return (await world.admin.api.post('/api/v4/commands', commandBody()).expect(201)).body.id;
}

/**
 * A fresh response URL of an admin's command, for the admin in town square: written as running the command writes
 * it (calling a real integration is the commands suite's business, not the matrix's).
 */
async function commandResponseUrl(): Promise<string> {
  const id = `${unique('rurl')}`.padEnd(26, 'x').slice(0, 26);
  const commandId = await freshCommand();
  await server.parley.app.deps.stores.commands.insertWebhook({ id, create_at: Date.now(), command_id: commandId, user_id: world.admin.id, channel_id: world.townSquareId, root_id: '', use_count: 0 });
  return id;
}

/** A preference of the actor's own (category `matrix`, name `matrix`), so that reading it can succeed. */
async function ownPreference(actor: Actor): Promise<string> {
  await actor.api.put('/api/v4/users/me/preferences', [{ user_id: actor.id, category: 'matrix', name: 'matrix', value: '1' }]).expect(200);
  return 'matrix';
}

/** The id of one of the actor's sidebar categories on the fixture's team: a default one, or a new custom one. */
function category(actor: Actor, type: 'favorites' | 'channels'): string {
  return `${type}_${actor.id}_${world.teamId}`;
}
async function customCategory(actor: Actor): Promise<string> {
  const body = { user_id: actor.id, team_id: world.teamId, display_name: 'matrix' };
  return (await actor.api.post(`/api/v4/users/${actor.id}/teams/${world.teamId}/channels/categories`, body).expect(200)).body.id;
}
/** The actor's category order on the fixture's team, as it is now (a valid body for setting it). */
async function categoryOrder(actor: Actor): Promise<string[]> {
  return (await actor.api.get(`/api/v4/users/${actor.id}/teams/${world.teamId}/channels/categories/order`).expect(200)).body;
}
const categoryBody = (actor: Actor, type: 'favorites' | 'channels') => ({ id: category(actor, type), user_id: actor.id, team_id: world.teamId, type, display_name: type, sorting: '', channel_ids: [] });

/** A thread the actor follows: a root post of theirs (in town square unless said) with a reply of theirs. */
async function ownThread(actor: Actor, channelId = world.townSquareId): Promise<string> {
  const root = (await actor.api.post('/api/v4/posts', { channel_id: channelId, message: 'thread' }).expect(201)).body.id as string;
  await actor.api.post('/api/v4/posts', { channel_id: channelId, message: 'reply', root_id: root }).expect(201);
  return root;
}

/** The admin's thread in a channel, as SetThreadUnreadByPostId's thread and post (its root). */
async function threadAndRoot(channelId: string): Promise<{ thread_id: string; post_id: string }> {
  const root = await ownThread(world.admin, channelId);
  return { thread_id: root, post_id: root };
}

async function freshUser(): Promise<Actor> {
  return createUser(server, world.admin, { username: unique('fresh') });
}

/** A bot of the admin's: a member (no bot permissions) must not learn that it is a bot (404, not 403). */
async function freshBot(): Promise<string> {
  return (await world.admin.api.post('/api/v4/bots', { username: unique('bot') }).expect(201)).body.user_id;
}
const botHidden = { member: 404 as const, errorId: 'store.sql_bot.get.missing.app_error' };

const rows: Record<string, Row[]> = {
  GetPing: [{ name: 'ping', call: () => ({}), member: 'ok' }],
  GetConfig: [{ name: 'the config', call: () => ({}), member: 403 }],
  PatchConfig: [{ name: 'a patch', call: () => ({ body: { TeamSettings: { MaxNotificationsPerChannel: 1000 } } }), member: 403 }],
  GetClientConfig: [{ name: 'format=old', call: () => ({ query: '?format=old' }), member: 'ok' }],
  GetClientLicense: [{ name: 'format=old', call: () => ({ query: '?format=old' }), member: 'ok' }],
  GetServerLimits: [{ name: 'the limits', call: () => ({}), member: 'ok' }],
  GetRolesByNames: [{ name: 'the system and team roles', call: () => ({ body: ['system_admin', 'system_user', 'team_user'] }), member: 'ok' }],
  GetRoleByName: [{ name: 'system_admin', call: () => ({ params: { role_name: 'system_admin' } }), member: 'ok' }],
  GetRole: [{ name: 'system_admin, by id', call: async () => ({ params: { role_id: (await world.admin.api.get('/api/v4/roles/name/system_admin').expect(200)).body.id } }), member: 'ok' }],
  CreateUser: [{ name: 'a new user (open server off)', call: () => ({ body: { username: unique('new'), email: `${unique('new')}@example.com`, password: 'Passw0rd!' } }), member: 403, errorId: 'api.user.create_user.no_open_server' }],
  GetUsers: [
    { name: 'all users', call: () => ({}), member: 'ok' },
    { name: 'in a private channel they are not in', call: () => ({ query: `?in_channel=${privateId}` }), member: 403 },
  ],
  Login: [{ name: 'a login', call: () => ({ body: { login_id: world.member.username, password: 'Passw0rd!' } }), member: 'ok' }],
  Logout: [{ name: 'logout', call: () => ({}), member: 'ok' }],
  GetUsersByIds: [{ name: 'two users', call: () => ({ body: [world.admin.id, world.member.id] }), member: 'ok' }],
  GetUserByUsername: [{ name: 'the admin', call: () => ({ params: { username: world.admin.username } }), member: 'ok' }],
  GetUser: [{ name: 'the admin', call: () => ({ params: { user_id: world.admin.id } }), member: 'ok' }],
  PatchUser: [
    { name: 'themselves', call: () => ({ params: { user_id: 'me' }, body: { nickname: 'me' } }), member: 'ok' },
    { name: 'another user', call: () => ({ params: { user_id: outsider.id }, body: { nickname: 'x' } }), member: 403 },
  ],
  CreateUserAccessToken: [
    { name: 'for themselves', call: () => ({ params: { user_id: 'me' }, body: { description: 'mine' } }), member: 403 },
    { name: 'for another user', call: () => ({ params: { user_id: outsider.id }, body: { description: 'theirs' } }), member: 403 },
  ],
  CreateTeam: [{ name: 'a team', call: () => ({ body: { name: unique('t'), display_name: 'T', type: 'O' } }), member: 'ok' }],
  GetAllTeams: [{ name: 'all teams', call: () => ({}), member: 'ok' }],
  GetTeamByName: [
    { name: 'their team', call: () => ({ params: { team_name: teamName() } }), member: 'ok' },
    { name: 'an invite-only team they are not in (hidden: as if it did not exist)', call: () => ({ params: { team_name: otherTeamName() } }), member: 404, errorId: 'app.team.get.find.app_error' },
  ],
  GetTeam: [
    { name: 'their team', call: () => ({ params: { team_id: world.teamId } }), member: 'ok' },
    { name: 'an invite-only team they are not in', call: () => ({ params: { team_id: otherTeamId } }), member: 403 },
  ],
  AddTeamMember: [
    { name: 'someone to their team', call: async () => ({ params: { team_id: world.teamId }, body: { team_id: world.teamId, user_id: (await freshUser()).id } }), member: 'ok' },
    { name: 'someone to a team they are not in', call: async () => ({ params: { team_id: otherTeamId }, body: { team_id: otherTeamId, user_id: (await freshUser()).id } }), member: 403 },
  ],
  GetTeamMembers: [
    { name: 'of their team', call: () => ({ params: { team_id: world.teamId } }), member: 'ok' },
    { name: 'of a team they are not in', call: () => ({ params: { team_id: otherTeamId } }), member: 403 },
  ],
  GetTeamMembersForUser: [
    { name: 'their own', call: () => ({ params: { user_id: 'me' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id } }), member: 403 },
  ],
  GetChannelsForUser: [
    { name: 'their own, in all teams', call: () => ({ params: { user_id: 'me' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id } }), member: 403 },
  ],
  GetChannelMembersWithTeamDataForUser: [
    { name: 'their own, all at once', call: () => ({ params: { user_id: 'me' }, query: '?page=-1&per_page=60' }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id } }), member: 403 },
  ],
  GetTeamsForUser: [
    { name: 'their own', call: () => ({ params: { user_id: 'me' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id } }), member: 403 },
  ],
  CreateChannel: [
    { name: 'in their team', call: () => ({ body: { team_id: world.teamId, name: unique('c'), display_name: 'C', type: 'O' } }), member: 'ok' },
    { name: 'in a team they are not in', call: () => ({ body: { team_id: otherTeamId, name: unique('c'), display_name: 'C', type: 'P' } }), member: 403 },
  ],
  CreateDirectChannel: [
    { name: 'with themselves in it', call: (who) => ({ body: [me(who).id, outsider.id] }), member: 'ok' },
    { name: 'between two other users', call: () => ({ body: [world.admin.id, outsider.id] }), member: 403 },
  ],
  GetChannel: [
    { name: 'town square', call: () => ({ params: { channel_id: world.townSquareId } }), member: 'ok' },
    { name: 'a private channel they are not in', call: () => ({ params: { channel_id: privateId } }), member: 403 },
  ],
  AddChannelMember: [
    { name: 'someone to a public channel', call: async () => ({ params: { channel_id: offTopicId }, body: { user_id: await teamUser() } }), member: 'ok' },
    { name: 'someone to a private channel they are not in', call: async () => ({ params: { channel_id: privateId }, body: { user_id: await teamUser() } }), member: 403 },
  ],
  GetChannelMembers: [
    { name: 'of town square', call: () => ({ params: { channel_id: world.townSquareId } }), member: 'ok' },
    { name: 'of a private channel they are not in', call: () => ({ params: { channel_id: privateId } }), member: 403 },
  ],
  GetChannelMember: [
    { name: 'in town square', call: () => ({ params: { channel_id: world.townSquareId, user_id: world.admin.id } }), member: 'ok' },
    { name: 'in a private channel they are not in', call: () => ({ params: { channel_id: privateId, user_id: world.admin.id } }), member: 403 },
  ],
  RemoveUserFromChannel: [
    { name: 'someone from a public channel', call: async () => ({ params: { channel_id: offTopicId, user_id: await teamUser(offTopicId) } }), member: 'ok' },
    { name: 'someone from a private channel they are not in', call: async () => ({ params: { channel_id: privateId, user_id: await teamUser(privateId) } }), member: 403 },
  ],
  ViewChannel: [
    { name: 'for themselves', call: () => ({ params: { user_id: 'me' }, body: { channel_id: world.townSquareId } }), member: 'ok' },
    { name: 'for another user', call: () => ({ params: { user_id: world.admin.id }, body: { channel_id: world.townSquareId } }), member: 403, adminOk: true },
  ],
  GetPublicChannelsForTeam: [
    { name: 'of their team', call: () => ({ params: { team_id: world.teamId } }), member: 'ok' },
    { name: 'of a team they are not in', call: () => ({ params: { team_id: otherTeamId } }), member: 403 },
  ],
  GetDeletedChannelsForTeam: [
    { name: 'of their team', call: () => ({ params: { team_id: world.teamId } }), member: 'ok' },
    { name: 'of a team they are not in', call: () => ({ params: { team_id: otherTeamId } }), member: 403 },
  ],
  AutocompleteChannelsForTeam: [
    { name: 'in their team', call: () => ({ params: { team_id: world.teamId }, query: '?name=town' }), member: 'ok' },
    { name: 'in a team they are not in', call: () => ({ params: { team_id: otherTeamId }, query: '?name=town' }), member: 403 },
  ],
  AutocompleteChannelsForTeamForSearch: [
    { name: 'in their team', call: () => ({ params: { team_id: world.teamId }, query: '?name=town' }), member: 'ok' },
    { name: 'in a team they are not in', call: () => ({ params: { team_id: otherTeamId }, query: '?name=town' }), member: 403 },
  ],
  SearchChannels: [
    { name: 'in their team', call: () => ({ params: { team_id: world.teamId }, body: { term: 'town' } }), member: 'ok' },
    // Mattermost's answer to a caller outside the team: its missing team member.
    { name: 'in a team they are not in', call: () => ({ params: { team_id: otherTeamId }, body: { term: 'town' } }), member: 404, errorId: 'app.team.get_member.missing.app_error' },
  ],
  GetChannelByName: [
    { name: 'town-square', call: () => ({ params: { team_id: world.teamId, channel_name: 'town-square' } }), member: 'ok' },
    { name: 'a private channel they are not in (hidden: as if it did not exist)', call: () => ({ params: { team_id: world.teamId, channel_name: privateName() } }), member: 404, errorId: 'app.channel.get_by_name.missing.app_error' },
  ],
  GetChannelsForTeamForUser: [
    { name: 'their own', call: () => ({ params: { user_id: 'me', team_id: world.teamId } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, team_id: world.teamId } }), member: 403 },
  ],
  CreatePost: [
    { name: 'in town square', call: () => ({ body: { channel_id: world.townSquareId, message: 'hi' } }), member: 'ok' },
    { name: 'in a private channel they are not in', call: () => ({ body: { channel_id: privateId, message: 'hi' } }), member: 403 },
  ],
  GetPost: [
    { name: 'a public post', call: () => ({ params: { post_id: adminPostId } }), member: 'ok' },
    { name: 'a post in a private channel they are not in', call: () => ({ params: { post_id: privatePostId } }), member: 403 },
  ],
  DeletePost: [
    { name: 'their own post', call: async (who) => ({ params: { post_id: await ownPost(who) } }), member: 'ok' },
    { name: "the admin's post", call: async () => ({ params: { post_id: await ownPost('admin') } }), member: 403 },
  ],
  PatchPost: [
    { name: 'their own post', call: async (who) => ({ params: { post_id: await ownPost(who) }, body: { message: 'edited' } }), member: 'ok' },
    { name: "the admin's post", call: () => ({ params: { post_id: adminPostId }, body: { message: 'edited' } }), member: 403 },
  ],
  GetPostThread: [
    { name: 'a public thread', call: () => ({ params: { post_id: adminPostId } }), member: 'ok' },
    { name: 'a thread in a private channel they are not in', call: () => ({ params: { post_id: privatePostId } }), member: 403 },
  ],
  GetPostsForChannel: [
    { name: 'town square', call: () => ({ params: { channel_id: world.townSquareId } }), member: 'ok' },
    { name: 'a private channel they are not in', call: () => ({ params: { channel_id: privateId } }), member: 403 },
  ],
  UpdatePost: [
    {
      name: 'their own post',
      call: async (who) => {
        const id = await ownPost(who);
        return { params: { post_id: id }, body: { id, message: 'updated' } };
      },
      member: 'ok',
    },
    { name: "the admin's post", call: () => ({ params: { post_id: adminPostId }, body: { id: adminPostId, message: 'admin post' } }), member: 403 },
  ],
  DoPostAction: [
    { name: 'a button of a public post', call: async () => ({ params: { post_id: await actionPost(world.townSquareId), action_id: 'go' }, body: {} }), member: 'ok' },
    { name: 'a button of a post in a private channel they are not in', call: async () => ({ params: { post_id: await actionPost(privateId), action_id: 'go' }, body: {} }), member: 403 },
  ],
  PinPost: [
    { name: 'a public post', call: () => ({ params: { post_id: adminPostId } }), member: 'ok' },
    { name: 'a post in a private channel they are not in', call: () => ({ params: { post_id: privatePostId } }), member: 403 },
  ],
  UnpinPost: [
    { name: 'a public post', call: () => ({ params: { post_id: adminPostId } }), member: 'ok' },
    { name: 'a post in a private channel they are not in', call: () => ({ params: { post_id: privatePostId } }), member: 403 },
  ],
  GetPinnedPosts: [
    { name: 'of town square', call: () => ({ params: { channel_id: world.townSquareId } }), member: 'ok' },
    { name: 'of a private channel they are not in', call: () => ({ params: { channel_id: privateId } }), member: 403 },
  ],
  GetPostsByIds: [
    { name: 'a public post', call: () => ({ body: [adminPostId] }), member: 'ok' },
    { name: 'a post in a private channel they are not in (left out of the answer)', call: () => ({ body: [adminPostId, privatePostId] }), member: 'ok' },
  ],
  SaveReaction: [
    { name: 'their own, to a public post', call: (who) => ({ body: { user_id: me(who).id, post_id: adminPostId, emoji_name: 'smile' } }), member: 'ok' },
    { name: 'to a post in a private channel they are not in', call: (who) => ({ body: { user_id: me(who).id, post_id: privatePostId, emoji_name: 'smile' } }), member: 403 },
    // Nobody reacts in someone else's name, system admins included.
    { name: "in another user's name", call: () => ({ body: { user_id: outsider.id, post_id: adminPostId, emoji_name: 'smile' } }), member: 403, errorId: 'api.reaction.save_reaction.user_id.app_error', adminOk: false },
  ],
  DeleteReaction: [
    { name: 'their own', call: () => ({ params: { user_id: 'me', post_id: adminPostId, emoji_name: 'smile' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: outsider.id, post_id: adminPostId, emoji_name: 'smile' } }), member: 403 },
    { name: 'on a post in a private channel they are not in', call: () => ({ params: { user_id: 'me', post_id: privatePostId, emoji_name: 'smile' } }), member: 403 },
  ],
  GetReactions: [
    { name: 'of a public post', call: () => ({ params: { post_id: adminPostId } }), member: 'ok' },
    { name: 'of a post in a private channel they are not in', call: () => ({ params: { post_id: privatePostId } }), member: 403 },
  ],
  GetBulkReactions: [
    { name: 'of a public post', call: () => ({ body: [adminPostId] }), member: 'ok' },
    { name: 'of a public post and one in a private channel they are not in', call: () => ({ body: [adminPostId, privatePostId] }), member: 403 },
  ],
  GetPreferences: [
    { name: 'their own', call: () => ({ params: { user_id: 'me' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: outsider.id } }), member: 403 },
  ],
  UpdatePreferences: [
    { name: 'their own', call: (who) => ({ params: { user_id: 'me' }, body: [{ user_id: me(who).id, category: 'display_settings', name: 'use_military_time', value: 'true' }] }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: outsider.id }, body: [{ user_id: outsider.id, category: 'display_settings', name: 'use_military_time', value: 'true' }] }), member: 403 },
    { name: 'a post in a private channel they are not in, saved', call: (who) => ({ params: { user_id: 'me' }, body: [{ user_id: me(who).id, category: 'flagged_post', name: privatePostId, value: 'true' }] }), member: 403 },
  ],
  DeletePreferences: [
    { name: 'their own', call: (who) => ({ params: { user_id: 'me' }, body: [{ user_id: me(who).id, category: 'display_settings', name: 'use_military_time' }] }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: outsider.id }, body: [{ user_id: outsider.id, category: 'display_settings', name: 'use_military_time' }] }), member: 403 },
  ],
  GetPreferencesByCategory: [
    { name: 'their own', call: async (who) => ({ params: { user_id: 'me', category: await ownPreference(me(who)) } }), member: 'ok' },
    { name: "another user's", call: async () => ({ params: { user_id: outsider.id, category: await ownPreference(outsider) } }), member: 403 },
  ],
  GetPreferencesByCategoryByName: [
    { name: 'their own', call: async (who) => ({ params: { user_id: 'me', category: await ownPreference(me(who)), preference_name: 'matrix' } }), member: 'ok' },
    { name: "another user's", call: async () => ({ params: { user_id: outsider.id, category: await ownPreference(outsider), preference_name: 'matrix' } }), member: 403 },
  ],
  GetSidebarCategoriesForTeamForUser: [
    { name: 'their own', call: () => ({ params: { user_id: 'me', team_id: world.teamId } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, team_id: world.teamId } }), member: 403 },
    { name: 'their own, on a team they are not in', call: () => ({ params: { user_id: 'me', team_id: otherTeamId } }), member: 403 },
  ],
  CreateSidebarCategoryForTeamForUser: [
    { name: 'their own', call: (who) => ({ params: { user_id: 'me', team_id: world.teamId }, body: { user_id: me(who).id, team_id: world.teamId, display_name: 'matrix' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, team_id: world.teamId }, body: { user_id: world.admin.id, team_id: world.teamId, display_name: 'matrix' } }), member: 403 },
  ],
  UpdateSidebarCategoriesForTeamForUser: [
    { name: 'their own', call: (who) => ({ params: { user_id: 'me', team_id: world.teamId }, body: [categoryBody(me(who), 'channels')] }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, team_id: world.teamId }, body: [categoryBody(world.admin, 'channels')] }), member: 403 },
  ],
  GetSidebarCategoryOrderForTeamForUser: [
    { name: 'their own', call: () => ({ params: { user_id: 'me', team_id: world.teamId } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, team_id: world.teamId } }), member: 403 },
  ],
  UpdateSidebarCategoryOrderForTeamForUser: [
    { name: 'their own', call: async (who) => ({ params: { user_id: 'me', team_id: world.teamId }, body: await categoryOrder(me(who)) }), member: 'ok' },
    { name: "another user's", call: async () => ({ params: { user_id: world.admin.id, team_id: world.teamId }, body: await categoryOrder(world.admin) }), member: 403 },
  ],
  GetSidebarCategoryForTeamForUser: [
    { name: 'their own', call: (who) => ({ params: { user_id: 'me', team_id: world.teamId, category_id: category(me(who), 'favorites') } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, team_id: world.teamId, category_id: category(world.admin, 'favorites') } }), member: 403 },
  ],
  UpdateSidebarCategoryForTeamForUser: [
    { name: 'their own', call: (who) => ({ params: { user_id: 'me', team_id: world.teamId, category_id: category(me(who), 'favorites') }, body: categoryBody(me(who), 'favorites') }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, team_id: world.teamId, category_id: category(world.admin, 'favorites') }, body: categoryBody(world.admin, 'favorites') }), member: 403 },
  ],
  RemoveSidebarCategoryForTeamForUser: [
    { name: 'their own custom one', call: async (who) => ({ params: { user_id: 'me', team_id: world.teamId, category_id: await customCategory(me(who)) } }), member: 'ok' },
    { name: "another user's custom one", call: async () => ({ params: { user_id: world.admin.id, team_id: world.teamId, category_id: await customCategory(world.admin) } }), member: 403 },
  ],
  GetFlaggedPostsForUser: [
    { name: 'their own', call: () => ({ params: { user_id: 'me' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: outsider.id } }), member: 403 },
  ],
  GetUserThreads: [
    { name: 'their own, in their team', call: () => ({ params: { user_id: 'me', team_id: world.teamId } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, team_id: world.teamId } }), member: 403 },
    { name: 'their own, in a team they are not in', call: () => ({ params: { user_id: 'me', team_id: otherTeamId } }), member: 403 },
  ],
  GetUserThread: [
    { name: 'their own thread', call: async (who) => ({ params: { user_id: 'me', team_id: world.teamId, thread_id: await ownThread(me(who)) } }), member: 'ok' },
    { name: "another user's", call: async () => ({ params: { user_id: world.admin.id, team_id: world.teamId, thread_id: await ownThread(world.admin) } }), member: 403 },
    // The admin reads the channel but follows no thread there: 404 for them.
    { name: 'in a private channel they are not in', call: () => ({ params: { user_id: 'me', team_id: world.teamId, thread_id: privatePostId } }), member: 403, adminOk: false },
  ],
  StartFollowingThread: [
    { name: 'a thread in town square', call: () => ({ params: { user_id: 'me', team_id: world.teamId, thread_id: adminPostId } }), member: 'ok' },
    { name: 'a thread in a private channel they are not in', call: () => ({ params: { user_id: 'me', team_id: world.teamId, thread_id: privatePostId } }), member: 403 },
    { name: "for another user", call: () => ({ params: { user_id: outsider.id, team_id: world.teamId, thread_id: adminPostId } }), member: 403 },
  ],
  StopFollowingThread: [
    { name: 'a thread in town square', call: () => ({ params: { user_id: 'me', team_id: world.teamId, thread_id: adminPostId } }), member: 'ok' },
    { name: 'a thread in a private channel they are not in', call: () => ({ params: { user_id: 'me', team_id: world.teamId, thread_id: privatePostId } }), member: 403 },
  ],
  UpdateThreadReadForUser: [
    { name: 'a thread in town square', call: async () => ({ params: { user_id: 'me', team_id: world.teamId, thread_id: await ownThread(world.admin), timestamp: String(Date.now()) } }), member: 'ok' },
    { name: 'a thread in a private channel they are not in', call: async () => ({ params: { user_id: 'me', team_id: world.teamId, thread_id: await ownThread(world.admin, privateId), timestamp: '1' } }), member: 403 },
  ],
  UpdateThreadsReadForUser: [
    { name: 'their own, in their team', call: () => ({ params: { user_id: 'me', team_id: world.teamId } }), member: 'ok' },
    { name: 'their own, in a team they are not in', call: () => ({ params: { user_id: 'me', team_id: otherTeamId } }), member: 403 },
    { name: "another user's", call: () => ({ params: { user_id: outsider.id, team_id: world.teamId } }), member: 403 },
  ],
  SetThreadUnreadByPostId: [
    { name: 'a thread in town square', call: async () => ({ params: { user_id: 'me', team_id: world.teamId, ...(await threadAndRoot(world.townSquareId)) } }), member: 'ok' },
    { name: 'a thread in a private channel they are not in', call: async () => ({ params: { user_id: 'me', team_id: world.teamId, ...(await threadAndRoot(privateId)) } }), member: 403 },
  ],
  SetPostUnread: [
    { name: 'their own, a post in town square', call: () => ({ params: { user_id: 'me', post_id: adminPostId } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, post_id: adminPostId } }), member: 403 },
    { name: 'their own, a post in a private channel they are not in', call: () => ({ params: { user_id: 'me', post_id: privatePostId } }), member: 403 },
  ],
  GetPostsAroundLastUnread: [
    { name: 'their own, in town square', call: () => ({ params: { user_id: 'me', channel_id: world.townSquareId } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, channel_id: world.townSquareId } }), member: 403 },
    { name: 'their own, in a private channel they are not in', call: () => ({ params: { user_id: 'me', channel_id: privateId } }), member: 403 },
  ],
  SearchPosts: [
    { name: 'their team', call: () => ({ params: { team_id: world.teamId }, body: { terms: 'post' } }), member: 'ok' },
    { name: 'a team they are not in', call: () => ({ params: { team_id: otherTeamId }, body: { terms: 'post' } }), member: 403 },
  ],
  CreateIncomingWebhook: [{ name: 'in a team they are not admin of', call: () => ({ body: { channel_id: world.townSquareId, display_name: 'x' } }), member: 403 }],
  GetIncomingWebhooks: [
    { name: 'with no team_id (every team)', call: () => ({}), member: 403 },
    { name: 'of a team they are not admin of', call: () => ({ query: `?team_id=${world.teamId}` }), member: 403 },
  ],
  GetIncomingWebhook: [{ name: "the admin's hook", call: () => ({ params: { hook_id: hookId } }), member: 403 }],
  RegenIncomingHookSigningSecret: [{ name: "the admin's hook", call: async () => ({ params: { hook_id: await freshHook() } }), member: 403 }],
  CreateOutgoingWebhook: [
    { name: 'in a team they are not admin of', call: () => ({ body: { team_id: world.teamId, trigger_words: [unique('w')], callback_urls: ['http://127.0.0.1:9/matrix'] } }), member: 403 },
  ],
  GetOutgoingWebhooks: [
    { name: 'with no team_id (every team)', call: () => ({}), member: 403 },
    { name: 'of a team they are not admin of', call: () => ({ query: `?team_id=${world.teamId}` }), member: 403 },
  ],
  GetOutgoingWebhook: [{ name: "the admin's hook", call: async () => ({ params: { hook_id: (await outgoingWithDelivery()).hookId } }), member: 403 }],
  UpdateOutgoingWebhook: [
    {
      name: "the admin's hook",
      call: async () => {
        const id = await freshOutgoingHook();
        return { params: { hook_id: id }, body: { id, display_name: 'renamed' } };
      },
      member: 403,
    },
  ],
  DeleteOutgoingWebhook: [{ name: "the admin's hook", call: async () => ({ params: { hook_id: await freshOutgoingHook() } }), member: 403 }],
  RegenOutgoingHookToken: [{ name: "the admin's hook", call: async () => ({ params: { hook_id: await freshOutgoingHook() } }), member: 403 }],
  GetOutgoingWebhookDeliveries: [{ name: "the admin's hook", call: async () => ({ params: { hook_id: (await outgoingWithDelivery()).hookId } }), member: 403 }],
  RedeliverOutgoingWebhook: [
    { name: "an attempt of the admin's hook", call: async () => ({ params: { hook_id: (await outgoingWithDelivery()).hookId, delivery_id: (await outgoingWithDelivery()).deliveryId } }), member: 403 },
  ],
  UpdateIncomingWebhook: [{ name: "the admin's hook", call: () => ({ params: { hook_id: hookId }, body: { id: hookId, channel_id: world.townSquareId, display_name: 'renamed' } }), member: 403 }],
  DeleteIncomingWebhook: [{ name: "the admin's hook", call: async () => ({ params: { hook_id: await freshHook() } }), member: 403 }],
  CreateBot: [{ name: 'a bot', call: () => ({ body: { username: unique('bot'), display_name: 'Matrix' } }), member: 403 }],
  GetBots: [{ name: 'every bot', call: () => ({ query: '?include_deleted=true' }), member: 403 }],
  GetBot: [{ name: "the admin's bot", call: async () => ({ params: { bot_user_id: await freshBot() } }), ...botHidden }],
  PatchBot: [{ name: "the admin's bot", call: async () => ({ params: { bot_user_id: await freshBot() }, body: { display_name: 'renamed' } }), ...botHidden }],
  DisableBot: [{ name: "the admin's bot", call: async () => ({ params: { bot_user_id: await freshBot() } }), ...botHidden }],
  EnableBot: [{ name: "the admin's bot", call: async () => ({ params: { bot_user_id: await freshBot() } }), ...botHidden }],
  AssignBot: [{ name: "the admin's bot, to another user", call: async () => ({ params: { bot_user_id: await freshBot(), user_id: outsider.id } }), ...botHidden }],
  ConvertBotToUser: [{ name: "the admin's bot", call: async () => ({ params: { bot_user_id: await freshBot() }, body: { password: 'Passw0rd!' } }), member: 403 }],
  ConvertUserToBot: [{ name: 'another user', call: async () => ({ params: { user_id: (await freshUser()).id } }), member: 403 }],
  ExecuteIncomingWebhook: [{ name: 'a post', call: () => ({ params: { hook_id: hookId }, body: { text: 'from the matrix' } }), member: 'ok' }],
  CreateCommand: [{ name: 'in a team they are not admin of', call: () => ({ body: commandBody() }), member: 403 }],
  ListCommands: [
    { name: 'of their team', call: () => ({ query: `?team_id=${world.teamId}` }), member: 'ok' },
    { name: 'custom only, of a team they are not admin of', call: () => ({ query: `?team_id=${world.teamId}&custom_only=true` }), member: 403 },
    { name: 'of a team they are not in', call: () => ({ query: `?team_id=${otherTeamId}` }), member: 403 },
  ],
  GetCommandById: [{ name: "the admin's command (hidden: as if it did not exist)", call: async () => ({ params: { command_id: await freshCommand() } }), member: 404, errorId: 'store.sql_command.save.get.app_error' }],
  UpdateCommand: [
    {
      name: "the admin's command (hidden)",
      call: async () => {
        const id = await freshCommand();
        return { params: { command_id: id }, body: { id, ...commandBody() } };
      },
      member: 404,
      errorId: 'store.sql_command.save.get.app_error',
    },
  ],
  MoveCommand: [{ name: 'to a team they are not admin of', call: async () => ({ params: { command_id: await freshCommand() }, body: { team_id: otherTeamId } }), member: 403 }],
  DeleteCommand: [{ name: "the admin's command (hidden)", call: async () => ({ params: { command_id: await freshCommand() } }), member: 404, errorId: 'store.sql_command.save.get.app_error' }],
  RegenCommandToken: [{ name: "the admin's command (hidden)", call: async () => ({ params: { command_id: await freshCommand() } }), member: 404, errorId: 'store.sql_command.save.get.app_error' }],
  GetCommandDeliveries: [{ name: "the admin's command (hidden)", call: async () => ({ params: { command_id: await freshCommand() } }), member: 404, errorId: 'store.sql_command.save.get.app_error' }],
  ExecuteCommand: [
    { name: '/shrug in town square', call: () => ({ body: { channel_id: world.townSquareId, command: '/shrug matrix' } }), member: 'ok' },
    { name: 'in a private channel they are not in', call: () => ({ body: { channel_id: privateId, command: '/shrug matrix' } }), member: 403 },
  ],
  ListAutocompleteCommands: [
    { name: 'of their team', call: () => ({ params: { team_id: world.teamId } }), member: 'ok' },
    { name: 'of a team they are not in', call: () => ({ params: { team_id: otherTeamId } }), member: 403 },
  ],
  ListCommandAutocompleteSuggestions: [
    { name: 'of their team', call: () => ({ params: { team_id: world.teamId }, query: '?user_input=%2Fec' }), member: 'ok' },
    { name: 'of a team they are not in', call: () => ({ params: { team_id: otherTeamId }, query: '?user_input=%2Fec' }), member: 403 },
  ],
  ExecuteCommandWebhook: [{ name: 'an ephemeral reply', call: async () => ({ params: { hook_id: await commandResponseUrl() }, body: { text: 'from the matrix' } }), member: 'ok' }],
  GetSessions: [
    { name: 'their own', call: () => ({ params: { user_id: 'me' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: outsider.id } }), member: 403 },
  ],
  RevokeSession: [
    { name: 'a session of their own', call: async (who) => ({ params: { user_id: 'me' }, body: { session_id: await newSession(me(who)) } }), member: 'ok' },
    { name: "another user's session", call: async () => ({ params: { user_id: outsider.id }, body: { session_id: await newSession(outsider) } }), member: 403 },
  ],
  RevokeAllSessionsForUser: [{ name: "another user's", call: async () => ({ params: { user_id: (await freshUser()).id } }), member: 403 }],
  GetUserAccessTokensForUser: [
    { name: 'their own (no token permission)', call: () => ({ params: { user_id: 'me' } }), member: 403 },
    { name: "another user's", call: () => ({ params: { user_id: outsider.id } }), member: 403 },
  ],
  GetUserAccessToken: [{ name: "another user's token", call: async () => ({ params: { token_id: await outsiderToken() } }), member: 403 }],
  RevokeUserAccessToken: [{ name: "another user's token", call: async () => ({ body: { token_id: await outsiderToken() } }), member: 403 }],
  DisableUserAccessToken: [{ name: "another user's token", call: async () => ({ body: { token_id: await outsiderToken() } }), member: 403 }],
  EnableUserAccessToken: [{ name: "another user's token", call: async () => ({ body: { token_id: await outsiderToken() } }), member: 403 }],
  UpdatePassword: [
    // The same password again: later logins of the fixture keep working; the caller's own session is kept.
    { name: 'their own', call: () => ({ params: { user_id: 'me' }, body: { current_password: 'Passw0rd!', new_password: 'Passw0rd!' } }), member: 'ok' },
    { name: "another user's", call: async () => ({ params: { user_id: (await freshUser()).id }, body: { new_password: 'N3w-passw0rd' } }), member: 403, errorId: 'api.user.update_password.context.app_error' },
  ],
  UpdateUserActive: [{ name: 'deactivate another user', call: async () => ({ params: { user_id: (await freshUser()).id }, body: { active: false } }), member: 403, errorId: 'api.user.update_active.permissions.app_error' }],
  GetUserStatus: [{ name: "another user's", call: () => ({ params: { user_id: world.admin.id } }), member: 'ok' }],
  GetUsersStatusesByIds: [{ name: 'two users', call: () => ({ body: [world.admin.id, world.member.id] }), member: 'ok' }],
  UpdateUserStatus: [
    { name: 'their own', call: () => ({ params: { user_id: 'me' }, body: { status: 'online' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: outsider.id }, body: { status: 'away' } }), member: 403 },
  ],
  // Without an upgrade there is no socket: 400 for everyone (the protocol has its own suites in test/realtime).
  ConnectWebSocket: [{ name: 'a GET without an upgrade', call: () => ({}), member: 400, errorId: 'api.web_socket.connect.upgrade.app_error', adminOk: false }],
  UploadFile: [
    { name: 'to town square', call: () => ({ raw: uploadForm(world.townSquareId) }), member: 'ok' },
    { name: 'to a private channel they are not in', call: () => ({ raw: uploadForm(privateId) }), member: 403 },
  ],
  GetFile: [
    { name: 'a file of town square', call: () => ({ params: { file_id: publicFileId } }), member: 'ok' },
    { name: 'a file of a private channel they are not in', call: () => ({ params: { file_id: privateFileId } }), member: 403 },
  ],
  GetFileInfo: [
    { name: 'a file of town square', call: () => ({ params: { file_id: publicFileId } }), member: 'ok' },
    { name: 'a file of a private channel they are not in', call: () => ({ params: { file_id: privateFileId } }), member: 403 },
  ],
  GetFileThumbnail: [
    { name: 'an image of town square', call: () => ({ params: { file_id: publicFileId } }), member: 'ok' },
    { name: 'an image of a private channel they are not in', call: () => ({ params: { file_id: privateFileId } }), member: 403 },
  ],
  GetFilePreview: [
    { name: 'an image of town square', call: () => ({ params: { file_id: publicFileId } }), member: 'ok' },
    { name: 'an image of a private channel they are not in', call: () => ({ params: { file_id: privateFileId } }), member: 403 },
  ],
  GetFileInfosForPost: [
    { name: 'a public post', call: () => ({ params: { post_id: adminPostId } }), member: 'ok' },
    { name: 'a post in a private channel they are not in', call: () => ({ params: { post_id: privatePostId } }), member: 403 },
  ],
  DeleteUser: [{ name: 'another user', call: async () => ({ params: { user_id: (await freshUser()).id } }), member: 403, errorId: 'api.user.update_active.permissions.app_error' }],
  PatchChannel: [
    { name: 'a public channel they are in', call: () => ({ params: { channel_id: offTopicId }, body: { header: 'matrix' } }), member: 'ok' },
    { name: 'a private channel they are not in', call: () => ({ params: { channel_id: privateId }, body: { header: 'matrix' } }), member: 403 },
  ],
  UpdateChannel: [
    { name: 'a public channel they are in', call: () => ({ params: { channel_id: offTopicId }, body: { id: offTopicId, header: 'matrix', purpose: '' } }), member: 'ok' },
    { name: 'a private channel they are not in', call: () => ({ params: { channel_id: privateId }, body: { id: privateId, header: 'matrix' } }), member: 403 },
  ],
  DeleteChannel: [
    { name: 'a public channel of their own', call: async (who) => ({ params: { channel_id: await freshChannel(me(who), 'O') } }), member: 'ok' },
    { name: 'a private channel they are not in', call: async () => ({ params: { channel_id: await freshChannel(world.admin, 'P') } }), member: 403 },
  ],
  RestoreChannel: [{ name: 'an archived channel of their team (not its admin)', call: async () => ({ params: { channel_id: await freshChannel(world.admin, 'O', true) } }), member: 403 }],
  GetChannelByNameForTeamName: [
    { name: 'town-square', call: () => ({ params: { team_name: teamName(), channel_name: 'town-square' } }), member: 'ok' },
    { name: 'a private channel they are not in (hidden: as if it did not exist)', call: () => ({ params: { team_name: teamName(), channel_name: privateName() } }), member: 404, errorId: 'app.channel.get_by_name.missing.app_error' },
    { name: 'of an invite-only team they are not in (hidden)', call: () => ({ params: { team_name: otherTeamName(), channel_name: 'town-square' } }), member: 404, errorId: 'app.team.get_by_name.missing.app_error' },
  ],
  GetChannelMembersForUser: [
    { name: 'their own', call: () => ({ params: { user_id: 'me', team_id: world.teamId } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, team_id: world.teamId } }), member: 403 },
  ],
  GetChannelStats: [
    { name: 'town square', call: () => ({ params: { channel_id: world.townSquareId } }), member: 'ok' },
    { name: 'a private channel they are not in', call: () => ({ params: { channel_id: privateId } }), member: 403 },
  ],
  UpdateChannelRoles: [
    {
      name: 'in a channel they are admin of',
      call: async (who) => {
        const channelId = await freshChannel(me(who), 'O');
        return { params: { channel_id: channelId, user_id: await teamUser(channelId) }, body: { roles: 'channel_user channel_admin' } };
      },
      member: 'ok',
    },
    { name: 'in a channel they are a plain member of', call: () => ({ params: { channel_id: world.townSquareId, user_id: world.admin.id }, body: { roles: 'channel_user' } }), member: 403 },
    { name: 'in a private channel they are not in', call: () => ({ params: { channel_id: privateId, user_id: world.admin.id }, body: { roles: 'channel_user channel_admin' } }), member: 403 },
  ],
  UpdateChannelNotifyProps: [
    { name: 'their own membership', call: (who) => ({ params: { channel_id: world.townSquareId, user_id: me(who).id }, body: { desktop: 'mention', mark_unread: 'all' } }), member: 'ok' },
    { name: "another user's membership", call: async () => ({ params: { channel_id: world.townSquareId, user_id: world.admin.id }, body: { desktop: 'all' } }), member: 403 },
  ],
  GetUsersByUsernames: [{ name: 'two users', call: () => ({ body: [world.admin.username, world.member.username] }), member: 'ok' }],
  UpdateUserRoles: [{ name: "another user's", call: async () => ({ params: { user_id: (await freshUser()).id }, body: { roles: 'system_user system_user_access_token' } }), member: 403 }],
  GetProfileImage: [{ name: "another user's", call: () => ({ params: { user_id: world.admin.id } }), member: 'ok' }],
  GetDefaultProfileImage: [{ name: "another user's", call: () => ({ params: { user_id: world.admin.id } }), member: 'ok' }],
  SetProfileImage: [
    { name: 'their own', call: async () => ({ params: { user_id: 'me' }, raw: await pictureForm() }), member: 'ok' },
    { name: "another user's", call: async () => ({ params: { user_id: outsider.id }, raw: await pictureForm() }), member: 403 },
  ],
  SetDefaultProfileImage: [
    { name: 'their own', call: () => ({ params: { user_id: 'me' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: outsider.id } }), member: 403 },
  ],
  // The invite id is the credential: anyone holding it may see the team and join it, even an invite-only one.
  GetTeamInviteInfo: [{ name: "an invite-only team's link", call: async () => ({ params: { invite_id: (await inviteOnlyTeam()).invite_id } }), member: 'ok' }],
  AddTeamMemberFromInvite: [{ name: "an invite-only team's link", call: async () => ({ query: `?invite_id=${(await inviteOnlyTeam()).invite_id}` }), member: 'ok' }],
  RegenerateTeamInviteId: [{ name: 'of their team (a plain member)', call: () => ({ params: { team_id: world.teamId } }), member: 403 }],
  UpdateTeamMemberRoles: [
    { name: "a member's, in their team (a plain member)", call: () => ({ params: { team_id: world.teamId, user_id: world.member.id }, body: { roles: 'team_user' } }), member: 403 },
  ],
  AutocompleteUsers: [
    { name: 'in their team', call: () => ({ query: `?in_team=${world.teamId}&name=user` }), member: 'ok' },
    { name: 'in a private channel they are not in', call: () => ({ query: `?in_team=${world.teamId}&in_channel=${privateId}&name=user` }), member: 403 },
    { name: 'in a team they are not in', call: () => ({ query: `?in_team=${otherTeamId}&name=user` }), member: 403 },
  ],
  PatchTeam: [
    { name: 'their team (not its admin)', call: () => ({ params: { team_id: world.teamId }, body: { description: 'matrix' } }), member: 403 },
    { name: 'a team they are not in', call: () => ({ params: { team_id: otherTeamId }, body: { description: 'matrix' } }), member: 403 },
  ],
  RemoveTeamMember: [
    { name: 'themselves (leaving a team)', call: async (who) => ({ params: { team_id: await teamWith(me(who)), user_id: 'me' } }), member: 'ok' },
    { name: 'someone else from their team', call: async () => ({ params: { team_id: world.teamId, user_id: await teamUser() } }), member: 403 },
  ],
  GetTeamStats: [
    { name: 'of their team', call: () => ({ params: { team_id: world.teamId } }), member: 'ok' },
    { name: 'of a team they are not in', call: () => ({ params: { team_id: otherTeamId } }), member: 403 },
  ],
  GetTeamUnread: [
    { name: 'their own', call: () => ({ params: { user_id: 'me', team_id: world.teamId } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id, team_id: world.teamId } }), member: 403 },
  ],
  GetTeamsUnreadForUser: [
    { name: 'their own', call: () => ({ params: { user_id: 'me' } }), member: 'ok' },
    { name: "another user's", call: () => ({ params: { user_id: world.admin.id } }), member: 403 },
  ],
};

/** A new channel of the fixture's team created by `owner` (its channel admin); archived when asked. */
async function freshChannel(owner: Actor, type: 'O' | 'P', archived = false): Promise<string> {
  const id = (await owner.api.post('/api/v4/channels', { team_id: world.teamId, name: unique('fc'), display_name: 'F', type }).expect(201)).body.id as string;
  if (archived) await owner.api.delete(`/api/v4/channels/${id}`).expect(200);
  return id;
}

/** A new open team (the admin's) that `who` has joined: one they may leave. */
/** A new invite-only team of the admin's (its invite id, which only the admin sees). */
async function inviteOnlyTeam(): Promise<{ id: string; invite_id: string }> {
  return (await world.admin.api.post('/api/v4/teams', { name: unique('inv'), display_name: 'Invite', type: 'I' }).expect(201)).body;
}

/** SetProfileImage's form: one small PNG as `image`. */
async function pictureForm(): Promise<{ contentType: string; body: Buffer }> {
  const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#cc3366' } }).png().toBuffer();
  const head = '--m\r\nContent-Disposition: form-data; name="image"; filename="me.png"\r\nContent-Type: image/png\r\n\r\n';
  return { contentType: 'multipart/form-data; boundary=m', body: Buffer.concat([Buffer.from(head), png, Buffer.from('\r\n--m--\r\n')]) };
}

async function teamWith(who: Actor): Promise<string> {
  const id = (await world.admin.api.post('/api/v4/teams', { name: unique('lt'), display_name: 'Leave', type: 'O' }).expect(201)).body.id as string;
  if (who.id !== world.admin.id) await world.admin.api.post(`/api/v4/teams/${id}/members`, { team_id: id, user_id: who.id }).expect(201);
  return id;
}

/** A new login session of `who`, and its id (the newest of their sessions). */
async function newSession(who: Actor): Promise<string> {
  const fresh = await login(server, who.id, who.username);
  const list = (await fresh.api.get('/api/v4/users/me/sessions').expect(200)).body as Array<{ id: string; create_at: number }>;
  return list.sort((a, b) => b.create_at - a.create_at)[0].id;
}

/** A personal access token of the outsider, made by the admin; its record id. */
async function outsiderToken(): Promise<string> {
  return (await world.admin.api.post(`/api/v4/users/${outsider.id}/tokens`, { description: 'matrix' }).expect(200)).body.id;
}

let teamNameCache: string | undefined;
let otherTeamNameCache: string | undefined;
let privateNameCache: string | undefined;
function teamName(): Promise<string> | string {
  return teamNameCache ?? world.admin.api.get(`/api/v4/teams/${world.teamId}`).then((r) => (teamNameCache = r.body.name as string));
}
function otherTeamName(): Promise<string> | string {
  return otherTeamNameCache ?? world.admin.api.get(`/api/v4/teams/${otherTeamId}`).then((r) => (otherTeamNameCache = r.body.name as string));
}
function privateName(): Promise<string> | string {
  return privateNameCache ?? world.admin.api.get(`/api/v4/channels/${privateId}`).then((r) => (privateNameCache = r.body.name as string));
}

/** A new user in the fixture's team (and in `channelId`, when given): someone to add or remove. */
async function teamUser(channelId?: string): Promise<string> {
  const u = await freshUser();
  await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: u.id }).expect(201);
  if (channelId) await world.admin.api.post(`/api/v4/channels/${channelId}/members`, { user_id: u.id }).expect(201);
  return u.id;
}

async function resolveParams(params: Record<string, string | Promise<string>> | undefined): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params ?? {})) out[k] = await v;
  return out;
}

async function invoke(op: Operation, c: Call, token: string | null): Promise<RawAnswer> {
  const params = await resolveParams(c.params);
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (!(name in params)) throw new Error(`${op.operationId}: no value for {${name}}`);
    return encodeURIComponent(params[name]);
  });
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (c.raw) {
    headers['Content-Type'] = c.raw.contentType;
    return send(server.url, { method: op.method, path: path + (c.query ?? ''), headers, body: c.raw.body });
  }
  if (c.body !== undefined) headers['Content-Type'] = 'application/json';
  return send(server.url, { method: op.method, path: path + (c.query ?? ''), headers, body: c.body === undefined ? undefined : JSON.stringify(c.body) });
}

/** Resolves lazily-computed names inside a call (GetTeamByName, GetChannelByName). */
async function build(row: Row, who: Who): Promise<Call> {
  const c = await row.call(who);
  return { ...c, params: await resolveParams(c.params) };
}

const byId = new Map(operations.map((o) => [o.operationId, o]));
const table = Object.entries(rows).flatMap(([operationId, list]) => list.map((row) => ({ operationId, row })));
const label = (t: { operationId: string; row: Row }) => `${t.operationId}: ${t.row.name}`;

test('the matrix has a row for every operation of the spec, and only those', () => {
  expect(Object.keys(rows).sort()).toEqual(operations.map((o) => o.operationId).sort());
});

test('the spec marks exactly the expected operations public', () => {
  expect(operations.filter((o) => o.public).map((o) => o.operationId).sort()).toEqual(['ConnectWebSocket', 'CreateUser', 'ExecuteCommandWebhook', 'ExecuteIncomingWebhook', 'GetClientConfig', 'GetClientLicense', 'GetPing', 'GetTeamInviteInfo', 'Login', 'Logout'].sort());
});

describe('without a valid session: 401 for every protected operation', () => {
  const tokens: Array<[string, () => Promise<string | null> | string | null]> = [
    ['no token', () => null],
    ['a made-up token', () => 'abcdefghijklmnopqrstuvwxyz'],
    [
      'a logged-out token',
      async () => {
        const a = await login(server, world.member.id, world.member.username);
        await a.api.post('/api/v4/users/logout').expect(200);
        return a.token;
      },
    ],
  ];
  test.each(tokens)('%s', async (_name, token) => {
    const t = await token();
    const wrong: string[] = [];
    for (const entry of table) {
      const op = byId.get(entry.operationId) as Operation;
      const res = await invoke(op, await build(entry.row, 'member'), t);
      const problem = checkAnswer(res, { hook: op.operationId === 'ExecuteIncomingWebhook' });
      if (problem) wrong.push(`${label(entry)}: ${problem}`);
      else if (!op.public && res.status !== 401) wrong.push(`${label(entry)}: ${res.status} ${res.text.slice(0, 120)}`);
      else if (!op.public && JSON.parse(res.text).id !== 'api.context.session_expired.app_error') wrong.push(`${label(entry)}: ${res.text.slice(0, 120)}`);
      else if (op.public && res.status === 401 && op.operationId !== 'Login') wrong.push(`${label(entry)}: public, but 401`);
    }
    expect(wrong).toEqual([]);
  });
});

test('without a session, a broken body or malformed parameters are still 401: nothing about the operation is revealed', async () => {
  const wrong: string[] = [];
  for (const op of operations.filter((o) => !o.public)) {
    const path = op.path.replace(/\{[^}]+\}/g, 'not-an-id');
    for (const body of op.method === 'GET' || op.method === 'DELETE' ? [undefined] : ['{', '[]', '{"unknown":1}', '']) {
      const res = await send(server.url, { method: op.method, path: `${path}?page=x&per_page=-1`, headers: body === undefined ? {} : { 'Content-Type': 'application/json' }, body });
      if (res.status !== 401 || checkAnswer(res)) wrong.push(`${op.operationId} ${JSON.stringify(body)}: ${res.status} ${res.text.slice(0, 120)}`);
    }
  }
  expect(wrong).toEqual([]);
});

describe('a plain member', () => {
  test.each(table.map((t) => [label(t), t] as const))('%s', async (_name, { operationId, row }) => {
    const op = byId.get(operationId) as Operation;
    // Logout ends the session it is called with: a session of its own.
    const token = operationId === 'Logout' ? (await login(server, world.member.id, world.member.username)).token : world.member.token;
    const res = await invoke(op, await build(row, 'member'), token);
    expect(checkAnswer(res, { hook: operationId === 'ExecuteIncomingWebhook' })).toBeNull();
    if (row.member !== 'ok') {
      expect({ status: res.status, body: res.text.slice(0, 200) }).toMatchObject({ status: row.member });
      expect(JSON.parse(res.text).id).toBe(row.errorId ?? 'api.context.permissions.app_error');
    } else {
      expect2xx(res);
    }
  });
});

describe('the system admin (the same ids are right: every 403 above is a permission check)', () => {
  test.each(table.filter((t) => t.row.adminOk !== false).map((t) => [label(t), t] as const))('%s', async (_name, { operationId, row }) => {
    const op = byId.get(operationId) as Operation;
    const token = operationId === 'Logout' ? (await login(server, world.admin.id, world.admin.username)).token : world.admin.token;
    const res = await invoke(op, await build(row, 'admin'), token);
    expect(checkAnswer(res, { hook: operationId === 'ExecuteIncomingWebhook' })).toBeNull();
    expect2xx(res);
  });
});

function expect2xx(res: RawAnswer): void {
  if (res.status < 200 || res.status >= 300) throw new Error(`expected a 2xx, got ${res.status}: ${res.text.slice(0, 200)}`);
}
