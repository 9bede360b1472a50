// A minimal fixture over plain HTTP, for servers running as separate processes: an admin with a token, a team,
// its town-square channel and an incoming webhook posting there.
export const PASSWORD = 'Passw0rd!';

export interface RemoteWorld {
  adminId: string;
  token: string;
  teamId: string;
  channelId: string;
  hookKey: string;
}

async function call(url: string, method: string, path: string, body: unknown, token?: string): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(url + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

async function expectStatus<T>(p: Promise<{ status: number; headers: Headers; json: any }>, status: number, what: string): Promise<{ headers: Headers; json: T }> {
  const res = await p;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json)}`);
  return res;
}

export async function createRemoteWorld(url: string, tag = `w${process.pid}x${Date.now() % 100000}`): Promise<RemoteWorld> {
  const user = await expectStatus<{ id: string }>(call(url, 'POST', '/api/v4/users', { username: `admin${tag}`, email: `admin${tag}@example.com`, password: PASSWORD }), 201, 'CreateUser');
  const login = await expectStatus(call(url, 'POST', '/api/v4/users/login', { login_id: `admin${tag}`, password: PASSWORD }), 200, 'Login');
  const token = login.headers.get('token') as string;
  const team = await expectStatus<{ id: string }>(call(url, 'POST', '/api/v4/teams', { name: `team${tag}`, display_name: 'Team', type: 'O' }, token), 201, 'CreateTeam');
  const town = await expectStatus<{ id: string }>(call(url, 'GET', `/api/v4/teams/${team.json.id}/channels/name/town-square`, undefined, token), 200, 'GetChannelByName');
  const hook = await expectStatus<{ id: string }>(call(url, 'POST', '/api/v4/hooks/incoming', { channel_id: town.json.id, display_name: 'robustness' }, token), 201, 'CreateIncomingWebhook');
  return { adminId: user.json.id, token, teamId: team.json.id, channelId: town.json.id, hookKey: hook.json.id };
}

/** All messages of a channel, read page by page through GetPostsForChannel. */
export async function channelMessages(url: string, token: string, channelId: string): Promise<string[]> {
  const out: string[] = [];
  for (let page = 0; ; page++) {
    const res = await expectStatus<{ order: string[]; posts: Record<string, { message: string }> }>(
      call(url, 'GET', `/api/v4/channels/${channelId}/posts?page=${page}&per_page=200`, undefined, token),
      200,
      'GetPostsForChannel',
    );
    for (const id of res.json.order) out.push(res.json.posts[id].message);
    if (res.json.order.length < 200) return out;
  }
}

/** POSTs a webhook payload; resolves with the status and body text, or with the network error's code. */
export async function postHook(url: string, key: string, payload: unknown, timeoutMs = 15000): Promise<{ status: number; text: string; contentType: string | null } | { error: string }> {
  try {
    const res = await fetch(`${url}/hooks/${key}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') };
  } catch (err) {
    const e = err as { cause?: { code?: string }; name?: string; message?: string };
    return { error: e.cause?.code ?? e.name ?? String(e.message) };
  }
}
