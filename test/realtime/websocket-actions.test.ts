// The WebSocket actions table (src/http/websocket-actions.ts) against bad input: each row is a request an
// authenticated client sends and the reply it must get, over a real socket to a real server. A refused action is a
// FAIL reply with the whole error body (as the one error writer makes it), and the socket stays open for the next.
import { actionNamed, actions } from '../../src/http/websocket-actions';
import { createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { connect, type Socket } from '../support/ws';

let server: TestServer;
let world: World;
let socket: Socket;
let seq = 100;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  socket = await connect(server.url, { token: world.member.token });
});
afterAll(async () => {
  expect(socket.problems).toEqual([]);
  await socket.close();
  await server.close();
});

/** An error reply's body: the AppError's id, message and status, no detail and no request id on a socket. */
const refused = (id: string, message: string, status_code: number) => ({ status: 'FAIL', error: { id, message, detailed_error: '', request_id: '', status_code } });
const badParam = (name: string) => refused('api.websocket_handler.invalid_param.app_error', `Invalid ${name} parameter.`, 400);
const unknown = (name: string) => refused('api.web_socket_router.bad_action.app_error', `Unknown action: ${name}.`, 500);
const NOBODY_CHANNEL = 'nnnnnnnnnnnnnnnnnnnnnnnnnn';

/** Sends one request as raw JSON (so `data` can be anything) and waits for its reply. */
async function ask(action: string, data: unknown): Promise<Record<string, unknown>> {
  const n = ++seq;
  socket.sendRaw(JSON.stringify(data === undefined ? { seq: n, action } : { seq: n, action, data }));
  const { seq_reply: reply, ...rest } = await socket.reply(n);
  expect(reply).toBe(n);
  return rest;
}

describe('bad input to each action', () => {
  test.each<[string, unknown, Record<string, unknown>]>([
    ['user_typing', undefined, badParam('channel_id')],
    ['user_typing', {}, badParam('channel_id')],
    ['user_typing', { channel_id: 'short' }, badParam('channel_id')],
    ['user_typing', { channel_id: 42 }, badParam('channel_id')],
    ['user_typing', { channel_id: NOBODY_CHANNEL.toUpperCase() }, badParam('channel_id')],
    // Well-formed, but no channel the user may post to.
    ['user_typing', { channel_id: NOBODY_CHANNEL }, refused('api.context.permissions.app_error', 'You do not have the appropriate permissions.', 403)],
    ['get_statuses_by_ids', undefined, badParam('user_ids')],
    ['get_statuses_by_ids', { user_ids: [] }, badParam('user_ids')],
    ['get_statuses_by_ids', { user_ids: 'abc' }, badParam('user_ids')],
    ['get_statuses_by_ids', { user_ids: [1, null, {}] }, badParam('user_ids')],
    // `data` that is not an object is no data.
    ['get_statuses_by_ids', [['x']], badParam('user_ids')],
    ['get_statuses_by_ids', 'user_ids', badParam('user_ids')],
    ['user_update_active_status', undefined, badParam('user_is_active')],
    ['user_update_active_status', { user_is_active: 'true' }, badParam('user_is_active')],
    ['user_update_active_status', { user_is_active: 1 }, badParam('user_is_active')],
  ])('%s with data %j → %j', async (action, data, want) => {
    expect(await ask(action, data)).toEqual(want);
  });
});

describe('names that are no action', () => {
  test.each<[string, Record<string, unknown>]>([
    ['make_coffee', unknown('make_coffee')],
    ['PING', unknown('PING')],
    // Keys every object has are not actions of the table.
    ['constructor', unknown('constructor')],
    ['__proto__', unknown('__proto__')],
    ['toString', unknown('toString')],
    ['hasOwnProperty', unknown('hasOwnProperty')],
    // The name is echoed at most 64 characters long.
    ['x'.repeat(100), unknown('x'.repeat(64))],
  ])('%s → %j', async (action, want) => {
    expect(await ask(action, {})).toEqual(want);
  });

  test.each(['constructor', '__proto__', 'toString', 'valueOf', 'authentication_challenge', ''])('actionNamed(%j) is none', (name) => {
    expect(actionNamed(name)).toBeUndefined();
  });

  test('every action of the table is found by its name', () => {
    for (const [name, action] of Object.entries(actions)) expect(actionNamed(name)).toBe(action);
  });
});

describe('good input still answers after the refusals', () => {
  test.each<[string, unknown, Record<string, unknown>]>([
    ['presence', undefined, { status: 'OK' }],
    ['posted_notify_ack', { post_id: 'anything' }, { status: 'OK' }],
    ['user_typing', { channel_id: '' }, badParam('channel_id')],
    ['user_update_active_status', { user_is_active: true }, { status: 'OK' }],
  ])('%s with data %j → %j', async (action, data, want) => {
    expect(await ask(action, data)).toEqual(want);
  });

  test('ping and the statuses', async () => {
    expect(await ask('ping', undefined)).toMatchObject({ status: 'OK', data: { text: 'pong', node_id: '' } });
    expect(await ask('get_statuses_by_ids', { user_ids: [world.admin.id, 5] })).toEqual({ status: 'OK', data: { [world.admin.id]: 'offline' } });
    expect((await ask('get_statuses', undefined)).status).toBe('OK');
  });

  test('user_typing in a channel the user may post to', async () => {
    expect(await ask('user_typing', { channel_id: world.townSquareId })).toEqual({ status: 'OK' });
  });
});
