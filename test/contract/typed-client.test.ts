// Drives a real server only through the client teams' typed client (examples/typed-client.ts). This file is
// type-checked by `npm run typecheck`, so a spec change that would break such clients breaks the build.
import { createParleyClient, demo, ParleyApiError, unwrap, type ParleyClient } from '../../examples/typed-client';
import { PASSWORD, startTestServer, type TestServer } from '../support/server';

let server: TestServer;
let parley: ParleyClient;
let username: string;

beforeAll(async () => {
  server = await startTestServer();
  parley = createParleyClient(server.url);
  username = `typed${process.pid}`;
  // The first account on an empty server needs no session and becomes the system admin.
  const created = await parley.api.POST('/api/v4/users', { body: { username, email: `${username}@example.com`, password: PASSWORD } });
  expect(created.response.status).toBe(201);
});
afterAll(() => server.close());

test('login → team → channel → post → posts → webhook, all through the typed client', async () => {
  const me = await parley.login(username, PASSWORD);
  expect(me.username).toBe(username);
  expect(parley.token).toMatch(/^[a-z0-9]{26}$/);

  const team = await parley.api.POST('/api/v4/teams', { body: { name: `typed-team-${process.pid}`, display_name: 'Typed', type: 'O' } });
  expect(team.response.status).toBe(201);
  const teamId = unwrap(team).id;

  const channel = unwrap(
    await parley.api.POST('/api/v4/channels', { body: { team_id: teamId, name: 'typed-channel', display_name: 'Typed channel', type: 'O' } }),
  );
  expect(channel.team_id).toBe(teamId);

  const post = await parley.createPost(channel.id, 'hello, typed world');
  expect(post.channel_id).toBe(channel.id);
  expect(post.user_id).toBe(me.id);

  const page = await parley.listPosts(channel.id);
  expect(page.order).toEqual([post.id]);
  expect(page.posts[post.id].message).toBe('hello, typed world');

  const hook = await parley.api.POST('/api/v4/hooks/incoming', { body: { channel_id: channel.id, display_name: 'Typed CI' } });
  expect(hook.response.status).toBe(201);
  const hookId = unwrap(hook).id;

  const executed = await parley.api.POST('/hooks/{hook_id}', { params: { path: { hook_id: hookId } }, body: { text: 'from the hook' }, parseAs: 'text' });
  expect(executed.response.status).toBe(200);
  expect(executed.response.headers.get('content-type')).toBe('text/plain');
  expect(executed.data).toBe('ok');

  const after = await parley.listPosts(channel.id);
  const newest = after.posts[after.order[0]];
  expect(newest.message).toBe('from the hook');
  expect(newest.props).toMatchObject({ from_webhook: 'true', webhook_display_name: 'Typed CI' });
});

test('errors arrive typed as AppError', async () => {
  const missing = await parley.api.GET('/api/v4/channels/{channel_id}', { params: { path: { channel_id: 'a'.repeat(26) } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error?.status_code).toBe(404);
  expect(missing.error?.request_id).toBe(missing.response.headers.get('x-request-id'));

  const anonymous = createParleyClient(server.url);
  const denied = await anonymous.api.GET('/api/v4/users/{user_id}', { params: { path: { user_id: 'me' } } });
  expect(denied.response.status).toBe(401);
  expect(denied.error?.id).toBe('api.context.session_expired.app_error');
  await expect(anonymous.login(username, 'wrong password')).rejects.toBeInstanceOf(ParleyApiError);
  expect(anonymous.token).toBeNull();
});

test("the example's demo runs as written", async () => {
  const admin = createParleyClient(server.url);
  await admin.login(username, PASSWORD);
  const teams = unwrap(await admin.api.GET('/api/v4/users/{user_id}/teams', { params: { path: { user_id: 'me' } } }));
  const town = unwrap(
    await admin.api.GET('/api/v4/teams/{team_id}/channels/name/{channel_name}', { params: { path: { team_id: teams[0].id, channel_name: 'town-square' } } }),
  );
  expect(await demo(server.url, username, PASSWORD, town.id)).toEqual(['Hello from the typed client']);
});
