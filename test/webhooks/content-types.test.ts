// The content-type matrix of POST /hooks/{key}: every case of Mattermost's own test (reference §1.3), adapted to
// docs/webhook-rules.md where Parley decides differently (rules 1-3). Each success is read back.
import { expectAppError } from '../support/assertions';
import { createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import type { RawAnswer } from '../support/http';
import { channelPosts, createHook, rawPost } from './hooks-support';

let server: TestServer;
let world: World;
let hookKey: string;
let lockedKey: string;
let offTopicId: string;
let dmPeer: Actor;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  offTopicId = (await world.admin.api.get(`/api/v4/teams/${world.teamId}/channels/name/off-topic`).expect(200)).body.id;
  hookKey = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Matrix' })).id;
  lockedKey = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Locked', channel_locked: true })).id;
  dmPeer = await createUser(server, world.admin, { username: `matrixpeer${process.pid}` });
});
afterAll(() => server.close());

const BOUNDARY = '----parleyBoundary7MA4YWxkTrZu0gW';

/** A multipart/form-data body with one text part per entry (curl -F name=value). */
function multipart(parts: Array<[string, string]>, boundary = BOUNDARY, file?: { name: string; filename: string; content: string }): string {
  let out = '';
  for (const [name, value] of parts) out += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  if (file) {
    out += `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: text/plain\r\n\r\n${file.content}\r\n`;
  }
  return `${out}--${boundary}--\r\n`;
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

// Mattermost's "text with escaped quotes plus a raw newline and tab inside the string".
const RAW_NL_TAB_JSON = '{"text": "this is a test\nwith a \\"quoted\\" word\tand a tab"}';
const RAW_NL_TAB_MESSAGE = 'this is a test\nwith a "quoted" word\tand a tab';
const LONG_8200 = 'x'.repeat(8200);

type Target = 'town' | 'off' | 'dm';

interface Row {
  name: string;
  /** null: no Content-Type header at all. */
  contentType: string | null;
  body: string;
  hook?: 'main' | 'locked' | 'unknown' | 'abc123';
  status: number;
  errorId?: string;
  /** For 200: where the post lands and what it holds. */
  stored?: { in?: Target; message: string; type?: string; displayName?: string };
}

const rows: Row[] = [
  // ---- reference §1.3 (Mattermost's TestIncomingWebhook) --------------------------------------------------------
  { name: 'urlencoded payload={"text": "test text"}', contentType: FORM, body: 'payload={"text": "test text"}', status: 200, stored: { message: 'test text' } },
  { name: 'urlencoded, empty text', contentType: FORM, body: 'payload={"text": ""}', status: 400, errorId: 'web.incoming_webhook.text.app_error' },
  { name: 'urlencoded, channel "junk"', contentType: FORM, body: 'payload={"text": "x", "channel": "junk"}', status: 404, errorId: 'web.incoming_webhook.channel.app_error' },
  // docs/webhook-rules.md rule 4: an unknown key is 404 (Mattermost answers 400).
  { name: 'urlencoded, hook id abc123', contentType: FORM, body: 'payload={"text": "test text"}', hook: 'abc123', status: 404, errorId: 'web.incoming_webhook.invalid.app_error' },
  { name: 'urlencoded, unknown 26-character hook id', contentType: FORM, body: 'payload={"text": "test text"}', hook: 'unknown', status: 404, errorId: 'web.incoming_webhook.invalid.app_error' },
  { name: 'application/json {"text":"this is a test"}', contentType: JSON_TYPE, body: '{"text":"this is a test"}', status: 200, stored: { message: 'this is a test' } },
  { name: 'application/json, escaped quotes plus raw newline and tab', contentType: JSON_TYPE, body: RAW_NL_TAB_JSON, status: 200, stored: { message: RAW_NL_TAB_MESSAGE } },
  { name: 'JSON, channel by name', contentType: JSON_TYPE, body: '{"text":"to off-topic","channel":"off-topic"}', status: 200, stored: { in: 'off', message: 'to off-topic' } },
  { name: 'JSON, channel by #name', contentType: JSON_TYPE, body: '{"text":"to #off-topic","channel":"#off-topic"}', status: 200, stored: { in: 'off', message: 'to #off-topic' } },
  { name: 'JSON, channel @username', contentType: JSON_TYPE, body: `{"text":"to a DM","channel":"@matrixpeer${process.pid}"}`, status: 200, stored: { in: 'dm', message: 'to a DM' } },
  { name: 'urlencoded, raw newline and tab in the payload', contentType: FORM, body: `payload=${RAW_NL_TAB_JSON}`, status: 200, stored: { message: RAW_NL_TAB_MESSAGE } },
  { name: 'AppLicaTion/x-www-Form-urlencoded', contentType: 'AppLicaTion/x-www-Form-urlencoded', body: 'payload={"text":"mixed case type"}', status: 200, stored: { message: 'mixed case type' } },
  { name: 'urlencoded;charset=utf-8', contentType: `${FORM};charset=utf-8`, body: 'payload={"text":"charset no space"}', status: 200, stored: { message: 'charset no space' } },
  { name: 'urlencoded; charset=utf-8', contentType: `${FORM}; charset=utf-8`, body: 'payload={"text":"charset with space"}', status: 200, stored: { message: 'charset with space' } },
  { name: 'application/x-www-form-urlencoded wrongtext', contentType: `${FORM} wrongtext`, body: 'payload={"text":"x"}', status: 400, errorId: 'web.incoming_webhook.media_type.app_error' },
  { name: 'application/json, 8200-character text (one post)', contentType: JSON_TYPE, body: JSON.stringify({ text: LONG_8200 }), status: 200, stored: { message: LONG_8200 } },
  { name: 'urlencoded type but a raw JSON body', contentType: FORM, body: '{"text":"raw json"}', status: 400, errorId: 'web.incoming_webhook.parse.app_error' },
  { name: 'application/json but a payload= body', contentType: JSON_TYPE, body: 'payload={"text":"x"}', status: 400, errorId: 'web.incoming_webhook.media_type.app_error' },
  {
    name: 'multipart with username and text parts',
    contentType: MULTIPART,
    body: multipart([['username', 'webhook-bot'], ['text', 'multipart fields']]),
    status: 200,
    stored: { message: 'multipart fields' },
  },
  { name: 'mimetype/wrong with a payload= body', contentType: 'mimetype/wrong', body: 'payload={"text":"x"}', status: 400, errorId: 'web.incoming_webhook.media_type.app_error' },
  // docs/webhook-rules.md rule 2: any other media type is parsed as JSON.
  { name: 'mimetype/wrong with a JSON body', contentType: 'mimetype/wrong', body: '{"text":"wrong type, json body"}', status: 200, stored: { message: 'wrong type, json body' } },
  { name: 'no Content-Type, JSON body', contentType: null, body: '{"text":"no content type"}', status: 200, stored: { message: 'no content type' } },
  {
    name: 'attachments, one with an 8200-character text',
    contentType: JSON_TYPE,
    body: JSON.stringify({ attachments: [{ fallback: 'fb', text: 'short' }, { fallback: 'long', text: LONG_8200 }] }),
    status: 200,
    stored: { message: '', type: 'slack_attachment' },
  },
  { name: 'locked hook, no channel', contentType: JSON_TYPE, body: '{"text":"locked default"}', hook: 'locked', status: 200, stored: { message: 'locked default', displayName: 'Locked' } },
  { name: 'locked hook, its own channel by name', contentType: JSON_TYPE, body: '{"text":"locked own","channel":"town-square"}', hook: 'locked', status: 200, stored: { message: 'locked own', displayName: 'Locked' } },
  { name: 'locked hook, another channel', contentType: JSON_TYPE, body: '{"text":"x","channel":"off-topic"}', hook: 'locked', status: 403, errorId: 'web.incoming_webhook.channel_locked.app_error' },

  // ---- docs/webhook-rules.md rules 1-3 ---------------------------------------------------------------------------
  { name: 'no Content-Type, payload= body', contentType: null, body: 'payload={"text":"no type, form convention"}', status: 200, stored: { message: 'no type, form convention' } },
  {
    name: 'no Content-Type, URL-encoded payload= body',
    contentType: null,
    body: `payload=${encodeURIComponent('{"text":"a+b & 100% c"}')}`,
    status: 200,
    stored: { message: 'a+b & 100% c' },
  },
  { name: 'no Content-Type, payload= with a raw "&" (the rest of the body is the JSON)', contentType: null, body: 'payload={"text":"R&D update"}', status: 200, stored: { message: 'R&D update' } },
  { name: 'form without a payload field', contentType: FORM, body: 'text=hello&channel=town-square', status: 400, errorId: 'web.incoming_webhook.parse.app_error' },
  { name: 'form: other fields are ignored', contentType: FORM, body: 'foo=bar&payload={"text":"among others"}&x=y', status: 200, stored: { message: 'among others' } },
  { name: 'empty urlencoded body', contentType: FORM, body: '', status: 400 },
  { name: 'empty JSON body', contentType: JSON_TYPE, body: '', status: 400 },
  { name: 'malformed Content-Type: no subtype', contentType: 'application', body: '{"text":"x"}', status: 400, errorId: 'web.incoming_webhook.media_type.app_error' },
  { name: 'malformed Content-Type: bare slash', contentType: '/json', body: '{"text":"x"}', status: 400, errorId: 'web.incoming_webhook.media_type.app_error' },
  { name: 'malformed Content-Type: two slashes', contentType: 'application/json/x', body: '{"text":"x"}', status: 400, errorId: 'web.incoming_webhook.media_type.app_error' },
  { name: 'malformed Content-Type: space in the type', contentType: 'application /json', body: '{"text":"x"}', status: 400, errorId: 'web.incoming_webhook.media_type.app_error' },
  {
    name: 'multipart with a payload part',
    contentType: MULTIPART,
    body: multipart([['payload', '{"text":"multipart payload","channel":"off-topic"}']]),
    status: 200,
    stored: { in: 'off', message: 'multipart payload' },
  },
  {
    name: 'multipart with text, username and channel parts',
    contentType: MULTIPART,
    body: multipart([['text', 'multipart to off-topic'], ['username', 'bot'], ['channel', 'off-topic']]),
    status: 200,
    stored: { in: 'off', message: 'multipart to off-topic' },
  },
  {
    name: 'multipart with a type part',
    contentType: MULTIPART,
    body: multipart([['text', 'typed multipart'], ['type', 'custom_multi']]),
    status: 200,
    stored: { message: 'typed multipart', type: 'custom_multi' },
  },
  {
    name: 'multipart: a file part is ignored',
    contentType: MULTIPART,
    body: multipart([['text', 'with a file']], BOUNDARY, { name: 'file', filename: 'a.txt', content: 'file content' }),
    status: 200,
    stored: { message: 'with a file' },
  },
  { name: 'multipart without text', contentType: MULTIPART, body: multipart([['username', 'bot']]), status: 400, errorId: 'web.incoming_webhook.text.app_error' },
  { name: 'multipart without a boundary', contentType: 'multipart/form-data', body: multipart([['text', 'x']]), status: 400 },
  {
    name: 'Multipart/Form-Data; Boundary=… (case-insensitive type and parameter)',
    contentType: `Multipart/Form-Data; Boundary=${BOUNDARY}`,
    body: multipart([['text', 'multipart mixed case']]),
    status: 200,
    stored: { message: 'multipart mixed case' },
  },
  { name: 'text/plain with a JSON body', contentType: 'text/plain', body: '{"text":"text plain json"}', status: 200, stored: { message: 'text plain json' } },
  { name: 'text/plain; charset=utf-8 with a JSON body', contentType: 'text/plain; charset=utf-8', body: '{"text":"text plain charset"}', status: 200, stored: { message: 'text plain charset' } },
  { name: 'APPLICATION/JSON; Charset=UTF-8', contentType: 'APPLICATION/JSON; Charset=UTF-8', body: '{"text":"upper json"}', status: 200, stored: { message: 'upper json' } },
  { name: 'application/json with an odd parameter', contentType: 'application/json; foo', body: '{"text":"odd parameter"}', status: 200, stored: { message: 'odd parameter' } },
  { name: 'APPLICATION/X-WWW-FORM-URLENCODED; CHARSET=UTF-8', contentType: `${FORM.toUpperCase()}; CHARSET=UTF-8`, body: 'payload={"text":"upper form"}', status: 200, stored: { message: 'upper form' } },
  { name: 'JSON: unknown keys are ignored (Slack v7 adds "timeout")', contentType: JSON_TYPE, body: '{"timeout":0,"text":"extra keys","blocks":[]}', status: 200, stored: { message: 'extra keys' } },
  { name: 'JSON: keys match case-insensitively', contentType: JSON_TYPE, body: '{"Text":"capital key"}', status: 200, stored: { message: 'capital key' } },
  { name: 'JSON: a top-level array', contentType: JSON_TYPE, body: '[{"text":"x"}]', status: 400 },
  { name: 'JSON: text is a number', contentType: JSON_TYPE, body: '{"text":5}', status: 400, errorId: 'api.context.invalid_param.app_error' },
  { name: 'JSON: not JSON at all', contentType: JSON_TYPE, body: 'hello', status: 400, errorId: 'web.incoming_webhook.parse.app_error' },
  { name: 'multipart type part "foo"', contentType: MULTIPART, body: multipart([['text', 'x'], ['type', 'foo']]), status: 400, errorId: 'api.context.invalid_param.app_error' },
];

function keyFor(row: Row): string {
  switch (row.hook) {
    case 'locked':
      return lockedKey;
    case 'unknown':
      return 'abcdefghijklmnopqrstuvwxyz';
    case 'abc123':
      return 'abc123';
    default:
      return hookKey;
  }
}

async function dmChannelId(): Promise<string> {
  const res = await world.admin.api.post('/api/v4/channels/direct', [world.admin.id, dmPeer.id]).expect(201);
  return res.body.id;
}

test.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
  const headers: Record<string, string> = {};
  if (row.contentType !== null) headers['Content-Type'] = row.contentType;
  const key = keyFor(row);
  const res: RawAnswer = await rawPost(server.url, `/hooks/${key}`, row.body, headers);
  if (row.status !== 200) {
    expectAppError(res, row.status, row.errorId, { notContaining: key });
    return;
  }
  expect({ status: res.status, body: res.text, json: res.json }).toEqual({ status: 200, body: 'ok', json: undefined });
  expect(res.headers['content-type']).toBe('text/plain');
  const stored = row.stored!;
  const channelId = stored.in === 'off' ? offTopicId : stored.in === 'dm' ? await dmChannelId() : world.townSquareId;
  const posts = await channelPosts(world.admin, channelId, 5);
  const post = posts[posts.length - 1];
  expect(post.message).toBe(stored.message);
  expect(post.type).toBe(stored.type ?? '');
  expect(post.user_id).toBe(world.admin.id);
  expect(post.props.from_webhook).toBe('true');
  expect(post.props.webhook_display_name).toBe(stored.displayName ?? 'Matrix');
});

test('the matrix covers every row of reference §1.3 that applies to Parley', () => {
  // Guards against rows being dropped: 26 reference rows (including the 403/locked ones) + the rows of docs/webhook-rules.md.
  expect(rows.length).toBeGreaterThanOrEqual(50);
  expect(rows.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(30);
});
