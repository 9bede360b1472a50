// Custom slash commands calling a real integration: a node:http server on 127.0.0.1 started by the test (allowed by
// AllowedUntrustedInternalConnections), real requests. Every field as sent (POST form and GET query), the Token header,
// the signature checked by a verifier written here from the README's description, the CommandResponse handled
// (in_channel posts, ephemeral_message, overrides, attachments, extra responses, goto_location), the errors, the
// delivery log, and the response URL (JSON or text, 5 uses in 30 minutes, replies in the command's thread).
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectAppError } from '../support/assertions';
import { client4For } from '../support/client4';
import { send } from '../support/http';
import { atTime, createPost, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { connect, postOf, type Frame, type Socket } from '../support/ws';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
interface Answer {
  status?: number;
  type?: string;
  body?: string;
  /** Never answer (the time-out test). */
  hang?: boolean;
}

let integration: http.Server;
let integrationUrl: string;
const received: Received[] = [];
let answer: (r: Received) => Answer = () => ({ status: 200, type: 'application/json', body: '{}' });
const hanging: http.ServerResponse[] = [];

let server: TestServer;
let world: World;
let admin: Actor;
let member: Actor;
let teamName: string;
let memberSocket: Socket;
let adminSocket: Socket;
let seq = 0;

/** The README's verifier: HMAC-SHA256 over "v1:" + timestamp + ":" + payload, keyed by the token, hex, compared in constant time. */
function verify(token: string, headers: http.IncomingHttpHeaders, payload: string): boolean {
  const ts = String(headers['x-parley-timestamp'] ?? '');
  const sig = String(headers['x-parley-signature'] ?? '');
  if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const want = Buffer.from(`v1=${createHmac('sha256', token).update(`v1:${ts}:${payload}`).digest('hex')}`);
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got);
}

const patch = (service: Record<string, unknown>) => admin.api.put('/api/v4/config/patch', { ServiceSettings: service }).expect(200);
const run = (as: Actor, channelId: string, command: string, extra: Record<string, unknown> = {}) => as.api.post('/api/v4/commands/execute', { channel_id: channelId, command, ...extra });
const latest = async (channelId: string) => {
  const list = (await admin.api.get(`/api/v4/channels/${channelId}/posts?per_page=1`).expect(200)).body;
  return list.posts[list.order[0]] as Record<string, any>;
};

/** A new custom command of the admin's on the team, calling the integration (path `/cmd<n>`). */
async function command(fields: Record<string, unknown> = {}): Promise<{ id: string; token: string; trigger: string }> {
  const n = ++seq;
  const body = { team_id: world.teamId, trigger: `call${process.pid}x${n}`, method: 'P', url: `${integrationUrl}/cmd${n}`, ...fields };
  return (await admin.api.post('/api/v4/commands', body).expect(201)).body;
}

/** Sends the command's reply to its response URL (the path of the URL the integration was given). */
function reply(responseUrl: string, body: string, type = 'application/json') {
  return send(server.url, { path: new URL(responseUrl).pathname, headers: { 'Content-Type': type }, body });
}

beforeAll(async () => {
  integration = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const a = answer(r);
      if (a.hang) {
        hanging.push(res);
        return;
      }
      res.writeHead(a.status ?? 200, a.type ? { 'Content-Type': a.type } : {});
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => integration.listen(0, '127.0.0.1', resolve));
  integrationUrl = `http://127.0.0.1:${(integration.address() as AddressInfo).port}`;
  server = await startTestServer();
  world = await createWorld(server);
  ({ admin, member } = world);
  // Through the API rather than the environment (which would pin them): one test takes 127.0.0.1 off the list.
  await patch({ SiteURL: server.url, AllowedUntrustedInternalConnections: '127.0.0.1' });
  teamName = (await admin.api.get(`/api/v4/teams/${world.teamId}`).expect(200)).body.name;
  memberSocket = await connect(server.url, { token: member.token });
  adminSocket = await connect(server.url, { token: admin.token });
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  await memberSocket.close();
  await adminSocket.close();
  await server.close();
  await new Promise((resolve) => integration.close(resolve));
});
beforeEach(() => {
  answer = () => ({ status: 200, type: 'application/json', body: '{}' });
});
afterEach(() => {
  expect(memberSocket.problems).toEqual([]);
});

describe('the request', () => {
  test('POST: every field, form-encoded and sorted by name, with the Token header and a valid signature', async () => {
    const cmd = await command();
    const root = await createPost(member, world.townSquareId, 'a thread');
    const before = received.length;
    await run(member, world.townSquareId, `/${cmd.trigger} deploy @${admin.username} to ~town-square now`, { root_id: root.id }).expect(200);
    const r = received[before];
    expect(r.method).toBe('POST');
    expect(r.url).toBe(`/cmd${seq}`);
    expect(r.headers).toMatchObject({ authorization: `Token ${cmd.token}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' });
    expect(verify(cmd.token, r.headers, r.body)).toBe(true);
    expect(verify(cmd.token, r.headers, `${r.body}&x=1`)).toBe(false);
    const form = new URLSearchParams(r.body);
    expect(Object.fromEntries(form)).toEqual({
      token: cmd.token,
      team_id: world.teamId,
      team_domain: teamName,
      channel_id: world.townSquareId,
      channel_name: 'town-square',
      user_id: member.id,
      user_name: member.username,
      command: `/${cmd.trigger}`,
      text: `deploy @${admin.username} to ~town-square now`,
      trigger_id: expect.stringMatching(/^[a-z0-9]{26}$/),
      root_id: root.id,
      response_url: expect.stringMatching(new RegExp(`^${server.url}/hooks/commands/[a-z0-9]{26}$`)),
      user_mentions: admin.username,
      user_mentions_ids: admin.id,
      channel_mentions: 'town-square',
      channel_mentions_ids: world.townSquareId,
    });
    const names = [...form.keys()];
    expect(names).toEqual([...names].sort());
  });

  test("GET: the fields appended to the URL's own query, no body; the signature covers the raw query string", async () => {
    const cmd = await command({ method: 'G', url: `${integrationUrl}/get?fixed=yes` });
    const before = received.length;
    await run(member, world.townSquareId, `/${cmd.trigger} a b&c`).expect(200);
    const r = received[before];
    expect(r.method).toBe('GET');
    expect(r.body).toBe('');
    const query = r.url.slice(r.url.indexOf('?') + 1);
    expect(query.startsWith('fixed=yes&')).toBe(true);
    const params = new URLSearchParams(query);
    expect(params.get('text')).toBe('a b&c');
    expect(params.get('token')).toBe(cmd.token);
    expect(params.get('command')).toBe(`/${cmd.trigger}`);
    expect(r.headers.authorization).toBe(`Token ${cmd.token}`);
    expect(verify(cmd.token, r.headers, query)).toBe(true);
  });

  test('a regenerated token is what the next call carries and is signed with', async () => {
    const cmd = await command();
    const { token } = await client4For(server, admin).regenCommandToken(cmd.id);
    const before = received.length;
    await run(member, world.townSquareId, `/${cmd.trigger}`).expect(200);
    const r = received[before];
    expect(r.headers.authorization).toBe(`Token ${token}`);
    expect(verify(token, r.headers, r.body)).toBe(true);
    expect(verify(cmd.token, r.headers, r.body)).toBe(false);
  });
});

describe('the answer', () => {
  test('in_channel JSON: posted as the user with from_webhook, Slack links converted; Client4 executeCommand returns the response', async () => {
    const cmd = await command();
    answer = () => ({ type: 'application/json', body: JSON.stringify({ response_type: 'in_channel', text: 'see <https://example.com|the docs>', goto_location: '/elsewhere' }) });
    const response = await client4For(server, member).executeCommand(`/${cmd.trigger}`, { channel_id: world.townSquareId, team_id: world.teamId } as never);
    expect(response).toMatchObject({ response_type: 'in_channel', text: 'see <https://example.com|the docs>', goto_location: '/elsewhere', trigger_id: expect.stringMatching(/^[a-z0-9]{26}$/) });
    const post = await latest(world.townSquareId);
    expect(post).toMatchObject({ user_id: member.id, message: 'see [the docs](https://example.com)', root_id: '' });
    expect(post.props).toMatchObject({ from_webhook: 'true' });
    expect(post.props.override_username).toBeUndefined();
  });

  test('skip_slack_parsing keeps the text; attachments become props.attachments; extra_responses are handled too', async () => {
    const cmd = await command();
    answer = () => ({
      type: 'application/json; charset=utf-8',
      body: JSON.stringify({
        response_type: 'in_channel',
        text: 'raw <https://x.example|x>',
        skip_slack_parsing: true,
        extra_responses: [{ response_type: 'in_channel', text: 'second', attachments: [{ text: 'attached', fields: [{ title: 'n', value: 5 }] }] }],
      }),
    });
    await run(member, world.townSquareId, `/${cmd.trigger}`).expect(200);
    const list = (await admin.api.get(`/api/v4/channels/${world.townSquareId}/posts?per_page=2`).expect(200)).body;
    const [second, first] = list.order.map((id: string) => list.posts[id]);
    expect(first.message).toBe('raw <https://x.example|x>');
    expect(second).toMatchObject({ message: 'second', type: 'slack_attachment' });
    expect(second.props.attachments).toEqual([{ text: 'attached', fields: [{ title: 'n', value: '5' }] }]);
  });

  test("plain text (or ephemeral JSON): an ephemeral_message on the user's sockets only, never stored", async () => {
    const cmd = await command();
    answer = () => ({ type: 'text/plain', body: 'only for you' });
    const from = memberSocket.events.length;
    const adminFrom = adminSocket.events.length;
    const before = await latest(world.townSquareId);
    await run(member, world.townSquareId, `/${cmd.trigger}`).expect(200);
    const post = postOf(await memberSocket.next((f: Frame) => f.event === 'ephemeral_message', { from }));
    expect(post).toMatchObject({ type: 'system_ephemeral', message: 'only for you', channel_id: world.townSquareId, user_id: member.id });
    expect(post.props).toMatchObject({ from_webhook: 'true' });
    await adminSocket.none((f) => f.event === 'ephemeral_message', 300, adminFrom);
    expect((await latest(world.townSquareId)).id).toBe(before.id);
    // An ephemeral answer with nothing to show shows nothing.
    answer = () => ({ type: 'application/json', body: '{"response_type":"ephemeral","text":""}' });
    const from2 = memberSocket.events.length;
    await run(member, world.townSquareId, `/${cmd.trigger}`).expect(200);
    await memberSocket.none((f) => f.event === 'ephemeral_message', 300, from2);
  });

  test("overrides only with the override settings: the command's username and icon win over the response's", async () => {
    const cmd = await command({ username: 'deploy-bot', icon_url: 'https://example.com/cmd.png' });
    answer = () => ({ type: 'application/json', body: JSON.stringify({ response_type: 'in_channel', text: 'hi', username: 'from-response', icon_url: 'https://example.com/r.png', props: { from_webhook: 'false', custom: 1 } }) });
    await run(member, world.townSquareId, `/${cmd.trigger}`).expect(200);
    let post = await latest(world.townSquareId);
    expect(post.props).toEqual({ from_webhook: 'true', custom: 1 });
    await patch({ EnablePostUsernameOverride: true, EnablePostIconOverride: true });
    try {
      await run(member, world.townSquareId, `/${cmd.trigger}`).expect(200);
      post = await latest(world.townSquareId);
      expect(post.props).toEqual({ from_webhook: 'true', custom: 1, override_username: 'deploy-bot', override_icon_url: 'https://example.com/cmd.png' });
    } finally {
      await patch({ EnablePostUsernameOverride: false, EnablePostIconOverride: false });
    }
  });

  test('run in a thread, an in_channel answer is a reply in that thread', async () => {
    const cmd = await command();
    const root = await createPost(member, world.townSquareId, 'thread for the answer');
    answer = () => ({ type: 'application/json', body: '{"response_type":"in_channel","text":"in the thread"}' });
    await run(member, world.townSquareId, `/${cmd.trigger}`, { root_id: root.id }).expect(200);
    expect(await latest(world.townSquareId)).toMatchObject({ message: 'in the thread', root_id: root.id });
  });

  test('a system_ type or a channel the user is not in cannot be posted: 500 create_post_failed', async () => {
    const cmd = await command();
    answer = () => ({ type: 'application/json', body: '{"response_type":"in_channel","text":"x","type":"system_join_channel"}' });
    expectAppError(await run(member, world.townSquareId, `/${cmd.trigger}`), 500, 'api.command.execute_command.create_post_failed.app_error');
    const privateId = (await admin.api.post('/api/v4/channels', { team_id: world.teamId, name: `cc${process.pid}x${++seq}`, display_name: 'P', type: 'P' }).expect(201)).body.id;
    answer = () => ({ type: 'application/json', body: JSON.stringify({ response_type: 'in_channel', text: 'x', channel_id: privateId }) });
    expectAppError(await run(member, world.townSquareId, `/${cmd.trigger}`), 500, 'api.command.execute_command.create_post_failed.app_error');
  });
});

describe('failures', () => {
  test('a status other than 200 is failed_resp with the body; bad JSON, no answer or a time-out are failed', async () => {
    const cmd = await command();
    answer = () => ({ status: 503, type: 'text/plain', body: 'down for maintenance' });
    const res = await run(member, world.townSquareId, `/${cmd.trigger}`);
    expectAppError(res, 500, 'api.command.execute_command.failed_resp.app_error');
    expect(res.body.detailed_error).toBe('down for maintenance');
    answer = () => ({ type: 'application/json', body: '{not json' });
    expectAppError(await run(member, world.townSquareId, `/${cmd.trigger}`), 500, 'api.command.execute_command.failed.app_error');
    answer = () => ({ hang: true });
    await patch({ OutgoingIntegrationRequestsTimeout: 1 });
    try {
      const started = Date.now();
      expectAppError(await run(member, world.townSquareId, `/${cmd.trigger}`), 500, 'api.command.execute_command.failed.app_error');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await patch({ OutgoingIntegrationRequestsTimeout: 30 });
    }
    // Nothing listens on port 9 of loopback.
    const closed = await command({ url: 'http://127.0.0.1:9/cmd' });
    expectAppError(await run(member, world.townSquareId, `/${closed.trigger}`), 500, 'api.command.execute_command.failed.app_error');
  });

  test('without 127.0.0.1 in AllowedUntrustedInternalConnections the call is refused, and the log says so', async () => {
    const cmd = await command();
    const before = received.length;
    await patch({ AllowedUntrustedInternalConnections: '' });
    try {
      expectAppError(await run(member, world.townSquareId, `/${cmd.trigger}`), 500, 'api.command.execute_command.failed.app_error');
    } finally {
      await patch({ AllowedUntrustedInternalConnections: '127.0.0.1' });
    }
    expect(received.length).toBe(before);
    const [last] = (await admin.api.get(`/api/v4/commands/${cmd.id}/deliveries`).expect(200)).body;
    expect(last).toMatchObject({ status_code: 0, attempt: 1, post_id: '', error: expect.stringContaining('refused') });
  });

  test('an empty SiteURL is 400 site_url_required and nothing is called (a server of its own: a SiteURL once set cannot be cleared)', async () => {
    const bare = await startTestServer();
    try {
      const w = await createWorld(bare);
      await w.admin.api.put('/api/v4/config/patch', { ServiceSettings: { AllowedUntrustedInternalConnections: '127.0.0.1' } }).expect(200);
      const cmd = (await w.admin.api.post('/api/v4/commands', { team_id: w.teamId, trigger: 'nosite', method: 'P', url: `${integrationUrl}/nosite` }).expect(201)).body;
      const before = received.length;
      expectAppError(await run(w.member, w.townSquareId, `/${cmd.trigger}`), 400, 'api.command.execute_command.site_url_required.app_error');
      expect(received.length).toBe(before);
    } finally {
      await bare.close();
    }
  });
});

describe('the delivery log', () => {
  test('each call, newest first, with status and duration; never the token or a body', async () => {
    const cmd = await command();
    answer = () => ({ status: 200, type: 'text/plain', body: 'fine' });
    await run(member, world.townSquareId, `/${cmd.trigger}`).expect(200);
    answer = () => ({ status: 404, type: 'text/plain', body: 'secret-body-text' });
    await run(member, world.townSquareId, `/${cmd.trigger}`).expect(500);
    const res = await admin.api.get(`/api/v4/commands/${cmd.id}/deliveries`).expect(200);
    expect(res.body).toEqual([
      { id: expect.stringMatching(/^[a-z0-9]{26}$/), post_id: '', attempt: 1, request_at: expect.any(Number), duration_ms: expect.any(Number), status_code: 404, error: expect.any(String) },
      { id: expect.stringMatching(/^[a-z0-9]{26}$/), post_id: '', attempt: 1, request_at: expect.any(Number), duration_ms: expect.any(Number), status_code: 200, error: '' },
    ]);
    expect(res.body[0].request_at).toBeGreaterThanOrEqual(res.body[1].request_at);
    expect(res.text).not.toContain(cmd.token);
    expect(res.text).not.toContain('secret-body-text');
  });
});

describe('the response URL', () => {
  /** Runs the command (its first answer empty) and returns the response URL it was given. */
  async function responseUrl(trigger: string, extra: Record<string, unknown> = {}): Promise<string> {
    const before = received.length;
    answer = () => ({ type: 'application/json', body: '{}' });
    await run(member, world.townSquareId, `/${trigger}`, extra).expect(200);
    return new URLSearchParams(received[before].body).get('response_url')!;
  }

  test('JSON in_channel replies are posted as the user; it works 5 times, then 400 try_use.invalid', async () => {
    const cmd = await command();
    const url = await responseUrl(cmd.trigger);
    for (let i = 1; i <= 5; i++) {
      const res = await reply(url, JSON.stringify({ response_type: 'in_channel', text: `later ${i}` }));
      expect({ status: res.status, type: res.headers['content-type'], text: res.text }).toEqual({ status: 200, type: 'text/plain', text: 'ok' });
      expect(await latest(world.townSquareId)).toMatchObject({ message: `later ${i}`, user_id: member.id, props: { from_webhook: 'true' } });
    }
    expectAppError(await reply(url, JSON.stringify({ response_type: 'in_channel', text: 'sixth' })), 400, 'app.command_webhook.try_use.invalid');
    expect((await latest(world.townSquareId)).message).toBe('later 5');
  });

  test('plain text is an ephemeral reply; placed in the thread the command ran in (mattermost#15174)', async () => {
    const cmd = await command();
    const root = await createPost(member, world.townSquareId, 'thread for later');
    const url = await responseUrl(cmd.trigger, { root_id: root.id });
    const from = memberSocket.events.length;
    expect((await reply(url, 'just for you', 'text/plain')).status).toBe(200);
    const eph = postOf(await memberSocket.next((f) => f.event === 'ephemeral_message' && postOf(f).message === 'just for you', { from }));
    expect(eph).toMatchObject({ root_id: root.id, channel_id: world.townSquareId, type: 'system_ephemeral' });
    expect((await reply(url, JSON.stringify({ response_type: 'in_channel', text: 'threaded later' }))).status).toBe(200);
    expect(await latest(world.townSquareId)).toMatchObject({ message: 'threaded later', root_id: root.id });
  });

  test('unknown, expired (30 minutes), bad JSON, deleted command', async () => {
    const cmd = await command();
    expectAppError(await reply(`${server.url}/hooks/commands/${'a'.repeat(26)}`, '{"text":"x"}'), 404, 'app.command_webhook.get.missing');
    const url = await responseUrl(cmd.trigger);
    expectAppError(await reply(url, '{"text":'), 400, 'web.command_webhook.parse.app_error');
    expectAppError(await atTime(server, Date.now() + 31 * 60 * 1000, () => reply(url, '{"text":"too late"}')), 404, 'app.command_webhook.get.missing');
    await admin.api.delete(`/api/v4/commands/${cmd.id}`).expect(200);
    expectAppError(await reply(url, '{"text":"gone"}'), 400, 'web.command_webhook.command.app_error');
  });
});
