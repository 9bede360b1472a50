/**
 * A world for the browser journeys, made through the REST API of a real server process (as an admin would):
 * an admin (the first user), alice and bob, team "team-a" with its default channels plus "deploys" and a private
 * "secret", and helpers to post as any of them. Passwords are all PASSWORD.
 */
export const PASSWORD = 'Passw0rd!';

export interface Caller {
  id: string;
  username: string;
  token: string;
  get<T = unknown>(path: string): Promise<T>;
  post<T = unknown>(path: string, body: unknown): Promise<T>;
  put<T = unknown>(path: string, body: unknown): Promise<T>;
}

async function request<T>(url: string, method: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function loginAs(baseUrl: string, username: string, password = PASSWORD): Promise<Caller> {
  const res = await fetch(`${baseUrl}/api/v4/users/login`, { method: 'POST', body: JSON.stringify({ login_id: username, password }), headers: { 'Content-Type': 'application/json' } });
  if (!res.ok) throw new Error(`login ${username}: ${res.status} ${await res.text()}`);
  const user = (await res.json()) as { id: string; username: string };
  const token = res.headers.get('Token') as string;
  return {
    id: user.id,
    username: user.username,
    token,
    get: (path) => request(`${baseUrl}${path}`, 'GET', token),
    post: (path, body) => request(`${baseUrl}${path}`, 'POST', token, body),
    put: (path, body) => request(`${baseUrl}${path}`, 'PUT', token, body),
  };
}

export interface WebWorld {
  admin: Caller;
  alice: Caller;
  bob: Caller;
  team: { id: string; name: string };
  channels: Record<'townSquare' | 'offTopic' | 'deploys' | 'secret', { id: string; name: string; display_name: string }>;
  /** Posts as `who` in a channel; returns the post. */
  post(who: Caller, channelId: string, message: string, extra?: Record<string, unknown>): Promise<{ id: string; create_at: number }>;
}

export async function createWebWorld(baseUrl: string): Promise<WebWorld> {
  const create = (username: string) =>
    fetch(`${baseUrl}/api/v4/users`, { method: 'POST', body: JSON.stringify({ username, email: `${username}@example.com`, password: PASSWORD }), headers: { 'Content-Type': 'application/json' } });
  const adminRes = await create('admin');
  if (!adminRes.ok) throw new Error(`create admin: ${adminRes.status} ${await adminRes.text()}`);
  const admin = await loginAs(baseUrl, 'admin');
  for (const name of ['alice', 'bob']) await admin.post('/api/v4/users', { username: name, email: `${name}@example.com`, password: PASSWORD });
  const alice = await loginAs(baseUrl, 'alice');
  const bob = await loginAs(baseUrl, 'bob');
  const team = await admin.post<{ id: string; name: string }>('/api/v4/teams', { name: 'team-a', display_name: 'Team A', type: 'O' });
  for (const u of [alice, bob]) await admin.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: u.id });
  const byName = (name: string) => admin.get<{ id: string; name: string; display_name: string }>(`/api/v4/teams/${team.id}/channels/name/${name}`);
  const townSquare = await byName('town-square');
  const offTopic = await byName('off-topic');
  const deploys = await admin.post<{ id: string; name: string; display_name: string }>('/api/v4/channels', {
    team_id: team.id,
    name: 'deploys',
    display_name: 'Deploys',
    type: 'O',
    purpose: 'Build and deploy notifications from CI',
  });
  const secret = await admin.post<{ id: string; name: string; display_name: string }>('/api/v4/channels', { team_id: team.id, name: 'secret', display_name: 'Secret Plans', type: 'P', purpose: 'Private planning' });
  for (const ch of [deploys, secret]) for (const u of [alice, bob]) await admin.post(`/api/v4/channels/${ch.id}/members`, { user_id: u.id });
  return {
    admin,
    alice,
    bob,
    team,
    channels: { townSquare, offTopic, deploys, secret },
    post: (who, channelId, message, extra = {}) => who.post('/api/v4/posts', { channel_id: channelId, message, ...extra }),
  };
}
