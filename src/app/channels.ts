// Channels as their readers find them (by id, by name, lists, search, autocomplete, stats), and the service the app
// exposes as `app.channels`: a channel's life (channel-lifecycle.ts), its settings (channel-settings.ts) and its
// members (channel-members.ts) are their own concerns, reached through it so that handlers see one surface.
import { AppError, type Channel, type ChannelStats, type Session } from '../model';
import { Authz } from './authz';
import { channelNotFound } from './channel-errors';
import { ChannelLifecycle } from './channel-lifecycle';
import { ChannelMembers } from './channel-members';
import { ChannelSettings } from './channel-settings';
import type { Deps } from './deps';
import type { Realtime } from './realtime';
import type { StatusService } from './status';

/** A channel search term as words (trimmed, split on white space, each once): every word must match. */
function searchWords(term: string): string[] {
  return [...new Set(term.trim().split(/\s+/).filter(Boolean))];
}


const channelNameMissing = () => AppError.notFound('app.channel.get_by_name.missing.app_error', 'Unable to find the channel by name.');

export class ChannelsService {
  private readonly authz: Authz;
  private readonly lifecycle: ChannelLifecycle;
  private readonly settings: ChannelSettings;
  private readonly memberships: ChannelMembers;

  constructor(
    private readonly deps: Deps,
    realtime: Realtime,
    status: StatusService,
  ) {
    this.authz = new Authz(deps);
    this.lifecycle = new ChannelLifecycle(deps, realtime);
    this.settings = new ChannelSettings(deps, realtime);
    this.memberships = new ChannelMembers(deps, realtime, status);
  }

  // A channel's life (channel-lifecycle.ts).
  readonly createDefaultChannels: ChannelLifecycle['createDefaultChannels'] = (...a) => this.lifecycle.createDefaultChannels(...a);
  readonly joinDefaultChannels: ChannelLifecycle['joinDefaultChannels'] = (...a) => this.lifecycle.joinDefaultChannels(...a);
  readonly create: ChannelLifecycle['create'] = (...a) => this.lifecycle.create(...a);
  readonly createDirect: ChannelLifecycle['createDirect'] = (...a) => this.lifecycle.createDirect(...a);
  readonly getOrCreateDirect: ChannelLifecycle['getOrCreateDirect'] = (...a) => this.lifecycle.getOrCreateDirect(...a);
  readonly archive: ChannelLifecycle['archive'] = (...a) => this.lifecycle.archive(...a);
  readonly restore: ChannelLifecycle['restore'] = (...a) => this.lifecycle.restore(...a);
  // Its settings (channel-settings.ts).
  readonly patch: ChannelSettings['patch'] = (...a) => this.settings.patch(...a);
  readonly update: ChannelSettings['update'] = (...a) => this.settings.update(...a);
  // Its members (channel-members.ts).
  readonly addMembers: ChannelMembers['addMembers'] = (...a) => this.memberships.addMembers(...a);
  readonly members: ChannelMembers['members'] = (...a) => this.memberships.members(...a);
  readonly member: ChannelMembers['member'] = (...a) => this.memberships.member(...a);
  readonly removeMember: ChannelMembers['removeMember'] = (...a) => this.memberships.removeMember(...a);
  readonly view: ChannelMembers['view'] = (...a) => this.memberships.view(...a);
  readonly membersForUser: ChannelMembers['membersForUser'] = (...a) => this.memberships.membersForUser(...a);
  readonly updateMemberRoles: ChannelMembers['updateMemberRoles'] = (...a) => this.memberships.updateMemberRoles(...a);
  readonly updateMemberNotifyProps: ChannelMembers['updateMemberNotifyProps'] = (...a) => this.memberships.updateMemberNotifyProps(...a);

  /** Whether the session may post in the channel (what `user_typing` needs): an archived channel takes no posts. */
  async canPost(session: Session, channelId: string): Promise<boolean> {
    const channel = await this.deps.stores.channels.get(channelId);
    return !!channel && channel.delete_at === 0 && (await this.authz.channel(session, channel, 'create_post'));
  }

  async get(channelId: string, session: Session): Promise<Channel> {
    const channel = await this.deps.stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    return channel;
  }

  /**
   * A channel by its name. A private channel (or DM) the caller may not read answers exactly as a missing one does,
   * 404 with the same id, as Mattermost answers: names are guessable, so a 403 would confirm that one exists.
   */
  async getByName(teamId: string, name: string, includeDeleted: boolean, session: Session): Promise<Channel> {
    const missing = channelNameMissing;
    const channel = await this.deps.stores.channels.getByName(teamId, name, includeDeleted);
    if (!channel) throw missing();
    if (channel.type !== 'O') {
      // Team admins may look up their team's private channels, as in Mattermost.
      if (await this.authz.channel(session, channel, 'read_channel')) return channel;
      if (channel.team_id && (await this.authz.team(session, channel.team_id, 'manage_team'))) return channel;
      throw missing();
    }
    await this.authz.requireChannel(session, channel, 'read_channel');
    return channel;
  }

  /** A channel by its team's name and its own (how web links name it); an invite-only team hides as a missing one. */
  async getByTeamName(teamName: string, name: string, includeDeleted: boolean, session: Session): Promise<Channel> {
    const team = await this.deps.stores.teams.getByName(teamName);
    const teamMissing = () => AppError.notFound('app.team.get_by_name.missing.app_error', 'Unable to find the existing team.');
    if (!team || team.delete_at !== 0) throw teamMissing();
    if (!team.allow_open_invite && !(await this.authz.team(session, team.id, 'view_team'))) throw teamMissing();
    return this.getByName(team.id, name, includeDeleted, session);
  }

  async listPublic(teamId: string, page: number, perPage: number, session: Session): Promise<Channel[]> {
    if (!(await this.deps.stores.teams.get(teamId))) throw AppError.notFound('app.team.get.find.app_error', 'Unable to find the existing team.');
    await this.authz.requireTeam(session, teamId, 'list_team_channels');
    return this.deps.stores.channels.listPublic(teamId, page, perPage);
  }

  /** AutocompleteChannelsForTeam: the team's channels the caller may see whose names contain the term. */
  async autocomplete(teamId: string, term: string, session: Session): Promise<Channel[]> {
    await this.authz.requireTeam(session, teamId, 'list_team_channels');
    return this.deps.stores.channels.autocompleteInTeam(teamId, session.userId, searchWords(term));
  }

  /**
   * AutocompleteChannelsForTeamForSearch: the caller's own channels (of the team, group and direct ones) matching the
   * term, sorted by display name with letter case ignored, as Mattermost sorts them. Mattermost asks for no
   * permission (the answer holds only the caller's channels); here the caller must be on the team.
   */
  async autocompleteForSearch(teamId: string, term: string, session: Session): Promise<Channel[]> {
    await this.authz.requireTeam(session, teamId, 'view_team');
    const channels = await this.deps.stores.channels.autocompleteForSearch(teamId, session.userId, searchWords(term));
    const key = (c: Channel) => c.display_name.toLowerCase();
    return channels.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }

  /**
   * SearchChannels: the team's public channels matching the term. As Mattermost: a caller without
   * list_team_channels gets the public channels they belong to, and one outside the team its missing member (404).
   */
  async search(teamId: string, term: string, session: Session): Promise<Channel[]> {
    const words = searchWords(term);
    if (await this.authz.team(session, teamId, 'list_team_channels')) return this.deps.stores.channels.searchPublicInTeam(teamId, words);
    if (!(await this.authz.teamMember(teamId, session.userId))) {
      throw AppError.notFound('app.team.get_member.missing.app_error', 'No team member found for that user ID and team ID.');
    }
    return this.deps.stores.channels.searchPublicInTeam(teamId, words, session.userId);
  }

  async listForUser(id: string, teamId: string, includeDeleted: boolean, lastDeleteAt: number, session: Session): Promise<Channel[]> {
    if (id !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    if (!(await this.deps.stores.teams.get(teamId))) throw AppError.notFound('app.team.get.find.app_error', 'Unable to find the existing team.');
    await this.authz.requireTeam(session, teamId, 'view_team');
    return this.deps.stores.channels.listForUser(teamId, id, includeDeleted, lastDeleteAt);
  }

  async stats(channelId: string, excludeFilesCount: boolean, session: Session): Promise<ChannelStats> {
    const { stores } = this.deps;
    const channel = await stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    const [memberCount, pinned] = await Promise.all([stores.channels.activeMemberCount(channelId), stores.channels.pinnedPostCount(channelId)]);
    return {
      channel_id: channelId,
      member_count: memberCount,
      guest_count: 0,
      pinnedpost_count: pinned,
      // No file is ever attached to a post here yet, so there is nothing to count.
      files_count: excludeFilesCount ? -1 : 0,
    };
  }
}
