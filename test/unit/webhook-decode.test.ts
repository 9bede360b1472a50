// Decoding a webhook body into one payload object, whatever the encoding (docs/webhook-rules.md, rules 1-3).
import { AppError } from '../../src/model';
import { parseMediaType } from '../../src/webhook/content-type';
import { decodeWebhookBody, fromJson } from '../../src/webhook/decode';

const decode = (contentType: string | undefined, body: string) => decodeWebhookBody(contentType, Buffer.from(body, 'utf8'));

async function decodeError(contentType: string | undefined, body: string): Promise<AppError> {
  try {
    await decode(contentType, body);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the decode to fail');
}

function multipart(parts: Array<[string, string]>, boundary = 'XyZ'): string {
  return parts.map(([n, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`).join('') + `--${boundary}--\r\n`;
}

describe('parseMediaType', () => {
  test.each<[string | undefined, ReturnType<typeof parseMediaType>]>([
    [undefined, { kind: 'none' }],
    ['', { kind: 'none' }],
    ['   ', { kind: 'none' }],
    ['application/json', { kind: 'type', type: 'application/json' }],
    ['AppLicaTion/JSON', { kind: 'type', type: 'application/json' }],
    ['application/x-www-form-urlencoded;charset=utf-8', { kind: 'type', type: 'application/x-www-form-urlencoded' }],
    [' text/plain ; charset=UTF-8', { kind: 'type', type: 'text/plain' }],
    ['mimetype/wrong', { kind: 'type', type: 'mimetype/wrong' }],
    ['application/x-www-form-urlencoded wrongtext', { kind: 'malformed' }],
    ['application', { kind: 'malformed' }],
    ['/json', { kind: 'malformed' }],
    ['application/', { kind: 'malformed' }],
    ['application/json/x', { kind: 'malformed' }],
    ['appli cation/json', { kind: 'malformed' }],
  ])('%p', (header, expected) => {
    expect(parseMediaType(header)).toEqual(expected);
  });
});

describe('decodeWebhookBody', () => {
  test.each<[string, string | undefined, string, Record<string, unknown>]>([
    ['JSON', 'application/json', '{"text":"hi"}', { text: 'hi' }],
    ['JSON with a charset', 'application/json; charset=utf-8', '{"text":"hi"}', { text: 'hi' }],
    ['text/plain is JSON', 'text/plain', '{"text":"hi"}', { text: 'hi' }],
    ['an unknown type is JSON', 'mimetype/wrong', '{"text":"hi"}', { text: 'hi' }],
    ['no Content-Type, JSON', undefined, '{"text":"hi"}', { text: 'hi' }],
    ['no Content-Type, payload=', undefined, 'payload={"text":"hi"}', { text: 'hi' }],
    ['no Content-Type, URL-encoded payload=', undefined, 'payload=%7B%22text%22%3A%22a%2Bb+%26+100%25+c%22%7D', { text: 'a+b & 100% c' }],
    ['no Content-Type, payload= with a raw "&": the whole rest is the JSON', undefined, 'payload={"text":"R&D"}', { text: 'R&D' }],
    ['no Content-Type, payload=: + is a space', undefined, 'payload={"text":"a+b"}', { text: 'a b' }],
    ['blank type is an empty type', 'application/json', '{"text":"x","type":"  "}', { text: 'x', type: '' }],
    ['form', 'application/x-www-form-urlencoded', 'payload={"text":"hi"}', { text: 'hi' }],
    ['form: + is a space', 'application/x-www-form-urlencoded', 'payload={"text":"a+b"}', { text: 'a b' }],
    ['form: other fields ignored', 'application/x-www-form-urlencoded', 'a=1&payload={"text":"hi"}&text=no', { text: 'hi' }],
    ['form, upper-case type', 'APPLICATION/X-WWW-FORM-URLENCODED', 'payload={"text":"hi"}', { text: 'hi' }],
    ['multipart payload part', 'multipart/form-data; boundary=XyZ', multipart([['payload', '{"text":"hi","channel":"c"}']]), { text: 'hi', channel: 'c' }],
    [
      'multipart field parts',
      'multipart/form-data; boundary=XyZ',
      multipart([['text', 'hi'], ['username', 'u'], ['channel', '#c'], ['icon_url', 'http://i'], ['icon_emoji', ':e:'], ['type', 'custom_t'], ['other', 'ignored']]),
      { text: 'hi', username: 'u', channel: '#c', icon_url: 'http://i', icon_emoji: ':e:', type: 'custom_t' },
    ],
    ['multipart, quoted boundary', 'multipart/form-data; boundary="XyZ"', multipart([['text', 'quoted']]), { text: 'quoted' }],
  ])('%s', async (_name, contentType, body, expected) => {
    expect(await decode(contentType, body)).toEqual(expected);
  });

  test.each<[string, string | undefined, string, string]>([
    ['malformed Content-Type', 'application/x-www-form-urlencoded wrongtext', 'payload={"text":"x"}', 'web.incoming_webhook.media_type.app_error'],
    ['JSON type with a payload= body', 'application/json', 'payload={"text":"x"}', 'web.incoming_webhook.media_type.app_error'],
    ['unknown type with a payload= body', 'mimetype/wrong', 'payload={"text":"x"}', 'web.incoming_webhook.media_type.app_error'],
    ['form without payload', 'application/x-www-form-urlencoded', 'text=x', 'web.incoming_webhook.parse.app_error'],
    ['form with a raw JSON body', 'application/x-www-form-urlencoded', '{"text":"x"}', 'web.incoming_webhook.parse.app_error'],
    ['form with broken JSON (curl -d with &)', 'application/x-www-form-urlencoded', 'payload={"text":"a+b & 100% c"}', 'web.incoming_webhook.parse.app_error'],
    ['empty body', 'application/json', '', 'web.incoming_webhook.parse.app_error'],
    ['no Content-Type, empty body', undefined, '', 'web.incoming_webhook.parse.app_error'],
    ['no Content-Type, payload= with a bare "%"', undefined, 'payload={"text":"100% done"}', 'web.incoming_webhook.parse.app_error'],
    ['a JSON array', 'application/json', '[]', 'web.incoming_webhook.parse.app_error'],
    ['a JSON string', 'application/json', '"text"', 'web.incoming_webhook.parse.app_error'],
    ['multipart without boundary', 'multipart/form-data', multipart([['text', 'x']]), 'web.incoming_webhook.parse.app_error'],
    ['multipart with a broken payload part', 'multipart/form-data; boundary=XyZ', multipart([['payload', '{nope']]), 'web.incoming_webhook.parse.app_error'],
  ])('%s → 400 %s', async (_name, contentType, body, id) => {
    const err = await decodeError(contentType, body);
    expect(err.statusCode).toBe(400);
    expect(err.id).toBe(id);
  });
});

describe('fromJson (Mattermost leniencies)', () => {
  test('raw newlines and tabs inside strings are repaired', () => {
    expect(fromJson('{"text":"a\nb\tc","username":"u"}')).toEqual({ text: 'a\nb\tc', username: 'u' });
  });

  test('keys match case-insensitively; an exact key wins; otherwise the last one wins', () => {
    expect(fromJson('{"Text":"a"}')).toEqual({ text: 'a' });
    expect(fromJson('{"text":"exact","TEXT":"other"}')).toEqual({ text: 'exact' });
    expect(fromJson('{"TEXT":"other","text":"exact"}')).toEqual({ text: 'exact' });
    expect(fromJson('{"Text":"first","TEXT":"last"}')).toEqual({ text: 'last' });
  });

  test('null members are absent, but null attachments are kept for the attachment rules', () => {
    expect(fromJson('{"text":"a","channel":null,"attachments":null}')).toEqual({ text: 'a', attachments: null });
  });

  test('a top-level null is an empty payload', () => {
    expect(fromJson('null')).toEqual({});
  });

  test('unknown keys are kept (the schema ignores them)', () => {
    expect(fromJson('{"text":"a","timeout":0}')).toEqual({ text: 'a', timeout: 0 });
  });
});
