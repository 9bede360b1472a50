import { rest, type Channel, type Team, type User } from '../api';
import { channelRest, type TeamMember } from '../api-channels';
import { errorText } from '../error-text';
import { dmPath } from '../links';
import { channelPath, navigate } from '../router';
import { appStore } from '../state/app-store';
import { sortTeams } from '../state/selectors';
import { addChannel, refreshMemberCount, removeChannel } from './channels';
import { ensureUsers } from './users';

/**
 * Browsing, joining, leaving, creating, editing and archiving channels; a channel's members; direct messages; open
 * teams and a team's members. Each answers the server's words on failure (shown where the person acted).
 */

export type Outcome = { ok: true } | { ok: false; message: string };
const failed = (err: unknown): Outcome => ({ ok: false, message: errorText(err) });

function teamName(teamId: string): string {
  return appStore.get().teams.find((t) => t.id === teamId)?.name ?? '';
}

function meId(): string {
  return appStore.get().me?.id ?? '';
}

/** A channel the viewer is now in: listed in the sidebar with its read state. */
async function holdJoined(channel: Channel): Promise<void> {
  addChannel(channel);
  try {
    const member = await rest.myMember(channel.id);
    appStore.set((s) => ({ members: { ...s.members, [channel.id]: member } }));
  } catch {
    // The next refresh of the list brings it.
  }
}

/** One page of the browse list: the team's public channels, or its archived ones. */
export async function browseChannels(teamId: string, view: 'public' | 'archived', page: number, perPage: number): Promise<Channel[]> {
  return view === 'archived' ? channelRest.archivedChannels(teamId, page, perPage) : channelRest.publicChannels(teamId, page, perPage);
}

/** SearchChannels finds live public channels; the archived view is searched in what it listed. */
export async function searchChannels(teamId: string, term: string): Promise<Channel[]> {
  return channelRest.searchChannels(teamId, term);
}

/** Joins a public channel (AddChannelMember for oneself) and opens it. */
export async function joinChannel(channel: Channel): Promise<Outcome> {
  try {
    await channelRest.addChannelMember(channel.id, meId());
    await holdJoined(channel);
    navigate(channelPath(teamName(channel.team_id), channel.name));
    return { ok: true };
  } catch (err) {
    return failed(err);
  }
}

/** Opens a channel of the browse list: a channel one is in, or an archived one (read-only). */
export function viewChannel(channel: Channel): void {
  navigate(channelPath(teamName(channel.team_id), channel.name));
}

/**
 * A channel the sidebar does not list, named by a URL: an archived channel opens read-only, a live public channel is
 * joined first (as Mattermost's web app does when someone follows a channel's link), anything else is not there.
 */
export async function openUnlisted(teamId: string, name: string): Promise<Channel | undefined> {
  let channel: Channel;
  try {
    channel = await channelRest.channelByName(teamId, name);
  } catch {
    return undefined;
  }
  if (channel.delete_at > 0) {
    appStore.set((s) => ({ channels: { ...s.channels, [channel.id]: channel } }));
    return channel;
  }
  if (channel.type !== 'O') return undefined;
  try {
    await channelRest.addChannelMember(channel.id, meId());
  } catch {
    return undefined;
  }
  await holdJoined(channel);
  return channel;
}

/** Leaves a channel (RemoveUserFromChannel for oneself); when it was open, town-square opens. */
export async function leaveChannel(channelId: string): Promise<Outcome> {
  try {
    await channelRest.removeChannelMember(channelId, meId());
    removeChannel(channelId);
    return { ok: true };
  } catch (err) {
    return failed(err);
  }
}

export type CreateChannelResult = { ok: true } | { ok: false; field: 'display_name' | 'name' | 'purpose' | 'form'; message: string };

/** Creates a channel (the creator is its first member) and opens it; the server's refusal beside its field. */
export async function createChannel(input: { teamId: string; displayName: string; name: string; type: 'O' | 'P'; purpose: string }): Promise<CreateChannelResult> {
  try {
    const channel = await channelRest.createChannel({ team_id: input.teamId, name: input.name, display_name: input.displayName, type: input.type, purpose: input.purpose || undefined });
    await holdJoined(channel);
    navigate(channelPath(teamName(input.teamId), channel.name));
    return { ok: true };
  } catch (err) {
    const id = (err as { id?: string }).id ?? '';
    // The server's ids: model.channel.is_valid.{2_or_more,display_name,purpose}.app_error, store.sql_channel.save_channel.exists.app_error.
    const field = /is_valid\.(2_or_more|name)|save_channel\.exists/.test(id) ? 'name' : /is_valid\.display_name/.test(id) ? 'display_name' : /is_valid\.purpose/.test(id) ? 'purpose' : 'form';
    return { ok: false, field, message: errorText(err) };
  }
}

/** PatchChannel: the header or the purpose; the page shows the answer at once (others see `channel_updated`). */
export async function patchChannel(channelId: string, patch: { header?: string; purpose?: string }): Promise<Outcome> {
  try {
    const channel = await channelRest.patchChannel(channelId, patch);
    appStore.set((s) => ({ channels: { ...s.channels, [channel.id]: channel } }));
    return { ok: true };
  } catch (err) {
    return failed(err);
  }
}

/** Archives a channel (DeleteChannel); the page moves to town-square, the channel stays readable from Browse. */
export async function archiveChannel(channelId: string): Promise<Outcome> {
  try {
    await channelRest.archiveChannel(channelId);
    markArchived(channelId, Date.now());
    removeChannel(channelId);
    return { ok: true };
  } catch (err) {
    return failed(err);
  }
}

/** A channel archived (here or by someone else): it stays open read-only where it is open. */
export function markArchived(channelId: string, deleteAt: number): void {
  appStore.set((s) => {
    const channel = s.channels[channelId];
    if (!channel) return {};
    const teamChannels: Record<string, string[]> = {};
    for (const [teamId, ids] of Object.entries(s.teamChannels)) teamChannels[teamId] = ids.filter((id) => id !== channelId);
    return { channels: { ...s.channels, [channelId]: { ...channel, delete_at: deleteAt || Date.now() } }, teamChannels };
  });
}

/** A channel's members, with their users loaded (the first 200, as Mattermost's members list pages). */
export async function channelMembers(channelId: string): Promise<User[]> {
  const members = await channelRest.channelMembers(channelId, 0, 200);
  const ids = members.map((m) => m.user_id);
  await ensureUsers(ids);
  const users = appStore.get().users;
  return ids.map((id) => users[id]).filter((u): u is User => !!u).sort((a, b) => a.username.localeCompare(b.username));
}

/** The team's members who are not in the channel, whose names start with `term` (AutocompleteUsers). */
export async function usersToAdd(teamId: string, channelId: string, term: string): Promise<User[]> {
  const found = await channelRest.autocompleteUsers(teamId, term, channelId);
  return holdUsers(found.out_of_channel ?? []);
}

export async function addChannelMember(channelId: string, userId: string): Promise<Outcome> {
  try {
    await channelRest.addChannelMember(channelId, userId);
    refreshMemberCount(channelId);
    return { ok: true };
  } catch (err) {
    return failed(err);
  }
}

export async function removeChannelMember(channelId: string, userId: string): Promise<Outcome> {
  if (userId === meId()) return leaveChannel(channelId);
  try {
    await channelRest.removeChannelMember(channelId, userId);
    refreshMemberCount(channelId);
    return { ok: true };
  } catch (err) {
    return failed(err);
  }
}

/** Users found by a search are kept like any other (their avatars and names read the store). */
function holdUsers(users: User[]): User[] {
  if (users.length) {
    appStore.set((s) => {
      const all = { ...s.users };
      for (const u of users) all[u.id] = { ...all[u.id], ...u };
      return { users: all };
    });
  }
  return users;
}

/** People of the team to write to, whose names start with `term` (AutocompleteUsers in the team). */
export async function findTeamUsers(teamId: string, term: string): Promise<User[]> {
  const found = await channelRest.autocompleteUsers(teamId, term);
  return holdUsers(found.users);
}

/** Opens the direct channel with a user (routing creates it with CreateDirectChannel). */
export function openDirect(teamId: string, username: string): void {
  navigate(dmPath(teamName(teamId), username));
}

/** Open teams (allow_open_invite) the viewer is not on, by name (GetAllTeams, as Mattermost's "Join another team"). */
export async function joinableTeams(): Promise<Team[]> {
  const mine = new Set(appStore.get().teams.map((t) => t.id));
  const all: Team[] = [];
  for (let page = 0; page < 10; page++) {
    const batch = (await channelRest.allTeams(page, 200)) as Team[];
    all.push(...batch);
    if (batch.length < 200) break;
  }
  return sortTeams(all.filter((t) => t.allow_open_invite && t.delete_at === 0 && !mine.has(t.id)));
}

/** Joins an open team (AddTeamMember for oneself) and opens its town square. */
export async function joinTeam(team: Team): Promise<Outcome> {
  try {
    await channelRest.addTeamMember(team.id, meId());
    const teams = sortTeams(await rest.myTeams());
    appStore.set({ teams });
    navigate(channelPath(team.name, 'town-square'));
    return { ok: true };
  } catch (err) {
    return failed(err);
  }
}

export interface TeamMemberRow {
  user: User;
  admin: boolean;
}

export function isTeamAdmin(member: Pick<TeamMember, 'roles'>): boolean {
  return (member.roles ?? '').split(' ').includes('team_admin');
}

/** The team's members with their users and whether each is a team admin (the first 200). */
export async function teamMembers(teamId: string): Promise<TeamMemberRow[]> {
  const members = (await channelRest.teamMembers(teamId, 0, 200)).filter((m) => (m.delete_at ?? 0) === 0);
  await ensureUsers(members.map((m) => m.user_id));
  const users = appStore.get().users;
  return members
    .filter((m) => users[m.user_id])
    .map((m) => ({ user: users[m.user_id], admin: isTeamAdmin(m) }))
    .sort((a, b) => a.user.username.localeCompare(b.user.username));
}

/** UpdateTeamMemberRoles: team admin, or back to member. */
export async function setTeamAdmin(teamId: string, userId: string, admin: boolean): Promise<Outcome> {
  try {
    await channelRest.updateTeamMemberRoles(teamId, userId, admin ? 'team_user team_admin' : 'team_user');
    return { ok: true };
  } catch (err) {
    return failed(err);
  }
}

export async function removeFromTeam(teamId: string, userId: string): Promise<Outcome> {
  try {
    await channelRest.removeTeamMember(teamId, userId);
    return { ok: true };
  } catch (err) {
    return failed(err);
  }
}
