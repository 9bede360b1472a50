// Shared helpers of the webhook suites: raw posts to a hook (through the shared raw client), hook creation, read-back.
import { send, type RawAnswer } from '../support/http';
import type { Actor, TestServer } from '../support/server';

/**
 * POSTs exactly `body` with exactly `headers` (no Content-Type unless given: supertest would add a form type to a
 * string body, which would hide the "no Content-Type" rules). `Transfer-Encoding: chunked` sends it in 64 KiB chunks,
 * so a limit is crossed mid-stream.
 */
export function rawPost(url: string, path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return send(url, { method: 'POST', path, body, headers });
}

/** POSTs a JSON payload to /hooks/{key} with Content-Type application/json. */
export function postJson(server: TestServer, key: string, payload: unknown): Promise<RawAnswer> {
  return rawPost(server.url, `/hooks/${key}`, JSON.stringify(payload), { 'Content-Type': 'application/json' });
}

export function expectOk(res: RawAnswer): void {
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
