// Serving the browser client: files by path, the page for client routes, nothing for API and webhook paths.
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { WEB_CLIENT_CSP, createWebClient } from '../../src/http/web-client';

let dir: string;
let server: http.Server;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-web-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Parley</title><script type="module" src="/app-ABCDEFGH.js"></script>');
  writeFileSync(join(dir, 'app-ABCDEFGH.js'), `console.log(${JSON.stringify('x'.repeat(2000))});`);
  const serve = createWebClient(dir);
  server = http.createServer((req, res) => {
    if (!serve(req, res)) {
      res.statusCode = 404;
      res.end('not served');
    }
  });
});

afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('client routes get the page, with its CSP, revalidated on every load', async () => {
  for (const path of ['/', '/login', '/team-a/channels/town-square', '/team-a/messages/@bob']) {
    const res = await request(server).get(path).expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(WEB_CLIENT_CSP);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text).toContain('<title>Parley</title>');
  }
});

test('hashed assets are served by path, gzipped when asked, cached immutably', async () => {
  const res = await request(server).get('/app-ABCDEFGH.js').set('Accept-Encoding', 'gzip').expect(200);
  expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
  expect(res.headers['content-encoding']).toBe('gzip');
  expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  expect(res.headers['content-security-policy']).toBeUndefined();
});

test('a missing file, an API path and a webhook path are not the page', async () => {
  await request(server).get('/app-MISSING1.js').expect(404);
  await request(server).get('/hooks/abcdefghijklmnopqrstuvwxyz').expect(404);
  await request(server).get('/hooks').expect(404);
  await request(server).get('/api/v4/unknown').expect(404);
  await request(server).post('/team-a/channels/town-square').expect(404);
});
