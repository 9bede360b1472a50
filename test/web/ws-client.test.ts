// The WebSocket client against a scripted fake socket and fake timers: resume parameters, gap detection,
// missed-message refetch on a new connection id, backoff, pings.
import { CLOSE_PING_TIMEOUT, CLOSE_SEQUENCE_MISMATCH, WsClient, defaultBackoff, type SocketLike, type Timers, type WsStatus } from '../../web/src/ws-client';
import { handled, type WsEvent } from '../../web/src/ws-events';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: Array<Record<string, unknown>> = [];
  closedWith: number | undefined;
  onopen: SocketLike['onopen'] = null;
  onmessage: SocketLike['onmessage'] = null;
  onclose: SocketLike['onclose'] = null;
  onerror: SocketLike['onerror'] = null;
  constructor(readonly url: string) {}
  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000): void {
    if (this.readyState === 3) return;
    this.closedWith = code;
    this.readyState = 3;
    this.onclose?.({ code });
  }
  // What the server does:
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  event(event: string, seq: number, data: Record<string, unknown> = {}): void {
    this.onmessage?.({ data: JSON.stringify({ event, seq, data, broadcast: {} }) });
  }
  reply(seq_reply: number, data: Record<string, unknown> = {}): void {
    this.onmessage?.({ data: JSON.stringify({ status: 'OK', seq_reply, data }) });
  }
  raw(text: string): void {
    this.onmessage?.({ data: text });
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({ code: 1006 });
  }
}

class FakeTimers implements Timers {
  now = 0;
  private next = 1;
  private tasks = new Map<number, { at: number; fn: () => void; every?: number }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.tasks.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.tasks.delete(h as number);
  }
  setInterval(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.tasks.set(id, { at: this.now + ms, fn, every: ms });
    return id;
  }
  clearInterval(h: unknown): void {
    this.tasks.delete(h as number);
  }
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.tasks.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      const [id, task] = due;
      this.now = task.at;
      if (task.every) task.at += task.every;
      else this.tasks.delete(id);
      task.fn();
    }
    this.now = end;
  }
}

function setup(opts: { pingIntervalMs?: number } = {}) {
  const sockets: FakeSocket[] = [];
  const events: WsEvent[] = [];
  const statuses: WsStatus[] = [];
  let missed = 0;
  const timers = new FakeTimers();
  const client = new WsClient({
    url: 'ws://parley.test/api/v4/websocket',
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    onEvent: (e) => events.push(e),
    onMissedMessages: () => missed++,
    onStatus: (s) => statuses.push(s),
    backoff: (n) => n * 1000,
    pingIntervalMs: opts.pingIntervalMs ?? 0,
    timers,
  });
  const last = () => sockets[sockets.length - 1];
  return { client, sockets, events, statuses, timers, last, missed: () => missed };
}

const seqs = (events: WsEvent[]) => events.map((e) => `${e.event}:${e.seq}`);

test('connects with an empty connection id, takes hello at seq 0 and then 1, 2, ...', () => {
  const t = setup();
  t.client.start();
  expect(t.last().url).toBe('ws://parley.test/api/v4/websocket?connection_id=&sequence_number=0');
  t.last().open();
  t.last().event('hello', 0, { connection_id: 'conn1' });
  t.last().event('posted', 1);
  t.last().event('typing', 2);
  expect(seqs(t.events)).toEqual(['hello:0', 'posted:1', 'typing:2']);
  expect(t.client.currentConnectionId).toBe('conn1');
  expect(t.statuses).toEqual(['connecting', 'open']);
});

test('after a drop it reconnects with backoff and resumes from the next expected sequence number', () => {
  const t = setup();
  t.client.start();
  t.last().open();
  t.last().event('hello', 0, { connection_id: 'conn1' });
  t.last().event('posted', 1);
  t.last().drop();
  expect(t.statuses[t.statuses.length - 1]).toBe('reconnecting');
  expect(t.sockets).toHaveLength(1);
  t.timers.advance(999);
  expect(t.sockets).toHaveLength(1);
  t.timers.advance(1);
  expect(t.last().url).toBe('ws://parley.test/api/v4/websocket?connection_id=conn1&sequence_number=2');
  // The server replays what was missed with the original numbers; no hello, no refetch.
  t.last().open();
  t.last().event('posted', 2);
  t.last().event('post_edited', 3);
  expect(seqs(t.events)).toEqual(['hello:0', 'posted:1', 'posted:2', 'post_edited:3']);
  expect(t.missed()).toBe(0);
});

test('a new hello with a different connection id asks for a refetch and restarts numbering', () => {
  const t = setup();
  t.client.start();
  t.last().open();
  t.last().event('hello', 0, { connection_id: 'conn1' });
  t.last().event('posted', 1);
  t.last().drop();
  t.timers.advance(1000);
  t.last().open();
  t.last().event('hello', 0, { connection_id: 'conn2' });
  t.last().event('posted', 1);
  expect(t.missed()).toBe(1);
  expect(seqs(t.events)).toEqual(['hello:0', 'posted:1', 'hello:0', 'posted:1']);
  t.last().drop();
  t.timers.advance(1000);
  expect(t.last().url).toContain('connection_id=conn2&sequence_number=2');
});

test('the first hello is not a missed-message signal', () => {
  const t = setup();
  t.client.start();
  t.last().open();
  t.last().event('hello', 0, { connection_id: 'conn1' });
  expect(t.missed()).toBe(0);
});

test('a gap in the sequence closes the socket (4001) and resumes from the first missing event', () => {
  const t = setup();
  t.client.start();
  t.last().open();
  t.last().event('hello', 0, { connection_id: 'conn1' });
  t.last().event('posted', 1);
  t.last().event('posted', 3); // 2 was lost
  expect(t.last().closedWith).toBe(CLOSE_SEQUENCE_MISMATCH);
  expect(seqs(t.events)).toEqual(['hello:0', 'posted:1']);
  t.timers.advance(1000);
  expect(t.last().url).toContain('connection_id=conn1&sequence_number=2');
  t.last().open();
  t.last().event('posted', 2);
  t.last().event('posted', 3);
  expect(seqs(t.events)).toEqual(['hello:0', 'posted:1', 'posted:2', 'posted:3']);
});

test('a replayed duplicate (a seq already delivered) is not delivered twice', () => {
  const t = setup();
  t.client.start();
  t.last().open();
  t.last().event('hello', 0, { connection_id: 'conn1' });
  t.last().event('posted', 1);
  t.last().event('posted', 1);
  expect(seqs(t.events)).toEqual(['hello:0', 'posted:1']);
});

test('backoff grows with consecutive failures and is reset by a successful connection', () => {
  const t = setup();
  t.client.start();
  t.last().drop(); // failure 1 → 1 s
  t.timers.advance(1000);
  t.last().drop(); // failure 2 → 2 s
  t.timers.advance(1999);
  expect(t.sockets).toHaveLength(2);
  t.timers.advance(1);
  expect(t.sockets).toHaveLength(3);
  t.last().open();
  t.last().event('hello', 0, { connection_id: 'c' });
  t.last().drop(); // back to 1 s
  t.timers.advance(1000);
  expect(t.sockets).toHaveLength(4);
  expect(t.statuses).toContain('reconnecting');
});

test('the default backoff starts at about a second and stops growing at a minute', () => {
  expect(defaultBackoff(1, () => 0)).toBe(1000);
  expect(defaultBackoff(3, () => 0)).toBe(4000);
  expect(defaultBackoff(30, () => 0)).toBe(60000);
  expect(defaultBackoff(1, () => 0.999)).toBeLessThan(2000);
});

test('stop() closes for good: no reconnect', () => {
  const t = setup();
  t.client.start();
  t.last().open();
  t.client.stop();
  t.timers.advance(120000);
  expect(t.sockets).toHaveLength(1);
  expect(t.client.state).toBe('closed');
});

test('reconnectNow() skips the wait (the browser came back online)', () => {
  const t = setup();
  t.client.start();
  t.last().drop();
  t.client.reconnectNow();
  expect(t.sockets).toHaveLength(2);
});

test('requests carry their own counter and resolve with the reply', async () => {
  const t = setup();
  t.client.start();
  t.last().open();
  const answer = t.client.send('get_statuses');
  t.client.userTyping('chan', 'root');
  expect(t.last().sent).toEqual([
    { seq: 1, action: 'get_statuses' },
    { seq: 2, action: 'user_typing', data: { channel_id: 'chan', parent_id: 'root' } },
  ]);
  t.last().reply(1, { u1: 'online' });
  await expect(answer).resolves.toMatchObject({ status: 'OK', seq_reply: 1, data: { u1: 'online' } });
  // A reply is not an event and does not move the event sequence.
  t.last().event('hello', 0, { connection_id: 'c' });
  expect(seqs(t.events)).toEqual(['hello:0']);
});

test('a request while disconnected resolves to undefined instead of hanging', async () => {
  const t = setup();
  t.client.start();
  await expect(t.client.send('get_statuses')).resolves.toBeUndefined();
});

test('pings: a server that answers them and then stops is dropped (4000); one that never answers is left alone', () => {
  const answering = setup({ pingIntervalMs: 30000 });
  answering.client.start();
  answering.last().open();
  expect(answering.last().sent[0]).toEqual({ seq: 1, action: 'ping' });
  answering.last().reply(1, { text: 'pong' });
  answering.timers.advance(30000); // ping 2, not answered
  expect(answering.last().sent[1]).toEqual({ seq: 2, action: 'ping' });
  answering.timers.advance(30000);
  expect(answering.sockets[0].closedWith).toBe(CLOSE_PING_TIMEOUT);

  const silent = setup({ pingIntervalMs: 30000 });
  silent.client.start();
  silent.last().open();
  silent.timers.advance(120000);
  expect(silent.sockets[0].closedWith).toBeUndefined();
});

test('untrusted frames: what is not an event or a reply is ignored and does not count; a hello without a usable id still counts', () => {
  const t = setup();
  t.client.start();
  t.last().open();
  for (const junk of ['not json', '[1,2]', 'null', '"posted"', '{"event":"posted"}', '{"event":"posted","seq":"1"}', '{"seq":1}', '{"event":7,"seq":1}', '{"status":"OK","seq_reply":"1"}']) t.last().raw(junk);
  // A hello whose data is missing or whose connection id is not a string: numbered as usual, with no id to resume.
  t.last().raw('{"event":"hello","seq":0}');
  t.last().raw('{"event":"posted","seq":1,"data":null}');
  expect(seqs(t.events)).toEqual(['hello:0', 'posted:1']);
  expect(t.last().closedWith).toBeUndefined();
  expect(t.client.currentConnectionId).toBe('');
  t.last().raw('{"event":"hello","seq":0,"data":{"connection_id":{"x":1}}}');
  expect(t.client.currentConnectionId).toBe('');
});

describe('handled: which events the client acts on, as the spec names them', () => {
  const frame = (event: string, data: unknown, broadcast?: unknown): WsEvent => ({ event, seq: 1, data, broadcast });
  test.each([
    ['posted with data', frame('posted', { post: '{}' }, { channel_id: 'c' }), 'posted'],
    ['hello with empty data', frame('hello', {}), 'hello'],
    ['an event the client does not act on (thread_updated)', frame('thread_updated', { thread: '{}' }), undefined],
    ['an event the spec does not have', frame('something_new', {}), undefined],
    ['a name inherited from Object.prototype', frame('constructor', {}), undefined],
    ['__proto__', frame('__proto__', {}), undefined],
    ['posted without data', frame('posted', undefined), undefined],
    ['posted with data null', frame('posted', null), undefined],
    ['posted with data a string', frame('posted', '{"post":"{}"}'), undefined],
    ['posted with data an array', frame('posted', []), undefined],
  ])('%s', (_name, given, want) => {
    expect(handled(given)?.event).toBe(want);
  });

  test('a broadcast that is not an object is dropped; one that is, kept as sent', () => {
    expect(handled(frame('typing', { user_id: 'u' }, 'channel'))?.broadcast).toBeUndefined();
    expect(handled(frame('typing', { user_id: 'u' }, null))?.broadcast).toBeUndefined();
    expect(handled(frame('typing', { user_id: 'u' }, { channel_id: 'c' }))?.broadcast).toEqual({ channel_id: 'c' });
  });
});
