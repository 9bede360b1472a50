import { ApiError, NetworkError, rest, setSessionExpiredHandler, type ClientConfig, type Team, type User } from '../api';
import { connectWebSocket, stopWebSocket } from '../live/connection';
import { handleEvent, resetEvents } from '../live/events';
import { startPolling } from '../live/polling';
import { errorText } from '../error-text';
import { currentRoute, loginPath, navigate, onRouteChange, type Route } from '../router';
import { initialState } from '../state/app-state';
import { appStore } from '../state/app-store';
import { sortTeams } from '../state/selectors';
import { holdBackground, releaseBackgroundWork } from './background';
import { prefetchChannel } from './prefetch';
import { loadTheme } from './theme';
import { readRouteCache, routeTo } from './routing';
import { forgetRequestedUsers } from './users';

/** The session: the page's start, signing in and out, and the session ending by itself. */

let listening = false;

export async function boot(): Promise<void> {
  if (!listening) {
    // Once per page: boot() runs again after "Try again".
    listening = true;
    setSessionExpiredHandler(sessionExpired);
    onRouteChange((route) => void routeTo(route));
    startPolling();
  }
  const route = currentRoute();
  appStore.set({ route });
  // The first screen's requests all start at once (index.html preloads these three URLs, so the answers are often
  // there before this code runs). Every page load asks all three, the login page too: a preload left unused would
  // answer a later fetch of its URL with what it got before the login.
  const config = rest.clientConfig().catch(() => ({}) as ClientConfig);
  const teams = rest.myTeams().catch(() => [] as Team[]);
  if (route.kind === 'channel') {
    const channelId = readRouteCache()[location.pathname];
    if (channelId) prefetchChannel(location.pathname, channelId);
  }
  let me: User;
  try {
    me = await rest.me();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      const cfg = await config;
      appStore.set({ boot: 'ready', config: cfg });
      const to = signedOutPath(route, cfg);
      if (to) navigate(to, { replace: true });
      return;
    }
    appStore.set({ boot: 'down' });
    return;
  }
  // Signed in already: the login page has nothing to do.
  if (route.kind === 'login') history.replaceState(null, '', route.redirectTo || '/');
  await startSession(me, config, teams);
}

/**
 * Where a signed-out visitor goes: an empty server's first visitor to "Create account" (the first account becomes the
 * system admin), a sign-up page or the login page stays, anything else to the login page (and back after it).
 */
function signedOutPath(route: Route, config: ClientConfig): string | undefined {
  if (config.NoAccounts === 'true' && route.kind !== 'signup') return '/signup_user_complete';
  if (route.kind === 'login' || route.kind === 'signup') return undefined;
  return loginPath(location.pathname + location.search);
}

const SHELL_WAIT_MS = 1500;

async function startSession(me: User, config: Promise<ClientConfig>, teams: Promise<Team[]>): Promise<void> {
  performance.mark('parley:session');
  holdBackground();
  appStore.set((s) => ({ me, users: { ...s.users, [me.id]: me } }));
  connectWebSocket(handleEvent);
  // The theme is read beside the first screen's requests, so the shell shows in the user's theme.
  const theme = loadTheme();
  // The config only refines rendering (overrides, the length limit): it is not waited for.
  void config.then((cfg) => appStore.set({ config: cfg }));
  appStore.set({ teams: sortTeams(await teams) });
  // The shell is rendered once, with the channel's posts in it (or after SHELL_WAIT_MS with what there is).
  await Promise.race([Promise.all([routeTo(currentRoute()), theme]), new Promise((r) => setTimeout(r, SHELL_WAIT_MS))]);
  appStore.set({ boot: 'ready' });
  releaseBackgroundWork();
}

export type LoginFailure = 'credentials' | 'locked' | 'down' | 'other';

/** Signs in; on failure returns what went wrong (the page words it). */
export async function login(loginId: string, password: string, redirectTo: string): Promise<{ ok: true } | { ok: false; reason: LoginFailure; message: string }> {
  try {
    const me = await rest.login(loginId, password);
    appStore.set({ loginNotice: undefined });
    history.replaceState(null, '', redirectTo || '/');
    await startSession(me, rest.clientConfig().catch(() => ({}) as ClientConfig), rest.myTeams().catch(() => [] as Team[]));
    return { ok: true };
  } catch (err) {
    if (err instanceof NetworkError || (err instanceof ApiError && (err.status >= 500 || err.status === 0))) return { ok: false, reason: 'down', message: err.message };
    if (err instanceof ApiError && err.id === 'api.user.check_user_login_attempts.too_many.app_error') return { ok: false, reason: 'locked', message: err.message };
    if (err instanceof ApiError && err.status === 401) return { ok: false, reason: 'credentials', message: err.message };
    return { ok: false, reason: 'other', message: err instanceof Error ? err.message : String(err) };
  }
}

export type SignUpField = 'email' | 'username' | 'password' | 'form';

/**
 * Creates an account (joining the invite's team when there is one) and signs in with it. The first account on a
 * server goes on to create the first team; an invited one to the team; any other to its teams (none yet: the page
 * offers to create one).
 */
export async function signUp(
  fields: { email: string; username: string; password: string },
  invite: { id: string; teamName: string } | null,
): Promise<{ ok: true } | { ok: false; field: SignUpField; message: string }> {
  const first = appStore.get().config.NoAccounts === 'true';
  try {
    await rest.createUser(fields, invite?.id ?? '');
  } catch (err) {
    const id = err instanceof ApiError ? err.id : '';
    const field: SignUpField = /username/.test(id) ? 'username' : /email/.test(id) ? 'email' : /pwd|password/.test(id) ? 'password' : 'form';
    return { ok: false, field, message: errorText(err) };
  }
  const to = invite ? `/${invite.teamName}` : first ? '/create_team' : '/';
  const result = await login(fields.username, fields.password, to);
  if (!result.ok) return { ok: false, field: 'form', message: result.message || 'Your account was created, but signing in failed: log in with it.' };
  // The first account: the server's answer to "any accounts?" changed (the login page no longer leads to sign-up).
  if (first) appStore.set((s) => ({ config: { ...s.config, NoAccounts: 'false' } }));
  return { ok: true };
}

export function resetSession(): void {
  stopWebSocket();
  resetEvents();
  forgetRequestedUsers();
  appStore.replace({ ...initialState, boot: 'ready', config: appStore.get().config });
}

export async function logout(): Promise<void> {
  try {
    await rest.logout();
  } catch {
    // The cookies are the server's to expire; if it is down they expire on their own.
  }
  resetSession();
  navigate('/login');
}

function sessionExpired(): void {
  if (!appStore.get().me) return;
  const here = location.pathname;
  resetSession();
  appStore.set({ loginNotice: 'Your session has ended. Please log in again.' });
  navigate(loginPath(here), { replace: true });
}

/** Retries the start after the server was down. */
export function retryBoot(): void {
  appStore.set({ boot: 'loading' });
  void boot();
}
