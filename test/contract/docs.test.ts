import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { projectRoot } from '../../src/spec';
import { startTestServer, type TestServer } from '../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const generated = (file: string) => readFileSync(join(projectRoot(), 'generated', file), 'utf8');

test('GET /api/v4/openapi.json serves the generated bundle, as exact JSON, without a session', async () => {
  const res = await request(server.url).get('/api/v4/openapi.json').expect(200);
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.body).toEqual(JSON.parse(generated('openapi.json')));
  expect(res.body['x-generated']).toMatch(/DO NOT EDIT/);
});

test('GET /api/v4/docs is the generated HTML reference, and it loads nothing from another host', async () => {
  const res = await request(server.url).get('/api/v4/docs').expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toBe(generated('docs.html'));
  // Every script, stylesheet and spec the page loads is a path on this server: it works offline.
  const references = [...res.text.matchAll(/<(?:script|link)[^>]*(?:src|href)="([^"]+)"/g), ...res.text.matchAll(/spec-url="([^"]+)"/g)].map((m) => m[1]);
  expect(references).toEqual(expect.arrayContaining(['/api/v4/docs/redoc.standalone.js', '/api/v4/openapi.json']));
  for (const ref of references) expect(ref).toMatch(/^\//);
  // The no-script index lists every operation of the spec.
  const spec = JSON.parse(generated('openapi.json')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const operationIds = Object.values(spec.paths).flatMap((item) => Object.values(item).map((op) => op.operationId).filter(Boolean));
  expect(operationIds.length).toBeGreaterThan(40);
  for (const id of operationIds) expect(res.text).toContain(`<td>${id}</td>`);
});

test('the Redoc viewer script is served locally', async () => {
  const res = await request(server.url).get('/api/v4/docs/redoc.standalone.js').expect(200);
  expect(res.headers['content-type']).toMatch(/javascript/);
  expect(res.body.length ?? res.text.length).toBeGreaterThan(100000);
});
