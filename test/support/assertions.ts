import type { Response } from 'supertest';

/** Status first, with the whole body in the message when it is not the expected one. */
export function expectStatus(res: Response, status: number): void {
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${res.text}`);
  expect(res.headers['x-request-id']).toMatch(/^[a-z0-9]{26}$/);
  expect(res.headers['x-version-id']).toEqual(expect.any(String));
  if (res.text) expect(res.headers['content-type']).toBe('application/json');
}

/** The answer is exactly the AppError shape: Mattermost's id, status_code = HTTP status, request_id = X-Request-Id. */
export function expectAppError(res: Response, status: number, id: string): void {
  if (res.status !== status || res.body?.id !== id) throw new Error(`expected ${status} ${id}, got ${res.status}: ${res.text}`);
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.headers['x-version-id']).toEqual(expect.any(String));
  expect(res.body).toEqual({
    id,
    message: expect.any(String),
    detailed_error: expect.any(String),
    request_id: res.headers['x-request-id'],
    status_code: status,
  });
  expect(res.body.request_id).toMatch(/^[a-z0-9]{26}$/);
}
