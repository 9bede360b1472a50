// The request stage between the session and the handler: the parameters and the body, read and checked against
// the spec. The API (src/http/api.ts) and the mock (src/tools/mock.ts) both run it, so the mock answers a bad
// request with the server's AppErrors.
import type { IncomingMessage } from 'node:http';
import { AppError } from '../model';
import { parseJsonBody, readBody } from './body';
import type { OperationValidators } from './validation';

export const routeNotFound = (): AppError => AppError.notFound('api.context.404.app_error', 'Sorry, we could not find the page.');
export const methodNotAllowed = (): AppError => new AppError('api.context.405.app_error', 'Method not allowed.', 405);
/** Express could not decode a path parameter (a malformed %-escape): the URL itself is bad. */
export const undecodableParam = (): AppError => AppError.badRequest('api.context.invalid_url_param.app_error', 'Invalid URL parameter: a malformed %-escape.');

const BODILESS = new Set(['GET', 'HEAD']);

/** The media type of a Content-Type header, lower-case, without parameters ('' when there is none). */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** A query string as an object: a name given once is a string, a name repeated an array. */
export function queryObject(search: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (search === '') return out;
  for (const [key, value] of new URLSearchParams(search)) {
    const seen = out[key];
    out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

export interface CheckedInput {
  /** The query, its typed parameters converted (page=2 is a number). */
  query: Record<string, unknown>;
  /** The parsed JSON body; undefined when none was sent, and for a streamed (multipart) operation. */
  body: unknown;
  /** The operation takes multipart/form-data: its body is left unread for its handler to stream. */
  streamed: boolean;
}

/**
 * Reads the body, then checks the parameters and the body against the spec: at most `maxBodyBytes` (413;
 * MaximumPayloadSizeBytes, also where the operation takes no body), JSON only (415 for another declared media type),
 * parsed with the depth check, present when required, then the path parameters, the query (converted) and the body
 * in one validation of the operation.
 */
export async function readCheckedInput(
  req: IncomingMessage,
  check: OperationValidators,
  params: Record<string, string>,
  search: string,
  maxBodyBytes: number,
): Promise<CheckedInput> {
  // A multipart/form-data operation (UploadFile) streams its body itself: it is not read here, and
  // MaximumPayloadSizeBytes does not apply to it (its handler applies FileSettings.MaxFileSize).
  const streamed = check.bodyTypes.includes('multipart/form-data');
  let body: unknown;
  if (!BODILESS.has(req.method ?? 'GET') && !streamed) {
    const raw = await readBody(req, maxBodyBytes);
    if (raw.length > 0 && check.bodyTypes.length > 0) {
      const type = mediaType(req.headers['content-type']);
      // JSON only, and only when it says so (or says nothing): a cross-site form (text/plain, urlencoded,
      // multipart) can carry a browser's cookies but never makes a JSON request without a preflight.
      if (type !== '' && type !== 'application/json' && !type.endsWith('+json')) {
        throw new AppError('api.context.invalid_body_param.app_error', `Unsupported request content type "${type}": send application/json.`, 415);
      }
      body = parseJsonBody(raw);
    }
  }
  if (body === undefined && check.bodyRequired && !streamed) throw AppError.badRequest('api.context.invalid_body_param.app_error', 'The request body is missing.');
  const checked = check.request({ params, query: queryObject(search), headers: req.headers, body });
  if (checked instanceof AppError) throw checked;
  return { query: checked.query, body, streamed };
}
