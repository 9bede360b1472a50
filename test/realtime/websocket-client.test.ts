// @mattermost/client's WebSocketClient (what the Mattermost web app uses) against a real Parley process: connect with
// a token, hello, posted for a webhook post and an API post, typing, post_edited, post_deleted, and a reconnect with
// the sequence number that receives what was missed.
import { WebSocketClient } from '@mattermost/client';
import { IncomingWebhook } from '@slack/webhook';
import WebSocket from 'ws';
import { client4For } from '../support/client4';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnServer, type ServerProcess } from '../support/process';
import { eventually } from '../support/eventually';

// Node 20 has no WebSocket or CloseEvent globals: the client refers to both (WebSocket.OPEN, new CloseEvent(...)).
const g = globalThis as Record<string, unknown>;
g.WebSocket ??= WebSocket;
g.CloseEvent ??= class CloseEvent extends Event {
  code: number;
  constructor(type: string, init: { code?: number } = {}) {
    super(type);
    this.code = init.code ?? 1000;
  }
};

interface Msg {
  event: string;
  seq: number;
  data: Record<string, any>;
  broadcast: Record<string, any>;
}

let db: TestDatabase;
let server: ServerProcess;
const clients: Array<InstanceType<typeof WebSocketClient>> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  server = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource, NODE_ENV: 'test' });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await server?.stop();
  await db?.drop();
});

/** A WebSocketClient that records every message, authenticated with the token (authentication_challenge). */
function listen(token: string): { ws: InstanceType<typeof WebSocketClient>; messages: Msg[]; missed: number[] } {
  let created: WebSocket | undefined;
  const ws = new WebSocketClient({ newWebSocketFn: (url) => (created = new WebSocket(url)) as never, minWebSocketRetryTime: 50, maxWebSocketRetryTime: 200, reconnectJitterRange: 1 });
  const messages: Msg[] = [];
  const missed: number[] = [];
  ws.addMessageListener((m) => messages.push(m as unknown as Msg));
  ws.addMissedMessageListener(() => missed.push(messages.length));
  ws.initialize(`${server.url.replace('http', 'ws')}/api/v4/websocket`, token);
  clients.push(ws);
  void created;
  return { ws, messages, missed };
}

const find = (messages: Msg[], pred: (m: Msg) => boolean) => eventually(() => {
  const m = messages.find(pred);
  if (!m) throw new Error(`not yet: ${messages.map((x) => x.event).join(',')}`);
  return m;
});

test('hello, posted (API and webhook), typing, post_edited, post_deleted; a reconnect replays what was missed', async () => {
  const admin = client4For(server);
  await admin.createUser({ username: 'boss', email: 'boss@example.com', password: 'Passw0rd!' } as never, '', '');
  await admin.login('boss', 'Passw0rd!');
  const team = await admin.createTeam({ name: 'wsteam', display_name: 'WS', type: 'O' } as never);
  const town = await admin.getChannelByName(team.id, 'town-square');
  const member = client4For(server);
  const bob = await admin.createUser({ username: 'bob', email: 'bob@example.com', password: 'Passw0rd!' } as never, '', '');
  await admin.addToTeam(team.id, bob.id);
  await member.login('bob', 'Passw0rd!');

  const { ws, messages, missed } = listen(member.getToken());
  const hello = await find(messages, (m) => m.event === 'hello');
  expect(hello.seq).toBe(0);
  expect(hello.data.connection_id).toMatch(/^[a-z0-9]{26}$/);

  const apiPost = await admin.createPost({ channel_id: town.id, message: 'from Client4' } as never);
  const posted = await find(messages, (m) => m.event === 'posted' && JSON.parse(m.data.post).id === apiPost.id);
  expect(posted.data).toMatchObject({ channel_name: 'town-square', channel_type: 'O', team_id: team.id, sender_name: '@boss' });

  const hook = await admin.createIncomingWebhook({ channel_id: town.id, display_name: 'ci' } as never);
  await new IncomingWebhook(`${server.url}/hooks/${hook.id}`).send({ text: 'from the webhook' });
  const hookPost = await find(messages, (m) => m.event === 'posted' && JSON.parse(m.data.post).message === 'from the webhook');
  expect(JSON.parse(hookPost.data.post).props.from_webhook).toBe('true');

  const { ws: adminWs, messages: adminMessages } = listen(admin.getToken());
  await find(adminMessages, (m) => m.event === 'hello');
  adminWs.userTyping(town.id, '');
  const typing = await find(messages, (m) => m.event === 'typing');
  expect(typing.data).toEqual({ parent_id: '', user_id: (await admin.getMe()).id });

  await admin.patchPost({ id: apiPost.id, message: 'edited by Client4' } as never);
  const edited = await find(messages, (m) => m.event === 'post_edited');
  expect(JSON.parse(edited.data.post).message).toBe('edited by Client4');
  await admin.deletePost(apiPost.id);
  await find(messages, (m) => m.event === 'post_deleted' && JSON.parse(m.data.post).id === apiPost.id);

  // Every event so far numbered without a gap (the client itself reconnects on a gap: no missed-message call).
  expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i));
  expect(missed).toEqual([]);

  // The connection drops; events happen meanwhile; the client reconnects with connection_id and sequence_number.
  const before = messages.length;
  (ws as unknown as { conn: WebSocket }).conn.close();
  await admin.createPost({ channel_id: town.id, message: 'while away 1' } as never);
  await admin.createPost({ channel_id: town.id, message: 'while away 2' } as never);
  await find(messages, (m) => m.event === 'posted' && JSON.parse(m.data.post).message === 'while away 2');
  const replayed = messages.slice(before).filter((m) => m.event === 'posted').map((m) => JSON.parse(m.data.post).message);
  expect(replayed).toEqual(['while away 1', 'while away 2']);
  expect(messages.slice(before).some((m) => m.event === 'hello')).toBe(false);
  expect(missed).toEqual([]);
  expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i));
});
