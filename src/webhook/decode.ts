import busboy from 'busboy';
import { Readable } from 'node:stream';
import { AppError } from '../model';
import { MAX_JSON_DEPTH, nestingExceeds } from '../lib/json-depth';
import { mayHoldLoneSurrogates, wellFormedJson } from '../lib/well-formed';
import { parseMediaType } from './content-type';

/** The JSON fields a multipart request may carry as individual parts. */
export const MULTIPART_FIELDS = ['text', 'username', 'channel', 'icon_url', 'icon_emoji', 'type', 'root_id'] as const;

const KNOWN_FIELDS = ['text', 'channel', 'username', 'icon_url', 'icon_emoji', 'attachments', 'type', 'props', 'root_id', 'priority'];

const parseError = (detail: string) => AppError.badRequest('web.incoming_webhook.parse.app_error', 'Unable to parse incoming data.', detail);

/**
 * Decodes a webhook request body into the one JSON payload object, whatever encoding it came in (docs/webhook-rules.md,
 * rules 1-3): JSON; a form with the JSON in `payload`; multipart with a `payload` part or one part per
 * field; no Content-Type, where a body starting with `payload=` is the form convention and anything else JSON.
 */
export async function decodeWebhookBody(contentType: string | undefined, body: Buffer): Promise<Record<string, unknown>> {
  const media = parseMediaType(contentType);
  if (media.kind === 'malformed') {
    throw AppError.badRequest('web.incoming_webhook.media_type.app_error', 'Unable to parse the media type of the request.');
  }
  const text = body.toString('utf8');
  if (media.kind === 'none') return text.startsWith('payload=') ? fromPayloadConvention(text) : fromJson(text);
  if (media.type === 'application/x-www-form-urlencoded') return fromForm(text);
  if (media.type === 'multipart/form-data') return fromMultipart(contentType as string, body);
  // application/json and every other type: the body is JSON, as Mattermost reads it (text/plain senders exist).
  // A form-encoded body under such a type is a Content-Type mistake; the spec gives it the media-type error, whose
  // message says what to fix (docs/webhook-rules.md, rule 3: 400).
  if (text.startsWith('payload=')) {
    throw AppError.badRequest(
      'web.incoming_webhook.media_type.app_error',
      `The body is form-encoded (payload=...) but the Content-Type is ${media.type}; send it as application/x-www-form-urlencoded, or send the JSON alone.`,
    );
  }
  return fromJson(text);
}

/**
 * No Content-Type and a body starting with `payload=` (docs/webhook-rules.md, rule 2): the rest of the body is the
 * JSON, URL-decoded. The whole rest, not a form field: such senders rarely encode, and a raw "&" (as in "R&D")
 * must not cut the JSON short.
 */
function fromPayloadConvention(text: string): Record<string, unknown> {
  let json: string;
  try {
    json = decodeURIComponent(text.slice('payload='.length).replaceAll('+', ' '));
  } catch {
    throw parseError('The body starts with "payload=" but the rest is not URL-encoded correctly (a bare "%"?).');
  }
  return fromJson(json);
}

function fromForm(text: string): Record<string, unknown> {
  const payload = new URLSearchParams(text).get('payload');
  if (payload === null) throw parseError('The form has no "payload" field.');
  return fromJson(payload);
}

async function fromMultipart(contentType: string, body: Buffer): Promise<Record<string, unknown>> {
  const fields = new Map<string, string>();
  await new Promise<void>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, limits: { fieldSize: body.length + 1 } });
    } catch (err) {
      reject(parseError(`Malformed multipart request: ${(err as Error).message}`));
      return;
    }
    parser.on('field', (name, value) => {
      if (!fields.has(name)) fields.set(name, value);
    });
    // Webhooks cannot attach files: file parts are read and dropped. A form cut short inside a file part fails the
    // file stream too; without a listener that 'error' would be unhandled and take the process down.
    parser.on('file', (_name, stream) => {
      stream.on('error', () => undefined);
      stream.resume();
    });
    parser.on('error', (err: Error) => reject(parseError(`Malformed multipart request: ${err.message}`)));
    parser.on('close', () => resolve());
    Readable.from([body]).pipe(parser);
  });
  const payload = fields.get('payload');
  if (payload !== undefined) return fromJson(payload);
  const out: Record<string, unknown> = {};
  for (const name of MULTIPART_FIELDS) {
    const value = fields.get(name);
    if (value !== undefined) out[name] = value;
  }
  return blankTypeIsEmpty(out);
}

/**
 * Parses the JSON payload with Mattermost's leniencies: raw newlines and tabs inside strings (a common mistake of
 * shell scripts) are escaped and the parse retried; keys match case-insensitively; null members count as absent;
 * a top-level null is an empty payload.
 */
export function fromJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (first) {
    try {
      value = JSON.parse(escapeControlCharactersInStrings(text));
    } catch {
      throw parseError(`The payload is not valid JSON: ${(first as Error).message}`);
    }
  }
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw parseError('The payload must be a JSON object.');
  if (nestingExceeds(value)) throw parseError(`The payload nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.`);
  // Lone surrogates ("\ud800") become U+FFFD before anything measures the text (a split would miscount them).
  if (mayHoldLoneSurrogates(text)) value = wellFormedJson(value);
  return normaliseKeys(value as Record<string, unknown>);
}

function normaliseKeys(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    // Unknown fields are ignored anyway; assigning this one would replace the payload's prototype instead.
    if (key === '__proto__') continue;
    const known = KNOWN_FIELDS.find((f) => f === key) ?? KNOWN_FIELDS.find((f) => f === key.toLowerCase());
    const name = known ?? key;
    // An exact key wins over a differently-cased one; among the rest, the last one wins (Go's decoder).
    if (name !== key && Object.prototype.hasOwnProperty.call(raw, name)) continue;
    if (value === null && name !== 'attachments') {
      delete out[name];
      continue;
    }
    out[name] = value;
  }
  return blankTypeIsEmpty(out);
}

/** A blank `type` is an ordinary post (docs/webhook-rules.md, rule 5: only a non-blank type must start with custom_). */
function blankTypeIsEmpty(payload: Record<string, unknown>): Record<string, unknown> {
  if (typeof payload.type === 'string' && payload.type !== '' && payload.type.trim() === '') payload.type = '';
  return payload;
}

function escapeControlCharactersInStrings(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') {
        out += c + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === '"') inString = false;
      else if (c === '\n') {
        out += '\\n';
        continue;
      } else if (c === '\t') {
        out += '\\t';
        continue;
      } else if (c === '\r') {
        out += '\\r';
        continue;
      }
    } else if (c === '"') inString = true;
    out += c;
  }
  return out;
}
