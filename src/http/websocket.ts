// GET /api/v4/websocket, the transport: the upgrade (websocket-upgrade.ts) hands over an authenticated socket or an
// anonymous one, which registers with the hub (hello, or a resume), reads frames, and runs each request's action from
// the table (websocket-actions.ts), replying with its answer or its error.
import type { Server } from 'node:http';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { App } from '../app';
import { isValidId } from '../lib/ids';
import { AppError, type Session } from '../model';
import { type Connection, type Hub, frameOf } from './realtime-hub';
import type { RateLimits } from './rate-limits';
import { VERSION_ID } from './stamp';
import { NO_REPLY, actionNamed, unknownAction } from './websocket-actions';
import { upgradeHandler } from './websocket-upgrade';
import { errorBody, type ErrorBody } from './writer';

/** Client frames larger than this close the socket (Mattermost's 8 KiB read limit). */
export const MAX_CLIENT_FRAME_BYTES = 8 * 1024;
/** A socket that does not authenticate within this long is closed (Mattermost: 5 s). */
const AUTH_TIMEOUT_MS = 5000;
const PING_INTERVAL_MS = 30_000;
/**
 * How often connections re-read their session: it must still exist (a revocation elsewhere closes them sooner), and
 * its roles are taken again (a role change reaches them sooner, through user_role_updated).
 */
const SESSION_RECHECK_MS = 60_000;

interface Request {
  seq: number;
  action: string;
  data: Record<string, unknown>;
}

interface Reply {
  status: 'OK' | 'FAIL';
  seq_reply?: number;
  data?: unknown;
  error?: ErrorBody;
}

/** A FAIL reply's error: the AppError's body as the one error writer makes it (no request id on a socket). */
const failure = (err: AppError): ErrorBody => errorBody(err, '', false);
const busy = () => new AppError('api.websocket_handler.server_busy.app_error', 'Server is busy, try again later.', 503);

export interface WebSocketOptions {
  hub: Hub;
  limits: RateLimits;
  /** Where the server is reached from, for the Origin check: ServiceSettings.SiteURL when set. */
  siteUrl: () => string;
  now: () => number;
  onError: (err: unknown, what: string) => void;
}

/**
 * `GET /api/v4/websocket`: Mattermost's WebSocket API. The socket authenticates with the session cookie or an
 * Authorization header on the upgrade, or with the `authentication_challenge` action within 5 s; it is greeted with
 * `hello` (seq 0), and every event after that is numbered by one more. A client that comes back with its
 * `connection_id` and the `sequence_number` it expects next, within the replay window, gets what it missed in order
 * and carries on; otherwise it gets a new `hello` (its cue to refetch).
 */
export function attachWebSocket(server: Server, app: App, options: WebSocketOptions): { close(): void } {
  const { hub } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES, perMessageDeflate: false, clientTracking: false });
  const timers = [
    setInterval(() => hub.heartbeat(), PING_INTERVAL_MS),
    setInterval(() => hub.reap(), 30_000),
    setInterval(() => void recheckSessions(), SESSION_RECHECK_MS),
  ];
  for (const t of timers) t.unref();

  /**
   * Sessions revoked or expired by any means (on another process without Redis, or by time) lose their connections;
   * the others take their current roles (a role change missed, e.g. published while Redis was away). Connections
   * waiting to resume too: they record events, addressed by their roles.
   */
  async function recheckSessions(): Promise<void> {
    for (const conn of [...hub.all()]) {
      try {
        await refresh(conn);
      } catch (err) {
        options.onError(err, 'websocket session re-check failed');
        return;
      }
    }
  }
  const tokens = new WeakMap<Connection, string>();
  /**
   * Bumped whenever a connection's session is replaced (a resume, roles applied from an event): a re-read that
   * started before then is stale when it ends, and is not applied.
   */
  const epochs = new WeakMap<Connection, number>();
  const bump = (conn: Connection) => epochs.set(conn, (epochs.get(conn) ?? 0) + 1);

  /**
   * Re-reads a connection's session from the database: undefined (and the connection closed) when it is gone,
   * else the session with the user's current roles, which the connection takes.
   */
  async function refresh(conn: Connection): Promise<Session | undefined> {
    const token = tokens.get(conn);
    if (!token) return conn.session;
    const epoch = epochs.get(conn);
    const fresh = await app.sessions.check(token);
    if (!fresh) {
      hub.revoke({ userId: conn.session.userId, sessionIds: [conn.session.id] });
      return undefined;
    }
    if (epochs.get(conn) === epoch) conn.session = fresh;
    return conn.session;
  }

  // A user's roles changed (on this process or another): their connections took the roles the event carries; they
  // are also read again from the database, which has the last word should two changes cross between processes.
  hub.onRolesChanged = (userId) => {
    for (const conn of hub.connectionsOf(userId)) {
      bump(conn);
      refresh(conn).catch((err: unknown) => options.onError(err, 'websocket session refresh failed'));
    }
  };

  const upgrade = upgradeHandler(app, options, (req, socket, head, { session, token, params }) =>
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, session, token, params)),
  );
  server.on('upgrade', upgrade);

  function accept(ws: WebSocket, session: Session | null, token: string, params: URLSearchParams): void {
    let conn: Connection | undefined;
    const reply = (r: Reply) => {
      if (conn) hub.write(conn, JSON.stringify(r));
      else if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(r));
    };
    const authTimer = setTimeout(() => {
      if (!conn) ws.close(1008, 'not authenticated');
    }, AUTH_TIMEOUT_MS);
    authTimer.unref();

    /** Registers the socket: a new connection greeted with hello, or a resumed one given what it missed. */
    const register = (s: Session, t: string, resume: boolean) => {
      clearTimeout(authTimer);
      const id = params.get('connection_id') ?? '';
      const expected = params.get('sequence_number') === null ? NaN : Number(params.get('sequence_number'));
      // Only a connection of the same user is resumed. (Mattermost resumes only sockets authenticated on the upgrade;
      // Parley also resumes after authentication_challenge, which is how token clients such as Client4's
      // WebSocketClient and the drivers authenticate.)
      const previous = resume && isValidId(id) ? hub.find(id, s.userId) : undefined;
      const missed = previous && Number.isInteger(expected) ? hub.missedSince(previous, expected) : undefined;
      if (previous && missed) {
        hub.reattach(previous, ws, s);
        conn = previous;
        tokens.set(conn, t);
        bump(conn);
        for (const frame of missed) ws.send(frame);
        return;
      }
      // Its client gets a new hello and a new connection id: the old connection will never be resumed.
      if (previous) hub.discard(previous);
      conn = hub.open(s, ws);
      tokens.set(conn, t);
      hub.sendEvent(conn, helloPrefix(conn, s));
    };

    ws.on('pong', () => {
      if (conn) conn.alive = true;
    });
    ws.on('message', (raw: RawData, isBinary: boolean) => {
      if (conn) conn.alive = true;
      if (isBinary) {
        // Mattermost also reads msgpack; Parley's clients all send JSON text.
        ws.close(1003, 'binary frames are not supported');
        return;
      }
      let req: Request;
      try {
        const value = JSON.parse(raw.toString()) as unknown;
        if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
        req = value as Request;
      } catch {
        // Undecodable frames close the socket, as in Mattermost: the client reconnects.
        ws.close(1003, 'frames must be JSON objects');
        return;
      }
      void handle(req).catch((err: unknown) => {
        options.onError(err, 'websocket action failed');
        reply({ status: 'FAIL', seq_reply: typeof req.seq === 'number' ? req.seq : undefined, error: failure(busy()) });
      });
    });
    ws.on('close', () => {
      clearTimeout(authTimer);
      if (conn) hub.detach(conn, ws);
    });
    ws.on('error', () => ws.terminate());

    async function handle(req: Request): Promise<void> {
      const seq = typeof req.seq === 'number' ? req.seq : 0;
      const fail = (err: AppError) => reply({ status: 'FAIL', seq_reply: seq || undefined, error: failure(err) });
      if (typeof req.action !== 'string' || req.action === '') return fail(AppError.badRequest('api.web_socket_router.no_action.app_error', 'No websocket action.'));
      if (!Number.isInteger(req.seq) || seq <= 0) return fail(AppError.badRequest('api.web_socket_router.bad_seq.app_error', 'Invalid sequence for WebSocket message.'));
      const data = req.data && typeof req.data === 'object' && !Array.isArray(req.data) ? req.data : {};
      if (req.action === 'authentication_challenge') {
        // Already authenticated: no answer at all, as in Mattermost.
        if (conn) return;
        const t = typeof data.token === 'string' ? data.token : '';
        const s = t ? await app.sessions.authenticate(t) : undefined;
        if (!s) {
          ws.close(1008, 'authentication failed');
          return;
        }
        register(s, t, true);
        reply({ status: 'OK', seq_reply: seq });
        return;
      }
      if (!conn) return fail(new AppError('api.web_socket_router.not_authenticated.app_error', 'The connection is not authenticated.', 401));
      const action = actionNamed(req.action);
      if (!action) return fail(unknownAction(req.action));
      const current = conn;
      let answer: unknown;
      try {
        answer = await action({ data, conn: current, app, hub, now: options.now, refresh: () => refresh(current) });
      } catch (err) {
        // An action's refusal is its reply; anything else is the server's failure (handle's caller answers busy).
        if (err instanceof AppError) return fail(err);
        throw err;
      }
      if (answer !== NO_REPLY) reply({ status: 'OK', seq_reply: seq, ...(answer === undefined ? {} : { data: answer }) });
    }

    if (session) register(session, token, true);
  }

  return {
    close: () => {
      for (const t of timers) clearInterval(t);
      server.off('upgrade', upgrade);
      hub.closeAll();
      wss.close();
    },
  };
}

function helloPrefix(conn: Connection, session: Session): string {
  return `{"event":"hello","data":${JSON.stringify({ server_version: VERSION_ID, connection_id: conn.id, server_hostname: '' })},"broadcast":${JSON.stringify({
    omit_users: null,
    user_id: session.userId,
    channel_id: '',
    team_id: '',
    connection_id: '',
    omit_connection_id: '',
  })},"seq":`;
}

export { frameOf };
