// The actions an authenticated WebSocket client may send (WebSocketRequest in the spec), shaped like the REST
// handlers: one short function per action, reading its typed input and making one app call. An action answers with
// the reply's `data` (undefined: none), or NO_REPLY; it refuses by throwing an AppError, which the socket writes as a
// FAIL reply through the one error writer (writer.ts). `authentication_challenge` is not here: it is how a socket
// becomes authenticated (websocket.ts).
import type { App } from '../app';
import { isValidId } from '../lib/ids';
import { AppError, type Session } from '../model';
import type { Connection, Hub } from './realtime-hub';
import { VERSION_ID } from './stamp';

/** One `typing` broadcast per channel per user (all their sockets together) at most this often: a flood is absorbed. */
const TYPING_INTERVAL_MS = 1000;

/** Say nothing back: the connection is closing (its session is gone). */
export const NO_REPLY = Symbol('no reply');

/** What an action is given: its `data` (always an object), the connection and its session, and the server's parts. */
export interface ActionInput {
  data: Record<string, unknown>;
  conn: Connection;
  app: App;
  hub: Hub;
  now: () => number;
  /** The connection's session as the database has it now (undefined: gone, and the connection closed). */
  refresh: () => Promise<Session | undefined>;
}

export type Action = (input: ActionInput) => Promise<unknown>;

const invalidParam = (name: string) => AppError.badRequest('api.websocket_handler.invalid_param.app_error', `Invalid ${name} parameter.`);

export const ping: Action = async ({ now }) => ({ text: 'pong', version: VERSION_ID, server_time: now(), node_id: '' });

export const user_typing: Action = async ({ data, conn, app, hub, now, refresh }) => {
  const channelId = data.channel_id;
  if (!isValidId(channelId)) throw invalidParam('channel_id');
  const parentId = typeof data.parent_id === 'string' ? data.parent_id : '';
  const userId = conn.session.userId;
  // Claimed (per user, across their sockets) before the permission check, which waits on the database: a burst of
  // requests gets one event.
  if (!hub.claimTyping(userId, channelId, now(), TYPING_INTERVAL_MS)) return undefined;
  // Decided with the session as it is now, not as it was when the socket connected (roles change).
  const session = await refresh();
  if (!session) return NO_REPLY;
  if (!(await app.channels.canPost(session, channelId))) {
    hub.releaseTyping(userId, channelId);
    throw AppError.forbidden();
  }
  app.realtime.typing(channelId, userId, parentId);
  return undefined;
};

export const get_statuses: Action = async ({ app }) => app.status.statuses(undefined);

export const get_statuses_by_ids: Action = async ({ data, app }) => {
  const ids = Array.isArray(data.user_ids) ? data.user_ids.filter((x): x is string => typeof x === 'string') : [];
  if (ids.length === 0) throw invalidParam('user_ids');
  return app.status.statuses(ids.slice(0, 1000));
};

/** Accepted and answered OK, as Mattermost's clients send them; there is nothing for Parley to do. */
export const presence: Action = async () => undefined;
export const posted_notify_ack: Action = async () => undefined;

export const user_update_active_status: Action = async ({ data, conn, app }) => {
  if (typeof data.user_is_active !== 'boolean') throw invalidParam('user_is_active');
  await app.status.activity(conn.session.userId, data.user_is_active, data.manual === true);
  return undefined;
};

/** The names the spec's WebSocketRequest lists, but authentication_challenge. */
export type ActionName = 'ping' | 'user_typing' | 'get_statuses' | 'get_statuses_by_ids' | 'presence' | 'posted_notify_ack' | 'user_update_active_status';

export const actions = { ping, user_typing, get_statuses, get_statuses_by_ids, presence, posted_notify_ack, user_update_active_status } satisfies Record<ActionName, Action>;

/** The action named, if there is one: an own key only (`constructor` or `__proto__` is no action). */
export function actionNamed(name: string): Action | undefined {
  return Object.hasOwn(actions, name) ? actions[name as ActionName] : undefined;
}

export const unknownAction = (name: string) => new AppError('api.web_socket_router.bad_action.app_error', `Unknown action: ${name.slice(0, 64)}.`, 500);
