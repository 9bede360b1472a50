// The API's routing (issue #22): Express matches, in the order specRoutes gives. These tables pin that the order and
// the path conversion make Express find the operation a request names, on the real spec: literal segments before
// parameters, `me` and ids as parameters, 405 only where no operation of the path takes the method.
import express from 'express';
import request from 'supertest';
import { loadSpec } from '../../src/spec';
import { comparePaths, expressPath, specRoutes, type Spec } from '../../src/http/spec-routes';

const spec = loadSpec() as unknown as Spec;
const routes = specRoutes(spec);

// The same router shape as src/http/api.ts, each route answering with its operationId.
const app = express();
const router = express.Router({ strict: true, caseSensitive: true });
for (const r of routes) router[r.method.toLowerCase() as 'get'](expressPath(r.path), (req, res) => res.json({ op: r.operationId, params: req.params }));
for (const path of new Set(routes.map((r) => r.path))) router.all(expressPath(path), (_req, res) => res.status(405).json({ op: 405 }));
app.use(router);
app.use((_req, res) => res.status(404).json({ op: 404 }));

describe('comparePaths', () => {
  test.each([
    ['/a/login', '/a/{id}', -1],
    ['/a/{id}', '/a/login', 1],
    ['/a/{id}/x', '/a/{other}/y', -1],
    ['/a/b', '/a/c', -1],
    ['/a/{id}', '/a/{id}/image', -1],
    ['/a/login/x', '/a/{id}', -1],
  ])('%s vs %s: %i', (a, b, want) => {
    expect(Math.sign(comparePaths(a, b))).toBe(want);
  });

  test('a total order: sorting any shuffle of the spec gives the same routes', () => {
    const paths = [...new Set(routes.map((r) => r.path))];
    const sorted = [...paths].sort(comparePaths);
    for (const start of [paths.reverse(), [...paths.slice(7), ...paths.slice(0, 7)], paths.filter((_, i) => i % 2).concat(paths.filter((_, i) => i % 2 === 0))]) {
      expect([...start].sort(comparePaths)).toEqual(sorted);
    }
  });
});

describe('expressPath', () => {
  test.each([
    ['/api/v4/users/{user_id}', '/api/v4/users/:user_id'],
    ['/api/v4/users/{user_id}/preferences/{category}/name/{preference_name}', '/api/v4/users/:user_id/preferences/:category/name/:preference_name'],
    ['/api/v4/system/ping', '/api/v4/system/ping'],
  ])('%s → %s', (template, want) => expect(expressPath(template)).toBe(want));
});

describe('the request names one operation', () => {
  test.each([
    ['POST', '/api/v4/users/login', 'Login'],
    ['GET', '/api/v4/users/login', 'GetUser'],
    ['DELETE', '/api/v4/users/login', 'DeleteUser'],
    // The literal `ids` takes only POST: a DELETE falls to the parameter route, as a trie walk would.
    ['DELETE', '/api/v4/posts/ids', 'DeletePost'],
    ['GET', '/api/v4/users/me', 'GetUser'],
    ['GET', '/api/v4/users/username/alice', 'GetUserByUsername'],
    ['POST', '/api/v4/users/ids', 'GetUsersByIds'],
    ['GET', '/api/v4/users/me/teams/unread', 'GetTeamsUnreadForUser'],
    ['GET', '/api/v4/teams/name/t1/channels/name/c1', 'GetChannelByNameForTeamName'],
    ['GET', '/api/v4/teams/abc/channels/name/c1', 'GetChannelByName'],
    ['POST', '/api/v4/posts/ids', 'GetPostsByIds'],
    ['POST', '/api/v4/posts/ids/reactions', 'GetBulkReactions'],
    ['GET', '/api/v4/posts/abc/thread', 'GetPostThread'],
    ['HEAD', '/api/v4/system/ping', 'GetPing'],
  ])('%s %s → %s', async (method, path, op) => {
    const res = await request(app)[method.toLowerCase() as 'get'](path);
    if (method === 'HEAD') expect(res.status).toBe(200);
    else expect(res.body.op).toBe(op);
  });

  test.each([
    ['PATCH', '/api/v4/system/ping', 405],
    ['PUT', '/api/v4/users/login', 405],
    ['GET', '/api/v4/users/', 404],
    ['GET', '/api/v4/Users/me', 404],
    ['GET', '/api/v4/nothing', 404],
    ['GET', '/api/v4/users/me/extra/segments/here', 404],
  ])('%s %s → %i', async (method, path, status) => {
    expect((await request(app)[method.toLowerCase() as 'get'](path)).body.op).toBe(status);
  });

  test('path parameters arrive decoded', async () => {
    const res = await request(app).get('/api/v4/users/username/a%2Fb%20c');
    expect(res.body).toEqual({ op: 'GetUserByUsername', params: { username: 'a/b c' } });
  });

  test('every operation of the spec is reachable at its own path', async () => {
    for (const r of routes) {
      const path = r.path.replace(/\{[^}]+\}/g, 'x1');
      const res = await request(app)[r.method.toLowerCase() as 'get'](path);
      expect(res.body.op).toBe(r.operationId);
    }
  });
});
