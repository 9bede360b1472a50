import { IncomingWebhook } from '@slack/webhook';
import { expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnServer, type ServerProcess } from '../support/process';

// The official clients against `npm start`: a real process on a fresh database (SQLite, or MariaDB when
// PARLEY_TEST_DATABASE is set), driven exactly as integrations and apps drive Mattermost.

const PASSWORD = 'Passw0rd!';
let db: TestDatabase;
let server: ServerProcess;

beforeAll(async () => {
  db = await createTestDatabase();
  server = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource }, { viaNpmStart: true, timeoutMs: 180000 });
}, 200000);

afterAll(async () => {
  // Whatever is left of the process group (nothing, when the last test passed).
  await server?.kill();
  await db?.drop();
});

test('the core chat flow works unchanged with Client4, then webhooks with Client4 and @slack/webhook', async () => {
  const anon = client4For(server);
  expect((await anon.ping(false)).status).toBe('OK');
  const clientConfig = await anon.getClientConfig();
  expect(clientConfig.NoAccounts).toBe('true');
  // Anonymous: the limited set only.
  expect(clientConfig.MaxPostSize).toBeUndefined();

  // First user on an empty database becomes the system admin.
  const admin = await anon.createUser({ username: 'admin', email: 'admin@example.com', password: PASSWORD } as never, '', '');
  expect(admin.roles).toBe('system_admin system_user');
  const a = client4For(server);
  const me = await a.login('admin', PASSWORD);
  // Signed in: the full set, with the message limit the webapp enforces.
  expect((await a.getClientConfig()).MaxPostSize).toBe('16383');
  expect(me.id).toBe(admin.id);
  expect(a.getToken()).toHaveLength(26);
  expect(a.getServerVersion()).toMatch(/^\d+\.\d+\.\d+/);

  const alice = await a.createUser({ username: 'alice', email: 'alice@example.com', password: PASSWORD, first_name: 'Alice' } as never, '', '');
  const al = client4For(server);
  await al.login('alice', PASSWORD);

  const team = await a.createTeam({ name: 'team-a', display_name: 'Team A', type: 'O' } as never);
  expect((await a.getTeamByName('team-a')).id).toBe(team.id);
  const membership = await a.addToTeam(team.id, alice.id);
  expect(membership.user_id).toBe(alice.id);
  expect((await al.getMyTeams()).map((t) => t.id)).toEqual([team.id]);

  const open = await a.createChannel({ team_id: team.id, name: 'town-talk', display_name: 'Town Talk', type: 'O', purpose: '', header: '' } as never);
  const priv = await a.createChannel({ team_id: team.id, name: 'secret', display_name: 'Secret', type: 'P' } as never);
  expect((await a.getChannelByName(team.id, 'town-talk')).id).toBe(open.id);
  await expectClientError(al.getChannel(priv.id), 403, 'api.context.permissions.app_error');
  await a.addToChannel(alice.id, priv.id);
  expect((await al.getChannel(priv.id)).id).toBe(priv.id);
  expect((await al.getChannelMember(priv.id, alice.id)).channel_id).toBe(priv.id);

  const dm = await a.createDirectChannel([admin.id, alice.id]);
  expect(dm.type).toBe('D');
  expect(dm.name).toBe([admin.id, alice.id].sort().join('__'));

  // As in Mattermost, posting needs channel membership: joining a public channel needs only the team.
  await expectClientError(al.createPost({ channel_id: open.id, message: 'not yet a member' } as never), 403, 'api.context.permissions.app_error');
  await al.addToChannel(alice.id, open.id);
  // Shaped as the web app sends a post (mattermost-redux): its pending id is "<user id>:<ms>", 40 characters.
  const now = Date.now();
  const pending = `${alice.id}:${now}`;
  const draft = { channel_id: open.id, message: 'hello @admin', root_id: '', props: {}, file_ids: [], user_id: alice.id, pending_post_id: pending, create_at: now, update_at: now, reply_count: 0 };
  const root = await al.createPost(draft as never);
  expect(root.pending_post_id).toBe(pending);
  // The app's retry (same pending id) gets the same post, not a second one: the channel's history below has one.
  expect((await al.createPost(draft as never)).id).toBe(root.id);
  const reply = await a.createPost({ channel_id: open.id, message: 'a reply', root_id: root.id } as never);
  expect(reply.root_id).toBe(root.id);
  expect((await a.getChannelMember(open.id, admin.id)).mention_count).toBe(0); // the reply marked it read
  const posts = await a.getPosts(open.id, 0, 30);
  expect(posts.order).toEqual([reply.id, root.id]);
  expect(posts.posts[root.id].message).toBe('hello @admin');

  const edited = await al.patchPost({ id: root.id, message: 'edited' } as never);
  expect(edited.message).toBe('edited');
  expect(edited.edit_at).toBeGreaterThan(0);
  await expectClientError(a.patchPost({ id: 'x'.repeat(26), message: 'nope' } as never), 404, 'app.post.get.app_error');
  await expectClientError(al.deletePost(reply.id), 403, 'api.context.permissions.app_error');
  await a.deletePost(reply.id);
  expect((await a.getPosts(open.id)).order).toEqual([root.id]);

  // ETag/304 (Client4 never sends If-None-Match, so plain fetch with the same token).
  const headers = { Authorization: `Bearer ${a.getToken()}` };
  const first = await fetch(`${server.url}/api/v4/channels/${open.id}/posts?page=0&per_page=60`, { headers });
  const etag = first.headers.get('etag') as string;
  expect(etag).toBeTruthy();
  const second = await fetch(`${server.url}/api/v4/channels/${open.id}/posts?page=0&per_page=60`, { headers: { ...headers, 'If-None-Match': etag } });
  expect(second.status).toBe(304);
  const userEtag = (await fetch(`${server.url}/api/v4/users/me`, { headers })).headers.get('etag') as string;
  expect((await fetch(`${server.url}/api/v4/users/me`, { headers: { ...headers, 'If-None-Match': userEtag } })).status).toBe(304);

  // Errors arrive as ClientError with the body's status_code and id.
  await expectClientError(client4For(server).getMe(), 401, 'api.context.session_expired.app_error');
  await expectClientError(a.createTeam({ name: 'api-team', display_name: 'X', type: 'O' } as never), 400, 'model.team.is_valid.reserved.app_error');
  await expectClientError(anon.login('admin', 'wrong-password'), 401, 'api.user.login.invalid_credentials_email_username');

  // Config and personal access tokens.
  await a.patchConfig({ ServiceSettings: { EnableUserAccessTokens: true, EnablePostUsernameOverride: true } } as never);
  expect((await a.getConfig()).ServiceSettings.EnablePostUsernameOverride).toBe(true);
  const pat = await a.createUserAccessToken(admin.id, 'e2e token');
  const withPat = client4For(server);
  withPat.setToken(pat.token as string);
  expect((await withPat.getMe()).id).toBe(admin.id);

  // Webhooks: manage with Client4, post with @slack/webhook.
  const hook = await a.createIncomingWebhook({ channel_id: open.id, display_name: 'CI', description: 'ci hook', username: 'ci-bot', icon_url: '', channel_locked: false } as never);
  expect(hook.id).toHaveLength(26);
  const list = await a.getIncomingWebhooks(team.id, 0, 100);
  expect((list as Array<{ id: string }>).map((h) => h.id)).toEqual([hook.id]);
  const slack = new IncomingWebhook(`${server.url}/hooks/${hook.id}`);
  await expect(slack.send({ text: 'Build passed for <@' + alice.id + '>', attachments: [{ fallback: 'fb', text: 'details', fields: [{ title: 'n', value: 3 as never, short: true }] }] })).resolves.toEqual({ text: 'ok' });
  const after = await a.getPosts(open.id);
  const hookPost = after.posts[after.order[0]];
  expect(hookPost.message).toBe('Build passed for @alice');
  expect(hookPost.type).toBe('slack_attachment');
  expect(hookPost.props.from_webhook).toBe('true');
  expect(hookPost.props.override_username).toBe('ci-bot');
  expect((hookPost.props.attachments as Array<{ fields: Array<{ value: string }> }>)[0].fields[0].value).toBe('3');
  expect((await al.getChannelMember(open.id, alice.id)).mention_count).toBeGreaterThan(0);

  const updated = await a.updateIncomingWebhook({ ...hook, display_name: 'CI 2' });
  expect(updated.display_name).toBe('CI 2');
  await a.removeIncomingWebhook(hook.id);
  const gone = await slack.send('after delete').then(
    () => undefined,
    (e: { statusCode?: number }) => e,
  );
  expect(gone?.statusCode).toBe(404);

  await a.logout();
  await expectClientError(a.getMe(), 401, 'api.context.session_expired.app_error');
}, 120000);

test('SIGTERM to `npm start` reaches the server: it drains and exits 0, npm with it, and nothing is left listening', async () => {
  // `exec` in the start script: no shell in between to die of the signal and orphan a still-running server.
  expect(await server.stop()).toEqual({ code: 0, signal: null });
  const after = await fetch(`${server.url}/api/v4/system/ping`).then(
    (res) => `still answering: ${res.status}`,
    () => 'gone',
  );
  expect(after).toBe('gone');
});
