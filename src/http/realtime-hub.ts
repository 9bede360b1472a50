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
}

/** One user's connections on this process, and what is shared between them. */
interface UserConnections {
  /** Least recently (re)attached first: the order in which they give way to new ones past the per-user cap. */
  conns: Set<Connection>;
  /** How many of them have a socket. */
  live: number;
  /**
   * Per channel, when this user last had a typing event broadcast: user_typing is throttled per user, not per socket,
   * so opening more sockets does not multiply what the channel's members receive (review round 3, L9).
   */
  typedAt: Map<string, number>;
}

/** Channels whose typing time a user's entry remembers; the oldest is forgotten past this (a forgotten one may type again at once). */
const TYPING_CHANNELS_KEPT = 100;

export interface HubOptions {
  /** Events kept per connection for replay (WebSocketSettings.ReplayBufferSize). */
  replayEvents: () => number;
  /** Characters of frames kept per connection for replay (WebSocketSettings.ReplayBufferBytes); the oldest go first. */
  replayBytes?: () => number;
  /** Connections one user may hold on this process, live or waiting to resume (WebSocketSettings.MaxConnectionsPerUser). */
  maxConnectionsPerUser?: () => number;
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

/** The users of a per-recipient list as a set, or undefined when there are none (the usual case: nothing to look up). */
const idSet = (ids: string[] | undefined): Set<string> | undefined => (ids && ids.length > 0 ? new Set(ids) : undefined);

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
 * (without its seq; a recipient's own variant once per user), each connection numbers and records what it is sent (so
 * a client that reconnects gets what it missed), and a connection that cannot keep up is dropped rather than buffered
 * without bound. What one user can make the process hold is bounded: their connections (live or resumable) by
 * maxConnectionsPerUser, each connection's replay ring by count and size.
 */
export class Hub implements EventSink {
  private readonly byUser = new Map<string, UserConnections>();
  private readonly byId = new Map<string, Connection>();
  private activeCount = 0;
  /**
   * Told (with the user's id) when a user's system roles changed, after the new roles were applied to their
   * connections: the WebSocket layer re-reads their sessions from the database.
   */
  onRolesChanged?: (userId: string) => void;
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

  /**
   * A new connection for an authenticated session; the caller sends its hello. Past the user's cap, the connections
   * waiting for a resume give way first (oldest first), then the live one attached longest ago, whose socket is
   * closed (1008): the newest socket is the one the user is looking at (a reloaded tab, a phone back from the
   * background), while an old one is most likely forgotten; its client reconnects and gets a new hello.
   */
  open(session: Session, socket: WebSocket): Connection {
    const conn: Connection = { id: newId(), session, socket, seq: 0, sent: new ReplayRing(), leftAt: 0, alive: true };
    let user = this.byUser.get(session.userId);
    if (!user) this.byUser.set(session.userId, (user = { conns: new Set(), live: 0, typedAt: new Map() }));
    this.byId.set(conn.id, conn);
    user.conns.add(conn);
    // Counted before any other gives way: a user replacing their only socket does not flicker offline.
    this.gained(session.userId, user);
    const max = Math.max(1, this.options.maxConnectionsPerUser?.() ?? Infinity);
    while (user.conns.size > max) {
      let victim: Connection | undefined;
      for (const c of user.conns) if (!c.socket && (!victim || c.leftAt < victim.leftAt)) victim = c;
      // Else the live one attached longest ago (never the new one: it is the last of the set, and max is at least 1).
      victim ??= user.conns.values().next().value as Connection;
      this.forget(victim, 1008, 'too many connections for this user');
    }
    return conn;
  }

  private gained(userId: string, user: UserConnections): void {
    this.activeCount++;
    if (++user.live === 1) this.options.presence?.connected(userId);
  }

  private lost(userId: string, user: UserConnections): void {
    this.activeCount--;
    if (--user.live === 0) this.options.presence?.disconnected(userId);
  }

  /** A resumable connection of this user, by the id its client kept. */
  find(connectionId: string, userId: string): Connection | undefined {
    const conn = this.byId.get(connectionId);
    return conn && conn.session.userId === userId ? conn : undefined;
  }

  /** This user's connections on this process (live or waiting to resume). */
  connectionsOf(userId: string): Connection[] {
    return [...(this.byUser.get(userId)?.conns ?? [])];
  }

  /** Gives a connection a socket again (resume); a socket it still had is dropped. */
  reattach(conn: Connection, socket: WebSocket, session: Session): void {
    const user = this.byUser.get(conn.session.userId);
    if (!user) return;
    if (conn.socket) {
      const old = conn.socket;
      conn.socket = null;
      old.terminate();
    } else this.gained(session.userId, user);
    conn.socket = socket;
    conn.session = session;
    conn.leftAt = 0;
    conn.alive = true;
    // Now the most recently attached: the last to give way to new connections.
    user.conns.delete(conn);
    user.conns.add(conn);
  }

  /** The socket went away: the connection waits for a resume until the replay window closes. */
  detach(conn: Connection, socket: WebSocket): void {
    if (conn.socket !== socket) return;
    conn.socket = null;
    conn.leftAt = this.options.now();
    const user = this.byUser.get(conn.session.userId);
    if (user) this.lost(conn.session.userId, user);
  }

  /** Forgets a connection that will not be resumed (its client was given a new hello instead). */
  discard(conn: Connection): void {
    if (!conn.socket && this.byId.get(conn.id) === conn) this.forget(conn);
  }

  /** Forgets a connection for good (its user logged out, the window closed, or the user opened too many). */
  private forget(conn: Connection, code?: number, reason?: string): void {
    const userId = conn.session.userId;
    const user = this.byUser.get(userId);
    if (conn.socket) {
      const socket = conn.socket;
      conn.socket = null;
      if (code === undefined) socket.terminate();
      else socket.close(code, reason);
      if (user) this.lost(userId, user);
    }
    this.byId.delete(conn.id);
    user?.conns.delete(conn);
    if (user && user.conns.size === 0) this.byUser.delete(userId);
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
    conn.sent.push(prefix, this.options.replayEvents(), this.options.replayBytes?.() ?? Infinity);
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
    // Before anything is sent: the event that announces new roles, and every later one, is addressed by them.
    if (event.rolesChanged) this.applyRoles(event.rolesChanged.userId, event.rolesChanged.roles);
    const omit = event.omitUsers && event.omitUsers.length > 0 ? new Set(event.omitUsers) : undefined;
    const prefix = framePrefix(event.event, event.data, event.broadcast);
    const mentioned = idSet(event.perRecipient?.mentioned);
    const followers = idSet(event.perRecipient?.followers);
    const ownPrefix = (userId: string): string => {
      const isMentioned = mentioned?.has(userId) === true;
      const isFollower = followers?.has(userId) === true;
      if (!isMentioned && !isFollower) return prefix;
      const own = JSON.stringify([userId]);
      return framePrefix(event.event, { ...event.data, ...(isMentioned ? { mentions: own } : {}), ...(isFollower ? { followers: own } : {}) }, event.broadcast);
    };
    const to = (userId: string, user: UserConnections) => {
      // Only a mentioned recipient (a follower of the reply's thread) learns that it is: its own id, as current
      // Mattermost servers send it. Built once per user, not per connection: every connection's replay ring then holds
      // the same string (one copy of a large post per user, not one per socket).
      let own: string | undefined;
      for (const conn of user.conns) {
        if (event.admins !== undefined && isSystemAdmin(conn.session.roles) !== event.admins) continue;
        own ??= ownPrefix(userId);
        this.sendEvent(conn, own);
      }
    };
    if (event.audience.kind === 'all') {
      for (const [userId, user] of this.byUser) if (!omit?.has(userId)) to(userId, user);
      return;
    }
    for (const userId of event.audience.userIds) {
      if (omit?.has(userId)) continue;
      const user = this.byUser.get(userId);
      if (user) to(userId, user);
    }
  }

  /**
   * A user's system roles changed (on any process: the event carrying them reaches every process): their connections,
   * live and resumable, take them at once, and the WebSocket layer is told to re-read their sessions.
   */
  private applyRoles(userId: string, roles: string): void {
    const user = this.byUser.get(userId);
    if (!user) return;
    for (const conn of user.conns) conn.session = { ...conn.session, roles };
    this.onRolesChanged?.(userId);
  }

  /**
   * Claims this user's typing event for a channel: true at most once per `intervalMs` per user and channel, however
   * many sockets the user has here. A claim whose permission check then fails is given back with releaseTyping.
   */
  claimTyping(userId: string, channelId: string, now: number, intervalMs: number): boolean {
    const user = this.byUser.get(userId);
    if (!user) return false;
    const last = user.typedAt.get(channelId);
    if (last !== undefined && now - last < intervalMs) return false;
    user.typedAt.delete(channelId);
    user.typedAt.set(channelId, now);
    if (user.typedAt.size > TYPING_CHANNELS_KEPT) user.typedAt.delete(user.typedAt.keys().next().value as string);
    return true;
  }

  releaseTyping(userId: string, channelId: string): void {
    this.byUser.get(userId)?.typedAt.delete(channelId);
  }

  /** Ends connections whose session was revoked, or every connection of a user (deactivated). */
  revoke(r: Revocation): void {
    const user = this.byUser.get(r.userId);
    if (!user) return;
    for (const conn of [...user.conns]) {
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

  /** Every connection, live or waiting to resume, for re-checking their sessions. */
  *all(): Iterable<Connection> {
    yield* this.byId.values();
  }

  closeAll(): void {
    for (const conn of [...this.byId.values()]) this.forget(conn);
  }
}
