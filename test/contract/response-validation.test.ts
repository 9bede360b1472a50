// Canary: every test server validates its answers against the spec (test/support/server.ts starts Parley with
// validateResponses). If that were switched off, a handler answering outside its contract would go unnoticed in every
// other suite; here it must come back as the contract-violation 500. The seam is the application service GetPing calls
// (app.system.ping), replaced on the app object this server runs, not any library internals.
import { AppError } from '../../src/model/app-error';
import { expectAppError } from '../support/assertions';
import { startTestServer, type TestServer } from '../support/server';

const INVALID = 'api.context.response_invalid.app_error';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => jest.restoreAllMocks());

const ping = () => server.http().get('/api/v4/system/ping');

test('unchanged, GetPing answers 200 with its declared shape', async () => {
  const res = await ping();
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('OK');
});

test('a body that breaks its schema is answered as a 500 contract violation, naming the problem', async () => {
  jest.spyOn(server.parley.app.system, 'ping').mockResolvedValue({ status: 42 } as unknown as Record<string, string>);
  const res = await ping();
  expectAppError(res, 500, INVALID);
  // Under test the detail is shown: it says what broke.
  expect(res.body.detailed_error).toMatch(/status/);
});

test('an error status the operation does not declare becomes a 500 contract violation', async () => {
  // GetPing declares 400, 429, 500 and 503, not 409.
  jest.spyOn(server.parley.app.system, 'ping').mockRejectedValue(new AppError('app.test.conflict.app_error', 'A conflict.', 409));
  const res = await ping();
  expectAppError(res, 500, INVALID);
  expect(res.body.detailed_error).toContain('GetPing answered 409');
});

test('an error status the operation declares passes through as it is', async () => {
  jest.spyOn(server.parley.app.system, 'ping').mockRejectedValue(new AppError('app.test.unavailable.app_error', 'Unavailable.', 503));
  expectAppError(await ping(), 503, 'app.test.unavailable.app_error');
});
