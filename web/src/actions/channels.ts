import { rest, type Channel, type ChannelMember } from '../api';
import { dropChannel } from '../post-store';
import { channelPath, navigate } from '../router';
import { appStore } from '../state/app-store';
import { dmPartner, readMember } from '../state/selectors';
import { afterFirstScreen } from './background';
import { catchUp, loadLatest } from './posts';
import { leaveUnread, noteUnreadLine } from './unread';
import { ensureUsers } from './users';

/** A team's channel list, the viewer's memberships (read state) and the open channel. */

const teamLoads = new Map<string, Promise<void>>();

/** Fetches the team's channel list again (after events, on reconnect, when polling); a failure waits for the next. */
export function refreshTeamChannels(teamId: string): Promise<void> {
  return ensureTeamChannels(teamId, true).catch(() => undefined);
}

export function ensureTeamChannels(teamId: string, force = false): Promise<void> {
  const running = teamLoads.get(teamId);
  if (running && !force) return running;
  if (appStore.get().teamChannels[teamId] && !force) return Promise.resolve();
  const load = (async () => {
    try {
      const channels = await rest.myChannels(teamId);
      appStore.set((s) => {
        const all = { ...s.channels };
        for (const c of channels) all[c.id] = c;
        return { channels: all, teamChannels: { ...s.teamChannels, [teamId]: channels.filter((c) => c.delete_at === 0).map((c) => c.id) } };
      });
      const meId = appStore.get().me?.id ?? '';
      afterFirstScreen(() => {
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
  appStore.set((s) => {
    const next = { ...s.members };
    for (const member of members) {
      if (!wanted.has(member.channel_id)) continue;
      next[member.channel_id] = member.channel_id === s.currentChannelId && !s.unread.manual[member.channel_id] ? readMember(member, s.channels[member.channel_id]) : member;
    }
    return { members: next };
  });
}

export function addChannel(channel: Channel): void {
  appStore.set((s) => {
    const teamChannels = { ...s.teamChannels };
    for (const [teamId, ids] of Object.entries(teamChannels)) {
      if ((channel.team_id === teamId || channel.team_id === '') && !ids.includes(channel.id)) teamChannels[teamId] = [...ids, channel.id];
    }
    return { channels: { ...s.channels, [channel.id]: channel }, teamChannels };
  });
}

export function removeChannel(channelId: string): void {
  appStore.set((s) => {
    const teamChannels: Record<string, string[]> = {};
    for (const [teamId, ids] of Object.entries(s.teamChannels)) teamChannels[teamId] = ids.filter((id) => id !== channelId);
    return { teamChannels, posts: dropChannel(s.posts, channelId) };
  });
  const state = appStore.get();
  if (state.currentChannelId === channelId) {
    const team = state.teams.find((t) => t.id === state.currentTeamId);
    navigate(team ? channelPath(team.name, 'town-square') : '/', { replace: true });
  }
}

export async function openChannel(channelId: string): Promise<void> {
  const prev = appStore.get().currentChannelId;
  // Where the unread posts start is read before the channel is viewed; a channel left that the user marked unread
  // is not viewed on leaving (it stays unread, as asked).
  const keepUnread = prev !== channelId && leaveUnread(prev);
  const unreadLine = prev !== channelId ? noteUnreadLine(channelId) : Promise.resolve();
  appStore.set((s) => ({
    currentChannelId: channelId,
    rhs: prev !== channelId ? undefined : s.rhs,
    channelErrors: { ...s.channelErrors, [channelId]: '' },
  }));
  const list = appStore.get().posts.channels[channelId];
  if (!list?.loaded) await loadLatest(channelId);
  else if (appStore.get().ws !== 'open') await catchUp(channelId);
  await unreadLine;
  if (appStore.get().currentChannelId !== channelId) return;
  markViewed(channelId, keepUnread ? '' : prev);
  refreshMemberCount(channelId);
}

export function refreshMemberCount(channelId: string): void {
  void rest.memberCount(channelId).then(
    (count) => appStore.set((s) => ({ memberCounts: { ...s.memberCounts, [channelId]: count } })),
    () => undefined,
  );
}

const viewTimers = new Map<string, ReturnType<typeof setTimeout>>();

function markReadHere(channelId: string): void {
  appStore.set((s) => {
    const member = s.members[channelId];
    return member ? { members: { ...s.members, [channelId]: readMember(member, s.channels[channelId]) } } : {};
  });
}

/** Marks a channel read, here at once and on the server. */
export function markViewed(channelId: string, prevChannelId = ''): void {
  markReadHere(channelId);
  void rest.view(channelId, prevChannelId === channelId ? '' : prevChannelId).catch(() => undefined);
}

/** New posts in the open channel: it stays read (the server is told at most once a second). */
export function keepViewed(channelId: string): void {
  markReadHere(channelId);
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
  const s = appStore.get();
  // A channel the user marked unread stays unread while they look at it.
  return s.currentChannelId === channelId && document.visibilityState === 'visible' && !s.unread.manual[channelId];
}
