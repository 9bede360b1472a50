/**
 * The state of the area "reactions" (issue #25): presence, pinned posts and the unread marks of channels. Plain data,
 * changed only by actions/status.ts, actions/pins.ts and actions/unread.ts (and live/events.ts).
 */

export type StatusValue = 'online' | 'away' | 'dnd' | 'offline';

export interface StatusState {
  /** User id → presence (GetUsersStatusesByIds, polled for the users shown; the viewer's own from status_change). */
  byUser: Record<string, StatusValue>;
  /** When the viewer's own do-not-disturb ends, Unix seconds; 0 for never (or not dnd). */
  dndEndTime: number;
}

export interface PinsState {
  /** Channel id → its pinned posts' ids, newest first, once the pinned panel fetched them. */
  byChannel: Record<string, string[]>;
  /** Channel id → the pinned list's failed load. */
  errors: Record<string, string>;
}

export interface UnreadState {
  /**
   * Channel id → the member's last_viewed_at when the channel was opened with unread posts (or marked unread): the
   * "New messages" line stands above the first post after it, until the channel is left.
   */
  line: Record<string, number>;
  /** Channels marked unread from a post while open: they stay unread (not viewed again) until left. */
  manual: Record<string, true>;
}

export const initialStatuses: StatusState = { byUser: {}, dndEndTime: 0 };
export const initialPins: PinsState = { byChannel: {}, errors: {} };
export const initialUnread: UnreadState = { line: {}, manual: {} };
