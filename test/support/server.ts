import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startParley, type Parley } from '../../src/parley';
import { createTestDatabase, type TestDatabase } from './database';

export const PASSWORD = 'Passw0rd!';

export interface TestServer {
  parley: Parley;
  url: string;
  db: TestDatabase;
  /** FileSettings.Directory: a fresh temporary directory per server (unless the test sets its own), removed on close. */
  filesDir: string;
  /** A supertest agent on the real HTTP server; with a token, every request carries it. */
  http(token?: string): ApiClient;
  close(): Promise<void>;
}

type Method = 'get' | 'post' | 'put' | 'delete';

export interface ApiClient {
  get(path: string): request.Test;
  post(path: string, body?: unknown): request.Test;
  put(path: string, body?: unknown): request.Test;
  delete(path: string): request.Test;
}

/** Starts a real Parley on 127.0.0.1 with a fresh database (SQLite, or MariaDB when PARLEY_TEST_DATABASE is set). */
export async function startTestServer(env: Record<string, string> = {}, existing?: TestDatabase): Promise<TestServer> {
  const db = existing ?? (await createTestDatabase());
  const ownFiles = env.MM_FILESETTINGS_DIRECTORY === undefined;
  const filesDir = env.MM_FILESETTINGS_DIRECTORY ?? mkdtempSync(join(tmpdir(), 'parley-files-'));
  const parley = await startParley({
    env: { MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource, MM_FILESETTINGS_DIRECTORY: filesDir, ...env },
    listen: '127.0.0.1:0',
    validateResponses: true,
  });
  const client = (token?: string): ApiClient => {
    const make = (method: Method, path: string, body?: unknown) => {
      let t = request(parley.url)[method](path);
      if (token) t = t.set('Authorization', `Bearer ${token}`);
      if (body !== undefined) t = t.send(body as object);
      return t;
    };
    return {
      get: (p) => make('get', p),
      post: (p, b) => make('post', p, b),
      put: (p, b) => make('put', p, b),
      delete: (p) => make('delete', p),
    };
  };
  return {
    parley,
    url: parley.url,
    db,
    filesDir,
    http: client,
    close: async () => {
      await parley.close();
      if (!existing) await db.drop();
      if (ownFiles) rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

export interface Actor {
  id: string;
  username: string;
  token: string;
  api: ApiClient;
}

let counter = 0;

/** Creates a user through the API (first one: system admin) and logs them in. */
export async function createUser(server: TestServer, as?: Actor, fields: Record<string, unknown> = {}): Promise<Actor> {
  const username = (fields.username as string) ?? `user${process.pid}x${++counter}`;
  const res = await server
    .http(as?.token)
    .post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD, ...fields })
    .expect(201);
  return login(server, res.body.id, username);
}

export async function login(server: TestServer, id: string, username: string): Promise<Actor> {
  const res = await server.http().post('/api/v4/users/login', { login_id: username, password: PASSWORD }).expect(200);
  const token = res.headers.token as string;
  return { id, username, token, api: server.http(token) };
}

export interface World {
  admin: Actor;
  member: Actor;
  teamId: string;
  townSquareId: string;
}

/** An admin, a plain member and a team they both belong to: the starting point of most API tests. */
export async function createWorld(server: TestServer, teamName = `team${++counter}x${process.pid}`): Promise<World> {
  const admin = await createUser(server);
  const member = await createUser(server, admin);
  const team = await admin.api.post('/api/v4/teams', { name: teamName, display_name: 'Team', type: 'O' }).expect(201);
  await admin.api.post(`/api/v4/teams/${team.body.id}/members`, { team_id: team.body.id, user_id: member.id }).expect(201);
  const town = await admin.api.get(`/api/v4/teams/${team.body.id}/channels/name/town-square`).expect(200);
  return { admin, member, teamId: team.body.id, townSquareId: town.body.id };
}

/** Creates an open team owned (team admin) by `owner` with `members` added; returns its id. */
export async function createTeam(owner: Actor, name: string, members: Actor[] = []): Promise<string> {
  const team = await owner.api.post('/api/v4/teams', { name, display_name: name, type: 'O' }).expect(201);
  const teamId = team.body.id as string;
  for (const u of members) await owner.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: u.id }).expect(201);
  return teamId;
}

/**
 * `owner` creates a channel of `type` on the team (name and display name `<prefix>-<n>x<pid>`) and adds `members` in one
 * request; returns its id.
 */
export async function createChannel(owner: Actor, teamId: string, type: 'O' | 'P', members: Actor[] = [], prefix = 'channel'): Promise<string> {
  const name = `${prefix}-${++counter}x${process.pid}`;
  const id = (await owner.api.post('/api/v4/channels', { team_id: teamId, name, display_name: name, type }).expect(201)).body.id as string;
  if (members.length) await owner.api.post(`/api/v4/channels/${id}/members`, { user_ids: members.map((m) => m.id) }).expect(201);
  return id;
}

/** `as` posts `message` (a fresh `post <n>` when left out) with `extra` fields in the channel; returns the post created. */
export async function createPost(as: Actor, channelId: string, message = `post ${++counter}`, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return (await as.api.post('/api/v4/posts', { channel_id: channelId, message, ...extra }).expect(201)).body;
}

/** Runs `fn` with the server's clock pinned (every service shares one `now`), so tests can place posts in time. */
export async function atTime<T>(server: TestServer, ms: number, fn: () => Promise<T>): Promise<T> {
  const deps = server.parley.app.deps;
  const real = deps.now;
  deps.now = () => ms;
  try {
    return await fn();
  } finally {
    deps.now = real;
  }
}
