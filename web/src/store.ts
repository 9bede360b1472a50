import { useEffect, useReducer, useRef } from 'preact/hooks';
import { ApiError, NetworkError, rest, setSessionExpiredHandler, type Channel, type ChannelMember, type ClientConfig, type Team, type User } from './api';
import { dropChannel, emptyPosts, markFailed, mergePosts, mergeThread, removeLocal, type ClientPost, type PostsState } from './post-store';
import { channelPath, currentRoute, loginPath, navigate, onRouteChange, type Route } from './router';
import { connectWebSocket, sendTyping, stopLive } from './live';
import type { WsStatus } from './ws-client';

/**
 * The client's state and everything that changes it: REST loads, the user's actions and WebSocket events. One
 * immutable state object; components subscribe to slices of it with useStore.
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

const initial: AppState = {
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

let state: AppState = initial;
const listeners = new Set<() => void>();
let notifyQueued = false;

export function getState(): AppState {
  return state;
}

export function set(patch: Partial<AppState> | ((s: AppState) => Partial<AppState>)): void {
  state = { ...state, ...(typeof patch === 'function' ? patch(state) : patch) };
  if (notifyQueued) return;
  notifyQueued = true;
  queueMicrotask(() => {
    notifyQueued = false;
    for (const l of [...listeners]) l();
  });
}

/** Subscribes a component to a slice of the state; it re-renders when the slice changes (by identity). */
export function useStore<T>(selector: (s: AppState) => T): T {
  const [, force] = useReducer((c: number) => c + 1, 0);
  const selectorRef = useRef(selector);
  selectorRef.current = selector;
  const value = selector(state);
  const valueRef = useRef(value);
  valueRef.current = value;
  useEffect(() => {
    const check = () => {
      if (!Object.is(selectorRef.current(state), valueRef.current)) force(0);
    };
    listeners.add(check);
    check();
    return () => {
      listeners.delete(check);
    };
  }, []);
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// Users

const requestedUsers = new Set<string>();
let userBatch: string[] = [];
let userBatchPromise: Promise<void> | null = null;

/** Loads the users not held yet, in one request per tick; resolves when they are there (or failed). */
export function ensureUsers(ids: Iterable<string>): Promise<void> {
  const missing = [...new Set(ids)].filter((id) => id && !state.users[id] && !requestedUsers.has(id));
  if (missing.length === 0) return userBatchPromise ?? Promise.resolve();
  for (const id of missing) requestedUsers.add(id);
  userBatch.push(...missing);
  if (!userBatchPromise) {
    userBatchPromise = Promise.resolve().then(async () => {
      const batch = userBatch;
      userBatch = [];
      userBatchPromise = null;
      try {
        const users = await rest.usersByIds(batch);
        set((s) => {
          const all = { ...s.users };
          for (const u of users) all[u.id] = u;
          return { users: all };
        });
      } catch {
        for (const id of batch) requestedUsers.delete(id);
      }
    });
  }
  return userBatchPromise;
}

export function displayName(userId: string): string {
  const u = state.users[userId];
  return u ? u.username : '';
}

/** The other member of a direct channel (`<idA>__<idB>`); the viewer's own id for a self-DM. */
export function dmPartner(channel: Channel, meId: string): string {
  const [a, b] = channel.name.split('__');
  return a === meId ? b : a;
}

export function channelTitle(channel: Channel, s: AppState = state): string {
  if (channel.type === 'D') {
    const other = s.users[dmPartner(channel, s.me?.id ?? '')];
    return other ? other.username : 'Direct message';
  }
  return channel.display_name || channel.name;
}

export function isUnread(channel: Channel, member: ChannelMember | undefined): boolean {
  return !!member && (channel.total_msg_count ?? 0) > member.msg_count;
}

// ---------------------------------------------------------------------------------------------------------------
// Session

let listening = false;

export async function boot(): Promise<void> {
  if (!listening) {
    // Once per page: boot() runs again after "Try again".
    listening = true;
    setSessionExpiredHandler(sessionExpired);
    onRouteChange((route) => void routeTo(route));
  }
  const route = currentRoute();
  set({ route });
  // The first screen's requests all start at once (index.html preloads these three URLs, so the answers are often
  // there before this code runs). Every page load asks all three, the login page too: a preload left unused would
  // answer a later fetch of its URL with what it got before the login.
  const config = rest.clientConfig().catch(() => ({}) as ClientConfig);
  const teams = rest.myTeams().catch(() => [] as Team[]);
  if (route.kind === 'channel') {
    const channelId = readRouteCache()[location.pathname];
    if (channelId) {
      const early = rest.posts(channelId, { per_page: PAGE });
      early.catch(() => undefined);
      prefetched.set(channelId, early);
      earlyChannel = { path: location.pathname, channel: rest.channel(channelId).catch(() => undefined) };
    }
  }
  let me: User;
  try {
    me = await rest.me();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      set({ boot: 'ready', config: await config });
      if (route.kind !== 'login') navigate(loginPath(location.pathname), { replace: true });
      return;
    }
    set({ boot: 'down' });
    return;
  }
  // Signed in already: the login page has nothing to do.
  if (route.kind === 'login') history.replaceState(null, '', route.redirectTo || '/');
  await startSession(me, config, teams);
}

/**
 * Everything the sidebar needs beyond the channel list (read state of every channel, names of direct-message
 * partners) waits until the open channel's posts are loaded: on a page load the posts are what the reader waits for,
 * and the server answers them sooner when they are not queued behind a request per channel.
 */
let releaseBackground: () => void = () => undefined;
let background: Promise<void> = Promise.resolve();

function holdBackground(): void {
  background = new Promise((resolve) => (releaseBackground = resolve));
}

const SHELL_WAIT_MS = 1500;

async function startSession(me: User, config: Promise<ClientConfig>, teams: Promise<Team[]>): Promise<void> {
  performance.mark('parley:session');
  holdBackground();
  set({ me, users: { ...state.users, [me.id]: me } });
  connectWebSocket();
  // The config only refines rendering (overrides, the length limit): it is not waited for.
  void config.then((cfg) => set({ config: cfg }));
  set({ teams: sortTeams(await teams) });
  // The shell is rendered once, with the channel's posts in it (or after SHELL_WAIT_MS with what there is).
  await Promise.race([routeTo(currentRoute()), new Promise((r) => setTimeout(r, SHELL_WAIT_MS))]);
  set({ boot: 'ready' });
  releaseBackground();
}

export function sortTeams(teams: Team[]): Team[] {
  return [...teams].sort((a, b) => a.display_name.localeCompare(b.display_name));
}

export type LoginFailure = 'credentials' | 'locked' | 'down' | 'other';

/** Signs in; on failure returns what went wrong (the page words it). */
export async function login(loginId: string, password: string, redirectTo: string): Promise<{ ok: true } | { ok: false; reason: LoginFailure; message: string }> {
  try {
    const me = await rest.login(loginId, password);
    set({ loginNotice: undefined });
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

function resetSession(): void {
  stopLive();
  requestedUsers.clear();
  state = { ...initial, boot: 'ready', config: state.config };
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
  if (!state.me) return;
  const here = location.pathname;
  resetSession();
  set({ loginNotice: 'Your session has ended. Please log in again.' });
  navigate(loginPath(here), { replace: true });
}

/** Retries the start after the server was down. */
export function retryBoot(): void {
  set({ boot: 'loading' });
  void boot();
}

// ---------------------------------------------------------------------------------------------------------------
// Routes, teams and channels

const LAST_PATH = 'parley.lastChannelPath';
/**
 * Page path → the channel it showed, so that a reload (the usual first load) fetches the posts at once, in parallel
 * with the session, instead of after the team's channel list. Ids only, nothing secret; a stale entry (channel
 * renamed, membership gone) costs one wasted request: the channel list decides what is shown.
 */
const ROUTE_CACHE = 'parley.routeChannels';

function readRouteCache(): Record<string, string> {
  try {
    return JSON.parse(localStorage.getItem(ROUTE_CACHE) ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

function rememberRoute(path: string, channelId: string): void {
  const cache = readRouteCache();
  cache[path] = channelId;
  const keys = Object.keys(cache);
  for (const k of keys.slice(0, Math.max(0, keys.length - 50))) delete cache[k];
  localStorage.setItem(ROUTE_CACHE, JSON.stringify(cache));
}

/** Posts fetched ahead for the channel a reloaded page showed last time, keyed by channel id; used once. */
const prefetched = new Map<string, ReturnType<typeof rest.posts>>();
/** That channel itself, fetched ahead too; used once, and only if it is what the route names. */
let earlyChannel: { path: string; channel: Promise<Channel | undefined> } | null = null;

async function takeEarlyChannel(path: string, teamId: string, name: string): Promise<Channel | undefined> {
  const early = earlyChannel;
  earlyChannel = null;
  if (!early || early.path !== path) return undefined;
  const c = await early.channel;
  return c && c.name === name && c.delete_at === 0 && (c.team_id === teamId || c.team_id === '') ? c : undefined;
}

async function routeTo(route: Route): Promise<void> {
  set({ route, routeError: undefined });
  if (route.kind === 'login') {
    if (state.me) navigate('/', { replace: true });
    return;
  }
  const me = state.me;
  if (!me) {
    if (state.boot === 'ready') navigate(loginPath(location.pathname), { replace: true });
    return;
  }
  const teams = state.teams;
  if (route.kind === 'root' || route.kind === 'unknown') {
    const last = localStorage.getItem(LAST_PATH);
    const lastTeam = last?.split('/')[1];
    if (last && teams.some((t) => t.name === lastTeam)) return navigate(last, { replace: true });
    if (teams.length) return navigate(channelPath(teams[0].name, 'town-square'), { replace: true });
    set({ currentTeamId: undefined, currentChannelId: undefined });
    return;
  }
  const team = teams.find((t) => t.name === route.team);
  if (!team) {
    set({ currentTeamId: undefined, currentChannelId: undefined, routeError: `There is no team "${route.team}", or you are not one of its members.` });
    return;
  }
  if (route.kind === 'team') return navigate(channelPath(team.name, 'town-square'), { replace: true });
  set({ currentTeamId: team.id });
  // Resolves false when the list could not be fetched (the server is unreachable): said so, not "not found".
  const listLoad = ensureTeamChannels(team.id).then(
    () => true,
    () => false,
  );
  let channel: Channel | undefined;
  if (route.kind === 'channel') {
    // A reload of the page shown last time: the channel fetched ahead is used at once, the list follows.
    channel = await takeEarlyChannel(location.pathname, team.id, route.channel);
    if (channel) {
      const early = channel;
      set((s) => ({ channels: { ...s.channels, [early.id]: early } }));
      // The list decides membership: a channel it does not hold (left meanwhile) is left here too.
      void listLoad.then((loaded) => {
        if (loaded && state.currentChannelId === early.id && !(state.teamChannels[team.id] ?? []).includes(early.id)) removeChannel(early.id);
      });
    } else {
      if (!(await listLoad)) {
        set({ currentChannelId: undefined, routeError: 'The channels could not be loaded: the server cannot be reached. Reload the page to try again.' });
        return;
      }
      channel = (state.teamChannels[team.id] ?? []).map((id) => state.channels[id]).find((c) => c?.name === route.channel);
    }
  } else {
    try {
      const other = await rest.userByUsername(route.username);
      channel = await rest.directChannel([me.id, other.id]);
      addChannel(channel);
      await ensureUsers([other.id]);
    } catch {
      channel = undefined;
    }
  }
  if (!channel) {
    set({ currentChannelId: undefined, routeError: route.kind === 'channel' ? `Channel "${route.channel}" was not found, or you are not one of its members.` : `There is no user "${route.username}".` });
    return;
  }
  const path = location.pathname;
  await openChannel(channel.id);
  if (state.currentChannelId !== channel.id) return; // moved on meanwhile
  // After the posts: the first storage access of a page can take tens of milliseconds.
  localStorage.setItem(LAST_PATH, path);
  rememberRoute(path, channel.id);
}

const teamLoads = new Map<string, Promise<void>>();

/** Fetches the team's channel list again (after events, on reconnect, when polling); a failure waits for the next. */
export function refreshTeamChannels(teamId: string): Promise<void> {
  return ensureTeamChannels(teamId, true).catch(() => undefined);
}

function ensureTeamChannels(teamId: string, force = false): Promise<void> {
  const running = teamLoads.get(teamId);
  if (running && !force) return running;
  if (state.teamChannels[teamId] && !force) return Promise.resolve();
  const load = (async () => {
    try {
      const channels = await rest.myChannels(teamId);
      set((s) => {
        const all = { ...s.channels };
        for (const c of channels) all[c.id] = c;
        return { channels: all, teamChannels: { ...s.teamChannels, [teamId]: channels.filter((c) => c.delete_at === 0).map((c) => c.id) } };
      });
      const meId = state.me?.id ?? '';
      void background.then(() => {
        void ensureUsers(channels.filter((c) => c.type === 'D').map((c) => dmPartner(c, meId)));
        void loadMembers(teamId, channels.map((c) => c.id));
      });
    } finally {
      teamLoads.delete(teamId);
    }
  })();
  teamLoads.set(teamId, load);
  return load;
}

/**
 * The viewer's membership (read state) of each of the team's channels, in one request (GetChannelMembersForUser);
 * a failure waits for the next refresh of the list.
 */
async function loadMembers(teamId: string, channelIds: string[]): Promise<void> {
  let members: ChannelMember[];
  try {
    members = await rest.myChannelMembers(teamId);
  } catch {
    return;
  }
  const wanted = new Set(channelIds);
  set((s) => {
    const next = { ...s.members };
    for (const member of members) {
      if (!wanted.has(member.channel_id)) continue;
      next[member.channel_id] = member.channel_id === s.currentChannelId ? readMember(member, s.channels[member.channel_id]) : member;
    }
    return { members: next };
  });
}

export function readMember(member: ChannelMember, channel: Channel | undefined): ChannelMember {
  return { ...member, msg_count: Math.max(member.msg_count, channel?.total_msg_count ?? 0), mention_count: 0 };
}

export function addChannel(channel: Channel): void {
  set((s) => {
    const teamChannels = { ...s.teamChannels };
    for (const [teamId, ids] of Object.entries(teamChannels)) {
      if ((channel.team_id === teamId || channel.team_id === '') && !ids.includes(channel.id)) teamChannels[teamId] = [...ids, channel.id];
    }
    return { channels: { ...s.channels, [channel.id]: channel }, teamChannels };
  });
}

export function removeChannel(channelId: string): void {
  set((s) => {
    const teamChannels: Record<string, string[]> = {};
    for (const [teamId, ids] of Object.entries(s.teamChannels)) teamChannels[teamId] = ids.filter((id) => id !== channelId);
    return { teamChannels, posts: dropChannel(s.posts, channelId) };
  });
  if (state.currentChannelId === channelId) {
    const team = state.teams.find((t) => t.id === state.currentTeamId);
    navigate(team ? channelPath(team.name, 'town-square') : '/', { replace: true });
  }
}

async function openChannel(channelId: string): Promise<void> {
  const prev = state.currentChannelId;
  set((s) => ({
    currentChannelId: channelId,
    rhs: prev !== channelId ? undefined : s.rhs,
    channelErrors: { ...s.channelErrors, [channelId]: '' },
  }));
  const list = state.posts.channels[channelId];
  if (!list?.loaded) await loadLatest(channelId);
  else if (state.ws !== 'open') await catchUp(channelId);
  if (state.currentChannelId !== channelId) return;
  markViewed(channelId, prev);
  void rest.memberCount(channelId).then(
    (count) => set((s) => ({ memberCounts: { ...s.memberCounts, [channelId]: count } })),
    () => undefined,
  );
}

const PAGE = 60;

async function loadLatest(channelId: string): Promise<void> {
  performance.mark('parley:posts-requested');
  const early = prefetched.get(channelId);
  prefetched.delete(channelId);
  try {
    const page = await (early ?? rest.posts(channelId, { per_page: PAGE })).catch((err) => {
      if (early) return rest.posts(channelId, { per_page: PAGE });
      throw err;
    });
    await ensureUsers(Object.values(page.posts).map((p) => p.user_id));
    set((s) => ({ posts: mergePosts(s.posts, Object.values(page.posts), { channelId, listed: page.order, hasOlder: page.prev_post_id !== '', loaded: true }) }));
  } catch (err) {
    set((s) => ({ channelErrors: { ...s.channelErrors, [channelId]: errorText(err) } }));
  }
}

export async function loadOlder(channelId: string): Promise<void> {
  const list = state.posts.channels[channelId];
  if (!list?.loaded || !list.hasOlder || state.loadingOlder[channelId]) return;
  const oldest = list.ids.find((id) => !state.posts.byId[id]?.pending && !state.posts.byId[id]?.failed);
  if (!oldest) return;
  set((s) => ({ loadingOlder: { ...s.loadingOlder, [channelId]: true } }));
  try {
    const page = await rest.posts(channelId, { before: oldest, per_page: PAGE });
    await ensureUsers(Object.values(page.posts).map((p) => p.user_id));
    set((s) => ({
      posts: mergePosts(s.posts, Object.values(page.posts), { channelId, listed: page.order, hasOlder: page.order.length > 0 && page.prev_post_id !== '', older: true }),
    }));
  } catch (err) {
    set((s) => ({ channelErrors: { ...s.channelErrors, [channelId]: errorText(err) } }));
  } finally {
    set((s) => ({ loadingOlder: { ...s.loadingOlder, [channelId]: false } }));
  }
}

/** Brings a loaded channel up to date after events may have been missed: everything changed since, or afresh. */
export async function catchUp(channelId: string): Promise<void> {
  const list = state.posts.channels[channelId];
  if (!list?.loaded || list.lastUpdateAt === 0) {
    set((s) => ({ posts: dropChannel(s.posts, channelId) }));
    return loadLatest(channelId);
  }
  try {
    // A margin before the newest change seen: posts committed out of time order are fetched again (merged, not doubled).
    const page = await rest.posts(channelId, { since: list.lastUpdateAt - 5000 });
    if (page.order.length >= 1000) {
      set((s) => ({ posts: dropChannel(s.posts, channelId) }));
      return loadLatest(channelId);
    }
    await ensureUsers(Object.values(page.posts).map((p) => p.user_id));
    set((s) => ({ posts: mergePosts(s.posts, Object.values(page.posts), { channelId, listed: page.order }) }));
  } catch {
    // The next reconnect tries again.
  }
}

/** After a new connection: refetch what events may have changed while none could arrive. */
export async function resync(): Promise<void> {
  const me = state.me;
  if (!me) return;
  const teamId = state.currentTeamId;
  // Lists of other channels are dropped: they are fetched afresh when opened.
  set((s) => {
    let posts = s.posts;
    for (const id of Object.keys(posts.channels)) if (id !== s.currentChannelId) posts = dropChannel(posts, id);
    return { posts };
  });
  const jobs: Promise<unknown>[] = [];
  if (teamId) jobs.push(refreshTeamChannels(teamId));
  const channelId = state.currentChannelId;
  if (channelId) jobs.push(catchUp(channelId));
  const rhs = state.rhs;
  if (rhs?.kind === 'thread') jobs.push(loadThread(rhs.rootId));
  await Promise.all(jobs);
}

const viewTimers = new Map<string, ReturnType<typeof setTimeout>>();

/** Marks a channel read, here at once and on the server. */
export function markViewed(channelId: string, prevChannelId = ''): void {
  set((s) => {
    const member = s.members[channelId];
    return member ? { members: { ...s.members, [channelId]: readMember(member, s.channels[channelId]) } } : {};
  });
  void rest.view(channelId, prevChannelId === channelId ? '' : prevChannelId).catch(() => undefined);
}

/** New posts in the open channel: it stays read (the server is told at most once a second). */
export function keepViewed(channelId: string): void {
  set((s) => {
    const member = s.members[channelId];
    return member ? { members: { ...s.members, [channelId]: readMember(member, s.channels[channelId]) } } : {};
  });
  if (viewTimers.has(channelId)) return;
  viewTimers.set(
    channelId,
    setTimeout(() => {
      viewTimers.delete(channelId);
      void rest.view(channelId).catch(() => undefined);
    }, 1000),
  );
}

export function isWatching(channelId: string): boolean {
  return state.currentChannelId === channelId && document.visibilityState === 'visible';
}

// ---------------------------------------------------------------------------------------------------------------
// Posting

let lastPendingAt = 0;

export async function sendPost(channelId: string, message: string, rootId = ''): Promise<void> {
  const me = state.me;
  if (!me) return;
  const now = Math.max(Date.now(), lastPendingAt + 1);
  lastPendingAt = now;
  // Mattermost's web app shape: "<user id>:<ms>"; a retry with it is answered with the first post, not a copy.
  const pendingId = `${me.id}:${now}`;
  const local: ClientPost = {
    id: pendingId,
    pending_post_id: pendingId,
    create_at: now,
    update_at: now,
    delete_at: 0,
    user_id: me.id,
    channel_id: channelId,
    root_id: rootId,
    message,
    type: '',
    props: {},
    pending: true,
  };
  set((s) => ({ posts: mergePosts(s.posts, [local]) }));
  await submit(local);
}

async function submit(local: ClientPost): Promise<void> {
  try {
    const created = await rest.createPost({ channel_id: local.channel_id, message: local.message, root_id: local.root_id || undefined, pending_post_id: local.pending_post_id });
    set((s) => ({ posts: mergePosts(s.posts, [created]) }));
    set((s) => {
      const member = s.members[local.channel_id];
      return member ? { members: { ...s.members, [local.channel_id]: readMember(member, s.channels[local.channel_id]) } } : {};
    });
  } catch {
    set((s) => ({ posts: markFailed(s.posts, local.id) }));
  }
}

export function retryPost(pendingId: string): void {
  const post = state.posts.byId[pendingId];
  if (!post?.failed) return;
  const again = { ...post, failed: false, pending: true };
  set((s) => ({ posts: { ...s.posts, byId: { ...s.posts.byId, [pendingId]: again } } }));
  void submit(again);
}

export function discardPost(pendingId: string): void {
  set((s) => ({ posts: removeLocal(s.posts, pendingId) }));
}

export async function editPost(postId: string, message: string): Promise<string | undefined> {
  try {
    const post = await rest.patchPost(postId, message);
    set((s) => ({ posts: mergePosts(s.posts, [post]) }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export async function deletePost(postId: string): Promise<string | undefined> {
  try {
    await rest.deletePost(postId);
    const post = state.posts.byId[postId];
    if (post) set((s) => ({ posts: mergePosts(s.posts, [{ ...post, delete_at: Date.now() }]) }));
    if (state.rhs?.kind === 'thread' && state.rhs.rootId === postId) closeRhs();
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

let lastTypingSent = 0;
let lastTypingKey = '';

/** Tells the others this user is typing (at most every 3 s per place; Mattermost's apps wait 5 s between). */
export function userTyping(channelId: string, rootId = ''): void {
  const key = `${channelId}:${rootId}`;
  const now = Date.now();
  if (key === lastTypingKey && now - lastTypingSent < 3000) return;
  lastTypingKey = key;
  lastTypingSent = now;
  sendTyping(channelId, rootId);
}

// ---------------------------------------------------------------------------------------------------------------
// Right-hand panel

export function openThread(rootId: string): void {
  set({ rhs: { kind: 'thread', rootId } });
  void loadThread(rootId);
}

export async function loadThread(rootId: string): Promise<void> {
  try {
    const list = await rest.thread(rootId);
    await ensureUsers(Object.values(list.posts).map((p) => p.user_id));
    set((s) => ({ posts: mergeThread(s.posts, rootId, Object.values(list.posts)) }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && state.rhs?.kind === 'thread' && state.rhs.rootId === rootId) closeRhs();
  }
}

export function openCard(postId: string): void {
  set({ rhs: { kind: 'card', postId } });
}

export function closeRhs(): void {
  set({ rhs: undefined });
}

// ---------------------------------------------------------------------------------------------------------------

export function errorText(err: unknown): string {
  if (err instanceof NetworkError) return 'The server cannot be reached. Check your connection and try again.';
  if (err instanceof ApiError) return err.message;
  return 'Something went wrong.';
}
