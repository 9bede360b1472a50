import { rest, type Channel } from '../api';
import { channelPath, loginPath, navigate, type Route } from '../router';
import { appStore } from '../state/app-store';
import { CONSOLE_PAGES, consolePath, findConsolePage } from '../console-settings';
import { openUnlisted } from './channel-manage';
import { addChannel, ensureTeamChannels, openChannel, removeChannel } from './channels';
import { takeEarlyChannel } from './prefetch';
import { openPermalink } from './permalink';
import { joinByInvite } from './teams';
import { openIntegrations } from './integrations';
import { ensureUsers } from './users';

/** What a route shows: the team and channel it names (loaded and opened), or why there is nothing to show. */

const LAST_PATH = 'parley.lastChannelPath';
/**
 * Page path → the channel it showed, so that a reload (the usual first load) fetches the posts at once, in parallel
 * with the session, instead of after the team's channel list. Ids only, nothing secret; a stale entry (channel
 * renamed, membership gone) costs one wasted request: the channel list decides what is shown.
 */
const ROUTE_CACHE = 'parley.routeChannels';

export function readRouteCache(): Record<string, string> {
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

export async function routeTo(route: Route): Promise<void> {
  appStore.set({ route, routeError: undefined });
  const state = appStore.get();
  if (route.kind === 'login') {
    if (state.me) navigate('/', { replace: true });
    return;
  }
  const me = state.me;
  if (route.kind === 'signup') {
    // Signed in, an invite link joins its team; signed out, the page is the sign-up form.
    if (!me) return;
    if (!route.inviteId) return navigate('/', { replace: true });
    const error = await joinByInvite(route.inviteId);
    if (error) appStore.set({ currentTeamId: undefined, currentChannelId: undefined, routeError: `This invite link cannot be used: ${error}` });
    return;
  }
  if (!me) {
    if (state.boot === 'ready') navigate(loginPath(location.pathname + location.search), { replace: true });
    return;
  }
  const teams = state.teams;
  if (route.kind === 'createTeam') return;
  if (route.kind === 'console') {
    // The console is a page of its own (no channel open); `/admin_console` itself shows its first page.
    appStore.set({ currentChannelId: undefined, rhs: undefined });
    if (!findConsolePage(route.group, route.page)) navigate(consolePath(CONSOLE_PAGES[0]), { replace: true });
    return;
  }
  if (route.kind === 'account') {
    // Beside the settings the sidebar stays: the team shown last, or the first.
    const team = teams.find((t) => t.id === state.currentTeamId) ?? teams.find((t) => t.name === localStorage.getItem(LAST_PATH)?.split('/')[1]) ?? teams[0];
    appStore.set({ currentTeamId: team?.id, currentChannelId: undefined, rhs: undefined });
    if (team) void ensureTeamChannels(team.id).catch(() => undefined);
    return;
  }
  if (route.kind === 'root' || route.kind === 'unknown') {
    const last = localStorage.getItem(LAST_PATH);
    const lastTeam = last?.split('/')[1];
    if (last && teams.some((t) => t.name === lastTeam)) return navigate(last, { replace: true });
    if (teams.length) return navigate(channelPath(teams[0].name, 'town-square'), { replace: true });
    appStore.set({ currentTeamId: undefined, currentChannelId: undefined });
    return;
  }
  const team = teams.find((t) => t.name === route.team);
  if (!team) {
    appStore.set({ currentTeamId: undefined, currentChannelId: undefined, routeError: `There is no team "${route.team}", or you are not one of its members.` });
    return;
  }
  if (route.kind === 'team') return navigate(channelPath(team.name, 'town-square'), { replace: true });
  if (route.kind === 'permalink') return openPermalink(team, route.postId);
  if (route.kind === 'integrations') {
    appStore.set({ currentTeamId: team.id, currentChannelId: undefined, rhs: undefined });
    return openIntegrations(team.id, route.view);
  }
  appStore.set({ currentTeamId: team.id });
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
      appStore.set((s) => ({ channels: { ...s.channels, [early.id]: early } }));
      // The list decides membership: a channel it does not hold (left meanwhile) is left here too.
      void listLoad.then((loaded) => {
        const s = appStore.get();
        if (loaded && early.delete_at === 0 && s.currentChannelId === early.id && !(s.teamChannels[team.id] ?? []).includes(early.id)) removeChannel(early.id);
      });
    } else {
      if (!(await listLoad)) {
        appStore.set({ currentChannelId: undefined, routeError: 'The channels could not be loaded: the server cannot be reached. Reload the page to try again.' });
        return;
      }
      const s = appStore.get();
      channel = (s.teamChannels[team.id] ?? []).map((id) => s.channels[id]).find((c) => c?.name === route.channel);
      // Not in the sidebar: an archived channel (read-only), or a public one to join, as Mattermost's web app does.
      if (!channel) channel = await openUnlisted(team.id, route.channel);
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
    appStore.set({ currentChannelId: undefined, routeError: route.kind === 'channel' ? `Channel "${route.channel}" was not found, or you are not one of its members.` : `There is no user "${route.username}".` });
    return;
  }
  const path = location.pathname;
  await openChannel(channel.id);
  if (appStore.get().currentChannelId !== channel.id) return; // moved on meanwhile
  // After the posts: the first storage access of a page can take tens of milliseconds.
  localStorage.setItem(LAST_PATH, path);
  rememberRoute(path, channel.id);
}
