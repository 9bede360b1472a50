// Shared helpers of the webhook suites: raw HTTP posts with exact bytes and headers, hook creation, read-back.
import http from 'node:http';
import type { Actor, TestServer } from '../support/server';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed AppError body for JSON answers, else undefined. */
  json: Record<string, unknown> | undefined;
}

/**
 * POSTs exactly `body` with exactly `headers` (no Content-Type unless given: supertest would add a form type to a
 * string body, which would hide the "no Content-Type" rules).
 */
export function rawPost(url: string, path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
  const target = new URL(path, url);
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  // A chunked request has no Content-Length: the server only learns the size while reading.
  const length: Record<string, string> = headers['Transfer-Encoding'] ? {} : { 'Content-Length': String(payload.length) };
  return new Promise((resolve, reject) => {
    const req = http.request(
      { method: 'POST', hostname: target.hostname, port: target.port, path: target.pathname + target.search, headers: { ...length, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> | undefined;
          if (res.headers['content-type'] === 'application/json') json = JSON.parse(text);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (headers['Transfer-Encoding']) {
      // Several chunks, so the limit is crossed mid-stream.
      for (let i = 0; i < payload.length; i += 65536) req.write(payload.subarray(i, i + 65536));
      req.end();
    } else req.end(payload);
  });
}

/** POSTs a JSON payload to /hooks/{key} with Content-Type application/json. */
export function postJson(server: TestServer, key: string, payload: unknown): Promise<RawResponse> {
  return rawPost(server.url, `/hooks/${key}`, JSON.stringify(payload), { 'Content-Type': 'application/json' });
}

/** Expects the AppError of the webhook path: status, id, status_code and request_id consistent, key never echoed. */
export function expectError(res: RawResponse, status: number, id?: string, key?: string): void {
  expect({ status: res.status, id: res.json?.id }).toEqual({ status, id: id ?? res.json?.id });
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.json?.status_code).toBe(status);
  expect(res.json?.request_id).toBe(res.headers['x-request-id']);
  if (key) expect(res.text).not.toContain(key);
}

export function expectOk(res: RawResponse): void {
  expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: 'ok' });
}

export interface HookFields {
  channel_id: string;
  display_name?: string;
  description?: string;
  username?: string;
  icon_url?: string;
  channel_locked?: boolean;
  user_id?: string;
}

export async function createHook(actor: Actor, fields: HookFields): Promise<Record<string, any>> {
  const res = await actor.api.post('/api/v4/hooks/incoming', fields);
  if (res.status !== 201) throw new Error(`CreateIncomingWebhook: ${res.status} ${res.text}`);
  return res.body;
}

export interface StoredPost {
  id: string;
  create_at: number;
  user_id: string;
  channel_id: string;
  message: string;
  type: string;
  props: Record<string, any>;
}

/** The channel's posts, oldest first, read back through GetPostsForChannel. */
export async function channelPosts(actor: Actor, channelId: string, perPage = 200): Promise<StoredPost[]> {
  const res = await actor.api.get(`/api/v4/channels/${channelId}/posts?page=0&per_page=${perPage}`).expect(200);
  return (res.body.order as string[]).map((id) => res.body.posts[id] as StoredPost).reverse();
}

/** The newest post of a channel. */
export async function lastPost(actor: Actor, channelId: string): Promise<StoredPost> {
  const posts = await channelPosts(actor, channelId, 1);
  if (posts.length === 0) throw new Error('the channel has no posts');
  return posts[posts.length - 1];
}

/** Creates a channel through the API and returns its id. */
export async function createChannel(actor: Actor, teamId: string, name: string, type: 'O' | 'P' = 'O'): Promise<string> {
  const res = await actor.api.post('/api/v4/channels', { team_id: teamId, name, display_name: name, type }).expect(201);
  return res.body.id;
}

export async function addToChannel(actor: Actor, channelId: string, userId: string): Promise<void> {
  await actor.api.post(`/api/v4/channels/${channelId}/members`, { user_id: userId }).expect(201);
}

export async function patchConfig(server: TestServer, admin: Actor, patch: Record<string, unknown>): Promise<void> {
  await admin.api.put('/api/v4/config/patch', patch).expect(200);
  // Other processes poll the shared config; this one applies it at once.
  await server.parley.config.refresh();
}

let seq = 0;
/** A unique lower-case name for channels and users. */
export function uniqueName(prefix: string): string {
  return `${prefix}${process.pid}x${++seq}`;
}
