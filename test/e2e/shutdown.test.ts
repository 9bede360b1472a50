import http from 'node:http';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnServer, type ServerProcess } from '../support/process';

// SIGTERM drains: a request already in flight is answered (and committed) before the process exits with 0.

let db: TestDatabase;
let server: ServerProcess;

beforeAll(async () => {
  db = await createTestDatabase();
  server = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource });
});
afterAll(async () => {
  await server?.kill();
  await db.drop();
});

async function json(path: string, body: unknown, token?: string): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

test('a webhook request in flight when SIGTERM arrives is answered ok and its post is committed', async () => {
  await json('/api/v4/users', { username: 'admin', email: 'admin@example.com', password: 'Passw0rd!' });
  const login = await json('/api/v4/users/login', { login_id: 'admin', password: 'Passw0rd!' });
  const token = login.headers.get('token') as string;
  const team = await json('/api/v4/teams', { name: 'shutdown', display_name: 'S', type: 'O' }, token);
  const town = (await (await fetch(`${server.url}/api/v4/teams/${team.body.id}/channels/name/town-square`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { id: string };
  const hook = await json('/api/v4/hooks/incoming', { channel_id: town.id, display_name: 'drain' }, token);

  // Send the headers and half the body, then SIGTERM, then the rest of the body.
  const body = JSON.stringify({ text: 'sent across the shutdown' });
  const url = new URL(`${server.url}/hooks/${hook.body.id}`);
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    // Fixed pauses on purpose (a request is deliberately split across the shutdown): the server parses the headers
    // before SIGTERM, and begins its shutdown before the rest of the body comes; neither is observable from here.
    setTimeout(() => {
      server.child.kill('SIGTERM');
      setTimeout(() => req.end(body.slice(10)), 300);
    }, 200);
  });
  expect(await answer).toEqual({ status: 200, text: 'ok' });
  const exit = await new Promise<number | null>((resolve) => (server.child.exitCode !== null ? resolve(server.child.exitCode) : server.child.once('exit', (code) => resolve(code))));
  expect(exit).toBe(0);

  // The post is there after a restart on the same database.
  const again = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource });
  try {
    const relogin = await fetch(`${again.url}/api/v4/users/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ login_id: 'admin', password: 'Passw0rd!' }),
    });
    const posts = (await (await fetch(`${again.url}/api/v4/channels/${town.id}/posts`, { headers: { Authorization: `Bearer ${relogin.headers.get('token')}` } })).json()) as {
      order: string[];
      posts: Record<string, { message: string }>;
    };
    expect(posts.order.map((id) => posts.posts[id].message)).toEqual(['sent across the shutdown']);
  } finally {
    await again.stop();
  }
});
