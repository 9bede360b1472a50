import { handled, isEvent, isResponse, type UserTypingData, type WsAction, type WsEvent, type WsResponse } from './ws-events';

/**
 * The WebSocket client of Mattermost's protocol, written against the protocol rather than a browser: the socket
 * and the timers are injected, so the same code runs in the page (window.WebSocket) and in unit tests (a fake).
 *
 * - Resume: every reconnect asks for `?connection_id=<last id>&sequence_number=<next expected seq>`. A server that
 *   still has the missed events replays them with their original numbers; one that does not answers a fresh `hello`
 *   with a new connection id, and then `onMissedMessages` tells the app to refetch what it shows.
 * - Order: events must arrive numbered 0 (hello), 1, 2, ... A gap closes the socket (4001) and reconnects, which
 *   resumes from the first missing number; so events are delivered exactly once and in order, or a refetch is asked.
 * - Liveness: the app-level `ping` action is sent every 30 s; once the server has answered one, a ping left
 *   unanswered closes the socket (4000) and reconnects. A server that never answers pings is not punished for it.
 * - Backoff: 1 s, 2 s, 4 s ... up to 60 s, plus up to 1 s of jitter so that a restarted server is not hit by every
 *   tab at once; reset by a `hello` or by the first event of a resumed connection.
 */

/** What the client needs of a WebSocket (the browser's satisfies it). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => unknown) | null;
  onmessage: ((ev: { data: unknown }) => unknown) | null;
  onclose: ((ev: { code: number; reason?: string }) => unknown) | null;
  onerror: ((ev: unknown) => unknown) | null;
}

export type SocketFactory = (url: string) => SocketLike;

/** `connecting`: the first attempt; `open`: connected; `reconnecting`: lost, retrying; `closed`: stopped by the app. */
export type WsStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface WsClientOptions {
  /** Full URL of the endpoint, e.g. `ws://localhost:8065/api/v4/websocket`. */
  url: string;
  createSocket: SocketFactory;
  onEvent(event: WsEvent): void;
  /** A new connection replaced the old one (server restart, resume window passed): refetch to catch up. */
  onMissedMessages?(): void;
  onStatus?(status: WsStatus): void;
  /** Delay before reconnect attempt number `failures` (1, 2, ...), in ms. */
  backoff?(failures: number): number;
  pingIntervalMs?: number;
  timers?: Timers;
}

const OPEN = 1;
export const CLOSE_PING_TIMEOUT = 4000;
export const CLOSE_SEQUENCE_MISMATCH = 4001;

export function defaultBackoff(failures: number, random: () => number = Math.random): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, failures - 1)) + Math.floor(random() * 1000);
}

const globalTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
};

export class WsClient {
  private socket: SocketLike | null = null;
  private connectionId = '';
  /** The seq of the next event the server should send on this connection. */
  private expectedSeq = 0;
  private requestSeq = 0;
  private failures = 0;
  private stopped = true;
  private everConnected = false;
  private reconnectTimer: unknown = null;
  private pingTimer: unknown = null;
  private waitingForPong = false;
  private serverAnswersPing = false;
  private pingSeq = -1;
  private status: WsStatus = 'closed';
  private readonly pending = new Map<number, (r: WsResponse | undefined) => void>();
  private readonly timers: Timers;

  constructor(private readonly options: WsClientOptions) {
    this.timers = options.timers ?? globalTimers;
  }

  get state(): WsStatus {
    return this.status;
  }

  get currentConnectionId(): string {
    return this.connectionId;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.open();
  }

  /** Stops for good (sign-out): no reconnects. */
  stop(): void {
    this.stopped = true;
    this.clearTimers();
    const s = this.socket;
    this.socket = null;
    if (s) {
      s.onclose = s.onmessage = s.onerror = s.onopen = null;
      s.close(1000);
    }
    this.failPending();
    this.setStatus('closed');
  }

  /** Reconnects at once if a retry is waiting (the browser came back online, the tab became visible). */
  reconnectNow(): void {
    if (this.stopped || this.socket) return;
    if (this.reconnectTimer !== null) this.timers.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.open();
  }

  /** Sends a request; resolves with the server's answer, or undefined when not connected or closed meanwhile. */
  send(action: WsAction, data?: Record<string, unknown>): Promise<WsResponse | undefined> {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return Promise.resolve(undefined);
    const seq = ++this.requestSeq;
    const frame = data === undefined ? { seq, action } : { seq, action, data };
    return new Promise((resolve) => {
      this.pending.set(seq, resolve);
      try {
        socket.send(JSON.stringify(frame));
      } catch {
        this.pending.delete(seq);
        resolve(undefined);
      }
    });
  }

  userTyping(channelId: string, parentId = ''): void {
    const data: UserTypingData = { channel_id: channelId, parent_id: parentId };
    void this.send('user_typing', data as unknown as Record<string, unknown>);
  }

  private url(): string {
    const sep = this.options.url.includes('?') ? '&' : '?';
    return `${this.options.url}${sep}connection_id=${encodeURIComponent(this.connectionId)}&sequence_number=${this.expectedSeq}`;
  }

  private open(): void {
    this.setStatus(this.everConnected ? 'reconnecting' : 'connecting');
    let socket: SocketLike;
    try {
      socket = this.options.createSocket(this.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.requestSeq = 0;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.everConnected = true;
      this.setStatus('open');
      this.startPing();
    };
    socket.onmessage = (ev) => {
      if (this.socket !== socket) return;
      this.receive(socket, ev.data);
    };
    socket.onerror = () => {
      // A close event always follows; reconnecting is decided there.
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.clearTimers();
      this.failPending();
      if (this.stopped) {
        this.setStatus('closed');
        return;
      }
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    this.failures++;
    this.setStatus(this.everConnected ? 'reconnecting' : 'connecting');
    const delay = (this.options.backoff ?? defaultBackoff)(this.failures);
    this.reconnectTimer = this.timers.setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stopped) this.open();
    }, delay);
  }

  private receive(socket: SocketLike, raw: unknown): void {
    let frame: unknown;
    try {
      frame = JSON.parse(String(raw));
    } catch {
      return;
    }
    if (isResponse(frame)) {
      if (frame.seq_reply === this.pingSeq) {
        this.waitingForPong = false;
        this.serverAnswersPing = true;
      }
      const resolve = this.pending.get(frame.seq_reply);
      this.pending.delete(frame.seq_reply);
      resolve?.(frame);
      return;
    }
    if (!isEvent(frame)) return;
    let missed = false;
    if (frame.event === 'hello') {
      const hello = handled(frame);
      const id = hello?.event === 'hello' && typeof hello.data.connection_id === 'string' ? hello.data.connection_id : '';
      missed = this.connectionId !== '' && id !== this.connectionId;
      this.connectionId = id;
      this.expectedSeq = 0;
    }
    if (frame.seq !== this.expectedSeq) {
      // A gap (or a replay that does not start where we are): reconnect, resuming from the first missing event.
      socket.close(CLOSE_SEQUENCE_MISMATCH, 'sequence mismatch');
      return;
    }
    this.expectedSeq = frame.seq + 1;
    this.failures = 0;
    this.options.onEvent(frame);
    if (missed) this.options.onMissedMessages?.();
  }

  private startPing(): void {
    this.waitingForPong = false;
    const interval = this.options.pingIntervalMs ?? 30_000;
    if (interval <= 0) return;
    const ping = () => {
      const socket = this.socket;
      if (!socket) return;
      if (this.waitingForPong && this.serverAnswersPing) {
        socket.close(CLOSE_PING_TIMEOUT, 'ping timeout');
        return;
      }
      this.waitingForPong = true;
      const seq = this.requestSeq + 1;
      this.pingSeq = seq;
      void this.send('ping');
    };
    ping();
    this.pingTimer = this.timers.setInterval(ping, interval);
  }

  private clearTimers(): void {
    if (this.pingTimer !== null) this.timers.clearInterval(this.pingTimer);
    this.pingTimer = null;
    if (this.reconnectTimer !== null) this.timers.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  private failPending(): void {
    for (const resolve of this.pending.values()) resolve(undefined);
    this.pending.clear();
  }

  private setStatus(status: WsStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.options.onStatus?.(status);
  }
}
