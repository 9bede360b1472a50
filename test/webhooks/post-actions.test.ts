// Interactive messages against a real integration (a node:http server on 127.0.0.1): actions posted through an
// incoming webhook, the API and an outgoing webhook's reply; a click (DoPostAction, through Client4) sends
// Mattermost's request, signed with the secret of the integration that made the post; the reply's `update` and
// `ephemeral_text` applied; the action's URL and context absent from every read; the address rule.
import { eventually } from '../support/eventually';
import { client4For } from '../support/client4';
import { createPost, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { connect } from '../support/ws';
import { createHook, postJson } from './hooks-support';
import { startIntegration, verifyParleySignature, type Integration, type Received } from './outgoing-support';

let server: TestServer;
let world: World;
let integration: Integration;
let teamName: string;
let seq = 0;
const unique = (p: string) => `${p}${process.pid}x${++seq}`;
/** A marker put in every action's context: no read of a post may ever show it. */
const SECRET_CONTEXT = 'context-never-shown-to-clients';

beforeAll(async () => {
  server = await startTestServer({ MM_SERVICESETTINGS_ALLOWEDUNTRUSTEDINTERNALCONNECTIONS: '127.0.0.1' });
  world = await createWorld(server);
  teamName = (await world.admin.api.get(`/api/v4/teams/${world.teamId}`).expect(200)).body.name;
  integration = await startIntegration();
});
beforeEach(() => {
  integration.answer = () => ({ status: 200, body: {} });
});
afterAll(async () => {
  await integration.close();
  await server.close();
});

/** A button and a static menu, both calling the integration, with a context that must stay on the server. */
function attachments(path = '/action'): Array<Record<string, unknown>> {
  return [
    {
      text: 'Deploy api?',
      actions: [
        { id: 'approve', name: 'Approve', style: 'primary', integration: { url: `${integration.url}${path}`, context: { deploy: 'api', secret: SECRET_CONTEXT } } },
        {
          id: 'env',
          type: 'select',
          name: 'Environment',
          options: [
            { text: 'Staging', value: 'staging' },
            { text: 'Production', value: 'prod' },
          ],
          integration: { url: `${integration.url}${path}`, context: { secret: SECRET_CONTEXT } },
        },
      ],
    },
  ];
}

/** A post with actions made through a new incoming webhook of the admin's on town square. */
async function hookPost(): Promise<{ hook: Record<string, any>; postId: string }> {
  const hook = await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Deployer' });
  const res = await postJson(server, hook.id, { text: 'deploy request', attachments: attachments() });
  expect(res.status).toBe(200);
  const posts = (await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts?per_page=1`).expect(200)).body;
  return { hook, postId: posts.order[0] };
}

function click(actor: Actor, postId: string, actionId: string, selected = '') {
  return client4For(server, actor).doPostAction(postId, actionId, selected);
}

/** The one call the integration received for a post (after the click resolved). */
function onlyCall(postId: string): Received {
  const got = integration.forPost(postId);
  expect(got).toHaveLength(1);
  return got[0];
}

async function expectError(p: Promise<unknown>, status: number, id: string): Promise<void> {
  await expect(p).rejects.toMatchObject({ status_code: status, server_error_id: id });
}

describe('the request', () => {
  test('a button: Mattermost\'s fields, the action\'s context, signed with the incoming webhook\'s signing secret', async () => {
    const { hook, postId } = await hookPost();
    expect(hook.signing_secret).toMatch(/^[a-z0-9]{26}$/);
    expect(hook.signing_secret).not.toBe(hook.id);
    const answer = await click(world.member, postId, 'approve');
    const req = onlyCall(postId);
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/action');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.accept).toBe('application/json');
    expect(req.fields).toEqual({
      user_id: world.member.id,
      user_name: world.member.username,
      channel_id: world.townSquareId,
      channel_name: 'town-square',
      team_id: world.teamId,
      team_domain: teamName,
      post_id: postId,
      trigger_id: expect.any(String),
      type: 'button',
      data_source: '',
      context: { deploy: 'api', secret: SECRET_CONTEXT },
    });
    // The client's trigger id is the first part of the one the integration got.
    expect(answer).toEqual({ status: 'OK', trigger_id: expect.stringMatching(/^[a-z0-9]{26}$/) });
    expect(Buffer.from(String(req.fields.trigger_id), 'base64').toString().startsWith(`${answer.trigger_id}:${world.member.id}:`)).toBe(true);
    expect(verifyParleySignature(hook.signing_secret, req)).toBe(true);
    expect(verifyParleySignature(hook.id, req)).toBe(false);
    expect(verifyParleySignature(hook.signing_secret, { ...req, body: req.body.replace('api', 'apx') })).toBe(false);
  });

  test('a static menu: the chosen value in context.selected_option; a value it does not offer is refused', async () => {
    const { hook, postId } = await hookPost();
    await click(world.member, postId, 'env', 'prod');
    const req = onlyCall(postId);
    expect(req.fields).toMatchObject({ type: 'select', data_source: '', context: { secret: SECRET_CONTEXT, selected_option: 'prod' } });
    expect(verifyParleySignature(hook.signing_secret, req)).toBe(true);
    await expectError(click(world.member, postId, 'env', 'dev'), 400, 'api.context.invalid_param.app_error');
    expect(integration.forPost(postId)).toHaveLength(1);
  });

  test('regenerating the signing secret: calls are signed with the new one at once; the hook shows it to its manager', async () => {
    const { hook, postId } = await hookPost();
    const regen = await world.admin.api.post(`/api/v4/hooks/incoming/${hook.id}/regen_signing_secret`).expect(200);
    expect(regen.body).toMatchObject({ id: hook.id, signing_secret: expect.stringMatching(/^[a-z0-9]{26}$/) });
    expect(regen.body.signing_secret).not.toBe(hook.signing_secret);
    expect((await world.admin.api.get(`/api/v4/hooks/incoming/${hook.id}`).expect(200)).body.signing_secret).toBe(regen.body.signing_secret);
    await world.member.api.post(`/api/v4/hooks/incoming/${hook.id}/regen_signing_secret`).expect(403);
    await click(world.member, postId, 'approve');
    const req = onlyCall(postId);
    expect(verifyParleySignature(regen.body.signing_secret, req)).toBe(true);
    expect(verifyParleySignature(hook.signing_secret, req)).toBe(false);
  });

  test("an outgoing webhook's reply: its buttons' calls are signed with the hook's token", async () => {
    const word = unique('ask');
    const hook = (
      await world.admin.api
        .post('/api/v4/hooks/outgoing', { team_id: world.teamId, trigger_words: [word], callback_urls: [`${integration.url}/outgoing`], content_type: 'application/json' })
        .expect(201)
    ).body;
    integration.answer = (req) => (req.path === '/outgoing' ? { status: 200, body: { text: 'choose', attachments: attachments('/reply-action') } } : { status: 200, body: {} });
    const trigger = await createPost(world.member, world.townSquareId, `${word} please`);
    const reply = await eventually(async () => {
      const page = (await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts?per_page=1`).expect(200)).body;
      const post = page.posts[page.order[0]];
      expect(post.id).not.toBe(trigger.id);
      expect(post.message).toBe('choose');
      return post;
    });
    await click(world.member, reply.id, 'approve');
    const req = integration.received.find((r) => r.path === '/reply-action' && r.fields.post_id === reply.id)!;
    expect(req.fields.context).toEqual({ deploy: 'api', secret: SECRET_CONTEXT });
    expect(verifyParleySignature(hook.token, req)).toBe(true);
  });

  test('a post made through the API (a user, a bot) has no integration secret: its calls are unsigned', async () => {
    const post = await createPost(world.admin, world.townSquareId, 'by hand', { props: { attachments: attachments() } });
    await click(world.member, post.id, 'approve');
    const req = onlyCall(post.id);
    expect(req.fields.context).toEqual({ deploy: 'api', secret: SECRET_CONTEXT });
    expect(req.headers['x-parley-signature']).toBeUndefined();
    expect(req.headers['x-parley-timestamp']).toBeUndefined();
  });

  test('an edit that sends the actions back as clients see them keeps them (and the signing); a new integration in an edit drops the signing', async () => {
    const { hook, postId } = await hookPost();
    const seen = (await world.admin.api.get(`/api/v4/posts/${postId}`).expect(200)).body;
    await world.admin.api.put(`/api/v4/posts/${postId}/patch`, { message: 'edited', props: seen.props }).expect(200);
    await click(world.member, postId, 'approve');
    expect(verifyParleySignature(hook.signing_secret, onlyCall(postId))).toBe(true);

    const retargeted = JSON.parse(JSON.stringify(seen.props));
    retargeted.attachments[0].actions[0].integration = { url: `${integration.url}/elsewhere`, context: { edited: true } };
    await world.admin.api.put(`/api/v4/posts/${postId}/patch`, { props: retargeted }).expect(200);
    await click(world.member, postId, 'approve');
    const req = integration.received.find((r) => r.path === '/elsewhere' && r.fields.post_id === postId)!;
    expect(req.fields.context).toEqual({ edited: true });
    expect(req.headers['x-parley-signature']).toBeUndefined();
  });

  test('every call is in the delivery log (kind action), with its status', async () => {
    const { hook, postId } = await hookPost();
    integration.answer = () => ({ status: 500 });
    await expectError(click(world.member, postId, 'approve'), 400, 'api.post.do_action.action_integration.app_error');
    const rows = await server.parley.db.knex('integration_deliveries').where({ post_id: postId });
    expect(rows).toEqual([expect.objectContaining({ integration_id: hook.id, kind: 'action', attempt: 1, status_code: 500 })]);
  });
});

describe('the answer', () => {
  test('update: the message and props replaced, the server\'s props and the pin kept, post_edited to the channel', async () => {
    const { postId } = await hookPost();
    await world.admin.api.post(`/api/v4/posts/${postId}/pin`).expect(200);
    const socket = await connect(server.url, { token: world.admin.token });
    try {
      integration.answer = () => ({ status: 200, body: { update: { message: 'Approved by the integration', props: { attachments: [{ text: 'done' }], from_webhook: 'no', webhook_display_name: 'forged' } } } });
      await click(world.member, postId, 'approve');
      const edited = await socket.next((f) => f.event === 'post_edited' && JSON.parse(f.data!.post).id === postId);
      const sent = JSON.parse(edited.data!.post);
      expect(sent).toMatchObject({ id: postId, message: 'Approved by the integration', is_pinned: true });
      expect(sent.edit_at).toBeGreaterThan(0);
      expect(sent.props).toEqual({ attachments: [{ text: 'done' }], from_webhook: 'true', webhook_display_name: 'Deployer' });
      expect(socket.problems).toEqual([]);
    } finally {
      await socket.close();
    }
    const stored = (await world.admin.api.get(`/api/v4/posts/${postId}`).expect(200)).body;
    expect(stored).toMatchObject({ message: 'Approved by the integration', is_pinned: true, props: { attachments: [{ text: 'done' }], from_webhook: 'true' } });
    // Its actions are gone with the old props.
    await expectError(click(world.member, postId, 'approve'), 404, 'api.post.do_action.action_id.app_error');
  });

  test('update without props keeps them (and the actions); ephemeral_text goes to the clicker\'s sockets only, in the post\'s thread', async () => {
    const { postId } = await hookPost();
    const mine = await connect(server.url, { token: world.member.token });
    const theirs = await connect(server.url, { token: world.admin.token });
    try {
      integration.answer = () => ({ status: 200, body: { update: { message: 'Working on it' }, ephemeral_text: 'Only you see <https://example.com|this>' } });
      await click(world.member, postId, 'approve');
      const eph = await mine.next((f) => f.event === 'ephemeral_message');
      const post = JSON.parse(eph.data!.post);
      expect(post).toMatchObject({ type: 'system_ephemeral', channel_id: world.townSquareId, root_id: postId, user_id: world.member.id, message: 'Only you see [this](https://example.com)' });
      expect(post.props).toMatchObject({ from_webhook: 'true' });
      expect(eph.broadcast).toMatchObject({ user_id: world.member.id, channel_id: world.townSquareId });
      await theirs.none((f) => f.event === 'ephemeral_message');
      expect([...mine.problems, ...theirs.problems]).toEqual([]);
    } finally {
      await mine.close();
      await theirs.close();
    }
    const stored = (await world.admin.api.get(`/api/v4/posts/${postId}`).expect(200)).body;
    expect(stored.message).toBe('Working on it');
    expect(stored.props.attachments[0].actions.map((a: { id: string }) => a.id)).toEqual(['approve', 'env']);
    // Still clickable: the update kept its actions' integrations too.
    integration.answer = () => ({ status: 200, body: {} });
    await click(world.member, postId, 'approve');
  });

  test('a status other than 200, a body that is not JSON, or an unreachable integration: 400', async () => {
    const { postId } = await hookPost();
    integration.answer = () => ({ status: 201, body: {} });
    await expectError(click(world.member, postId, 'approve'), 400, 'api.post.do_action.action_integration.app_error');
    integration.answer = () => ({ status: 200, body: 'not json', contentType: 'text/plain' });
    await expectError(click(world.member, postId, 'approve'), 400, 'api.post.do_action.action_integration.app_error');
    // An empty 200 is fine: nothing to apply.
    integration.answer = () => ({ status: 200 });
    await expect(click(world.member, postId, 'approve')).resolves.toMatchObject({ status: 'OK' });
  });
});

describe('what clients never see', () => {
  test('no read of a post shows the action URL or context: the posted event, CreatePost, GetPost, the channel page, the thread, search', async () => {
    const socket = await connect(server.url, { token: world.member.token });
    let postId: string;
    try {
      ({ postId } = await hookPost());
      const posted = await socket.next((f) => f.event === 'posted' && JSON.parse(f.data!.post).id === postId);
      const sent = JSON.parse(posted.data!.post);
      expect(sent.props.attachments[0].actions).toEqual([
        { id: 'approve', name: 'Approve', style: 'primary', type: 'button' },
        { id: 'env', type: 'select', name: 'Environment', options: [{ text: 'Staging', value: 'staging' }, { text: 'Production', value: 'prod' }] },
      ]);
      expect(posted.data!.post).not.toContain(integration.url);
      expect(posted.data!.post).not.toContain(SECRET_CONTEXT);
    } finally {
      await socket.close();
    }
    const made = await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'searchable actionpost', props: { attachments: attachments() } }).expect(201);
    const reads = [
      made.text,
      (await world.member.api.get(`/api/v4/posts/${postId}`).expect(200)).text,
      (await world.member.api.get(`/api/v4/posts/${made.body.id}`).expect(200)).text,
      (await world.member.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200)).text,
      (await world.member.api.get(`/api/v4/posts/${postId}/thread`).expect(200)).text,
      (await world.member.api.post('/api/v4/posts/ids', [postId, made.body.id]).expect(200)).text,
      (await world.member.api.post(`/api/v4/teams/${world.teamId}/posts/search`, { terms: 'actionpost' }).expect(200)).text,
    ];
    expect(made.body.props.attachments[0].actions[0]).toEqual({ id: 'approve', name: 'Approve', style: 'primary', type: 'button' });
    for (const text of reads) {
      expect(text).not.toContain(integration.url);
      expect(text).not.toContain(SECRET_CONTEXT);
      expect(text).not.toContain('"integration"');
    }
    expect(reads[6]).toContain(made.body.id);
  });

  test('actions without an id get one; bad actions are refused with the path\'s error id', async () => {
    const url = `${integration.url}/action`;
    const made = await createPost(world.member, world.townSquareId, 'ids', { props: { attachments: [{ actions: [{ name: 'Go', integration: { url } }] }] } });
    expect(made.props.attachments[0].actions[0].id).toMatch(/^[a-z0-9]{26}$/);
    const bad: Array<[string, Record<string, unknown>]> = [
      ['no name', { id: 'a', integration: { url } }],
      ['no integration', { id: 'a', name: 'A' }],
      ['a URL that is not http(s)', { id: 'a', name: 'A', integration: { url: 'ftp://example.com/x' } }],
      ['an id Mattermost cannot route', { id: 'a-b', name: 'A', integration: { url } }],
      ['a select without options', { id: 'a', name: 'A', type: 'select', integration: { url } }],
      ['a button with options', { id: 'a', name: 'A', options: [{ text: 't', value: 'v' }], integration: { url } }],
      ['an unknown type', { id: 'a', name: 'A', type: 'slider', integration: { url } }],
      ['an unknown style', { id: 'a', name: 'A', style: 'loud', integration: { url } }],
    ];
    const hook = await createHook(world.admin, { channel_id: world.townSquareId });
    for (const [what, action] of bad) {
      const api = await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: what, props: { attachments: [{ actions: [action] }] } });
      expect([what, api.status, api.body.id]).toEqual([what, 400, 'api.context.invalid_param.app_error']);
      const viaHook = await postJson(server, hook.id, { text: what, attachments: [{ actions: [action] }] });
      expect([what, viaHook.status, JSON.parse(viaHook.text).id]).toEqual([what, 400, 'web.incoming_webhook.parse.app_error']);
    }
  });

  test('an unknown action is 404; a deleted post 404; a cookie for a post that is not stored 400; a private channel 403', async () => {
    const { postId } = await hookPost();
    await expectError(click(world.member, postId, 'nosuch'), 404, 'api.post.do_action.action_id.app_error');
    const gone = await createPost(world.admin, world.townSquareId, 'soon gone', { props: { attachments: attachments() } });
    await world.admin.api.delete(`/api/v4/posts/${gone.id}`).expect(200);
    await expectError(click(world.member, gone.id, 'approve'), 404, 'app.post.get.app_error');
    await expectError(client4For(server, world.member).doPostActionWithCookie('a'.repeat(26), 'approve', 'cookie'), 400, 'api.post.do_action.action_integration.app_error');
    const priv = (await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: unique('priv'), display_name: 'P', type: 'P' }).expect(201)).body.id;
    const hidden = await createPost(world.admin, priv, 'private', { props: { attachments: attachments() } });
    await expectError(click(world.member, hidden.id, 'approve'), 403, 'api.context.permissions.app_error');
    expect(integration.forPost(hidden.id)).toEqual([]);
  });
});

describe('the address rule', () => {
  test('without AllowedUntrustedInternalConnections a loopback integration is refused: 400, logged, never called', async () => {
    const strict = await startTestServer();
    try {
      const w = await createWorld(strict);
      const post = (await w.admin.api.post('/api/v4/posts', { channel_id: w.townSquareId, message: 'x', props: { attachments: attachments() } }).expect(201)).body;
      const res = await w.member.api.post(`/api/v4/posts/${post.id}/actions/approve`, {}).expect(400);
      expect(res.body.id).toBe('api.post.do_action.action_integration.app_error');
      expect(integration.forPost(post.id)).toEqual([]);
      const rows = await strict.parley.db.knex('integration_deliveries').where({ post_id: post.id });
      expect(rows).toEqual([expect.objectContaining({ kind: 'action', status_code: 0, error: expect.stringContaining('refused') })]);
    } finally {
      await strict.close();
    }
  });
});
