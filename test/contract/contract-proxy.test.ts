// The contract proxy (`npm run contract-proxy -- --target URL`): a real Parley behind it, driven by Client4 and raw
// HTTP through it. Every exchange reaches the target unchanged and comes back unchanged; the report says what in
// it breaks the spec, in which direction, where.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractChecker } from '../../src/tools/contract-check';
import { startContractProxy, type ContractProxy } from '../../src/tools/contract-proxy';
import { formatEntry, type ReportEntry } from '../../src/tools/contract-report';
import { loadSpec, projectRoot } from '../../src/spec';
import { expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { eventually } from '../support/eventually';
import { send } from '../support/http';
import { freePort } from '../support/process';
import { createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { connect } from '../support/ws';

const ID = 'abcdefghijkmnopqrstuwxyz12';

let server: TestServer;
let world: World;
let proxy: ContractProxy;
const entries: ReportEntry[] = [];
// One checker for every proxy of the suite: express-openapi-validator loads the spec and compiles an operation's
// validators once.
const checker = new ContractChecker(loadSpec());

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  proxy = await startContractProxy({ target: server.url, listen: '127.0.0.1:0', checker, onEntry: (e) => entries.push(e) });
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

/** The report entries of what `run` sends through the proxy, once they are all checked. */
async function reported(run: () => Promise<unknown>, through = proxy, list = entries): Promise<ReportEntry[]> {
  list.length = 0;
  await run();
  await through.settled();
  return [...list];
}

const findingsOf = (list: ReportEntry[]) => list.flatMap((e) => e.findings.map((f) => `${e.operationId ?? e.path} ${f.direction} ${f.path}: ${f.message}`));

describe('valid traffic', () => {
  test('Client4 through the proxy: the same answers as direct, and no findings', async () => {
    const direct = client4For(server, world.member);
    const proxied = client4For(proxy, world.member);
    const list = await reported(async () => {
      expect(await proxied.getMe()).toEqual(await direct.getMe());
      expect(await proxied.getChannel(world.townSquareId)).toEqual(await direct.getChannel(world.townSquareId));
      expect(await proxied.getMyTeams()).toEqual(await direct.getMyTeams());
      const post = await proxied.createPost({ channel_id: world.townSquareId, message: 'through the proxy' } as never);
      expect(post.message).toBe('through the proxy');
      expect(await proxied.getPostThread(post.id)).toEqual(await direct.getPostThread(post.id));
      expect(await proxied.getPosts(world.townSquareId, 0, 30)).toEqual(await direct.getPosts(world.townSquareId, 0, 30));
      expect(await proxied.getProfilesByIds([world.admin.id])).toEqual(await direct.getProfilesByIds([world.admin.id]));
      await proxied.patchPost({ id: post.id, message: 'patched' } as never);
    });
    // Only the proxied calls are reported (the direct ones never reach the proxy).
    expect(list.map((e) => `${e.method} ${e.operationId} ${e.status}`)).toEqual([
      'GET GetUser 200',
      'GET GetChannel 200',
      'GET GetTeamsForUser 200',
      'POST CreatePost 201',
      'GET GetPostThread 200',
      'GET GetPostsForChannel 200',
      'POST GetUsersByIds 200',
      'PUT PatchPost 200',
    ]);
    expect(findingsOf(list)).toEqual([]);
    expect(list.every((e) => e.ms >= 0 && e.time.length > 0)).toBe(true);
  });

  test('the bytes and the headers that matter are the target\'s own', async () => {
    const auth = { Authorization: `Bearer ${world.member.token}` };
    const path = `/api/v4/channels/${world.townSquareId}`;
    const [direct, proxied] = [await send(server.url, { method: 'GET', path, headers: auth }), await send(proxy.url, { method: 'GET', path, headers: auth })];
    expect(proxied.status).toBe(direct.status);
    expect(proxied.body.equals(direct.body)).toBe(true);
    // The exact Content-Type Client4 needs (no "; charset=utf-8" added on the way), the server's ids and ETag.
    expect(proxied.headers['content-type']).toBe('application/json');
    expect(proxied.headers['x-version-id']).toBe(direct.headers['x-version-id']);
    expect(proxied.headers['x-request-id']).toMatch(/^[a-z0-9]{26}$/);
    expect(proxied.headers['x-powered-by']).toBeUndefined();
    expect(proxied.headers.etag).toBe(direct.headers.etag);
    // A conditional GET passes through: the target's 304, without a body, and no finding.
    const list = await reported(async () => {
      const again = await send(proxy.url, { method: 'GET', path: `/api/v4/users/${world.member.id}`, headers: { ...auth } });
      const notModified = await send(proxy.url, { method: 'GET', path: `/api/v4/users/${world.member.id}`, headers: { ...auth, 'If-None-Match': String(again.headers.etag) } });
      expect({ status: notModified.status, length: notModified.body.length }).toEqual({ status: 304, length: 0 });
    });
    expect(list.map((e) => e.status)).toEqual([200, 304]);
    expect(findingsOf(list)).toEqual([]);
  });

  test('an upload streams through (not checked: multipart), and the file comes back byte for byte', async () => {
    const bytes = randomBytes(3 * 1024 * 1024);
    const proxied = client4For(proxy, world.member);
    let fileId = '';
    const list = await reported(async () => {
      const form = new FormData();
      form.append('channel_id', world.townSquareId);
      form.append('files', new Blob([bytes]), 'big.bin');
      const uploaded = await proxied.uploadFile(form);
      fileId = uploaded.file_infos[0].id;
      const got = await fetch(`${proxy.url}/api/v4/files/${fileId}`, { headers: { Authorization: `Bearer ${world.member.token}` } });
      expect(got.status).toBe(200);
      expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    });
    expect(list.map((e) => `${e.operationId} ${e.status}`)).toEqual(['UploadFile 201', 'GetFile 200']);
    expect(findingsOf(list)).toEqual([]);
    expect(list[0].notes).toEqual([expect.stringMatching(/^request body not checked: multipart\/form-data, \d+ bytes$/)]);
  });

  test('a WebSocket through the proxy: hello, and events as they happen', async () => {
    const list = await reported(async () => {
      const socket = await connect(proxy.url, { token: world.member.token });
      try {
        await socket.next((f) => f.event === 'hello');
        await client4For(proxy, world.admin).createPost({ channel_id: world.townSquareId, message: 'seen over the socket' } as never);
        const posted = await socket.next((f) => f.event === 'posted');
        expect(JSON.parse(posted.data?.post).message).toBe('seen over the socket');
        expect(socket.problems).toEqual([]);
      } finally {
        await socket.close();
      }
    });
    const upgrade = list.find((e) => e.operationId === 'ConnectWebSocket');
    expect(upgrade).toMatchObject({ method: 'GET', path: '/api/v4/websocket', status: 101, findings: [] });
    expect(upgrade?.notes).toContain('WebSocket: the frames are passed through, not checked');
    expect(findingsOf(list)).toEqual([]);
  });
});

describe('requests that break the spec: forwarded, answered by the server, and reported', () => {
  const json = () => ({ Authorization: `Bearer ${world.member.token}`, 'Content-Type': 'application/json' });

  test('a CreatePost without channel_id, through Client4', async () => {
    const list = await reported(() => expectClientError(client4For(proxy, world.member).createPost({ message: 'no channel' } as never), 400, 'api.context.invalid_param.app_error'));
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ method: 'POST', path: '/api/v4/posts', status: 400, operationId: 'CreatePost', error: 'api.context.invalid_param.app_error' });
    expect(list[0].findings).toEqual([{ direction: 'request', path: '/body/channel_id', message: "must have required property 'channel_id'" }]);
  });

  test('every problem of a request at once: wrong types in the body, the query and the path', async () => {
    const list = await reported(async () => {
      const direct = await send(server.url, { path: '/api/v4/posts', headers: json(), body: JSON.stringify({ channel_id: world.townSquareId, message: 5 }) });
      const proxied = await send(proxy.url, { path: '/api/v4/posts', headers: json(), body: JSON.stringify({ channel_id: world.townSquareId, message: 5 }) });
      expect({ status: proxied.status, id: proxied.json.id, message: proxied.json.message }).toEqual({ status: direct.status, id: direct.json.id, message: direct.json.message });
      await send(proxy.url, { method: 'GET', path: '/api/v4/channels/not-an-id/posts?page=abc&per_page=30&sort=new', headers: json() });
    });
    expect(list[0].findings).toEqual([{ direction: 'request', path: '/body/message', message: 'must be string' }]);
    expect(list[1]).toMatchObject({ operationId: 'GetPostsForChannel', status: 400 });
    expect(list[1].findings).toEqual(
      expect.arrayContaining([
        { direction: 'request', path: '/query/page', message: 'must be integer' },
        { direction: 'request', path: '/params/channel_id', message: 'must match pattern "^[a-z0-9]{26}$"' },
      ]),
    );
    // An undeclared query parameter breaks nothing (the server ignores it), and the report says so.
    expect(list[1].notes).toContain('query parameter "sort" is not in the spec; the server ignores it');
  });

  test('body, media type and session problems', async () => {
    const list = await reported(async () => {
      await send(proxy.url, { path: '/api/v4/posts', headers: json(), body: '{"channel_id":' });
      await send(proxy.url, { path: '/api/v4/posts', headers: { ...json(), 'Content-Type': 'text/plain' }, body: JSON.stringify({ channel_id: ID, message: 'hi' }) });
      await send(proxy.url, { method: 'GET', path: '/api/v4/users/me' });
    });
    expect(list.map((e) => [e.status, e.error, e.findings])).toEqual([
      [400, 'api.context.invalid_body_param.app_error', [{ direction: 'request', path: '/body', message: expect.stringMatching(/^not valid JSON: /) }]],
      [415, 'api.context.invalid_body_param.app_error', [{ direction: 'request', path: '/headers/content-type', message: 'unsupported media type text/plain' }]],
      [401, 'api.context.session_expired.app_error', [{ direction: 'request', path: '/headers/authorization', message: expect.stringContaining('GetUser requires a session') }]],
    ]);
  });

  test('a path that is not in the spec, and a method the path does not have', async () => {
    const list = await reported(async () => {
      expect((await send(proxy.url, { method: 'GET', path: '/api/v4/nothing/here', headers: json() })).status).toBe(404);
      expect((await send(proxy.url, { method: 'DELETE', path: '/api/v4/system/ping' })).status).toBe(405);
    });
    expect(list.map((e) => ({ unknown: e.unknown, error: e.error, findings: e.findings }))).toEqual([
      { unknown: 'path', error: 'api.context.404.app_error', findings: [{ direction: 'request', path: '(path)', message: '/api/v4/nothing/here is not a path of the spec' }] },
      { unknown: 'method', error: 'api.context.405.app_error', findings: [{ direction: 'request', path: '(method)', message: 'DELETE is not an operation of /api/v4/system/ping (the spec has GET)' }] },
    ]);
  });

  test('a body over --max-body passes through unchecked, and says so', async () => {
    const small: ReportEntry[] = [];
    const capped = await startContractProxy({ target: server.url, listen: '127.0.0.1:0', checker, maxCheckedBytes: 200, onEntry: (e) => small.push(e) });
    try {
      const list = await reported(
        async () => {
          // Wrong, but too large to be checked: the server's 400 comes back, and the report names what it skipped.
          const answer = await send(capped.url, { path: '/api/v4/posts', headers: json(), body: JSON.stringify({ message: 'x'.repeat(500) }) });
          expect(answer.status).toBe(400);
        },
        capped,
        small,
      );
      expect(list[0].findings).toEqual([]);
      // The server's answer (an AppError of about 250 bytes) is over the cap too.
      expect(list[0].notes).toEqual([
        expect.stringMatching(/^request body not checked: larger than 200 bytes \(\d+ bytes; raise --max-body\)$/),
        expect.stringMatching(/^response body not checked: larger than 200 bytes/),
      ]);
    } finally {
      await capped.close();
    }
  });
});

describe('answers that break the spec', () => {
  // A stand-in target on 127.0.0.1 that answers spec'd paths wrongly (a real HTTP server, not a mock of Parley).
  let fake: http.Server;
  let fakeProxy: ContractProxy;
  const fakeEntries: ReportEntry[] = [];
  const WRONG_USER = JSON.stringify({ id: 5, username: 'x' });
  beforeAll(async () => {
    fake = http.createServer((req, res) => {
      const reply = (status: number, type: string, body: string) => {
        res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      };
      const path = (req.url ?? '').split('?')[0];
      if (path.endsWith('/image')) reply(200, 'text/html', '<p>not a picture</p>');
      else if (path.startsWith('/api/v4/users/')) reply(200, 'application/json', WRONG_USER);
      else if (req.url === '/api/v4/system/ping') reply(418, 'application/json', '{"status":"teapot"}');
      else if (path.startsWith('/api/v4/files/')) reply(200, 'text/html', '<p>any type will do</p>');
      else if (req.url === '/api/v4/posts') reply(201, 'application/json', '{"channel_id":');
      else reply(404, 'application/json', '{}');
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    fakeProxy = await startContractProxy({ target: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`, listen: '127.0.0.1:0', checker, onEntry: (e) => fakeEntries.push(e) });
  });
  afterAll(async () => {
    await fakeProxy.close();
    await new Promise((resolve) => fake.close(resolve));
  });

  test('a wrong body, a status not declared, a media type not declared, a body that is not JSON', async () => {
    // GetFile declares any media type (*/*): its text/html is fine; GetProfileImage declares image/png only.
    const auth = { Authorization: 'Bearer sometoken' };
    let user: Awaited<ReturnType<typeof send>> | undefined;
    const list = await reported(
      async () => {
        user = await send(fakeProxy.url, { method: 'GET', path: '/api/v4/users/me', headers: auth });
        await send(fakeProxy.url, { method: 'GET', path: '/api/v4/system/ping' });
        await send(fakeProxy.url, { method: 'GET', path: `/api/v4/files/${ID}`, headers: auth });
        await send(fakeProxy.url, { method: 'GET', path: `/api/v4/users/${ID}/image`, headers: auth });
        await send(fakeProxy.url, { path: '/api/v4/posts', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ channel_id: ID, message: 'hi' }) });
      },
      fakeProxy,
      fakeEntries,
    );
    // The client gets the target's answer as it was, wrong as it is.
    expect({ status: user?.status, type: user?.headers['content-type'], text: user?.text }).toEqual({ status: 200, type: 'application/json', text: WRONG_USER });
    const [me, ping, file, image, post] = list;
    expect(me.operationId).toBe('GetUser');
    expect(me.findings).toEqual(expect.arrayContaining([{ direction: 'response', path: '/body/id', message: 'must be string' }]));
    expect(me.findings.every((f) => f.direction === 'response')).toBe(true);
    expect(ping.findings).toEqual([{ direction: 'response', path: '/status', message: "no schema defined for status code '418' in the openapi spec" }]);
    expect({ op: file.operationId, findings: file.findings }).toEqual({ op: 'GetFile', findings: [] });
    expect(image.findings).toEqual([{ direction: 'response', path: '/headers/content-type', message: 'text/html is not a media type declared for status 200 (image/png)' }]);
    expect(post.findings).toEqual([{ direction: 'response', path: '/body', message: expect.stringMatching(/^not valid JSON: /) }]);
  });

  test('a request and its answer both wrong: both reported', async () => {
    const list = await reported(() => send(fakeProxy.url, { method: 'GET', path: '/api/v4/users/NOT-AN-ID', headers: { Authorization: 'Token sometoken' } }), fakeProxy, fakeEntries);
    expect(list[0].operationId).toBe('GetUser');
    // A `Token` scheme is a session as good as `Bearer` (Mattermost and Parley take both).
    expect(list[0].findings).not.toContainEqual(expect.objectContaining({ path: '/headers/authorization' }));
    expect(list[0].findings).toContainEqual({ direction: 'request', path: '/params/user_id', message: 'must match pattern "^([a-z0-9]{26}|me)$"' });
    expect(list[0].findings).toContainEqual({ direction: 'response', path: '/body/id', message: 'must be string' });
  });

  test('a target that does not answer: 502 to the client, and a report line', async () => {
    const port = await freePort();
    const lost: ReportEntry[] = [];
    const dead = await startContractProxy({ target: `http://127.0.0.1:${port}`, listen: '127.0.0.1:0', checker, onEntry: (e) => lost.push(e) });
    try {
      const list = await reported(() => send(dead.url, { method: 'GET', path: '/api/v4/system/ping' }).then((a) => expect(a.status).toBe(502)), dead, lost);
      expect(list[0]).toMatchObject({ status: 502, notes: [expect.stringMatching(/^the target did not answer: .*ECONNREFUSED/)] });
    } finally {
      await dead.close();
    }
  });
});

describe('npm run contract-proxy', () => {
  test('prints a line per exchange and a summary on SIGINT, writes --report, exits 1 after findings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'contract-proxy-'));
    const port = await freePort();
    const child = spawn(process.execPath, [join(projectRoot(), 'dist', 'src', 'tools', 'contract-proxy.js'), '--target', server.url, '--listen', `127.0.0.1:${port}`, '--report', join(dir, 'report.jsonl')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await eventually(() => expect(out).toContain(`contract-proxy: http://127.0.0.1:${port} → ${server.url}`), 20_000);
      const base = `http://127.0.0.1:${port}`;
      await send(base, { method: 'GET', path: '/api/v4/system/ping' });
      await send(base, { path: '/api/v4/posts', headers: { Authorization: `Bearer ${world.member.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ message: 'no channel' }) });
      await eventually(() => expect(out).toContain("✗ request /body/channel_id: must have required property 'channel_id'"));
      child.kill('SIGINT');
      expect(await exited).toBe(1);
      expect(out).toMatch(/^GET \/api\/v4\/system\/ping → 200 GetPing \d+ ms: ok$/m);
      expect(out).toMatch(/^POST \/api\/v4\/posts → 400 CreatePost \(api\.context\.invalid_param\.app_error\) \d+ ms: 1 finding$/m);
      expect(out).toContain('contract-proxy: 2 exchanges, 1 ok, 1 with findings (1 in requests, 0 in responses)');
      expect(out).toContain("  1× CreatePost request /body/channel_id: must have required property 'channel_id'");
      const lines = readFileSync(join(dir, 'report.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ReportEntry);
      expect(lines.map((l) => [l.operationId, l.status, l.findings.length])).toEqual([
        ['GetPing', 200, 0],
        ['CreatePost', 400, 1],
      ]);
      expect(formatEntry(lines[1])).toContain('✗ request /body/channel_id');
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
