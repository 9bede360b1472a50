import { parseIntegrationsPath, type IntegrationsView } from './integrations-routes';

/**
 * The client's routes, as Mattermost's: `/{team}/channels/{channel}` (a channel's URL name; a direct channel's is
 * `<idA>__<idB>`), `/{team}/messages/@{username}` (direct messages), `/login`, `/signup_user_complete` (sign-up, with
 * `?id=<invite id>` a team's invite link), `/create_team`, and `/settings/profile` (the account settings). A team's
 * name never has a single `_` or starts with `signup`, so none of these can be a team's page. Every route is a real URL: it can
 * be bookmarked and reloaded (the server answers index.html for any page path). No DOM here: unit-tested in Node.
 */
export type Route =
  | { kind: 'login'; redirectTo: string }
  | { kind: 'signup'; inviteId: string }
  | { kind: 'createTeam' }
  | { kind: 'account' }
  | { kind: 'root' }
  | { kind: 'team'; team: string }
  | { kind: 'channel'; team: string; channel: string }
  | { kind: 'dm'; team: string; username: string }
  | { kind: 'integrations'; team: string; view: IntegrationsView }
  | { kind: 'permalink'; team: string; postId: string }
  | { kind: 'console'; group: string; page: string }
  | { kind: 'unknown'; path: string };

const NAME = '([A-Za-z0-9_.-]+)';

export function parseRoute(pathname: string, search: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return { kind: 'root' };
  if (path === '/login') {
    const redirect = new URLSearchParams(search).get('redirect_to') ?? '';
    // Only a path of this site: never an absolute URL someone put in a link (open redirect).
    return { kind: 'login', redirectTo: /^\/(?!\/)/.test(redirect) ? redirect : '' };
  }
  if (path === '/signup_user_complete') return { kind: 'signup', inviteId: new URLSearchParams(search).get('id') ?? '' };
  if (path === '/create_team') return { kind: 'createTeam' };
  if (path === '/settings/profile') return { kind: 'account' };
  // The system console (`/admin_console/<group>/<page>`, as Mattermost's); its one underscore is no team's name.
  const adminConsole = /^\/admin_console(?:\/([a-z_]+)\/([a-z_]+))?$/.exec(path);
  if (adminConsole) return { kind: 'console', group: adminConsole[1] ?? '', page: adminConsole[2] ?? '' };
  let m = new RegExp(`^/${NAME}/channels/${NAME}$`).exec(path);
  if (m) return { kind: 'channel', team: m[1], channel: m[2] };
  m = new RegExp(`^/${NAME}/messages/@${NAME}$`).exec(path);
  if (m) return { kind: 'dm', team: m[1], username: m[2] };
  m = new RegExp(`^/${NAME}/pl/([A-Za-z0-9]+)$`).exec(path);
  if (m) return { kind: 'permalink', team: m[1], postId: m[2] };
  m = new RegExp(`^/${NAME}/integrations(?:/(.*))?$`).exec(path);
  if (m) {
    const view = parseIntegrationsPath(m[2] ?? '', search);
    if (view) return { kind: 'integrations', team: m[1], view };
  }
  m = new RegExp(`^/${NAME}$`).exec(path);
  if (m) return { kind: 'team', team: m[1] };
  return { kind: 'unknown', path };
}

export function channelPath(team: string, channel: string): string {
  return `/${encodeURIComponent(team)}/channels/${encodeURIComponent(channel)}`;
}

/** A post's permalink, as Mattermost's web app forms it: `/{team}/pl/{post_id}`. */
export function permalinkPath(team: string, postId: string): string {
  return `/${encodeURIComponent(team)}/pl/${encodeURIComponent(postId)}`;
}

export function loginPath(redirectTo?: string): string {
  return redirectTo && redirectTo !== '/' ? `/login?redirect_to=${encodeURIComponent(redirectTo)}` : '/login';
}

/** A team's invite link, as Mattermost's web app forms it. */
export function inviteLink(origin: string, inviteId: string): string {
  return `${origin}/signup_user_complete/?id=${encodeURIComponent(inviteId)}`;
}

export function signupPath(inviteId = ''): string {
  return inviteId ? `/signup_user_complete/?id=${encodeURIComponent(inviteId)}` : '/signup_user_complete';
}
