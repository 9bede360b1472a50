// Real clients against POST /hooks/{key}: @slack/webhook (unchanged) and curl's exact wire formats
// (reference/real-clients.md), and the success answer of docs/webhook-rules.md rule 14.
import { expectAppError } from '../support/assertions';
import { IncomingWebhook } from '@slack/webhook';
import request from 'supertest';
import { createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import type { RawAnswer } from '../support/http';
import { createHook, lastPost, patchConfig, rawPost, uniqueName } from './hooks-support';

let server: TestServer;
let world: World;
let key: string;
let offTopicId: string;
let peer: Actor;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  offTopicId = (await world.admin.api.get(`/api/v4/teams/${world.teamId}/channels/name/off-topic`).expect(200)).body.id;
  key = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Clients' })).id;
  peer = await createUser(server, world.admin, { username: uniqueName('peer') });
});
afterAll(() => server.close());

const ID = /^[a-z0-9]{26}$/;

/** docs/webhook-rules.md rule 14: 200, Content-Type text/plain exactly, body "ok", X-Request-Id, X-Version-Id, Date. */
function expectOkAnswer(res: RawAnswer): void {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain');
  expect(res.text).toBe('ok');
  expect(res.headers['x-request-id']).toMatch(ID);
  expect(res.headers['x-version-id']).toEqual(expect.any(String));
  expect((res.headers['x-version-id'] as string).length).toBeGreaterThan(0);
  expect(Number.isNaN(Date.parse(res.headers.date as string))).toBe(false);
  expect(res.headers['content-length']).toBe('2');
}

describe('@slack/webhook IncomingWebhook', () => {
  test('send("string") resolves {text: "ok"} and posts the text', async () => {
    const hook = new IncomingWebhook(`${server.url}/hooks/${key}`);
    await expect(hook.send('plain string from slack')).resolves.toEqual({ text: 'ok' });
    const post = await lastPost(world.admin, world.townSquareId);
    expect(post.message).toBe('plain string from slack');
    expect(post.props.from_webhook).toBe('true');
  });

  test('send(full object) with attachments, username, icon_emoji and channel', async () => {
    await patchConfig(server, world.admin, { ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } });
    try {
      const hook = new IncomingWebhook(`${server.url}/hooks/${key}`);
      const result = await hook.send({
        text: 'Hello from @slack/webhook',
        username: 'ci-bot',
        icon_url: 'https://example.com/i.png',
        icon_emoji: ':rocket:',
        channel: 'off-topic',
        attachments: [
          {
            fallback: 'fb',
            color: '#36a64f',
            pretext: 'pre',
            author_name: 'a',
            title: 'T',
            title_link: 'https://e.com',
            text: 'att text',
            fields: [{ title: 'F', value: 'V', short: true }],
            footer: 'foot',
            ts: '1700000000',
          },
        ],
      });
      expect(result).toEqual({ text: 'ok' });
      const post = await lastPost(world.admin, offTopicId);
      expect(post.message).toBe('Hello from @slack/webhook');
      expect(post.type).toBe('slack_attachment');
      expect(post.props).toMatchObject({
        from_webhook: 'true',
        webhook_display_name: 'Clients',
        override_username: 'ci-bot',
        override_icon_url: 'https://example.com/i.png',
        override_icon_emoji: 'rocket',
      });
      expect(post.props.attachments).toEqual([
        expect.objectContaining({ fallback: 'fb', color: '#36a64f', text: 'att text', fields: [{ title: 'F', value: 'V', short: true }], ts: '1700000000' }),
      ]);
    } finally {
      await patchConfig(server, world.admin, { ServiceSettings: { EnablePostUsernameOverride: false, EnablePostIconOverride: false } });
    }
  });

  test('constructor defaults and Mattermost extras (props, type) pass through', async () => {
    const hook = new IncomingWebhook(`${server.url}/hooks/${key}`, { channel: `@${peer.username}` });
    await expect(hook.send({ text: 'with defaults', props: { card: 'c' }, type: 'custom_x' } as never)).resolves.toEqual({ text: 'ok' });
    const dm = (await world.admin.api.post('/api/v4/channels/direct', [world.admin.id, peer.id]).expect(201)).body.id;
    const post = await lastPost(peer, dm);
    expect(post).toMatchObject({ message: 'with defaults', type: 'custom_x' });
    expect(post.props.card).toBe('c');
  });

  test('a 400 rejects with statusCode 400 and the AppError body', async () => {
    const hook = new IncomingWebhook(`${server.url}/hooks/${key}`);
    const err = await hook.send({ text: '' }).then(
      () => undefined,
      (e: unknown) => e as { code: string; statusCode: number; body: string },
    );
    expect(err).toMatchObject({ code: 'slack_webhook_http_error', statusCode: 400 });
    expect(JSON.parse(err!.body).id).toBe('web.incoming_webhook.text.app_error');
  });

  test('an unknown hook rejects with statusCode 404; a locked channel with 403', async () => {
    const unknown = new IncomingWebhook(`${server.url}/hooks/abcdefghijklmnopqrstuvwxyz`);
    await expect(unknown.send('x')).rejects.toMatchObject({ code: 'slack_webhook_http_error', statusCode: 404 });
    const locked = await createHook(world.admin, { channel_id: world.townSquareId, channel_locked: true });
    const hook = new IncomingWebhook(`${server.url}/hooks/${locked.id}`);
    await expect(hook.send({ text: 'x', channel: 'off-topic' })).rejects.toMatchObject({ statusCode: 403 });
  });
});

describe('curl wire formats (raw bytes)', () => {
  test("curl -d 'payload={\"text\":\"hi\"}' (form, unencoded)", async () => {
    const res = await rawPost(server.url, `/hooks/${key}`, 'payload={"text":"hi"}', {
      'User-Agent': 'curl/7.88.1',
      Accept: '*/*',
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    expectOkAnswer(res);
    expect((await lastPost(world.admin, world.townSquareId)).message).toBe('hi');
  });

  test("curl --data-urlencode 'payload={\"text\":\"a+b & 100% c\"}'", async () => {
    const res = await rawPost(server.url, `/hooks/${key}`, 'payload=%7B%22text%22%3A%22a%2Bb+%26+100%25+c%22%7D', {
      'User-Agent': 'curl/7.88.1',
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    expectOkAnswer(res);
    expect((await lastPost(world.admin, world.townSquareId)).message).toBe('a+b & 100% c');
  });

  test("curl -d with a raw '&' and '%' breaks the form: 400, nothing posted", async () => {
    const before = await lastPost(world.admin, world.townSquareId);
    const res = await rawPost(server.url, `/hooks/${key}`, 'payload={"text":"a+b & 100% c"}', { 'Content-Type': 'application/x-www-form-urlencoded' });
    expectAppError(res, 400, undefined, { notContaining: key });
    expect((await lastPost(world.admin, world.townSquareId)).id).toBe(before.id);
  });

  test("curl -H 'Content-Type: application/json' -d '{\"text\":\"hi\"}'", async () => {
    expectOkAnswer(await rawPost(server.url, `/hooks/${key}`, '{"text":"json hi"}', { 'Content-Type': 'application/json' }));
    expect((await lastPost(world.admin, world.townSquareId)).message).toBe('json hi');
  });

  test("curl --data-binary @- with a trailing newline", async () => {
    expectOkAnswer(await rawPost(server.url, `/hooks/${key}`, '{"text":"from stdin"}\n', { 'Content-Type': 'application/json' }));
    expect((await lastPost(world.admin, world.townSquareId)).message).toBe('from stdin');
  });

  test("curl -F 'payload={\"text\":\"hi\"}' (multipart, curl's exact bytes)", async () => {
    const boundary = '------------------------4ca5de14849cb530';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\n\r\n{"text":"multipart hi"}\r\n--${boundary}--\r\n`;
    expectOkAnswer(await rawPost(server.url, `/hooks/${key}`, body, { 'Content-Type': `multipart/form-data; boundary=${boundary}` }));
    expect((await lastPost(world.admin, world.townSquareId)).message).toBe('multipart hi');
  });

  test("curl -F text=... -F channel=off-topic (multipart fields)", async () => {
    const boundary = '------------------------d74496d66958873e';
    const part = (n: string, v: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`;
    const body = `${part('text', 'fields via curl')}${part('channel', 'off-topic')}--${boundary}--\r\n`;
    expectOkAnswer(await rawPost(server.url, `/hooks/${key}`, body, { 'Content-Type': `multipart/form-data; boundary=${boundary}` }));
    expect((await lastPost(world.admin, offTopicId)).message).toBe('fields via curl');
  });

  test("curl -d '{\"text\":...}' without -H (form type, raw JSON body): 400", async () => {
    const res = await rawPost(server.url, `/hooks/${key}`, '{"text":"json but default content-type"}', { 'Content-Type': 'application/x-www-form-urlencoded' });
    expectAppError(res, 400, undefined, { notContaining: key });
  });
});

describe('supertest with raw bodies', () => {
  test('a form body through supertest', async () => {
    const res = await request(server.url)
      .post(`/hooks/${key}`)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('payload=' + encodeURIComponent(JSON.stringify({ text: 'supertest form', channel: 'off-topic' })));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.text).toBe('ok');
    expect((await lastPost(world.admin, offTopicId)).message).toBe('supertest form');
  });

  test('an error answer is an AppError whose request_id is the X-Request-Id header', async () => {
    const res = await request(server.url).post(`/hooks/${key}`).set('Content-Type', 'application/json').send('{"text":""}');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(Object.keys(res.body).sort()).toEqual(['detailed_error', 'id', 'message', 'request_id', 'status_code']);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(res.headers['x-version-id']).toBeTruthy();
  });

  test('only POST is a webhook: GET /hooks/{key} does not post', async () => {
    const before = await lastPost(world.admin, world.townSquareId);
    const res = await request(server.url).get(`/hooks/${key}`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.text).not.toContain(key);
    expect((await lastPost(world.admin, world.townSquareId)).id).toBe(before.id);
  });
});

describe('concurrency', () => {
  test('20 parallel posts are all acknowledged and all stored', async () => {
    const channel = (await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: uniqueName('burst'), display_name: 'burst', type: 'O' }).expect(201)).body;
    const hook = await createHook(world.admin, { channel_id: channel.id });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => rawPost(server.url, `/hooks/${hook.id}`, JSON.stringify({ text: `burst ${i}` }), { 'Content-Type': 'application/json' })),
    );
    for (const r of results) expectOkAnswer(r);
    const list = await world.admin.api.get(`/api/v4/channels/${channel.id}/posts?per_page=100`).expect(200);
    const messages = (list.body.order as string[]).map((id) => list.body.posts[id].message).sort();
    expect(messages).toEqual(Array.from({ length: 20 }, (_, i) => `burst ${i}`).sort());
    const fresh = await world.admin.api.get(`/api/v4/channels/${channel.id}`).expect(200);
    expect(fresh.body.total_msg_count).toBe(20);
  });

  test('10 parallel posts to @user whose direct channel does not exist yet: one channel, 10 posts', async () => {
    const target = await createUser(server, world.admin, { username: uniqueName('burstdm') });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => rawPost(server.url, `/hooks/${key}`, JSON.stringify({ text: `dm ${i}`, channel: `@${target.username}` }), { 'Content-Type': 'application/json' })),
    );
    for (const r of results) expectOkAnswer(r);
    const dm = (await world.admin.api.post('/api/v4/channels/direct', [world.admin.id, target.id]).expect(201)).body.id;
    const list = await target.api.get(`/api/v4/channels/${dm}/posts?per_page=100`).expect(200);
    expect(list.body.order).toHaveLength(10);
    const member = await target.api.get(`/api/v4/channels/${dm}/members/${target.id}`).expect(200);
    expect(member.body.mention_count).toBe(10);
  });
});
