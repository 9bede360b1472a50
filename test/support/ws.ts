// A WebSocket client for the real-time suites: connects to a real server (ws, over loopback), checks every frame it
// receives against the spec's event schemas and the sequence rules, and lets a test wait for, or rule out, events.
import WebSocket from 'ws';
import { frameValidator } from '../../src/http/validation';
import type { Spec } from '../../src/http/spec-routes';
import { loadSpec } from '../../src/spec';

const validate = frameValidator(loadSpec() as unknown as Spec);

export interface Frame {
  event?: string;
  data?: Record<string, any>;
  broadcast?: Record<string, any>;
  seq?: number;
  status?: string;
  seq_reply?: number;
  error?: Record<string, any>;
}

export interface Socket {
  ws: WebSocket;
  /** Every event received, in order. */
  events: Frame[];
  /** Every reply received, in order. */
  replies: Frame[];
  /** Problems with frames received (schema, numbering): a test asserts this stays empty. */
  problems: string[];
  /** The connection id of the last hello. */
  connectionId(): string;
  /** The seq of the next event expected. */
  nextSeq(): number;
  send(action: string, data?: Record<string, unknown>, seq?: number): number;
  sendRaw(data: string | Buffer): void;
  /** Resolves with the first event (received already or later) that matches, after `from` (an index into events). */
  next(match: (f: Frame) => boolean, opts?: { timeoutMs?: number; from?: number }): Promise<Frame>;
  reply(seq: number, timeoutMs?: number): Promise<Frame>;
  /** Waits `ms` and fails if an event matching arrived meanwhile (or had arrived since `from`). */
  none(match: (f: Frame) => boolean, ms?: number, from?: number): Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  token?: string;
  cookie?: string;
  origin?: string;
  /** Send authentication_challenge with this token after opening. */
  challenge?: string;
  connectionId?: string;
  sequenceNumber?: number;
  /** Resolve only after hello arrives (default true when authenticated). */
  waitHello?: boolean;
}

export function wsUrl(httpUrl: string): string {
  return `${httpUrl.replace(/^http/, 'ws')}/api/v4/websocket`;
}

export async function connect(httpUrl: string, opts: ConnectOptions = {}): Promise<Socket> {
  const query = new URLSearchParams();
  if (opts.connectionId !== undefined) query.set('connection_id', opts.connectionId);
  if (opts.sequenceNumber !== undefined) query.set('sequence_number', String(opts.sequenceNumber));
  const headers: Record<string, string> = {};
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  if (opts.cookie) headers.Cookie = opts.cookie;
  if (opts.origin) headers.Origin = opts.origin;
  const qs = query.toString();
  const ws = new WebSocket(`${wsUrl(httpUrl)}${qs ? `?${qs}` : ''}`, { headers });
  const events: Frame[] = [];
  const replies: Frame[] = [];
  const problems: string[] = [];
  let expected = opts.sequenceNumber ?? 0;
  let connectionId = opts.connectionId ?? '';
  let seq = 0;
  const waiters = new Set<() => void>();
  ws.on('message', (raw) => {
    const text = raw.toString();
    const problem = validate(text);
    if (problem) problems.push(problem);
    const frame = JSON.parse(text) as Frame;
    if (frame.seq_reply !== undefined || frame.status !== undefined) replies.push(frame);
    else {
      if (frame.event === 'hello') {
        if (frame.data?.connection_id !== connectionId) expected = 0;
        connectionId = frame.data?.connection_id;
      }
      if (frame.seq !== expected) problems.push(`event ${frame.event} has seq ${frame.seq}, expected ${expected}`);
      expected = (frame.seq ?? expected) + 1;
      events.push(frame);
    }
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
  const waitFor = <T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found !== undefined) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; events: ${events.map((e) => e.event).join(', ')}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const socket: Socket = {
    ws,
    events,
    replies,
    problems,
    connectionId: () => connectionId,
    nextSeq: () => expected,
    send: (action, data, explicit) => {
      const s = explicit ?? ++seq;
      ws.send(JSON.stringify({ seq: s, action, ...(data ? { data } : {}) }));
      return s;
    },
    sendRaw: (data) => ws.send(data),
    next: (match, o = {}) => waitFor(() => events.slice(o.from ?? 0).find(match), o.timeoutMs ?? 5000, 'an event'),
    reply: (s, timeoutMs = 5000) => waitFor(() => replies.find((r) => r.seq_reply === s), timeoutMs, `the reply to ${s}`),
    // A fixed grace on purpose: the claim is that nothing arrives in it.
    none: async (match, ms = 300, from = 0) => {
      await new Promise((r) => setTimeout(r, ms));
      const found = events.slice(from).find(match);
      if (found) throw new Error(`unexpected event ${JSON.stringify(found).slice(0, 300)}`);
    },
    closed,
    close: async () => {
      if (ws.readyState === ws.CLOSED) return;
      ws.close();
      await closed;
    },
  };
  if (opts.challenge) {
    const s = socket.send('authentication_challenge', { token: opts.challenge });
    await socket.reply(s);
  }
  if (opts.waitHello ?? Boolean(opts.token || opts.cookie || opts.challenge)) await socket.next((f) => f.event === 'hello');
  return socket;
}

/** The post inside a posted/post_edited/post_deleted event (a JSON string on the wire, as in Mattermost). */
export function postOf(f: Frame): Record<string, any> {
  return JSON.parse(f.data?.post as string) as Record<string, any>;
}
