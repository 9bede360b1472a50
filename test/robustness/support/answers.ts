// The checks every answer of the robustness suites must pass (a clear 4xx AppError, never a 500, never a crash). The
// requests themselves go through the shared raw client (test/support/http.ts).
import { send, type RawAnswer } from '../../support/http';

export interface Verdict {
  ok: boolean;
  problem?: string;
}

/**
 * The properties every answer must have: never 5xx; an error is a well-formed AppError JSON with exactly
 * `Content-Type: application/json`, `status_code` = HTTP status and `request_id` = X-Request-Id; `hooks` 200s are
 * text/plain "ok". Returns a description of the first violation (fast-check prints it with the counterexample).
 */
export function checkAnswer(res: Pick<RawAnswer, 'status' | 'headers' | 'text'>, opts: { hook?: boolean; allow503?: boolean } = {}): string | null {
  // 501 is a deliberate answer (a feature switched off, as Mattermost answers it), not a failure.
  if (res.status >= 500 && res.status !== 501 && !(opts.allow503 && res.status === 503)) return `status ${res.status}: ${res.text.slice(0, 500)}`;
  const requestId = res.headers['x-request-id'];
  if (typeof requestId !== 'string' || requestId === '') return 'no X-Request-Id header';
  if (!res.headers['x-version-id']) return 'no X-Version-Id header';
  if (res.status >= 400) return checkAppError(res);
  if (opts.hook && res.status === 200) {
    if (res.headers['content-type'] !== 'text/plain') return `200 with Content-Type ${res.headers['content-type']}`;
    if (res.text !== 'ok') return `200 with body ${res.text.slice(0, 200)}`;
  }
  return null;
}

export function checkAppError(res: Pick<RawAnswer, 'status' | 'headers' | 'text'>): string | null {
  if (res.headers['content-type'] !== 'application/json') return `error ${res.status} with Content-Type ${res.headers['content-type']}: ${res.text.slice(0, 200)}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `error ${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return `error body is not an object: ${res.text.slice(0, 200)}`;
  // Mattermost's ids are dotted words, some in camelCase (api.getThreadsForUser.bad_params).
  if (typeof body.id !== 'string' || !/^[a-zA-Z0-9_.]+$/.test(body.id)) return `bad AppError id: ${res.text.slice(0, 200)}`;
  if (typeof body.message !== 'string' || body.message === '') return `bad AppError message: ${res.text.slice(0, 200)}`;
  if (typeof body.detailed_error !== 'string') return `bad AppError detailed_error: ${res.text.slice(0, 200)}`;
  if (body.request_id !== res.headers['x-request-id']) return `request_id ${String(body.request_id)} != X-Request-Id ${String(res.headers['x-request-id'])}`;
  if (body.status_code !== res.status) return `status_code ${String(body.status_code)} != HTTP ${res.status}`;
  const extra = Object.keys(body).filter((k) => !['id', 'message', 'detailed_error', 'request_id', 'status_code'].includes(k));
  if (extra.length) return `unexpected AppError fields ${extra.join(',')}`;
  return null;
}

/** Throws (so fast-check records a counterexample) when the answer breaks a property. */
export function assertAnswer(res: RawAnswer, opts: { hook?: boolean; allow503?: boolean } = {}): void {
  const problem = checkAnswer(res, opts);
  if (problem) throw new Error(problem);
}

/** GetPing answers 200: the server is up and its database reachable. */
export async function ping(url: string): Promise<void> {
  const res = await send(url, { method: 'GET', path: '/api/v4/system/ping', timeoutMs: 10000 });
  if (res.status !== 200) throw new Error(`ping: ${res.status} ${res.text}`);
}
