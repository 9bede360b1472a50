// What a webhook post carries: server-owned props (docs/webhook-rules.md, rule 8), attachments, the post type (rule 5) and the
// username/icon overrides (rule 7).
import { expectAppError } from '../support/assertions';
import { createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { createHook, expectOk, lastPost, patchConfig, postJson } from './hooks-support';

let server: TestServer;
let world: World;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  key = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Props hook' })).id;
});
afterAll(() => server.close());

async function postAndRead(payload: unknown, hookKey = key, channelId = world.townSquareId) {
  expectOk(await postJson(server, hookKey, payload));
  return lastPost(world.admin, channelId);
}

describe('server-owned props', () => {
  test('from_webhook is always "true", even when the payload says "false"', async () => {
    const post = await postAndRead({ text: 'phish', props: { from_webhook: 'false' } });
    expect(post.message).toBe('phish');
    expect(post.props.from_webhook).toBe('true');
    const plain = await postAndRead({ text: 'no props' });
    expect(plain.props.from_webhook).toBe('true');
    expect(plain.props.webhook_display_name).toBe('Props hook');
  });

  test('override_* and webhook_display_name in payload props are dropped or overwritten', async () => {
    const post = await postAndRead({
      text: 'forged',
      props: {
        override_username: 'ceo',
        override_icon_url: 'http://evil/i.png',
        override_icon_emoji: 'skull',
        webhook_display_name: 'Not the hook',
        from_webhook: false,
      },
    });
    expect(post.props).toEqual({ from_webhook: 'true', webhook_display_name: 'Props hook' });
  });

  test('props.card and other keys are kept as given', async () => {
    const post = await postAndRead({ text: 'with card', props: { card: '## Card\n*markdown*', build: { id: 42, ok: true }, list: [1, 'a'] } });
    expect(post.props).toEqual({
      from_webhook: 'true',
      webhook_display_name: 'Props hook',
      card: '## Card\n*markdown*',
      build: { id: 42, ok: true },
      list: [1, 'a'],
    });
  });

  test('props.attachments in the payload props is dropped; only top-level attachments count', async () => {
    const post = await postAndRead({ text: 'sneaky', props: { attachments: [{ text: 'from props' }] } });
    expect(post.props.attachments).toBeUndefined();
    expect(post.type).toBe('');
    const real = await postAndRead({ text: 'both', props: { attachments: [{ text: 'from props' }] }, attachments: [{ text: 'top level' }] });
    expect(real.props.attachments).toEqual([{ text: 'top level' }]);
  });

  test('props that are not an object are 400', async () => {
    expectAppError(await postJson(server, key, { text: 'x', props: [] }), 400, undefined, { notContaining: key });
    expectAppError(await postJson(server, key, { text: 'x', props: 'card' }), 400, undefined, { notContaining: key });
  });
});

describe('attachments', () => {
  test('stored in props.attachments with null items dropped, field values stringified, type slack_attachment', async () => {
    const post = await postAndRead({
      text: 'report',
      type: 'custom_ignored',
      attachments: [
        null,
        {
          fallback: 'fb',
          color: '#36a64f',
          title: 'T',
          fields: [
            { title: 'int', value: 10, short: true },
            { title: 'million', value: 1000000, short: 'false' },
            { title: 'bool', value: true },
            { title: 'float', value: 1.5 },
            { title: 'str', value: 'v' },
            null,
          ],
          ts: 1700000000,
        },
        null,
      ],
    });
    expect(post.type).toBe('slack_attachment');
    expect(post.message).toBe('report');
    expect(post.props.attachments).toEqual([
      {
        fallback: 'fb',
        color: '#36a64f',
        title: 'T',
        fields: [
          { title: 'int', value: '10', short: true },
          { title: 'million', value: '1e+06', short: false },
          { title: 'bool', value: 'true' },
          { title: 'float', value: '1.5' },
          { title: 'str', value: 'v' },
        ],
        ts: 1700000000,
      },
    ]);
    expect(post.props.from_webhook).toBe('true');
  });

  test('attachments alone (no text) make a post with an empty message', async () => {
    const post = await postAndRead({ attachments: [{ text: 'only an attachment' }] });
    expect(post.message).toBe('');
    expect(post.type).toBe('slack_attachment');
    expect(post.props.attachments).toEqual([{ text: 'only an attachment' }]);
  });

  test('no text and only null attachments is 400 web.incoming_webhook.text.app_error', async () => {
    expectAppError(await postJson(server, key, { attachments: [null, null] }), 400, 'web.incoming_webhook.text.app_error', { notContaining: key });
    expectAppError(await postJson(server, key, { text: '', attachments: [] }), 400, 'web.incoming_webhook.text.app_error', { notContaining: key });
    expectAppError(await postJson(server, key, { text: '' }), 400, 'web.incoming_webhook.text.app_error', { notContaining: key });
    expectAppError(await postJson(server, key, {}), 400, 'web.incoming_webhook.text.app_error', { notContaining: key });
    expectAppError(await postJson(server, key, null), 400, 'web.incoming_webhook.text.app_error', { notContaining: key });
  });

  test('text with an empty attachments array is an ordinary post', async () => {
    const post = await postAndRead({ text: 'empty list', attachments: [] });
    expect(post.type).toBe('');
    expect(post.props.attachments).toBeUndefined();
  });

  test('a field "short" that is neither boolean nor "true"/"false" is 400', async () => {
    expectAppError(await postJson(server, key, { attachments: [{ fields: [{ value: 'v', short: 'yes' }] }] }), 400, undefined, { notContaining: key });
    expectAppError(await postJson(server, key, { attachments: [{ fields: [{ value: 'v', short: 1 }] }] }), 400, undefined, { notContaining: key });
    expectAppError(await postJson(server, key, { text: 'x', attachments: { text: 'not a list' } }), 400, undefined, { notContaining: key });
  });
});

describe('post type', () => {
  test('type "foo" is 400; "system_join" is 400; "slack_attachment" without attachments is 400', async () => {
    for (const type of ['foo', 'system_join_channel', 'slack_attachment', 'me']) {
      expectAppError(await postJson(server, key, { text: 'typed', type }), 400, 'api.context.invalid_param.app_error', { notContaining: key });
    }
  });

  test('type "custom_x" is stored', async () => {
    const post = await postAndRead({ text: 'custom', type: 'custom_x' });
    expect(post.type).toBe('custom_x');
  });

  test('a blank type is an ordinary post', async () => {
    expect((await postAndRead({ text: 'empty type', type: '' })).type).toBe('');
    expect((await postAndRead({ text: 'blank type', type: '   ' })).type).toBe('');
  });
});

describe('username and icon overrides', () => {
  let creator: Actor;
  let plainKey: string;
  let defaultsKey: string;

  beforeAll(async () => {
    creator = world.admin;
    plainKey = key;
    // Created while the overrides are on, so the hook's own username and icon are stored.
    await patchConfig(server, world.admin, { ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } });
    const hook = await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Defaults', username: 'hook-bot', icon_url: 'https://e.com/hook.png' });
    expect(hook.username).toBe('hook-bot');
    expect(hook.icon_url).toBe('https://e.com/hook.png');
    defaultsKey = hook.id;
    await patchConfig(server, world.admin, { ServiceSettings: { EnablePostUsernameOverride: false, EnablePostIconOverride: false } });
  });

  afterAll(() => patchConfig(server, world.admin, { ServiceSettings: { EnablePostUsernameOverride: false, EnablePostIconOverride: false } }));

  test('off (the default): no override_* props, whatever the payload or the hook say', async () => {
    const cfg = await world.admin.api.get('/api/v4/config').expect(200);
    expect(cfg.body.ServiceSettings.EnablePostUsernameOverride).toBe(false);
    expect(cfg.body.ServiceSettings.EnablePostIconOverride).toBe(false);
    for (const k of [plainKey, defaultsKey]) {
      const post = await postAndRead({ text: 'no overrides', username: 'someone', icon_url: 'https://e.com/p.png', icon_emoji: ':tada:' }, k);
      for (const prop of ['override_username', 'override_icon_url', 'override_icon_emoji']) expect(post.props[prop]).toBeUndefined();
    }
  });

  describe('on', () => {
    beforeAll(() => patchConfig(server, world.admin, { ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } }));

    test('username: the payload first', async () => {
      const post = await postAndRead({ text: 'u1', username: 'Payload Name' }, defaultsKey);
      expect(post.props.override_username).toBe('Payload Name');
    });

    test("username: else the hook's", async () => {
      const post = await postAndRead({ text: 'u2' }, defaultsKey);
      expect(post.props.override_username).toBe('hook-bot');
    });

    test("username: else the creator's, never a made-up name", async () => {
      const post = await postAndRead({ text: 'u3' }, plainKey);
      expect(post.props.override_username).toBe(creator.username);
      const empty = await postAndRead({ text: 'u4', username: '' }, plainKey);
      expect(empty.props.override_username).toBe(creator.username);
    });

    test("icon_url: the payload first, else the hook's, else none", async () => {
      expect((await postAndRead({ text: 'i1', icon_url: 'https://e.com/p.png' }, defaultsKey)).props.override_icon_url).toBe('https://e.com/p.png');
      expect((await postAndRead({ text: 'i2' }, defaultsKey)).props.override_icon_url).toBe('https://e.com/hook.png');
      expect((await postAndRead({ text: 'i3' }, plainKey)).props.override_icon_url).toBeUndefined();
    });

    test('icon_emoji ":tada:" is stored without colons; "rocket" as is', async () => {
      const post = await postAndRead({ text: 'e1', icon_emoji: ':tada:' }, plainKey);
      expect(post.props.override_icon_emoji).toBe('tada');
      expect((await postAndRead({ text: 'e2', icon_emoji: 'rocket' }, plainKey)).props.override_icon_emoji).toBe('rocket');
      expect((await postAndRead({ text: 'e3' }, plainKey)).props.override_icon_emoji).toBeUndefined();
    });

    test('payload props still cannot set the overrides', async () => {
      const post = await postAndRead({ text: 'forged', props: { override_username: 'ceo', override_icon_url: 'http://evil', override_icon_emoji: 'skull' } }, plainKey);
      expect(post.props.override_username).toBe(creator.username);
      expect(post.props.override_icon_url).toBeUndefined();
      expect(post.props.override_icon_emoji).toBeUndefined();
    });

    test('hook username and icon are kept on update while the override is off', async () => {
      await patchConfig(server, world.admin, { ServiceSettings: { EnablePostUsernameOverride: false, EnablePostIconOverride: false } });
      try {
        const hook = (await world.admin.api.get(`/api/v4/hooks/incoming/${defaultsKey}`).expect(200)).body;
        const res = await world.admin.api.put(`/api/v4/hooks/incoming/${defaultsKey}`, { ...hook, username: 'other-bot', icon_url: 'https://e.com/other.png' }).expect(200);
        expect(res.body.username).toBe('hook-bot');
        expect(res.body.icon_url).toBe('https://e.com/hook.png');
      } finally {
        await patchConfig(server, world.admin, { ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } });
      }
    });

    test('another creator: the fallback is that creator', async () => {
      const other = await createUser(server, world.admin);
      await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: other.id }).expect(201);
      const hook = await createHook(world.admin, { channel_id: world.townSquareId, user_id: other.id });
      const post = await postAndRead({ text: 'by other' }, hook.id);
      expect(post.user_id).toBe(other.id);
      expect(post.props.override_username).toBe(other.username);
    });
  });
});

describe('priority and root_id', () => {
  test('priority is stored in metadata.priority of the post', async () => {
    const post = await postAndRead({ text: 'urgent one', priority: { priority: 'urgent', requested_ack: true } });
    const full = await world.admin.api.get(`/api/v4/posts/${post.id}`).expect(200);
    expect(full.body.metadata.priority).toEqual({ priority: 'urgent', requested_ack: true });
  });

  test('priority without a priority value, or with an unknown one, is 400', async () => {
    expectAppError(await postJson(server, key, { text: 'x', priority: {} }), 400, 'api.context.invalid_param.app_error', { notContaining: key });
    expectAppError(await postJson(server, key, { text: 'x', priority: { priority: 'super' } }), 400, 'api.context.invalid_param.app_error', { notContaining: key });
  });

  test('root_id makes the post a reply in that thread', async () => {
    const root = await postAndRead({ text: 'thread root' });
    const reply = await postAndRead({ text: 'a reply', root_id: root.id });
    expect(reply).toMatchObject({ message: 'a reply' });
    const thread = await world.admin.api.get(`/api/v4/posts/${root.id}/thread`).expect(200);
    expect(thread.body.order).toContain(reply.id);
    expect(thread.body.posts[reply.id].root_id).toBe(root.id);
  });

  test('an unknown root, a root in another channel, or a priority on a reply is 400', async () => {
    expectAppError(await postJson(server, key, { text: 'x', root_id: 'abcdefghijklmnopqrstuvwxyz' }), 400, undefined, { notContaining: key });
    const offTopic = (await world.admin.api.get(`/api/v4/teams/${world.teamId}/channels/name/off-topic`).expect(200)).body.id;
    const elsewhere = await world.admin.api.post('/api/v4/posts', { channel_id: offTopic, message: 'elsewhere' }).expect(201);
    expectAppError(await postJson(server, key, { text: 'x', root_id: elsewhere.body.id }), 400, undefined, { notContaining: key });
    const root = await postAndRead({ text: 'root for priority' });
    expectAppError(await postJson(server, key, { text: 'x', root_id: root.id, priority: { priority: 'urgent' } }), 400, undefined, { notContaining: key });
  });
});
