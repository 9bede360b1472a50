import { spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { addressAllowed, sendOutbound } from '../../src/infra/outbound-http';
import { signatureHeaders, verifySignature } from '../../src/lib/request-signing';

/** A real HTTP server on 127.0.0.1 whose answer each test chooses. */
let server: http.Server;
let port: number;
let handle: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
const hits: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  hits.length = 0;
  handle = (_req, _body, res) => res.end('{"text":"hi"}');
});

const base = () => `http://127.0.0.1:${port}`;
const call = (url: string, allowList: string, extra: Partial<Parameters<typeof sendOutbound>[0]> = {}) =>
  sendOutbound({ method: 'POST', url, headers: { 'Content-Type': 'application/json' }, body: '{"a":1}', timeoutMs: 2000, ...extra }, { allowList });

describe('the address rule', () => {
  test.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.32.0.1', true],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['8.8.8.8', true],
    ['2001:4860:4860::8888', true],
  ])('%s allowed without a list: %s', (address, allowed) => {
    expect(addressAllowed(address, '')).toBe(allowed);
  });

  test('IPs and CIDRs in the list allow the addresses they match, no others', () => {
    expect(addressAllowed('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(addressAllowed('127.0.0.2', '127.0.0.1')).toBe(false);
    expect(addressAllowed('10.9.8.7', 'example.com 10.0.0.0/8')).toBe(true);
    expect(addressAllowed('192.168.0.1', 'example.com,10.0.0.0/8')).toBe(false);
  });
});

describe('calls', () => {
  test('an allowed call sends the request as given and returns the answer', async () => {
    handle = (_req, _body, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.statusCode = 201;
      res.end('{"ok":true}');
    };
    const result = await call(`${base()}/hook?x=1`, '127.0.0.1');
    expect(result).toMatchObject({ ok: true, status: 201, truncated: false });
    if (!result.ok) throw new Error('refused');
    expect(result.body.toString()).toBe('{"ok":true}');
    expect(result.headers['content-type']).toBe('application/json');
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ method: 'POST', url: '/hook?x=1', body: '{"a":1}' });
    expect(hits[0].headers['content-type']).toBe('application/json');
    expect(hits[0].headers['user-agent']).toMatch(/Parley/);
  });

  test('loopback without the list is refused before anything is sent', async () => {
    const result = await call(`${base()}/hook`, '');
    expect(result).toMatchObject({ ok: false, kind: 'refused' });
    expect(hits).toHaveLength(0);
  });

  test('a hostname resolving to loopback is refused after DNS, unless the name or its address is listed', async () => {
    const url = `http://localhost:${port}/hook`;
    expect(await call(url, '')).toMatchObject({ ok: false, kind: 'refused' });
    expect(hits).toHaveLength(0);
    expect(await call(url, 'localhost')).toMatchObject({ ok: true, status: 200 });
    expect(await call(url, '127.0.0.0/8')).toMatchObject({ ok: true, status: 200 });
  });

  test('a redirect to loopback from an allowed host is refused; an allowed redirect is followed', async () => {
    handle = (req, _body, res) => {
      if (req.url === '/go-internal') {
        res.writeHead(302, { Location: `http://127.0.0.1:${port}/secret` });
        res.end();
      } else if (req.url === '/go-here') {
        res.writeHead(307, { Location: '/final' });
        res.end();
      } else res.end(`at ${req.url} by ${req.method}`);
    };
    // Only the name is trusted: the redirect's IP literal is checked and refused.
    expect(await call(`http://localhost:${port}/go-internal`, 'localhost')).toMatchObject({ ok: false, kind: 'refused' });
    expect(hits.map((h) => h.url)).toEqual(['/go-internal']);
    const followed = await call(`http://localhost:${port}/go-here`, 'localhost');
    expect(followed.ok && followed.body.toString()).toBe('at /final by POST');
  });

  test('an answer larger than the limit is cut at the limit', async () => {
    handle = (_req, _body, res) => res.end(Buffer.alloc(5 * 1024 * 1024, 'a'));
    const result = await call(`${base()}/big`, '127.0.0.1');
    expect(result).toMatchObject({ ok: true, truncated: true });
    expect(result.ok && result.body.length).toBe(1024 * 1024);
  });

  test('a hanging integration times out; a closed port is a connect error; other schemes are refused', async () => {
    handle = () => undefined;
    const started = Date.now();
    expect(await call(`${base()}/hang`, '127.0.0.1', { timeoutMs: 300 })).toMatchObject({ ok: false, kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await call(`http://127.0.0.1:${closedPort}/`, '127.0.0.1')).toMatchObject({ ok: false, kind: 'connect' });
    expect(await call('ftp://127.0.0.1/x', '127.0.0.1')).toMatchObject({ ok: false, kind: 'invalid_url' });
    expect(await call('not a url', '127.0.0.1')).toMatchObject({ ok: false, kind: 'invalid_url' });
  });

  test("a pooled connection is let go before the integration's Keep-Alive timeout: a call made as it would close still goes through", async () => {
    // The integration in its own process (a Node server: `Keep-Alive: timeout=2`, it closes idle connections after
    // about 2 s). This process is busy right across that close and calls at once after: a connection still pooled then
    // would be written to after the integration closed it (ECONNRESET, socket hang up: a slash command "failed").
    const script = `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.end('{"text":"hi"}')); });
      s.keepAliveTimeout = 2000; s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const childPort = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
      const url = `http://127.0.0.1:${childPort}/command`;
      expect(await call(url, '127.0.0.1')).toMatchObject({ ok: true, status: 200 });
      await new Promise((r) => setTimeout(r, 1500));
      const until = Date.now() + 2500;
      while (Date.now() < until) {
        // busy: the integration's close (at 2 to 3 s) arrives while this process reads nothing
      }
      expect(await call(url, '127.0.0.1')).toMatchObject({ ok: true, status: 200 });
    } finally {
      child.kill();
    }
  }, 15000);
});

describe('signatures', () => {
  test('a signed payload verifies; a changed body, secret or old timestamp does not', () => {
    const now = Date.now();
    const h = signatureHeaders('secret-token', '{"a":1}', now);
    expect(h['X-Parley-Signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    const headers = { timestamp: h['X-Parley-Timestamp'], signature: h['X-Parley-Signature'] };
    expect(verifySignature('secret-token', headers, '{"a":1}', now)).toBe(true);
    expect(verifySignature('secret-token', headers, '{"a":2}', now)).toBe(false);
    expect(verifySignature('other', headers, '{"a":1}', now)).toBe(false);
    expect(verifySignature('secret-token', headers, '{"a":1}', now + 600_000)).toBe(false);
  });
});
