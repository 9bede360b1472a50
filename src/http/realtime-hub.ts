import type { WebSocket } from 'ws';
import type { EventSink, RealtimeEvent, Revocation } from '../app/events';
import { isSystemAdmin } from '../app/permissions';
import { newId } from '../lib/ids';
import type { Session } from '../model';
import { ReplayRing } from './replay-ring';

/** A client's connection: alive (a socket) or waiting to be resumed (none) within the replay window. */
export interface Connection {
  id: string;
  session: Session;
  socket: WebSocket | null;
  /** The seq of the next event sent on this connection (hello is 0). */
  seq: number;
  /** The last events sent, for replay on resume. */
  sent: ReplayRing;
  /** When the socket went away (0 while it is there). */
  leftAt: number;
  /** A pong (or any frame) since the last ping. */
  alive: boolean;
  /** Per channel, when this connection last had a typing event broadcast (user_typing is throttled). */
  typedAt: Map<string, number>;
}

export interface HubOptions {
  /** Events kept per connection for replay (WebSocketSettings.ReplayBufferSize). */
  replayEvents: () => number;
  /** How long a dropped connection can be resumed (WebSocketSettings.ReplayWindowSeconds), ms. */
  replayWindowMs: () => number;
  /** Bytes a socket may have queued before it is dropped as a slow consumer. */
  maxBufferedBytes: number;
  now: () => number;
  /** Under test: checks every frame against the spec's event schemas; an answer is a description of the problem. */
  validateFrame?: (frame: string) => string | undefined;
  onInvalidFrame?: (problem: string, frame: string) => void;
  /** Told when a user's first socket on this process opens and when their last one closes (their status). */
  presence?: { connected(userId: string): void; disconnected(userId: string): void };
}

/** The frame of an event as sent: everything but the seq, which each connection numbers itself. */
function framePrefix(event: string, data: Record<string, unknown>, broadcast: unknown): string {
  return `{"event":${JSON.stringify(event)},"data":${JSON.stringify(data)},"broadcast":${JSON.stringify(broadcast)},"seq":`;
}

export const frameOf = (prefix: string, seq: number) => `${prefix}${seq}}`;

/** The TCP socket under a `ws` WebSocket (absent on the unit tests' fake sockets). */
interface Corkable {
  cork(): void;
  uncork(): void;
}
function rawSocketOf(socket: WebSocket): Corkable | undefined {
  const raw = (socket as unknown as { _socket?: Partial<Corkable> })._socket;
  return raw && typeof raw.cork === 'function' && typeof raw.uncork === 'function' ? (raw as Corkable) : undefined;
}

/**
 * This process's WebSocket connections, by user, and the delivery of events to them: each event's frame is built once
 * (without its seq), each connection numbers and records what it is sent (so a client that reconnects gets what it
 * missed), and a connection that cannot keep up is dropped rather than buffered without bound.
 */
export class Hub implements EventSink {
  private readonly byUser = new Map<string, Set<Connection>>();
  private readonly byId = new Map<string, Connection>();
  /** Live sockets per user (their connections may also be waiting for a resume, socketless). */
  private readonly liveByUser = new Map<string, number>();
  private activeCount = 0;
  /**
   * Sockets written to in this turn of the event loop, held corked until the turn's deliveries are done: the events a
   * socket gets from one batch of commits leave in one write (one system call) instead of one each. On a loaded
   * server most of the cost of a delivery is that system call (see BENCHMARKS.md, "Real-time events").
   */
  private corked = new Set<Corkable>();
  private readonly uncorkAll = () => {
    const corked = this.corked;
    this.corked = new Set();
    for (const raw of corked) raw.uncork();
  };

  constructor(private readonly options: HubOptions) {}

  /** Whether anyone could receive an event: a live socket, or a dropped one still waiting to resume (it must not miss any). */
  active(): boolean {
    return this.byId.size > 0;
  }

  get connections(): number {
    return this.activeCount;
  }

  /** A new connection for an authenticated session; the caller sends its hello. */
  open(session: Session, socket: WebSocket): Connection {
    const conn: Connection = { id: newId(), session, socket, seq: 0, sent: new ReplayRing(), leftAt: 0, alive: true, typedAt: new Map() };
    this.byId.set(conn.id, conn);
    let set = this.byUser.get(session.userId);
    if (!set) this.byUser.set(session.userId, (set = new Set()));
    set.add(conn);
    this.gained(session.userId);
    return conn;
  }

  private gained(userId: string): void {
    this.activeCount++;
    const n = (this.liveByUser.get(userId) ?? 0) + 1;
    this.liveByUser.set(userId, n);
    if (n === 1) this.options.presence?.connected(userId);
  }

  private lost(userId: string): void {
    this.activeCount--;
    const n = (this.liveByUser.get(userId) ?? 1) - 1;
    if (n > 0) {
      this.liveByUser.set(userId, n);
      return;
    }
    this.liveByUser.delete(userId);
    this.options.presence?.disconnected(userId);
  }

  /** A resumable connection of this user, by the id its client kept. */
  find(connectionId: string, userId: string): Connection | undefined {
    const conn = this.byId.get(connectionId);
    return conn && conn.session.userId === userId ? conn : undefined;
  }

  /** Gives a connection a socket again (resume); a socket it still had is dropped. */
  reattach(conn: Connection, socket: WebSocket, session: Session): void {
    if (conn.socket) {
      const old = conn.socket;
      conn.socket = null;
      old.terminate();
    } else this.gained(session.userId);
    conn.socket = socket;
    conn.session = session;
    conn.leftAt = 0;
    conn.alive = true;
  }

  /** The socket went away: the connection waits for a resume until the replay window closes. */
  detach(conn: Connection, socket: WebSocket): void {
    if (conn.socket !== socket) return;
    conn.socket = null;
    conn.leftAt = this.options.now();
    this.lost(conn.session.userId);
  }

  /** Forgets a connection for good (its user logged out, or the window closed). */
  private forget(conn: Connection): void {
    if (conn.socket) {
      const socket = conn.socket;
      conn.socket = null;
      socket.terminate();
      this.lost(conn.session.userId);
    }
    this.byId.delete(conn.id);
    const set = this.byUser.get(conn.session.userId);
    set?.delete(conn);
    if (set && set.size === 0) this.byUser.delete(conn.session.userId);
  }

  /** Drops connections whose replay window has closed. */
  reap(): void {
    const cutoff = this.options.now() - this.options.replayWindowMs();
    for (const conn of this.byId.values()) if (!conn.socket && conn.leftAt < cutoff) this.forget(conn);
  }

  /** The events `conn` was sent from `seq` on, in order, or undefined when some of them are no longer kept. */
  missedSince(conn: Connection, seq: number): string[] | undefined {
    return conn.sent.since(seq, conn.seq)?.map((e) => frameOf(e.prefix, e.seq));
  }

  /** Sends one event on one connection (numbered, recorded for replay): hello, and every delivery. */
  sendEvent(conn: Connection, prefix: string): void {
    const seq = conn.seq++;
    conn.sent.push(prefix, this.options.replayEvents());
    this.write(conn, frameOf(prefix, seq));
  }

  /** Writes a frame (an event, or a reply to an action) unless the socket is backed up: then it is dropped. */
  write(conn: Connection, frame: string): void {
    const socket = conn.socket;
    if (!socket || socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > this.options.maxBufferedBytes) {
      // A slow or stalled consumer: drop it (its client reconnects and resumes) rather than buffer without bound.
      socket.terminate();
      return;
    }
    if (this.options.validateFrame) {
      const problem = this.options.validateFrame(frame);
      if (problem) {
        this.options.onInvalidFrame?.(problem, frame);
        socket.close(1011, 'event does not match the spec');
        return;
      }
    }
    const raw = rawSocketOf(socket);
    if (raw && !this.corked.has(raw)) {
      // After the current run of callbacks and promise continuations: every event published by them goes out together.
      if (this.corked.size === 0) process.nextTick(this.uncorkAll);
      raw.cork();
      this.corked.add(raw);
    }
    socket.send(frame);
  }

  deliver(event: RealtimeEvent): void {
    const omit = event.omitUsers && event.omitUsers.length > 0 ? new Set(event.omitUsers) : undefined;
    const prefix = framePrefix(event.event, event.data, event.broadcast);
    const mentioned = event.perRecipient?.mentioned && event.perRecipient.mentioned.length > 0 ? new Set(event.perRecipient.mentioned) : undefined;
    const to = (conn: Connection) => {
      if (event.admins !== undefined && isSystemAdmin(conn.session.roles) !== event.admins) return;
      const userId = conn.session.userId;
      // Only a mentioned recipient learns that it is: its own id, as current Mattermost servers send it.
      const own = mentioned?.has(userId) ? framePrefix(event.event, { ...event.data, mentions: JSON.stringify([userId]) }, event.broadcast) : prefix;
      this.sendEvent(conn, own);
    };
    if (event.audience.kind === 'all') {
      for (const [userId, set] of this.byUser) if (!omit?.has(userId)) for (const conn of set) to(conn);
      return;
    }
    for (const userId of event.audience.userIds) {
      if (omit?.has(userId)) continue;
      const set = this.byUser.get(userId);
      if (set) for (const conn of set) to(conn);
    }
  }

  /** Ends connections whose session was revoked, or every connection of a user (deactivated). */
  revoke(r: Revocation): void {
    const set = this.byUser.get(r.userId);
    if (!set) return;
    for (const conn of [...set]) {
      if (r.sessionIds && !r.sessionIds.includes(conn.session.id)) continue;
      this.forget(conn);
    }
  }

  /** Sockets that did not answer the last ping are dropped; the others are pinged again. */
  heartbeat(): void {
    for (const conn of this.byId.values()) {
      const socket = conn.socket;
      if (!socket) continue;
      if (!conn.alive) {
        socket.terminate();
        continue;
      }
      conn.alive = false;
      socket.ping();
    }
  }

  /** Every live connection, for re-checking their sessions. */
  *live(): Iterable<Connection> {
    for (const conn of this.byId.values()) if (conn.socket) yield conn;
  }

  closeAll(): void {
    for (const conn of [...this.byId.values()]) this.forget(conn);
  }
}
