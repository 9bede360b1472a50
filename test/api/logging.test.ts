// What reaches the request log and at which level: expected answers (4xx, a 501 for a feature switched off) at info
// without an error or stack, so anonymous callers cannot fill the error log; and never a hook key, however a path
// spells it.
import pino from 'pino';
import { Writable } from 'node:stream';
import { startParley, type Parley } from '../../src/parley';
import { loggablePath } from '../../src/http/logger';
import { send } from '../support/http';
import { createTestDatabase, type TestDatabase } from '../support/database';

let db: TestDatabase;
let parley: Parley;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  parley = await startParley({
    env: { MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource },
    listen: '127.0.0.1:0',
    validateResponses: false,
    logger: pino({ level: 'info', base: undefined }, sink),
  });
});
afterAll(async () => {
  await parley.close();
  await db.drop();
});

const logOf = (requestId: string | null) => lines.find((l) => l.request_id === requestId);

describe('the request log', () => {
  let token = '';
  let hookKey = '';

  beforeAll(async () => {
    const post = (path: string, body: unknown, auth?: string) =>
      fetch(`${parley.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: `Bearer ${auth}` } : {}) },
        body: JSON.stringify(body),
      });
    await post('/api/v4/users', { email: 'logs@example.com', username: 'logs', password: 'Passw0rd!' });
    token = (await post('/api/v4/users/login', { login_id: 'logs', password: 'Passw0rd!' })).headers.get('token') as string;
    const team = (await (await post('/api/v4/teams', { name: 'logs', display_name: 'Logs', type: 'O' }, token)).json()) as { id: string };
    const town = (await (await fetch(`${parley.url}/api/v4/teams/${team.id}/channels/name/town-square`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { id: string };
    hookKey = ((await (await post('/api/v4/hooks/incoming', { channel_id: town.id, display_name: 'logged' }, token)).json()) as { id: string }).id;
    expect(hookKey).toMatch(/^[a-z0-9]{26}$/);
  });

  test('an expected 4xx or 501 (a feature switched off) is logged at info, without an error or stack: anonymous callers cannot fill the error log', async () => {
    const before = lines.length;
    const off = await fetch(`${parley.url}/api/v4/users/me/tokens`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ description: 'x' }),
    });
    expect(off.status).toBe(501);
    const anonymous = await fetch(`${parley.url}/api/v4/users/me`);
    expect(anonymous.status).toBe(401);
    for (const res of [off, anonymous]) expect(logOf(res.headers.get('X-Request-Id'))).toMatchObject({ level: 30, status: res.status });
    expect(lines.slice(before).filter((l) => (l.level as number) >= 50 || 'err' in l)).toEqual([]);
  });

  test('a hook key never reaches the log, however the path spells it', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const upper = hookKey.toUpperCase();
    const requests: Array<[string, RequestInit]> = [
      [`/hooks/${hookKey}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"text":"hi"}' }],
      [`//hooks/${hookKey}`, { method: 'POST', body: '{"text":"hi"}' }],
      [`/hooks/${hookKey}/`, { method: 'POST', body: '{"text":"hi"}' }],
      [`/hooks//${hookKey}?x=1`, { method: 'POST', body: '{"text":"hi"}' }],
      [`/HOOKS/${hookKey}`, { method: 'POST', body: '{"text":"hi"}' }],
      [`/hooks/${upper}`, { method: 'POST', body: '{"text":"hi"}' }],
      [`/%68ooks/${hookKey}`, { method: 'POST', body: '{"text":"hi"}' }],
      [`/hooks%2F${hookKey}`, { method: 'POST', body: '{"text":"hi"}' }],
      [`/hooks/${encodeURIComponent(hookKey)}%00`, { method: 'POST', body: '{"text":"hi"}' }],
      [`/api/v4/hooks/incoming/${hookKey}`, { headers: auth }],
      [`/api/v4/hooks/incoming/${hookKey}`, { method: 'PUT', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ id: hookKey, display_name: 'renamed' }) }],
      [`/api/v4//hooks/incoming/${hookKey}`, { headers: auth }],
      [`/api/v4/hooks/incoming/${hookKey}/`, { headers: auth }],
      [`/api/v4/hooks/INCOMING/${hookKey}`, { headers: auth }],
    ];
    const before = lines.length;
    for (const [path, init] of requests) await fetch(`${parley.url}${path}`, init);
    await fetch(`${parley.url}/api/v4/hooks/incoming/${hookKey}`, { method: 'DELETE', headers: auth });
    const logged = lines.slice(before);
    expect(logged.length).toBeGreaterThanOrEqual(requests.length + 1);
    const text = JSON.stringify(logged);
    expect(text).not.toContain(hookKey);
    expect(text.toLowerCase()).not.toContain(hookKey.toLowerCase());
    expect(logged.filter((l) => String(l.path).includes('{hook_id}')).length).toBeGreaterThanOrEqual(requests.length - 1);
  });

  test('dot segments and backslashes sent as they are (no client normalises them away) never log the key either', async () => {
    // A live key: the raw request lines below reach the server exactly as written (fetch would resolve them).
    const town = (await (await fetch(`${parley.url}/api/v4/users/me/teams`, { headers: { Authorization: `Bearer ${token}` } })).json()) as Array<{ id: string }>;
    const channel = (await (await fetch(`${parley.url}/api/v4/teams/${town[0].id}/channels/name/town-square`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { id: string };
    const created = await fetch(`${parley.url}/api/v4/hooks/incoming`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ channel_id: channel.id, display_name: 'dots' }),
    });
    const key = ((await created.json()) as { id: string }).id;
    const auth = { Authorization: `Bearer ${token}` };
    const paths: Array<[string, string, Record<string, string>]> = [
      ['POST', `/hooks/./${key}`, {}],
      ['POST', `/hooks/x/../${key}`, {}],
      ['POST', `/hooks\\${key}`, {}],
      ['POST', `/hooks%5C${key}`, {}],
      ['POST', `/hooks/.%2E/${key}`, {}],
      ['POST', `/hooks/./../hooks/${key}`, {}],
      ['POST', `/hooks;x/${key}`, {}],
      ['POST', `/hooks;${key}`, {}],
      ['POST', `/%68%6F%6F%6B%73%C3/${key}`, {}],
      ['GET', `/api/v4/hooks/incoming/x/../${key}`, auth],
      ['GET', `/api/v4/hooks/incoming/./${key}`, auth],
      ['GET', `/api/v4/hooks\\incoming\\${key}`, auth],
    ];
    const before = lines.length;
    for (const [method, path, headers] of paths) {
      await send(parley.url, { method, path, headers: { 'Content-Type': 'application/json', ...headers }, body: method === 'POST' ? '{"text":"hi"}' : undefined });
    }
    const logged = lines.slice(before);
    expect(logged.length).toBeGreaterThanOrEqual(paths.length);
    expect(JSON.stringify(logged).toLowerCase()).not.toContain(key);
  });
});

describe('loggablePath', () => {
  const KEY = 'abcdefghijklmnopqrstuvwxyz';
  test.each<[string, string]>([
    [`/hooks/${KEY}`, '/hooks/{hook_id}'],
    [`/hooks/./${KEY}`, '/hooks/./{hook_id}'],
    [`/hooks/x/../${KEY}`, '/hooks/{hook_id}/../{hook_id}'],
    [`/hooks\\${KEY}`, '/hooks/{hook_id}'],
    [`/hooks%5c${KEY}`, '/hooks/{hook_id}'],
    [`/hooks%255C${KEY}`, '/hooks/{hook_id}'],
    [`/HOOKS/${KEY}?x=${KEY}`, '/HOOKS/{hook_id}'],
    [`/hooks;x/${KEY}`, '/hooks;x/{hook_id}'],
    [`/hooks;${KEY}`, '/hooks;{hook_id}'],
    [`/hooks%3F${KEY}`, '/hooks?{hook_id}'],
    [`/%68%6F%6F%6B%73%C3/${KEY}`, '/hooks%C3/{hook_id}'],
    [`/hooks/${KEY}/more/${KEY}`, '/hooks/{hook_id}/{hook_id}/{hook_id}'],
    [`/api/v4/hooks/incoming/${KEY}`, '/api/v4/hooks/incoming/{hook_id}'],
    [`/api/v4/hooks/incoming/x/../${KEY}`, '/api/v4/hooks/incoming/{hook_id}/../{hook_id}'],
    [`/api/v4/hooks/outgoing/${KEY}/regen_token`, '/api/v4/hooks/outgoing/{hook_id}/{hook_id}'],
    ['/api/v4/hooks/incoming', '/api/v4/hooks/incoming'],
    // Paths without a hooks segment keep their ids: the log must still say which channel or user a request was about.
    [`/api/v4/channels/${KEY}/members`, `/api/v4/channels/${KEY}/members`],
    [`/api/v4/teams/name/webhooks-team/channels/${KEY}`, `/api/v4/teams/name/webhooks-team/channels/${KEY}`],
  ])('%s → %s', (path, want) => {
    expect(loggablePath(path)).toBe(want);
  });
});
