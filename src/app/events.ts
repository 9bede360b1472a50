// Real-time events: what the app publishes after a write commits, and who may receive it. Transport (WebSocket
// framing, sequence numbers, replay) is the HTTP layer's; fan-out between processes is infra's (see EventBus).

/** Mattermost's broadcast block, as clients see it on the wire. */
export interface Broadcast {
  omit_users: Record<string, boolean> | null;
  user_id: string;
  channel_id: string;
  team_id: string;
  connection_id: string;
  omit_connection_id: string;
  /** Only for users without manage_system (the copy of an event with less in it). */
  contains_sanitized_data?: boolean;
  /** Only for users with manage_system. */
  contains_sensitive_data?: boolean;
}

/**
 * Who receives an event, decided by the app when it publishes (a permission decision: the same rules as who may read
 * what the event reports). `users` are resolved from the database after the write committed, so a user removed from
 * a channel before that commit is not among them.
 */
export type Audience = { kind: 'users'; userIds: string[] } | { kind: 'all' };

/** Data one recipient sees differently (posted's `mentions`, `followers`: only the recipient's own id, as current servers send). */
export interface PerRecipient {
  /** Users mentioned by a `posted` event: each of them gets `mentions: "[\"<own id>\"]"`. */
  mentioned?: string[];
  /** Threads collapsed: followers of a reply's thread, each told `followers: "[\"<own id>\"]"`. */
  followers?: string[];
}

export interface RealtimeEvent {
  event: string;
  data: Record<string, unknown>;
  broadcast: Broadcast;
  audience: Audience;
  /** Users left out even if in the audience (the typer of a `typing` event). */
  omitUsers?: string[];
  /** Only connections of users with (true) or without (false) manage_system. */
  admins?: boolean;
  perRecipient?: PerRecipient;
  /**
   * A user's new system roles (user_role_updated): every process applies them to that user's sockets before it sends
   * this event, so no later event is addressed by the old ones (a demoted admin's socket stops getting admin copies).
   */
  rolesChanged?: { userId: string; roles: string };
}

/** Sessions whose sockets must close at once: one user's, all of them or only some (revoked sessions or tokens). */
export interface Revocation {
  userId: string;
  /** The sessions (or access tokens) revoked; all of the user's when absent (deactivation). */
  sessionIds?: string[];
}

/**
 * Where published events go: to this process's sockets, and with several processes (ClusterSettings) to theirs too.
 * Publishing never waits for delivery: a webhook's `ok` does not depend on who is listening.
 */
export interface EventBus {
  publish(event: RealtimeEvent): void;
  /** Closes the sockets of revoked sessions, on every process. */
  revoke(r: Revocation): void;
  /**
   * Whether anyone could receive events at all: false while no socket is connected to this process and no other
   * process shares the bus, so the app skips building events nobody would get.
   */
  listening(): boolean;
}

/** What a bus delivers to: this process's sockets (the WebSocket hub of the HTTP layer). */
export interface EventSink {
  deliver(event: RealtimeEvent): void;
  revoke(r: Revocation): void;
  /** Whether any socket is connected here. */
  active(): boolean;
}

/** A bus that drops everything (tools, and tests of the app alone). */
export const NO_EVENTS: EventBus = { publish: () => undefined, revoke: () => undefined, listening: () => false };

export function broadcast(fields: Partial<Broadcast> = {}): Broadcast {
  return { omit_users: null, user_id: '', channel_id: '', team_id: '', connection_id: '', omit_connection_id: '', ...fields };
}
