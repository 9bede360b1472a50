/**
 * The WebSocket messages of Mattermost's protocol (`GET /api/v4/websocket`) that the web client reads or sends.
 *
 * Written by hand from the protocol description until the spec publishes event schemas; then these types are to be
 * replaced by (or checked against) the generated ones, which is why they all live in this one file. Everything the
 * server sends is treated as untrusted: fields are optional where a server version may leave them out, and nested
 * objects that Mattermost sends as JSON strings (`post`, `mentions`, ...) are typed as strings and parsed by the
 * reader.
 */

/** Who an event is meant for; present on every event, values may be empty. */
export interface WsBroadcast {
  omit_users?: Record<string, boolean> | null;
  user_id?: string;
  channel_id?: string;
  team_id?: string;
  connection_id?: string;
  omit_connection_id?: string;
}

interface EventBase<Name extends string, Data> {
  event: Name;
  data: Data;
  broadcast?: WsBroadcast;
  /** Per-connection sequence number: `hello` is 0, then +1 per event. */
  seq: number;
}

export type HelloEvent = EventBase<'hello', { server_version?: string; connection_id: string; server_hostname?: string }>;

export type PostedEvent = EventBase<
  'posted',
  {
    /** The Post, as a JSON string. */
    post: string;
    channel_type?: string;
    channel_display_name?: string;
    channel_name?: string;
    sender_name?: string;
    team_id?: string;
    set_online?: boolean;
    /** JSON string array of mentioned user ids (modern servers: only the recipient's own id, if mentioned). */
    mentions?: string;
    followers?: string;
  }
>;

export type PostEditedEvent = EventBase<'post_edited', { post: string }>;
export type PostDeletedEvent = EventBase<'post_deleted', { post: string; delete_by?: string }>;
export type TypingEvent = EventBase<'typing', { parent_id?: string; user_id: string }>;
export type ChannelViewedEvent = EventBase<'channel_viewed', { channel_id: string }>;
export type MultipleChannelsViewedEvent = EventBase<'multiple_channels_viewed', { channel_times: Record<string, number> }>;
export type UserAddedEvent = EventBase<'user_added', { user_id?: string; team_id?: string }>;
export type UserRemovedEvent = EventBase<'user_removed', { user_id?: string; channel_id?: string; remover_id?: string }>;
export type ChannelCreatedEvent = EventBase<'channel_created', { channel_id: string; team_id?: string }>;
export type ChannelUpdatedEvent = EventBase<'channel_updated', { channel: string }>;
export type ChannelDeletedEvent = EventBase<'channel_deleted', { channel_id: string; delete_at?: number }>;
export type DirectAddedEvent = EventBase<'direct_added', { teammate_id?: string }>;
export type UserUpdatedEvent = EventBase<'user_updated', { user: Record<string, unknown> }>;
export type NewUserEvent = EventBase<'new_user', { user_id: string }>;
export type AddedToTeamEvent = EventBase<'added_to_team', { team_id: string; user_id: string }>;
export type LeaveTeamEvent = EventBase<'leave_team', { team_id: string; user_id: string }>;

/** Events the client acts on. Any other event name is accepted (it still counts in the sequence) and ignored. */
export type KnownWsEvent =
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
  | DirectAddedEvent
  | UserUpdatedEvent
  | NewUserEvent
  | AddedToTeamEvent
  | LeaveTeamEvent;

export type UnknownWsEvent = EventBase<string, Record<string, unknown>>;
export type WsEvent = KnownWsEvent | UnknownWsEvent;

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

/** Server → client answer to a request; it carries `seq_reply` and no `seq` (it is not an event). */
export interface WsResponse {
  status: 'OK' | 'FAIL';
  seq_reply: number;
  data?: Record<string, unknown>;
  error?: { id?: string; message?: string; status_code?: number };
}

export function isResponse(frame: unknown): frame is WsResponse {
  return typeof frame === 'object' && frame !== null && typeof (frame as { seq_reply?: unknown }).seq_reply === 'number' && (frame as WsResponse).seq_reply > 0;
}

export function isEvent(frame: unknown): frame is WsEvent {
  return typeof frame === 'object' && frame !== null && typeof (frame as { event?: unknown }).event === 'string';
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
