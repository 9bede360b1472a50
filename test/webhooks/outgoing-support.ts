// A real integration for the outgoing webhook suites: a node:http server on 127.0.0.1 that records every request as
// it arrived (method, path, headers, raw body) and answers as the test says.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestServer } from '../support/server';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body decoded: JSON, or the form's fields. */
  fields: Record<string, unknown>;
}

/** What the integration answers a request: status, body (JSON when an object), or 'hang' (never answers). */
export type Answer = { status: number; body?: unknown; contentType?: string } | 'hang';

export interface Integration {
  url: string;
  received: Received[];
  /** Requests for one post, in arrival order. */
  forPost(postId: string): Received[];
  /** Decides each answer; the default answers 200 with an empty body. */
  answer: (req: Received, index: number) => Answer;
  /** Drops the connections of the requests it holds unanswered (their callers see the connection cut). */
  releaseHanging(): void;
  /** Drops every hanging request (so servers can close), then stops. */
  close(): Promise<void>;
}

export async function startIntegration(): Promise<Integration> {
  const hanging = new Set<http.ServerResponse>();
  const integration: Integration = {
    url: '',
    received: [],
    forPost: (postId) => integration.received.filter((r) => r.fields.post_id === postId),
    answer: () => ({ status: 200 }),
    releaseHanging: () => {
      for (const res of hanging) res.destroy();
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let fields: Record<string, unknown> = {};
      if ((req.headers['content-type'] ?? '').startsWith('application/json')) fields = JSON.parse(body) as Record<string, unknown>;
      else fields = Object.fromEntries(new URLSearchParams(body));
      const received: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, fields };
      integration.received.push(received);
      const answer = integration.answer(received, integration.received.length - 1);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const payload = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'Content-Type': answer.contentType ?? 'application/json' });
      res.end(payload);
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  integration.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return integration;
}

/**
 * The check an integration makes, written from the README's description (not from the server's code): the
 * signature is `v1=` + hex HMAC-SHA256, keyed by the hook's token, of "v1:" + X-Parley-Timestamp + ":" + the raw body,
 * and the timestamp is within five minutes of now.
 */
export function verifyParleySignature(token: string, req: Received, nowMs = Date.now()): boolean {
  const ts = req.headers['x-parley-timestamp'];
  const sig = req.headers['x-parley-signature'];
  if (typeof ts !== 'string' || typeof sig !== 'string' || !/^\d+$/.test(ts)) return false;
  if (Math.abs(nowMs / 1000 - Number(ts)) > 300) return false;
  const expected = Buffer.from('v1=' + createHmac('sha256', token).update(`v1:${ts}:${req.body}`).digest('hex'));
  const given = Buffer.from(sig);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Whether a post queued any outgoing call. Calls are queued in the post's own transaction and leave the queue only
 * after their attempt is logged, so right after the post's 201 this is decided: no waiting for something not to happen.
 */
export async function wasQueued(server: TestServer, postId: string): Promise<boolean> {
  const knex = server.parley.db.knex;
  const [q] = await knex('outgoing_queue').where('post_id', postId).count({ n: '*' });
  const [d] = await knex('integration_deliveries').where('post_id', postId).count({ n: '*' });
  return Number(q.n) + Number(d.n) > 0;
}

/** Whether every call a post queued has been made (and logged) for the last time: none is left to retry. */
export async function callsDone(server: TestServer, postId: string): Promise<boolean> {
  const [q] = await server.parley.db.knex('outgoing_queue').where('post_id', postId).count({ n: '*' });
  return Number(q.n) === 0;
}
