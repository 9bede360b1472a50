// The pure rules of outgoing webhooks, table-driven: the first word (Go's strings.Fields white space), which hooks a
// post fires, the request body for a content type, reading an integration's answer, and what is retried when.
import { judge, retryDelay } from '../../src/app/outgoing-delivery';
import { firstWord, matchHook } from '../../src/app/outgoing-match';
import { encodePayload, parseReply } from '../../src/app/outgoing-request';
import type { OutgoingWebhook } from '../../src/model';

const hook = (fields: Partial<OutgoingWebhook>): OutgoingWebhook => ({
  id: 'h'.repeat(26), token: 't'.repeat(26), create_at: 1, update_at: 1, delete_at: 0, creator_id: 'u'.repeat(26), channel_id: '', team_id: 'x'.repeat(26),
  trigger_words: [], trigger_when: 0, callback_urls: ['https://e.com'], display_name: '', description: '', content_type: '', username: '', icon_url: '', ...fields,
});
const open = { id: 'c'.repeat(26), type: 'O' as const };
const priv = { id: 'p'.repeat(26), type: 'P' as const };
const dm = { id: 'd'.repeat(26), type: 'D' as const };

test.each([
  ['deploy api', 'deploy'],
  ['  deploy', 'deploy'],
  ['deploy\nnow', 'deploy'],
  ['deploy\u00a0now', 'deploy'],
  ['deploy\u0085now', 'deploy'],
  ['deploy\u3000now', 'deploy'],
  // U+FEFF is not white space to Go (it is to JavaScript's \s).
  ['de\ufeffploy now', 'de\ufeffploy'],
  ['', ''],
  [' \t\n', ''],
  ['😀 hi', '😀'],
])('firstWord(%j) is %j', (message, want) => {
  expect(firstWord(message)).toBe(want);
});

test('firstWord is linear: a long run of spaces or of one word', () => {
  expect(firstWord(`${' '.repeat(200_000)}x y`)).toBe('x');
  expect(firstWord('a'.repeat(200_000)).length).toBe(200_000);
});

test.each([
  ['team-wide, exact', hook({ trigger_words: ['deploy'] }), open, 'deploy', 'deploy'],
  ['team-wide, exact, longer word', hook({ trigger_words: ['deploy'] }), open, 'deploying', undefined],
  ['team-wide, case differs', hook({ trigger_words: ['deploy'] }), open, 'Deploy', undefined],
  ['team-wide, starts with', hook({ trigger_words: ['dep', 'x'], trigger_when: 1 }), open, 'deploying', 'dep'],
  ['team-wide in a private channel', hook({ trigger_words: ['deploy'] }), priv, 'deploy', undefined],
  ['team-wide in a DM', hook({ trigger_words: ['deploy'] }), dm, 'deploy', undefined],
  ['bound, no words, any post', hook({ channel_id: open.id }), open, '', ''],
  ['bound, no words, another channel', hook({ channel_id: open.id }), priv, 'x', undefined],
  ['bound to a private channel, no words', hook({ channel_id: priv.id }), priv, 'x', ''],
  ['bound to a private channel, words', hook({ channel_id: priv.id, trigger_words: ['go'] }), priv, 'go', 'go'],
  ['bound, words, no first word (a file-only post)', hook({ channel_id: open.id, trigger_words: ['go'] }), open, '', undefined],
])('%s', (_, h, channel, word, want) => {
  expect(matchHook(h, channel, word)?.triggerWord).toBe(want);
});

const payload = { token: 'tok', team_id: 'team', team_domain: 'dom', channel_id: 'ch', channel_name: 'town-square', timestamp: 1_700_000_000_123, user_id: 'u', user_name: 'alice', post_id: 'p', text: 'a b&c=d', trigger_word: 'a', file_ids: 'f1,f2' };

test.each([
  ['application/json', 'application/json', JSON.stringify(payload)],
  ['', 'application/x-www-form-urlencoded', 'channel_id=ch&channel_name=town-square&file_ids=f1%2Cf2&post_id=p&team_domain=dom&team_id=team&text=a+b%26c%3Dd&timestamp=1700000000&token=tok&trigger_word=a&user_id=u&user_name=alice'],
  ['application/json; charset=utf-8', 'application/x-www-form-urlencoded', undefined],
  ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', undefined],
])('content_type %j sends %s', (contentType, want, body) => {
  const encoded = encodePayload(payload, contentType);
  expect(encoded.contentType).toBe(want);
  if (body !== undefined) expect(encoded.body).toBe(body);
});

test.each([
  ['', undefined],
  ['   ', undefined],
  ['{}', undefined],
  ['{"text": null}', undefined],
  ['{"text": ""}', undefined],
  ['not json', { invalid: 'the answer is not JSON' }],
  ['[1]', { invalid: 'the answer is not a JSON object' }],
  ['{"text": 5}', { invalid: "the answer's text is not a string" }],
  ['{"text": "x", "props": []}', { invalid: "the answer's props is not an object" }],
  ['{"text": "hi"}', { comment: false, text: 'hi' }],
  ['{"text": "hi", "response_type": "comment"}', { comment: true, text: 'hi' }],
  ['{"attachments": [{"text": "a"}]}', { comment: false, text: '' }],
])('answer %j', (body, want) => {
  const got = parseReply(Buffer.from(body));
  if (want === undefined || 'invalid' in want) expect(got).toEqual(want);
  else expect(got && 'payload' in got ? { comment: got.comment, text: got.payload.text } : got).toEqual(want);
});

test.each([
  [{ ok: false as const, kind: 'timeout' as const, message: 'slow' }, 0, true],
  [{ ok: false as const, kind: 'connect' as const, message: 'ECONNREFUSED' }, 0, true],
  [{ ok: false as const, kind: 'refused' as const, message: 'address forbidden' }, 0, false],
  [{ ok: false as const, kind: 'invalid_url' as const, message: 'bad' }, 0, false],
  [{ ok: true as const, status: 500, headers: {}, body: Buffer.alloc(0), truncated: false }, 500, true],
  [{ ok: true as const, status: 503, headers: {}, body: Buffer.alloc(0), truncated: false }, 503, true],
  [{ ok: true as const, status: 404, headers: {}, body: Buffer.alloc(0), truncated: false }, 404, false],
  [{ ok: true as const, status: 200, headers: {}, body: Buffer.alloc(0), truncated: false }, 200, false],
])('judge %j', (result, status, retry) => {
  expect(judge(result)).toMatchObject({ statusCode: status, retry });
});

test('retry delays: about 1 s, doubling, within ±25 %', () => {
  expect([1, 2, 3, 4].map((n) => retryDelay(n, 1000, () => 0.5))).toEqual([1000, 2000, 4000, 8000]);
  expect(retryDelay(1, 1000, () => 0)).toBe(750);
  expect(retryDelay(4, 1000, () => 1)).toBe(10000);
});
