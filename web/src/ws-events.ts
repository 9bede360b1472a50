import type { components } from '../../generated/api';

/**
 * The WebSocket messages of Mattermost's protocol (`GET /api/v4/websocket`) that the web client reads or sends; the
 * one place that names them.
 *
 * What the server sends comes from the spec: every event is `components['schemas']['WebSocketEvent_<Name>']` and
 * the answers to actions `WebSocketResponse` (openapi/components/schemas/websocket/, generated into
 * generated/api.d.ts), so renaming or removing an event or a field the client reads breaks
 * `npm run typecheck`. A frame is still untrusted input (another server version, a proxy, a bug): `Received` keeps
 * the spec's names and types but makes every field of `data` and `broadcast` maybe-missing, and `handled` lets an
 * event through only with a `data` object, so the readers in live.ts check what they use before they use it.
 * Nested objects that Mattermost sends as JSON strings (`post`, `mentions`, `channel`, ...) are strings in the spec
 * too, parsed by `nested`.
 *
 * What the client sends stays written here by hand: the spec describes actions only as one envelope (`seq`,
 * `action`, `data` of any shape; openapi/components/schemas/websocket/WebSocketRequest.yaml, attached to the path as
 * `x-client-frames`, which the generator does not turn into a type), with the actions and their parameters named in
 * its prose, not as schemas.
 */

type Schemas = components['schemas'];
type SpecEvent = Schemas['WebSocketEvent'];

/** Who an event was addressed to (the spec's WebSocketBroadcast); any key may be missing from a frame. */
export type WsBroadcast = Partial<Schemas['WebSocketBroadcast']>;

/** An event of the spec as the client may receive it: the same names and types, every data field maybe-missing. */
export type Received<E extends SpecEvent> = E extends unknown ? { event: E['event']; seq: E['seq']; data: Partial<E['data']>; broadcast?: WsBroadcast } : never;

export type HelloEvent = Received<Schemas['WebSocketEvent_Hello']>;
export type PostedEvent = Received<Schemas['WebSocketEvent_Posted']>;
export type PostEditedEvent = Received<Schemas['WebSocketEvent_PostEdited']>;
export type PostDeletedEvent = Received<Schemas['WebSocketEvent_PostDeleted']>;
export type TypingEvent = Received<Schemas['WebSocketEvent_Typing']>;
export type ChannelViewedEvent = Received<Schemas['WebSocketEvent_ChannelViewed']>;
export type MultipleChannelsViewedEvent = Received<Schemas['WebSocketEvent_MultipleChannelsViewed']>;
export type UserAddedEvent = Received<Schemas['WebSocketEvent_UserAdded']>;
export type UserRemovedEvent = Received<Schemas['WebSocketEvent_UserRemoved']>;
export type ChannelCreatedEvent = Received<Schemas['WebSocketEvent_ChannelCreated']>;
export type ChannelUpdatedEvent = Received<Schemas['WebSocketEvent_ChannelUpdated']>;
export type ChannelDeletedEvent = Received<Schemas['WebSocketEvent_ChannelDeleted']>;
export type ChannelRestoredEvent = Received<Schemas['WebSocketEvent_ChannelRestored']>;
export type DirectAddedEvent = Received<Schemas['WebSocketEvent_DirectAdded']>;
export type UserUpdatedEvent = Received<Schemas['WebSocketEvent_UserUpdated']>;
export type AddedToTeamEvent = Received<Schemas['WebSocketEvent_AddedToTeam']>;
export type LeaveTeamEvent = Received<Schemas['WebSocketEvent_LeaveTeam']>;
export type ReactionAddedEvent = Received<Schemas['WebSocketEvent_ReactionAdded']>;
export type ReactionRemovedEvent = Received<Schemas['WebSocketEvent_ReactionRemoved']>;
export type PostUnreadEvent = Received<Schemas['WebSocketEvent_PostUnread']>;
export type PreferencesChangedEvent = Received<Schemas['WebSocketEvent_PreferencesChanged']>;
export type PreferencesDeletedEvent = Received<Schemas['WebSocketEvent_PreferencesDeleted']>;
export type ChannelMemberUpdatedEvent = Received<Schemas['WebSocketEvent_ChannelMemberUpdated']>;
export type StatusChangeEvent = Received<Schemas['WebSocketEvent_StatusChange']>;
export type EphemeralMessageEvent = Received<Schemas['WebSocketEvent_EphemeralMessage']>;
export type ConfigChangedEvent = Received<Schemas['WebSocketEvent_ConfigChanged']>;

/** The events the client acts on. Every other event still counts in the numbering and is ignored. */
export type HandledWsEvent =
  | HelloEvent
  | PostedEvent
  | PostEditedEvent
  | PostDeletedEvent
  | TypingEvent
  | ChannelViewedEvent
  | MultipleChannelsViewedEvent
  | UserAddedEvent
  | UserRemovedEvent
  | ChannelCreatedEvent
  | ChannelUpdatedEvent
  | ChannelDeletedEvent
  | ChannelRestoredEvent
  | DirectAddedEvent
  | UserUpdatedEvent
  | AddedToTeamEvent
  | LeaveTeamEvent
  | ReactionAddedEvent
  | ReactionRemovedEvent
  | PostUnreadEvent
  | PreferencesChangedEvent
  | PreferencesDeletedEvent
  | ChannelMemberUpdatedEvent
  | StatusChangeEvent
  | EphemeralMessageEvent
  | ConfigChangedEvent;

// Exactly the names of HandledWsEvent: a name missing here, or one the spec no longer has, is a type error.
const HANDLED: Record<HandledWsEvent['event'], true> = {
  hello: true,
  posted: true,
  post_edited: true,
  post_deleted: true,
  typing: true,
  channel_viewed: true,
  multiple_channels_viewed: true,
  user_added: true,
  user_removed: true,
  channel_created: true,
  channel_updated: true,
  channel_deleted: true,
  channel_restored: true,
  direct_added: true,
  user_updated: true,
  added_to_team: true,
  leave_team: true,
  reaction_added: true,
  reaction_removed: true,
  post_unread: true,
  preferences_changed: true,
  preferences_deleted: true,
  channel_member_updated: true,
  status_change: true,
  ephemeral_message: true,
  config_changed: true,
};

/** Any frame with an event name and a number: a newer server's events, and malformed ones, reach the client too. */
export interface WsEvent {
  event: string;
  seq: number;
  data?: unknown;
  broadcast?: unknown;
}

/** The event as one the client acts on, or undefined: another name, or no `data` object to read. */
export function handled(event: WsEvent): HandledWsEvent | undefined {
  if (!Object.prototype.hasOwnProperty.call(HANDLED, event.event)) return undefined;
  if (!isObject(event.data)) return undefined;
  return { ...event, broadcast: isObject(event.broadcast) ? event.broadcast : undefined } as HandledWsEvent;
}

/** Client → server request. `seq` is the client's own counter, from 1, reset on every new socket. */
export interface WsRequest<Action extends string = WsAction, Data = Record<string, unknown>> {
  seq: number;
  action: Action;
  data?: Data;
}

export type WsAction = 'ping' | 'user_typing' | 'presence' | 'user_update_active_status' | 'get_statuses' | 'get_statuses_by_ids' | 'authentication_challenge';

export interface UserTypingData {
  channel_id: string;
  parent_id?: string;
}

/**
 * Server → client answer to a request (the spec's WebSocketResponse); it carries `seq_reply` and no `seq` (it is
 * not an event). `seq_reply` is checked by `isResponse`. The spec leaves `data` open (its shape depends on the
 * action), so its values are unknown; an error may come with only some of AppError's fields.
 */
export type WsResponse = Omit<Schemas['WebSocketResponse'], 'seq_reply' | 'data' | 'error'> & {
  seq_reply: number;
  data?: Record<string, unknown>;
  error?: Partial<Schemas['AppError']>;
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isResponse(frame: unknown): frame is WsResponse {
  return isObject(frame) && typeof frame.seq_reply === 'number' && frame.seq_reply > 0;
}

/** An event frame: a name and a number. Frames without either are not events and do not count in the numbering. */
export function isEvent(frame: unknown): frame is WsEvent {
  return isObject(frame) && typeof frame.event === 'string' && typeof frame.seq === 'number';
}

/** Parses a JSON string nested in an event's data; undefined when it is missing or not JSON. */
export function nested<T>(value: unknown): T | undefined {
  if (typeof value !== 'string') return typeof value === 'object' && value !== null ? (value as T) : undefined;
  try {
    return JSON.parse(value) as T;
  } catch {
    return undefined;
  }
}
