import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../../generated/api';

/**
 * The REST client: openapi-fetch typed by the spec (generated/api.d.ts), so a change of the contract that breaks
 * the client breaks `npm run typecheck`. The session is the HttpOnly MMAUTHTOKEN cookie the login set; the page
 * never sees a token. State-changing requests carry the MMCSRF cookie's value in X-CSRF-Token, as Mattermost's
 * web app does.
 */

export type { AppErrorBody, Channel, ChannelMember, ClientConfig, Post, Preference, PostListBody, SlackAttachment, Team, User } from './api-types';
import type { AppErrorBody, Preference, User } from './api-types';

/** An error answer of the server (an AppError body when the server sent one). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly id: string,
    message: string,
    readonly requestId = '',
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The server could not be reached at all (down, restarting, offline). */
export class NetworkError extends Error {
  constructor() {
    super('The server cannot be reached.');
    this.name = 'NetworkError';
  }
}

export function readCookie(name: string): string {
  for (const part of document.cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return '';
}

const csrf: Middleware = {
  onRequest({ request }) {
    request.headers.set('X-Requested-With', 'XMLHttpRequest');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const token = readCookie('MMCSRF');
      if (token) request.headers.set('X-CSRF-Token', token);
    }
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });
api.use(csrf);

let onSessionExpired: () => void = () => undefined;
/** Called on any 401 of a signed-in call: the session ended (logout elsewhere, expiry, revocation). */
export function setSessionExpiredHandler(fn: () => void): void {
  onSessionExpired = fn;
}

/** The data of a successful call; errors are thrown as ApiError or NetworkError. */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>, opts: { quiet401?: boolean } = {}): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request;
  } catch {
    throw new NetworkError();
  }
  const { data, error, response } = result;
  if (error !== undefined || data === undefined) {
    const body = (typeof error === 'object' && error !== null ? error : {}) as Partial<AppErrorBody>;
    const err = new ApiError(response.status, body.id ?? '', body.message || response.statusText || `HTTP ${response.status}`, body.request_id ?? '');
    if (response.status === 401 && !opts.quiet401) onSessionExpired();
    throw err;
  }
  return data;
}

const ME = 'me';

export const rest = {
  login: (login_id: string, password: string) => call(api.POST('/api/v4/users/login', { body: { login_id, password } }), { quiet401: true }),
  logout: () => call(api.POST('/api/v4/users/logout'), { quiet401: true }),
  me: () => call(api.GET('/api/v4/users/{user_id}', { params: { path: { user_id: ME } } }), { quiet401: true }),
  clientConfig: () => call(api.GET('/api/v4/config/client', { params: { query: { format: 'old' } } }), { quiet401: true }),
  usersByIds: (ids: string[]) => call(api.POST('/api/v4/users/ids', { body: ids })),
  userByUsername: (username: string) => call(api.GET('/api/v4/users/username/{username}', { params: { path: { username } } })),
  myTeams: () => call(api.GET('/api/v4/users/{user_id}/teams', { params: { path: { user_id: ME } } })),
  myChannels: (team_id: string) => call(api.GET('/api/v4/users/{user_id}/teams/{team_id}/channels', { params: { path: { user_id: ME, team_id } } })),
  channel: (channel_id: string) => call(api.GET('/api/v4/channels/{channel_id}', { params: { path: { channel_id } } })),
  myMember: (channel_id: string) => call(api.GET('/api/v4/channels/{channel_id}/members/{user_id}', { params: { path: { channel_id, user_id: ME } } })),
  /** My memberships (read state) of a team's channels and of my direct channels, in one request. */
  myChannelMembers: (team_id: string) =>
    call(api.GET('/api/v4/users/{user_id}/teams/{team_id}/channels/members', { params: { path: { user_id: ME, team_id } } })),
  /** Member count for the channel header, and the pinned count beside it (GetChannelStats, one request for both). */
  memberCount: async (channel_id: string): Promise<{ count: number; more: boolean; pinned: number }> => {
    const stats = await call(api.GET('/api/v4/channels/{channel_id}/stats', { params: { path: { channel_id }, query: { exclude_files_count: true } } }));
    return { count: stats.member_count, more: false, pinned: stats.pinnedpost_count };
  },
  view: (channel_id: string, prev_channel_id = '') => call(api.POST('/api/v4/channels/members/{user_id}/view', { params: { path: { user_id: ME } }, body: { channel_id, prev_channel_id } })),
  directChannel: (userIds: [string, string]) => call(api.POST('/api/v4/channels/direct', { body: userIds })),
  posts: (channel_id: string, query: { before?: string; since?: number; per_page?: number }) =>
    call(api.GET('/api/v4/channels/{channel_id}/posts', { params: { path: { channel_id }, query } })),
  thread: (post_id: string) => call(api.GET('/api/v4/posts/{post_id}/thread', { params: { path: { post_id } } })),
  createPost: (body: { channel_id: string; message: string; root_id?: string; pending_post_id?: string; file_ids?: string[] }) => call(api.POST('/api/v4/posts', { body })),
  patchPost: (post_id: string, message: string) => call(api.PUT('/api/v4/posts/{post_id}/patch', { params: { path: { post_id } }, body: { message } })),
  deletePost: (post_id: string) => call(api.DELETE('/api/v4/posts/{post_id}', { params: { path: { post_id } } })),

  // Accounts and teams (first run, invitations, account settings).
  /** CreateUser; with an invite id the account joins that team as it is created. */
  createUser: (body: NewUser, iid = '') => call(api.POST('/api/v4/users', { params: { query: iid ? { iid } : {} }, body }), { quiet401: true }),
  createTeam: (body: { name: string; display_name: string; type: 'O' | 'I' }) => call(api.POST('/api/v4/teams', { body })),
  team: (team_id: string) => call(api.GET('/api/v4/teams/{team_id}', { params: { path: { team_id } } })),
  inviteInfo: (invite_id: string) => call(api.GET('/api/v4/teams/invite/{invite_id}', { params: { path: { invite_id } } }), { quiet401: true }),
  joinByInvite: (invite_id: string) => call(api.POST('/api/v4/teams/members/invite', { params: { query: { invite_id } } })),
  regenerateInvite: (team_id: string) => call(api.POST('/api/v4/teams/{team_id}/regenerate_invite_id', { params: { path: { team_id } } })),
  myTeamMembers: () => call(api.GET('/api/v4/users/{user_id}/teams/members', { params: { path: { user_id: ME } } })),
  patchMe: (body: ProfilePatch) => call(api.PUT('/api/v4/users/{user_id}/patch', { params: { path: { user_id: ME } }, body })),
  updatePassword: (current_password: string, new_password: string) =>
    call(api.PUT('/api/v4/users/{user_id}/password', { params: { path: { user_id: ME } }, body: { current_password, new_password } })),
  revokeAllSessions: (user_id: string) => call(api.POST('/api/v4/users/{user_id}/sessions/revoke/all', { params: { path: { user_id } } })),
  setProfileImage: (user_id: string, image: Blob) =>
    call(
      api.POST('/api/v4/users/{user_id}/image', {
        params: { path: { user_id } },
        // The spec types the part as a binary string; the browser sends the file itself.
        body: { image: '' },
        bodySerializer: () => {
          const form = new FormData();
          form.append('image', image);
          return form;
        },
      }),
    ),
  resetProfileImage: (user_id: string) => call(api.DELETE('/api/v4/users/{user_id}/image', { params: { path: { user_id } } })),

  // Preferences (the theme: theme.ts).
  preferences: (user_id: string) => call(api.GET('/api/v4/users/{user_id}/preferences', { params: { path: { user_id } } })),
  savePreferences: (user_id: string, body: Preference[]) => call(api.PUT('/api/v4/users/{user_id}/preferences', { params: { path: { user_id } }, body })),
  deletePreferences: (user_id: string, body: Preference[]) => call(api.POST('/api/v4/users/{user_id}/preferences/delete', { params: { path: { user_id } }, body })),
};

export type NewUser = { email: string; username: string; password: string };
export type ProfilePatch = { first_name?: string; last_name?: string; nickname?: string; position?: string };

/** Where a user's picture is served; the update time in the URL makes a new picture a new URL (cached otherwise). */
export function profileImageUrl(user: Pick<User, 'id' | 'last_picture_update'>): string {
  return `/api/v4/users/${encodeURIComponent(user.id)}/image?_=${user.last_picture_update ?? 0}`;
}
