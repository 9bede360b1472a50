import { ClientError } from '@mattermost/client';
import type { Response } from 'supertest';

/** Status first, with the whole body in the message when it is not the expected one. */
export function expectStatus(res: Response, status: number): void {
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${res.text}`);
  expect(res.headers['x-request-id']).toMatch(/^[a-z0-9]{26}$/);
  expect(res.headers['x-version-id']).toEqual(expect.any(String));
  if (res.text) expect(res.headers['content-type']).toBe('application/json');
}

/**
 * An HTTP answer from any client the suites use: supertest's Response, the raw client's RawAnswer (test/support/http.ts),
 * or an answer read with fetch ({ status, headers: Headers, body: Buffer }).
 */
export interface AnyAnswer {
  status: number;
  headers: Headers | Record<string, string | string[] | undefined>;
  text?: string;
  body?: unknown;
}

function header(res: AnyAnswer, name: string): string | undefined {
  const h = res.headers;
  const value = typeof (h as Headers).get === 'function' ? (h as Headers).get(name) : (h as Record<string, string | string[] | undefined>)[name];
  return value === null || value === undefined ? undefined : String(value);
}

function textOf(res: AnyAnswer): string {
  if (typeof res.text === 'string') return res.text;
  if (Buffer.isBuffer(res.body)) return res.body.toString('utf8');
  return res.body === undefined ? '' : JSON.stringify(res.body);
}

/**
 * The answer is exactly the AppError shape: Mattermost's id (a string, a pattern, or any id when left out),
 * status_code = HTTP status, request_id = X-Request-Id, Content-Type exactly application/json, X-Version-Id set.
 * `notContaining`: a secret (a hook key) the answer must not echo.
 */
export function expectAppError(res: AnyAnswer, status: number, id?: string | RegExp, opts: { notContaining?: string } = {}): void {
  const text = textOf(res);
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const got = typeof body?.id === 'string' ? body.id : undefined;
  const idOk = got !== undefined && (id === undefined || (typeof id === 'string' ? got === id : id.test(got)));
  if (res.status !== status || !idOk) throw new Error(`expected ${status} ${id ?? '(any id)'}, got ${res.status}: ${text}`);
  expect(header(res, 'content-type')).toBe('application/json');
  expect(header(res, 'x-version-id')).toEqual(expect.any(String));
  expect(body).toEqual({
    id: got,
    message: expect.any(String),
    detailed_error: expect.any(String),
    request_id: header(res, 'x-request-id'),
    status_code: status,
  });
  expect(body?.request_id).toMatch(/^[a-z0-9]{26}$/);
  if (opts.notContaining) expect(text).not.toContain(opts.notContaining);
}

/** A call through @mattermost/client's Client4 fails with this status and Mattermost error id (any id when `id` is left out). */
export async function expectClientError(promise: Promise<unknown>, status: number, id?: string): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ClientError);
  const { status_code, server_error_id } = err as ClientError;
  if (id === undefined) expect(status_code).toBe(status);
  else expect({ status: status_code, id: server_error_id }).toEqual({ status, id });
}
