// Outgoing webhooks firing against a real integration (a node:http server on 127.0.0.1): when a post fires a hook
// (Mattermost's rules, Parley's private channels), the request as sent (JSON and form, every field, signed), retries
// (5xx, time-out; not 4xx), the address rule, the poster never waiting, the answer posted back, the delivery log.
import { eventually } from '../support/eventually';
import { createChannel, createPost, createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { createHook, postJson } from './hooks-support';
import { callsDone, startIntegration, verifyParleySignature, wasQueued, type Integration } from './outgoing-support';

let server: TestServer;
let world: World;
let integration: Integration;
let teamName: string;
let seq = 0;
const word = (p = 'go') => `${p}${process.pid}x${++seq}`;

beforeAll(async () => {
  server = await startTestServer({ MM_SERVICESETTINGS_ALLOWEDUNTRUSTEDINTERNALCONNECTIONS: '127.0.0.1' });
  world = await createWorld(server);
  teamName = (await world.admin.api.get(`/api/v4/teams/${world.teamId}`).expect(200)).body.name;
  integration = await startIntegration();
  // Retries a few milliseconds apart: the schedule's shape, not its seconds, is under test here.
  server.parley.app.outgoingDelivery.retryBaseMs = 20;
});
beforeEach(() => {
  integration.answer = () => ({ status: 200 });
});
afterAll(async () => {
  await integration.close();
  await server.close();
});

async function createOutgoing(actor: Actor, fields: Record<string, unknown>): Promise<Record<string, any>> {
  const body = { team_id: world.teamId, callback_urls: [`${integration.url}/hook`], display_name: 'Bot', ...fields };
  const res = await actor.api.post('/api/v4/hooks/outgoing', body);
  if (res.status !== 201) throw new Error(`CreateOutgoingWebhook: ${res.status} ${res.text}`);
  return res.body;
}

async function deliveries(hookId: string): Promise<Array<Record<string, any>>> {
  return (await world.admin.api.get(`/api/v4/hooks/outgoing/${hookId}/deliveries`).expect(200)).body;
}

describe('the request', () => {
  test('JSON: every field, Mattermost headers, timestamp in ms, signed with the token, no retry header', async () => {
    const w = word('deploy');
    const hook = await createOutgoing(world.admin, { trigger_words: [w], content_type: 'application/json' });
    const post = await createPost(world.member, world.townSquareId, `${w} api to prod`);
    const [req] = await eventually(() => {
      const got = integration.forPost(post.id);
      expect(got).toHaveLength(1);
      return got;
    });
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/hook');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers['user-agent']).toBe('Mattermost-Bot/1.1');
    expect(req.headers['x-parley-retry-num']).toBeUndefined();
    expect(req.fields).toEqual({
      token: hook.token,
      team_id: world.teamId,
      team_domain: teamName,
      channel_id: world.townSquareId,
      channel_name: 'town-square',
      timestamp: post.create_at,
      user_id: world.member.id,
      user_name: world.member.username,
      post_id: post.id,
      text: `${w} api to prod`,
      trigger_word: w,
      file_ids: '',
    });
    expect(verifyParleySignature(hook.token, req)).toBe(true);
    // Any other key, or a changed byte, fails the check.
    expect(verifyParleySignature('x'.repeat(26), req)).toBe(false);
    expect(verifyParleySignature(hook.token, { ...req, body: req.body.replace('prod', 'prud') })).toBe(false);
  });

  test('form (any other content type): the same fields, timestamp in seconds; signed over the raw form body', async () => {
    const w = word('form');
    const hook = await createOutgoing(world.admin, { trigger_words: [w] });
    const post = await createPost(world.member, world.townSquareId, `${w}\tsome text & more=1`);
    const [req] = await eventually(() => {
      const got = integration.forPost(post.id);
      expect(got).toHaveLength(1);
      return got;
    });
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.fields).toEqual({
      token: hook.token,
      team_id: world.teamId,
      team_domain: teamName,
      channel_id: world.townSquareId,
      channel_name: 'town-square',
      timestamp: String(Math.floor(post.create_at / 1000)),
      user_id: world.member.id,
      user_name: world.member.username,
      post_id: post.id,
      text: `${w}\tsome text & more=1`,
      trigger_word: w,
      file_ids: '',
    });
    expect(verifyParleySignature(hook.token, req)).toBe(true);
  });

  test('each callback URL gets its own call', async () => {
    const w = word('multi');
    await createOutgoing(world.admin, { trigger_words: [w], callback_urls: [`${integration.url}/one`, `${integration.url}/two`] });
    const post = await createPost(world.admin, world.townSquareId, w);
    await eventually(() => expect(integration.forPost(post.id).map((r) => r.path).sort()).toEqual(['/one', '/two']));
  });
});

describe('when a hook fires', () => {
  test('trigger_when 0: the first word equals a trigger word (any white space ends it); 1: it starts with one', async () => {
    const exact = word('ex');
    const prefix = word('pre');
    await createOutgoing(world.admin, { trigger_words: [exact] });
    await createOutgoing(world.admin, { trigger_words: [prefix], trigger_when: 1 });
    const newline = await createPost(world.member, world.townSquareId, `${exact}\nrest`);
    const nbsp = await createPost(world.member, world.townSquareId, `  ${exact}\u00a0rest`);
    const longer = await createPost(world.member, world.townSquareId, `${exact}ing rest`);
    const notFirst = await createPost(world.member, world.townSquareId, `hey ${exact}`);
    const starts = await createPost(world.member, world.townSquareId, `${prefix}-suffix and more`);
    const caseDiffers = await createPost(world.member, world.townSquareId, exact.toUpperCase());
    expect(await wasQueued(server, longer.id)).toBe(false);
    expect(await wasQueued(server, notFirst.id)).toBe(false);
    expect(await wasQueued(server, caseDiffers.id)).toBe(false);
    await eventually(() => {
      expect(integration.forPost(newline.id).map((r) => r.fields.trigger_word)).toEqual([exact]);
      expect(integration.forPost(nbsp.id).map((r) => r.fields.trigger_word)).toEqual([exact]);
      expect(integration.forPost(starts.id).map((r) => r.fields.trigger_word)).toEqual([prefix]);
    });
  });

  test('a channel-bound hook without trigger words fires on every post there (replies too), and nowhere else', async () => {
    const channelId = await createChannel(world.admin, world.teamId, 'O', [world.member]);
    await createOutgoing(world.admin, { channel_id: channelId, trigger_words: [] });
    const root = await createPost(world.member, channelId, 'anything at all');
    const reply = await createPost(world.admin, channelId, 'a reply', { root_id: root.id });
    const elsewhere = await createPost(world.member, world.townSquareId, 'anything at all');
    expect(await wasQueued(server, elsewhere.id)).toBe(false);
    await eventually(() => {
      expect(integration.forPost(root.id).map((r) => r.fields.trigger_word)).toEqual(['']);
      expect(integration.forPost(reply.id)).toHaveLength(1);
    });
  });

  test('private channels: a team-wide hook never fires there nor in DMs; a hook bound to the channel by a member does', async () => {
    const w = word('priv');
    await createOutgoing(world.admin, { trigger_words: [w] });
    const privateId = await createChannel(world.admin, world.teamId, 'P', [world.member]);
    const inPrivate = await createPost(world.member, privateId, `${w} secret`);
    expect(await wasQueued(server, inPrivate.id)).toBe(false);
    const dm = (await world.admin.api.post('/api/v4/channels/direct', [world.admin.id, world.member.id]).expect(201)).body.id;
    const inDm = await createPost(world.member, dm, `${w} direct`);
    expect(await wasQueued(server, inDm.id)).toBe(false);

    const bound = await createOutgoing(world.admin, { channel_id: privateId, trigger_words: [w] });
    const fired = await createPost(world.member, privateId, `${w} now`);
    await eventually(() => expect(integration.forPost(fired.id).map((r) => r.fields.token)).toEqual([bound.token]));
  });

  test('webhook posts, edits and hook replies never fire', async () => {
    const w = word('loop');
    const hook = await createOutgoing(world.admin, { trigger_words: [w] });
    integration.answer = (req) => (req.fields.token === hook.token ? { status: 200, body: { text: `${w} again` } } : { status: 200 });
    const incoming = await createHook(world.admin, { channel_id: world.townSquareId });
    const res = await postJson(server, incoming.id, { text: `${w} from a webhook` });
    expect(res.status).toBe(200);
    const webhookPost = (await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts?per_page=1`).expect(200)).body;
    const webhookPostId = webhookPost.order[0];
    expect(webhookPost.posts[webhookPostId].message).toBe(`${w} from a webhook`);
    expect(await wasQueued(server, webhookPostId)).toBe(false);

    const plain = await createPost(world.member, world.townSquareId, 'plain words');
    await world.member.api.put(`/api/v4/posts/${plain.id}`, { id: plain.id, message: `${w} edited` }).expect(200);
    expect(await wasQueued(server, plain.id)).toBe(false);

    // The hook's answer starts with its own trigger word: it is posted, and calls nothing.
    const post = await createPost(world.member, world.townSquareId, `${w} once`);
    const answer = await eventually(async () => {
      const page = (await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts?per_page=5`).expect(200)).body;
      const found = Object.values(page.posts as Record<string, any>).find((p) => p.message === `${w} again`);
      expect(found).toBeDefined();
      return found;
    });
    expect(await wasQueued(server, answer.id)).toBe(false);
    expect(integration.received.filter((r) => r.fields.token === hook.token).map((r) => r.fields.post_id)).toEqual([post.id]);
  });

  test('EnableOutgoingWebhooks off: posts queue nothing', async () => {
    const w = word('off');
    await createOutgoing(world.admin, { trigger_words: [w] });
    await server.parley.config.patch({ ServiceSettings: { EnableOutgoingWebhooks: false } });
    try {
      const post = await createPost(world.member, world.townSquareId, w);
      expect(await wasQueued(server, post.id)).toBe(false);
    } finally {
      await server.parley.config.patch({ ServiceSettings: { EnableOutgoingWebhooks: true } });
    }
  });
});

describe('the answer', () => {
  test('response_type comment: posted as a reply to the triggering post, as the hook creator, from_webhook, with the display name', async () => {
    const w = word('reply');
    await createOutgoing(world.admin, { trigger_words: [w], display_name: 'Deployer', username: 'deploybot' });
    integration.answer = () => ({ status: 200, body: { text: 'deployed <https://example.com|the build>', response_type: 'comment', username: 'other', props: { from_webhook: 'no', extra: 1 } } });
    const post = await createPost(world.member, world.townSquareId, `${w} api`);
    const reply = await eventually(async () => {
      const thread = (await world.admin.api.get(`/api/v4/posts/${post.id}/thread`).expect(200)).body;
      const found = Object.values(thread.posts as Record<string, any>).find((p) => p.id !== post.id);
      expect(found).toBeDefined();
      return found;
    });
    expect(reply).toMatchObject({ root_id: post.id, user_id: world.admin.id, channel_id: world.townSquareId, message: 'deployed [the build](https://example.com)' });
    expect(reply.props).toEqual({ from_webhook: 'true', webhook_display_name: 'Deployer', extra: 1 });
  });

  test('a plain answer is a new root post; with the overrides on, the username and icon are the answer\'s or the hook\'s', async () => {
    const w = word('root');
    await server.parley.config.patch({ ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } });
    try {
      await createOutgoing(world.admin, { trigger_words: [w], username: 'hookname', icon_url: 'https://example.com/hook.png' });
      integration.answer = () => ({ status: 201, body: { text: 'root answer', icon_url: 'https://example.com/answer.png' } });
      await createPost(world.member, world.townSquareId, w);
      const answer = await eventually(async () => {
        const page = (await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts?per_page=3`).expect(200)).body;
        const found = Object.values(page.posts as Record<string, any>).find((p) => p.message === 'root answer');
        expect(found).toBeDefined();
        return found;
      });
      expect(answer.root_id).toBe('');
      expect(answer.props).toMatchObject({ from_webhook: 'true', override_username: 'hookname', override_icon_url: 'https://example.com/answer.png' });
    } finally {
      await server.parley.config.patch({ ServiceSettings: { EnablePostUsernameOverride: false, EnablePostIconOverride: false } });
    }
  });
});

describe('retries and the delivery log', () => {
  test('a 500 is retried with X-Parley-Retry-Num; the log lists both attempts newest first, never the token', async () => {
    const w = word('retry');
    const hook = await createOutgoing(world.admin, { trigger_words: [w] });
    integration.answer = (req) => (integration.forPost(req.fields.post_id as string).length === 1 ? { status: 500 } : { status: 200 });
    const post = await createPost(world.member, world.townSquareId, w);
    const log = await eventually(async () => {
      const entries = await deliveries(hook.id);
      expect(entries).toHaveLength(2);
      return entries;
    });
    const got = integration.forPost(post.id);
    expect(got.map((r) => r.headers['x-parley-retry-num'])).toEqual([undefined, '1']);
    expect(got.every((r) => verifyParleySignature(hook.token, r))).toBe(true);
    expect(log.map((d) => [d.post_id, d.attempt, d.status_code])).toEqual([
      [post.id, 2, 200],
      [post.id, 1, 500],
    ]);
    expect(log[1].error).toMatch(/500/);
    expect(log[0].error).toBe('');
    expect(JSON.stringify(log)).not.toContain(hook.token);
    await eventually(async () => expect(await callsDone(server, post.id)).toBe(true));
  });

  test('5xx every time: 5 attempts in all (retry numbers 1 to 4), then the call is over', async () => {
    const w = word('fail');
    const hook = await createOutgoing(world.admin, { trigger_words: [w] });
    integration.answer = () => ({ status: 503 });
    const post = await createPost(world.member, world.townSquareId, w);
    await eventually(async () => expect((await deliveries(hook.id)).map((d) => d.attempt)).toEqual([5, 4, 3, 2, 1]));
    await eventually(async () => expect(await callsDone(server, post.id)).toBe(true));
    expect(integration.forPost(post.id).map((r) => r.headers['x-parley-retry-num'])).toEqual([undefined, '1', '2', '3', '4']);
  });

  test('a 4xx ends the call: no retry', async () => {
    const w = word('four');
    const hook = await createOutgoing(world.admin, { trigger_words: [w] });
    integration.answer = () => ({ status: 404, body: { text: 'not here' } });
    const post = await createPost(world.member, world.townSquareId, w);
    await eventually(async () => expect((await deliveries(hook.id)).map((d) => d.status_code)).toEqual([404]));
    await eventually(async () => expect(await callsDone(server, post.id)).toBe(true));
    expect(integration.forPost(post.id)).toHaveLength(1);
  });

  test('a time-out is retried (OutgoingIntegrationRequestsTimeout); a hanging integration never delays the poster', async () => {
    const w = word('slow');
    const hook = await createOutgoing(world.admin, { trigger_words: [w] });
    await server.parley.config.patch({ ServiceSettings: { OutgoingIntegrationRequestsTimeout: 1 } });
    try {
      integration.answer = (req) => (integration.forPost(req.fields.post_id as string).length === 1 ? 'hang' : { status: 200 });
      const post = await createPost(world.member, world.townSquareId, w);
      // The 201 came back; the integration may not even have the request yet, and holds it unanswered when it does.
      expect(post.id).toBeDefined();
      await eventually(async () => expect((await deliveries(hook.id)).map((d) => [d.attempt, d.status_code])).toEqual([[2, 200], [1, 0]]), 10_000);
      const [timedOut] = (await deliveries(hook.id)).slice(-1);
      expect(timedOut.error).toMatch(/timeout/);
      expect(timedOut.duration_ms).toBeGreaterThanOrEqual(900);
      expect(integration.forPost(post.id).map((r) => r.headers['x-parley-retry-num'])).toEqual([undefined, '1']);
    } finally {
      await server.parley.config.patch({ ServiceSettings: { OutgoingIntegrationRequestsTimeout: 30 } });
    }
  });

  test('while the integration holds a call unanswered, posts keep getting their 201 at once', async () => {
    const w = word('hold');
    await createOutgoing(world.admin, { trigger_words: [w] });
    integration.answer = () => 'hang';
    const first = await createPost(world.member, world.townSquareId, `${w} one`);
    await eventually(() => expect(integration.forPost(first.id)).toHaveLength(1));
    // The call is in flight and unanswered; the next posts are answered regardless.
    const second = await createPost(world.member, world.townSquareId, `${w} two`);
    const third = await createPost(world.member, world.townSquareId, 'no hook here');
    expect(second.root_id).toBe('');
    expect(third.message).toBe('no hook here');
    expect(integration.forPost(first.id)).toHaveLength(1);
    // Let the held calls go (their retries get the next tests' answers, which never look at these posts).
    integration.releaseHanging();
  });

  test('redeliver queues the same post\'s call again as a new call', async () => {
    const w = word('again');
    const hook = await createOutgoing(world.admin, { trigger_words: [w], callback_urls: [`${integration.url}/a`, `${integration.url}/b`] });
    const post = await createPost(world.member, world.townSquareId, `${w} x`);
    const log = await eventually(async () => {
      const entries = await deliveries(hook.id);
      expect(entries).toHaveLength(2);
      return entries;
    });
    await world.admin.api.post(`/api/v4/hooks/outgoing/${hook.id}/deliveries/${log[0].id}/redeliver`).expect(200);
    await eventually(() => expect(integration.forPost(post.id)).toHaveLength(3));
    const again = integration.forPost(post.id)[2];
    expect(again.headers['x-parley-retry-num']).toBeUndefined();
    expect(again.fields.trigger_word).toBe(w);
    await eventually(async () => expect(await deliveries(hook.id)).toHaveLength(3));
    // An attempt of another hook, or none, is 404.
    const other = await createOutgoing(world.admin, { trigger_words: [word()] });
    const res = await world.admin.api.post(`/api/v4/hooks/outgoing/${other.id}/deliveries/${log[0].id}/redeliver`).expect(404);
    expect(res.body.id).toBe('app.webhooks.get_delivery.app_error');
  });

  test('a deleted hook makes no more calls: its queued calls are dropped', async () => {
    const w = word('del');
    const hook = await createOutgoing(world.admin, { trigger_words: [w] });
    await world.admin.api.delete(`/api/v4/hooks/outgoing/${hook.id}`).expect(200);
    const post = await createPost(world.member, world.townSquareId, w);
    expect(await wasQueued(server, post.id)).toBe(false);
  });
});

describe('the address rule', () => {
  let strict: TestServer;
  let strictWorld: World;
  beforeAll(async () => {
    strict = await startTestServer();
    strictWorld = await createWorld(strict);
  });
  afterAll(() => strict.close());

  test('without AllowedUntrustedInternalConnections a loopback URL is refused, logged, and never retried', async () => {
    const w = word('ssrf');
    const res = await strictWorld.admin.api
      .post('/api/v4/hooks/outgoing', { team_id: strictWorld.teamId, trigger_words: [w], callback_urls: [`${integration.url}/ssrf`] })
      .expect(201);
    const post = await createPost(strictWorld.member, strictWorld.townSquareId, w);
    const log = await eventually(async () => {
      const entries = (await strictWorld.admin.api.get(`/api/v4/hooks/outgoing/${res.body.id}/deliveries`).expect(200)).body;
      expect(entries).toHaveLength(1);
      return entries;
    });
    expect(log[0]).toMatchObject({ post_id: post.id, attempt: 1, status_code: 0 });
    expect(log[0].error).toMatch(/refused/);
    await eventually(async () => expect(await callsDone(strict, post.id)).toBe(true));
    expect(integration.received.filter((r) => r.path === '/ssrf')).toEqual([]);
    expect((await strictWorld.admin.api.get(`/api/v4/hooks/outgoing/${res.body.id}/deliveries`).expect(200)).body).toHaveLength(1);
  });
});

describe('the creator leaves the private channel', () => {
  test('the hook bound to it stops firing there', async () => {
    const creator = await createUser(server, world.admin);
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: creator.id }).expect(201);
    const privateId = await createChannel(world.admin, world.teamId, 'P', [world.member, creator]);
    const w = word('left');
    const hook = await createOutgoing(world.admin, { channel_id: privateId, trigger_words: [w], creator_id: creator.id });
    await world.admin.api.delete(`/api/v4/channels/${privateId}/members/${creator.id}`).expect(200);
    const post = await createPost(world.member, privateId, w);
    // Queued with the post (membership is checked when the call is made), then dropped without a call.
    await eventually(async () => expect(await callsDone(server, post.id)).toBe(true));
    expect(integration.forPost(post.id)).toEqual([]);
    expect(await deliveries(hook.id)).toEqual([]);
  });
});
