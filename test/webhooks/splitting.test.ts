// Long webhook messages become several consecutive posts of at most 16383 code points (docs/webhook-rules.md, rule 10), all
// committed; bodies over MaximumPayloadSizeBytes are 413; props over 65536 bytes as JSON are 400.
import { expectAppError } from '../support/assertions';
import { createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { channelPosts, createChannel, createHook, expectOk, patchConfig, postJson, rawPost, uniqueName } from './hooks-support';

const MAX = 16383;

let server: TestServer;
let world: World;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  // Big enough for the largest body below (~1 MB of props), so only the 413 tests meet the limit.
  await patchConfig(server, world.admin, { ServiceSettings: { MaximumPayloadSizeBytes: 4_000_000 } });
});
afterAll(() => server.close());

/** A fresh channel and a hook posting to it, so each case counts exactly its own posts. */
async function freshHook(displayName = 'Splitter'): Promise<{ key: string; channelId: string }> {
  const channelId = await createChannel(world.admin, world.teamId, uniqueName('split'));
  const hook = await createHook(world.admin, { channel_id: channelId, display_name: displayName });
  return { key: hook.id, channelId };
}

async function msgCount(channelId: string): Promise<number> {
  return (await world.admin.api.get(`/api/v4/channels/${channelId}`).expect(200)).body.total_msg_count;
}

const codePoints = (s: string) => [...s].length;

describe.each([
  ['ASCII', 'a'],
  ['two-byte é', 'é'],
  ['astral 😀 (two UTF-16 units)', '😀'],
])('%s', (_name, unit) => {
  test(`exactly ${MAX} code points is one post`, async () => {
    const { key, channelId } = await freshHook();
    const text = unit.repeat(MAX);
    expectOk(await postJson(server, key, { text }));
    const posts = await channelPosts(world.admin, channelId);
    expect(posts).toHaveLength(1);
    expect(posts[0].message).toBe(text);
    expect(await msgCount(channelId)).toBe(1);
  });

  test(`${MAX + 1} code points is two posts, in order, the second holding one code point`, async () => {
    const { key, channelId } = await freshHook();
    const text = unit.repeat(MAX) + 'Z'.replace('Z', unit);
    expectOk(await postJson(server, key, { text }));
    const posts = await channelPosts(world.admin, channelId);
    expect(posts).toHaveLength(2);
    expect(codePoints(posts[0].message)).toBe(MAX);
    expect(posts[0].message).toBe(unit.repeat(MAX));
    expect(posts[1].message).toBe(unit);
    expect(posts[1].create_at).toBeGreaterThan(posts[0].create_at);
    expect(await msgCount(channelId)).toBe(2);
  });
});

test('a split never cuts a surrogate pair, even when the cut falls inside mixed text', async () => {
  const { key, channelId } = await freshHook();
  // 16382 ASCII then emoji: the 16383rd code point is an emoji, whose two UTF-16 units must stay together.
  const text = 'a'.repeat(MAX - 1) + '😀😀' + 'tail';
  expectOk(await postJson(server, key, { text }));
  const posts = await channelPosts(world.admin, channelId);
  expect(posts.map((p) => p.message)).toEqual(['a'.repeat(MAX - 1) + '😀', '😀tail']);
});

test('a 40000-character text is 3 posts, in order, all committed, every part a webhook post', async () => {
  const { key, channelId } = await freshHook('Forty');
  // Distinct content everywhere, so order and boundaries are checkable: "00000 00001 00002 ...".
  let text = '';
  for (let i = 0; text.length < 40000; i++) text += `${String(i).padStart(5, '0')} `;
  text = text.slice(0, 40000);
  expectOk(await postJson(server, key, { text, props: { card: 'card text' } }));
  const posts = await channelPosts(world.admin, channelId);
  expect(posts.map((p) => codePoints(p.message))).toEqual([MAX, MAX, 40000 - 2 * MAX]);
  expect(posts.map((p) => p.message).join('')).toBe(text);
  expect(posts[0].create_at).toBeLessThan(posts[1].create_at);
  expect(posts[1].create_at).toBeLessThan(posts[2].create_at);
  for (const p of posts) {
    expect(p.user_id).toBe(world.admin.id);
    expect(p.props.from_webhook).toBe('true');
    expect(p.props.webhook_display_name).toBe('Forty');
    expect(p.props.card).toBe('card text');
  }
  expect(await msgCount(channelId)).toBe(3);
});

test('a 100000-code-point astral text (400 kB body) is 7 posts in order', async () => {
  const { key, channelId } = await freshHook();
  const units = ['😀', '🎉', '🚀', '✅'];
  let text = '';
  for (let i = 0; i < 100000; i++) text += units[Math.floor(i / 1000) % units.length];
  expectOk(await postJson(server, key, { text }));
  const posts = await channelPosts(world.admin, channelId);
  expect(posts).toHaveLength(Math.ceil(100000 / MAX));
  for (const p of posts.slice(0, -1)) expect(codePoints(p.message)).toBe(MAX);
  expect(posts.map((p) => p.message).join('')).toBe(text);
  expect(await msgCount(channelId)).toBe(7);
});

test('attachments go on the last part only; every part has type slack_attachment', async () => {
  const { key, channelId } = await freshHook();
  const text = 'b'.repeat(MAX + 10);
  expectOk(await postJson(server, key, { text, attachments: [{ fallback: 'fb', text: 'attached' }] }));
  const posts = await channelPosts(world.admin, channelId);
  expect(posts).toHaveLength(2);
  expect(posts[0].props.attachments).toBeUndefined();
  expect(posts[1].props.attachments).toEqual([{ fallback: 'fb', text: 'attached' }]);
  expect(posts.map((p) => p.type)).toEqual(['slack_attachment', 'slack_attachment']);
});

describe('body size limit (ServiceSettings.MaximumPayloadSizeBytes)', () => {
  let key: string;
  let channelId: string;

  beforeAll(async () => {
    ({ key, channelId } = await freshHook());
    await patchConfig(server, world.admin, { ServiceSettings: { MaximumPayloadSizeBytes: 50_000 } });
  });
  afterAll(() => patchConfig(server, world.admin, { ServiceSettings: { MaximumPayloadSizeBytes: 4_000_000 } }));

  test('a body over the limit is 413 (declared Content-Length), and nothing is posted', async () => {
    const res = await postJson(server, key, { text: 'x'.repeat(60_000) });
    expectAppError(res, 413, 'api.context.request_body_too_large.app_error', { notContaining: key });
    expect(await channelPosts(world.admin, channelId)).toEqual([]);
  });

  test('a chunked body that grows over the limit is 413 too', async () => {
    const res = await rawPost(server.url, `/hooks/${key}`, JSON.stringify({ text: 'y'.repeat(200_000) }), {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
    });
    expectAppError(res, 413, 'api.context.request_body_too_large.app_error', { notContaining: key });
    expect(await channelPosts(world.admin, channelId)).toEqual([]);
  });

  test('a form body over the limit is 413; a body just under it is accepted', async () => {
    const form = await rawPost(server.url, `/hooks/${key}`, `payload=${encodeURIComponent(JSON.stringify({ text: 'z'.repeat(60_000) }))}`, {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    expectAppError(form, 413, 'api.context.request_body_too_large.app_error', { notContaining: key });
    const text = 'w'.repeat(50_000 - '{"text":""}'.length);
    expectOk(await postJson(server, key, { text }));
    const posts = await channelPosts(world.admin, channelId);
    expect(posts.map((p) => p.message).join('')).toBe(text);
  });
});

describe('props size (65536 bytes as JSON, as stored)', () => {
  const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

  test('props of 65536 bytes as stored (the server\'s own included) are accepted; one byte more is 400 split_props_length, nothing posted', async () => {
    const { key, channelId } = await freshHook();
    expectOk(await postJson(server, key, { text: 'empty blob', props: { blob: '' } }));
    const overhead = bytes((await channelPosts(world.admin, channelId))[0].props);
    expectOk(await postJson(server, key, { text: 'at the limit', props: { blob: 'q'.repeat(65536 - overhead) } }));
    const posts = await channelPosts(world.admin, channelId);
    expect(posts).toHaveLength(2);
    expect(bytes(posts[posts.length - 1].props)).toBe(65536);
    const before = await msgCount(channelId);
    for (const blob of ['p'.repeat(65537 - overhead), 'é'.repeat(Math.ceil((65537 - overhead) / 2)), 'p'.repeat(760_001)]) {
      const res = await postJson(server, key, { text: 'big props', props: { blob } });
      expectAppError(res, 400, 'web.incoming_webhook.split_props_length.app_error', { notContaining: key });
    }
    expect(await msgCount(channelId)).toBe(before);
  });

  test('attachments count toward the bound', async () => {
    const { key, channelId } = await freshHook();
    const res = await postJson(server, key, { text: 'big attachment', attachments: [{ text: 'a'.repeat(70_000) }] });
    expectAppError(res, 400, 'web.incoming_webhook.split_props_length.app_error', { notContaining: key });
    expectOk(await postJson(server, key, { text: 'fits', attachments: [{ text: 'a'.repeat(60_000) }] }));
    expect(await msgCount(channelId)).toBe(1);
  });

  test('a long text is still split into posts that each carry the (small) props', async () => {
    const { key, channelId } = await freshHook();
    expectOk(await postJson(server, key, { text: 'y'.repeat(MAX + 10), props: { blob: '😀'.repeat(10_000) } }));
    const posts = await channelPosts(world.admin, channelId);
    expect(posts).toHaveLength(2);
    for (const p of posts) expect(codePoints(p.props.blob)).toBe(10_000);
  });
});

describe('all parts or none (docs/webhook-rules.md, rules 10-11)', () => {
  // A trigger makes the channel-counter update that follows the post inserts fail, inside the same transaction.
  async function failCounterUpdates(channelId: string): Promise<() => Promise<void>> {
    const knex = server.parley.db.knex;
    if (server.db.driver === 'sqlite') {
      await knex.raw(
        `CREATE TRIGGER parley_test_fail BEFORE UPDATE OF total_msg_count ON channels WHEN NEW.id = '${channelId}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
      );
    } else {
      await knex.raw(
        `CREATE TRIGGER parley_test_fail BEFORE UPDATE ON channels FOR EACH ROW BEGIN IF NEW.id = '${channelId}' AND NEW.total_msg_count <> OLD.total_msg_count THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; END IF; END`,
      );
    }
    return async () => {
      await knex.raw('DROP TRIGGER IF EXISTS parley_test_fail');
    };
  }

  test('a failure after the parts are inserted rolls every part back, and the answer is a 500 that leaks nothing', async () => {
    const { key, channelId } = await freshHook();
    const restore = await failCounterUpdates(channelId);
    let res;
    try {
      res = await postJson(server, key, { text: 'r'.repeat(3 * MAX) });
    } finally {
      await restore();
    }
    expectAppError(res, 500, 'api.context.internal.app_error', { notContaining: key });
    expect(res.text).not.toContain('injected');
    expect(res.text).not.toMatch(/trigger|sql|channels/i);
    expect(await channelPosts(world.admin, channelId)).toEqual([]);
    expect(await msgCount(channelId)).toBe(0);
    // The hook works again once the failure is gone.
    expectOk(await postJson(server, key, { text: 'r'.repeat(3 * MAX) }));
    expect(await channelPosts(world.admin, channelId)).toHaveLength(3);
  });
});
