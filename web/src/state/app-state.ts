import type { Channel, ChannelMember, ClientConfig, Team, User } from '../api-types';
import { emptyPosts, type PostsState } from '../post-store';
import type { Route } from '../routes';
import type { ThemePreference } from '../theme';
import type { WsStatus } from '../ws-client';
import type { SearchState, Upload } from './files-search-state';
import { initialIntegrations, type IntegrationsState } from './integrations-state';
import { initialPins, initialStatuses, initialUnread, type PinsState, type StatusState, type UnreadState } from './reactions-state';

/**
 * The client's state: one immutable plain object, no functions and no DOM in it, so a component can be rendered
 * against any value of it (a test builds one by hand). The actions (actions/*) are what change it.
 */

export type Rhs = { kind: 'thread'; rootId: string } | { kind: 'card'; postId: string } | { kind: 'search' } | { kind: 'pinned'; channelId: string };

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
  /** Channel id → its member count (and, from the same GetChannelStats, how many posts are pinned). */
  memberCounts: Record<string, { count: number; more: boolean; pinned?: number }>;
  loadingOlder: Record<string, boolean>;
  /** Channel id → a failed load's message. */
  channelErrors: Record<string, string>;
  /** Shown on the login page after the session ended by itself. */
  loginNotice?: string;
  /** The user's theme preferences (theme.ts: `theme`, `theme_dark`, `display_settings`/`theme_auto_switch`). */
  themePreferences: ThemePreference[];
  /** Narrow windows: the channel sidebar shown as a drawer over the page. */
  drawerOpen: boolean;
  /** The post a permalink opened, highlighted for a few seconds (actions/permalink.ts). */
  highlightPostId?: string;
  /** Composer (draftKey) → the files attached to its next message (actions/files.ts). */
  uploads: Record<string, Upload[]>;
  /** The search shown in the right-hand panel (actions/search.ts). */
  search?: SearchState;
  /** The integrations page (state/integrations-state.ts). */
  integrations: IntegrationsState;
  /** Presence (state/reactions-state.ts). */
  statuses: StatusState;
  /** Pinned posts per channel (state/reactions-state.ts). */
  pins: PinsState;
  /** The "New messages" line and channels marked unread (state/reactions-state.ts). */
  unread: UnreadState;
  /**
   * `channels:<team id>` / `members:<team id>` → a count the live events raise when the team's channel list or its
   * members change (state/revisions.ts): an open dialog that fetched its own list fetches it again.
   */
  revisions: Record<string, number>;
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
  uploads: {},
  themePreferences: [],
  drawerOpen: false,
  integrations: initialIntegrations,
  statuses: initialStatuses,
  pins: initialPins,
  unread: initialUnread,
  revisions: {},
};
