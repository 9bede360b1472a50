import type { Channel, ChannelMember, ClientConfig, Team, User } from '../api';
import { emptyPosts, type PostsState } from '../post-store';
import type { Route } from '../routes';
import type { WsStatus } from '../ws-client';

/**
 * The client's state: one immutable plain object, no functions and no DOM in it, so a component can be rendered
 * against any value of it (a test builds one by hand). The actions (actions/*) are what change it.
 */

export type Rhs = { kind: 'thread'; rootId: string } | { kind: 'card'; postId: string };

export interface TypingEntry {
  userId: string;
  until: number;
}

export interface AppState {
  /** `loading` until the session is known; `down` when the server could not be reached at start. */
  boot: 'loading' | 'ready' | 'down';
  route: Route;
  me?: User;
  config: ClientConfig;
  teams: Team[];
  channels: Record<string, Channel>;
  /** Team id → ids of the channels shown in its sidebar (its channels and the direct ones), once fetched. */
  teamChannels: Record<string, string[]>;
  members: Record<string, ChannelMember>;
  users: Record<string, User>;
  posts: PostsState;
  /** Channel id, or `thread:<root id>` → who is typing there. */
  typing: Record<string, TypingEntry[]>;
  ws: WsStatus;
  currentTeamId?: string;
  currentChannelId?: string;
  /** A page-level problem with the route (unknown team or channel). */
  routeError?: string;
  rhs?: Rhs;
  memberCounts: Record<string, { count: number; more: boolean }>;
  loadingOlder: Record<string, boolean>;
  /** Channel id → a failed load's message. */
  channelErrors: Record<string, string>;
  /** Shown on the login page after the session ended by itself. */
  loginNotice?: string;
}

export const initialState: AppState = {
  boot: 'loading',
  route: { kind: 'root' },
  config: {},
  teams: [],
  channels: {},
  teamChannels: {},
  members: {},
  users: {},
  posts: emptyPosts,
  typing: {},
  ws: 'closed',
  memberCounts: {},
  loadingOlder: {},
  channelErrors: {},
};
