/**
 * A typed Parley client for client teams: openapi-fetch driven by the types `npm run gen` derives from the spec.
 * Paths, parameters, request bodies and response bodies are all checked by the compiler, so a spec change that
 * breaks a client breaks its build rather than its users.
 *
 *   const parley = createParleyClient('http://localhost:8065');
 *   await parley.login('alice', 'secret');
 *   const { data, error } = await parley.api.GET('/api/v4/users/{user_id}', { params: { path: { user_id: 'me' } } });
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from '../generated/api';

export type ParleyApi = Client<paths>;
export type AppError = components['schemas']['AppError'];
export type Post = components['schemas']['Post'];
export type PostList = components['schemas']['PostList'];
export type User = components['schemas']['User'];

/** An error answer of the server, with its AppError body (stable dotted `id`, `status_code`, `request_id`). */
export class ParleyApiError extends Error {
  constructor(readonly body: AppError) {
    super(`${body.status_code} ${body.id}: ${body.message}`);
    this.name = 'ParleyApiError';
  }
}

/**
 * Sends `Authorization: Bearer <token>` once there is a token. Webhook posts are left alone: the hook key in
 * their path is their only credential, and a session token has no business travelling with them.
 */
export function bearerAuth(token: () => string | undefined): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      const value = token();
      if (value && !schemaPath.startsWith('/hooks/')) request.headers.set('Authorization', `Bearer ${value}`);
      return request;
    },
  };
}

/** The data of a successful call; an AppError answer is thrown as ParleyApiError. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    throw new ParleyApiError(result.error as AppError);
  }
  return result.data;
}

export interface ParleyClient {
  /** Every operation of the spec, typed: `api.GET(path, { params })`, `api.POST(path, { body })`, ... */
  api: ParleyApi;
  /** The session token after login (null before). */
  readonly token: string | null;
  /** Logs in; the session token comes back in the `Token` response header and is sent on every later call. */
  login(loginId: string, password: string): Promise<User>;
  createPost(channelId: string, message: string): Promise<Post>;
  /** A page of a channel's posts, newest first. */
  listPosts(channelId: string, page?: number, perPage?: number): Promise<PostList>;
}

export function createParleyClient(baseUrl: string, options: { fetch?: typeof fetch } = {}): ParleyClient {
  const api = createClient<paths>({ baseUrl, fetch: options.fetch });
  let token: string | null = null;
  api.use(bearerAuth(() => token ?? undefined));
  return {
    api,
    get token() {
      return token;
    },
    async login(loginId, password) {
      const result = await api.POST('/api/v4/users/login', { body: { login_id: loginId, password } });
      const user = unwrap(result);
      token = result.response.headers.get('Token');
      if (!token) throw new Error('the server answered the login without a Token header');
      return user;
    },
    async createPost(channelId, message) {
      return unwrap(await api.POST('/api/v4/posts', { body: { channel_id: channelId, message } }));
    },
    async listPosts(channelId, page = 0, perPage = 60) {
      return unwrap(await api.GET('/api/v4/channels/{channel_id}/posts', { params: { path: { channel_id: channelId }, query: { page, per_page: perPage } } }));
    },
  };
}

/** The walk-through above, end to end: log in, post, read the channel back (newest first). */
export async function demo(baseUrl: string, loginId: string, password: string, channelId: string): Promise<string[]> {
  const parley = createParleyClient(baseUrl);
  await parley.login(loginId, password);
  await parley.createPost(channelId, 'Hello from the typed client');
  const page = await parley.listPosts(channelId);
  return page.order.map((id) => page.posts[id].message);
}
