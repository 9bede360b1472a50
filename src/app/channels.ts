import { isValidId } from '../lib/ids';
import {
  AppError,
  CHANNEL_LIMITS,
  isDatabaseError,
  type Channel,
  type ChannelMember,
  type ChannelPatch,
  type ChannelStats,
  type CreateChannelInput,
  type Session,
  type Team,
  type UpdateChannelInput,
} from '../model';
import type { TxStores } from '../store';
import { Authz } from './authz';
import type { Deps } from './deps';
import type { Realtime } from './realtime';
import type { StatusService } from './status';
import { channelNotifyPropsChange } from './notify-props';
import { newChannel } from './records';
import { directChannelName, isValidChannelName, withinRunes } from './rules';

/** A channel search term as words (trimmed, split on white space, each once): every word must match. */
function searchWords(term: string): string[] {
  return [...new Set(term.trim().split(/\s+/).filter(Boolean))];
}

const DEFAULT_CHANNELS = [
  { name: 'town-square', display_name: 'Town Square' },
  { name: 'off-topic', display_name: 'Off-Topic' },
];

const cannotRenameDefault = () => AppError.badRequest('api.channel.update_channel.tried.app_error', 'Tried to perform an invalid update of the default channel town-square.');

const invalid = (field: string, message: string) => AppError.badRequest(`model.channel.is_valid.${field}.app_error`, message);

export const channelNotFound = () => AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');

const channelNameMissing = () => AppError.notFound('app.channel.get_by_name.missing.app_error', 'Unable to find the channel by name.');
const memberMissing = () => AppError.notFound('app.channel.get_member.missing.app_error', 'No channel member found for that user ID and channel ID.');
const archived = () => AppError.badRequest('api.channel.update_channel.deleted.app_error', 'The channel has been archived or deleted.');
const nameTakenOnUpdate = () => AppError.badRequest('store.sql_channel.update.exists.app_error', 'A channel with that name already exists on the same team.');

/** The settings PatchChannel and UpdateChannel may change. */
type ChannelChanges = Partial<Pick<Channel, 'display_name' | 'name' | 'header' | 'purpose'>>;

/** Channel roles as a member holds them: the scheme's two roles are flags; Parley has no other channel roles. */
const SCHEME_CHANNEL_ROLES = new Set(['channel_user', 'channel_admin']);
/** Roles of other scopes: naming one here is the scheme-role error, as in Mattermost. */
const OTHER_SCOPE_ROLES = new Set(['team_user', 'team_admin', 'team_guest', 'system_user', 'system_admin', 'system_guest', 'system_user_access_token']);
const ROLE_NAME = /^[a-z0-9_]{1,64}$/;

/**
 * Another member as a caller sees them: Mattermost's rule (SanitizeForCurrentUser: their last_viewed_at and
 * last_update_at are -1), and Parley also blanks their unread counts (-1) and notification settings ({}), which
 * tell as much about when they last read the channel. The caller's own member stays complete; every other caller,
 * system admins included (as in Mattermost), gets the blanked copy.
 */
export function sanitizeMember<M extends ChannelMember>(member: M, viewerId: string): M {
  if (member.user_id === viewerId) return member;
  return {
    ...member,
    last_viewed_at: -1,
    last_update_at: -1,
    msg_count: -1,
    msg_count_root: -1,
    mention_count: -1,
    mention_count_root: -1,
    urgent_mention_count: -1,
    notify_props: {},
  };
}

export class ChannelsService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly realtime: Realtime,
    private readonly status: StatusService,
  ) {
    this.authz = new Authz(deps);
  }

  async createDefaultChannels(tx: TxStores, team: Team, creatorId: string, now: number): Promise<void> {
    for (const def of DEFAULT_CHANNELS) {
      const channel = newChannel({ team_id: team.id, type: 'O', name: def.name, display_name: def.display_name, creator_id: '' }, now);
      await tx.channels.insert(channel);
      await tx.channels.insertMember({ channel_id: channel.id, user_id: creatorId, scheme_admin: false, now, msg_count: 0, msg_count_root: 0 });
    }
  }

  /** Joins the user to the team's default channels they are not in yet; returns the channels joined. */
  async joinDefaultChannels(tx: TxStores, team: Team, userId: string, now: number): Promise<Channel[]> {
    const joined: Channel[] = [];
    for (const def of DEFAULT_CHANNELS) {
      const channel = await tx.channels.getByName(team.id, def.name, false);
      if (channel && !(await tx.channels.getMember(channel.id, userId))) {
        await tx.channels.insertMember({ channel_id: channel.id, user_id: userId, scheme_admin: false, now, msg_count: channel.total_msg_count, msg_count_root: channel.total_msg_count_root });
        joined.push(channel);
      }
    }
    return joined;
  }

  async create(input: CreateChannelInput, session: Session): Promise<Channel> {
    const { stores } = this.deps;
    const team = await stores.teams.get(input.team_id);
    if (!team || team.delete_at !== 0) throw AppError.notFound('app.team.get.find.app_error', 'Unable to find the existing team.');
    await this.authz.requireTeam(session, team.id, input.type === 'O' ? 'create_public_channel' : 'create_private_channel');
    if (!isValidChannelName(input.name)) {
      throw invalid('2_or_more', 'Name must be 1 to 64 lowercase alphanumeric characters, dashes or underscores.');
    }
    if (!input.display_name || !withinRunes(input.display_name, CHANNEL_LIMITS.displayName)) throw invalid('display_name', 'Invalid display name.');
    if (!withinRunes(input.header, CHANNEL_LIMITS.header)) throw invalid('header', 'Invalid header.');
    if (!withinRunes(input.purpose, CHANNEL_LIMITS.purpose)) throw invalid('purpose', 'Invalid purpose.');
    const nameTaken = () => AppError.badRequest('store.sql_channel.save_channel.exists.app_error', 'A channel with that name already exists on the same team.');
    if (await stores.channels.getByName(team.id, input.name, true)) throw nameTaken();
    const now = this.deps.now();
    const channel = newChannel(
      { team_id: team.id, type: input.type as 'O' | 'P', name: input.name, display_name: input.display_name, creator_id: session.userId, header: input.header ?? '', purpose: input.purpose ?? '' },
      now,
    );
    await stores.transaction(async (tx) => {
      try {
        await tx.channels.insert(channel);
      } catch (err) {
        // Lost a race on the unique (team, name): another request created it after the check above.
        if (isDatabaseError(err, 'duplicate')) throw nameTaken();
        throw err;
      }
      await tx.channels.insertMember({ channel_id: channel.id, user_id: session.userId, scheme_admin: true, now, msg_count: 0, msg_count_root: 0 });
    });
    this.realtime.channelCreated(channel, session.userId);
    return channel;
  }

  async createDirect(userIds: string[], session: Session): Promise<Channel> {
    if (userIds.length !== 2 || !userIds.every(isValidId)) throw AppError.invalidParam('user_ids');
    const isAdmin = this.authz.system(session, 'manage_system');
    if (!isAdmin) {
      if (!userIds.includes(session.userId)) throw AppError.forbidden('manage_system');
      this.authz.requireSystem(session, 'create_direct_channel');
    }
    return this.getOrCreateDirect(userIds[0], userIds[1]);
  }

  /** The direct channel between two users (one user: the self-DM), created on first use. */
  async getOrCreateDirect(a: string, b: string): Promise<Channel> {
    const { stores } = this.deps;
    const name = directChannelName(a, b);
    const existing = await stores.channels.getByName('', name, true);
    if (existing) return existing;
    const users = await stores.users.getMany([...new Set([a, b])]);
    if (users.length !== new Set([a, b]).size) throw AppError.badRequest('api.channel.create_direct_channel.invalid_user.app_error', 'Invalid user ID for direct channel creation.');
    const now = this.deps.now();
    const channel = newChannel({ team_id: '', type: 'D', name, display_name: '', creator_id: '' }, now);
    try {
      await stores.transaction(async (tx) => {
        await tx.channels.insert(channel);
        for (const userId of new Set([a, b])) {
          await tx.channels.insertMember({ channel_id: channel.id, user_id: userId, scheme_admin: false, now, msg_count: 0, msg_count_root: 0 });
        }
      });
    } catch (err) {
      // Two requests raced to create the same DM: the unique (team_id, name) index let one win; use it.
      const winner = await stores.channels.getByName('', name, true);
      if (winner) return winner;
      throw err;
    }
    this.realtime.directAdded(channel, a, b);
    return channel;
  }

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

  /**
   * Adds users to an open or private channel. Joining a public channel yourself needs only team membership;
   * adding others needs the channel's manage-members permission; every added user must be on the team.
   */
  async addMembers(channelId: string, userIds: string[], session: Session): Promise<ChannelMember[]> {
    const { stores } = this.deps;
    const channel = await stores.channels.get(channelId);
    if (!channel || channel.delete_at !== 0) throw channelNotFound();
    if (channel.type === 'D' || channel.type === 'G') {
      throw AppError.badRequest('api.channel.add_user_to_channel.type.app_error', 'Can not add user to this channel type.');
    }
    const selfJoinPublic = userIds.length === 1 && userIds[0] === session.userId && channel.type === 'O';
    if (selfJoinPublic) await this.authz.requireTeam(session, channel.team_id, 'join_public_channels');
    else await this.authz.requireChannel(session, channel, channel.type === 'O' ? 'manage_public_channel_members' : 'manage_private_channel_members');
    const now = this.deps.now();
    const members: ChannelMember[] = [];
    const added: string[] = [];
    await stores.transaction(async (tx) => {
      for (const userId of userIds) {
        const user = await tx.users.get(userId);
        if (!user || user.delete_at !== 0) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
        const teamMember = await tx.teams.getMember(channel.team_id, userId);
        if (!teamMember || teamMember.delete_at !== 0) {
          throw AppError.badRequest('api.channel.add_members.user_denied', 'Channel membership denied to the following users because they are not members of the team.');
        }
        if (!(await tx.channels.getMember(channel.id, userId))) {
          await tx.channels.insertMember({ channel_id: channel.id, user_id: userId, scheme_admin: false, now, msg_count: channel.total_msg_count, msg_count_root: channel.total_msg_count_root });
          added.push(userId);
        }
        members.push((await tx.channels.getMember(channel.id, userId)) as ChannelMember);
      }
    });
    for (const userId of added) this.realtime.userAdded(channel, userId);
    return members;
  }

  async members(channelId: string, page: number, perPage: number, session: Session): Promise<ChannelMember[]> {
    const channel = await this.deps.stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    const members = await this.deps.stores.channels.listMembers(channelId, page, perPage);
    return members.map((m) => sanitizeMember(m, session.userId));
  }

  async member(channelId: string, userId: string, session: Session): Promise<ChannelMember> {
    const channel = await this.deps.stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    const member = await this.deps.stores.channels.getMember(channelId, userId);
    if (!member) throw AppError.notFound('app.channel.get_member.missing.app_error', 'No channel member found for that user ID and channel ID.');
    return sanitizeMember(member, session.userId);
  }

  async removeMember(channelId: string, id: string, session: Session): Promise<void> {
    const { stores } = this.deps;
    const channel = await stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    if (!(await stores.users.get(id))) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    if (channel.type !== 'O' && channel.type !== 'P') {
      throw AppError.badRequest('api.channel.remove_channel_member.type.app_error', 'Unable to remove user from a channel of this type.');
    }
    if (id !== session.userId) {
      await this.authz.requireChannel(session, channel, channel.type === 'O' ? 'manage_public_channel_members' : 'manage_private_channel_members');
    }
    // Every team member stays in the default channel, as in Mattermost (Parley has no guests). Leaving a private
    // channel as its last member is allowed, as Mattermost's API allows it.
    if (channel.name === 'town-square') {
      throw AppError.badRequest('api.channel.remove.default.app_error', 'Unable to remove user from the default channel town-square.');
    }
    const removed = await stores.transaction(async (tx) => {
      const n = await tx.channels.removeMember(channelId, id);
      // Where the user had placed it in their sidebar goes too, as in Mattermost: rejoining puts it in Channels.
      if (n > 0) await tx.sidebar.removeChannel(channelId, [id]);
      return n;
    });
    if (removed === 0) throw memberMissing();
    this.realtime.userRemoved(channel, id, session.userId);
  }

  /**
   * Marks the focused channel and the one just left (`prevChannelId`) read for the user, as Mattermost does; ""
   * means no channel. The previous channel is skipped quietly if the user has left it meanwhile.
   */
  async view(id: string, channelId: string, prevChannelId: string, session: Session): Promise<Record<string, number>> {
    const { stores } = this.deps;
    if (id !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    if (channelId && !isValidId(channelId)) throw AppError.invalidParam('channel_id');
    if (prevChannelId && !isValidId(prevChannelId)) throw AppError.invalidParam('prev_channel_id');
    const channelIds: string[] = [];
    if (channelId) {
      if (!(await stores.channels.getMember(channelId, id))) {
        throw AppError.notFound('app.channel.get_member.missing.app_error', 'No channel member found for that user ID and channel ID.');
      }
      channelIds.push(channelId);
    }
    if (prevChannelId && prevChannelId !== channelId && (await stores.channels.getMember(prevChannelId, id))) channelIds.push(prevChannelId);
    if (channelIds.length === 0) return {};
    const now = this.deps.now();
    await stores.channels.view(channelIds, id, now);
    const times = Object.fromEntries(channelIds.map((c) => [c, now]));
    this.realtime.channelsViewed(id, times);
    if (id === session.userId) this.status.activity(id, true).catch((err: unknown) => this.deps.onBackgroundError(err, 'status not updated'));
    return times;
  }

  /** A channel by its team's name and its own (how web links name it); an invite-only team hides as a missing one. */
  async getByTeamName(teamName: string, name: string, includeDeleted: boolean, session: Session): Promise<Channel> {
    const team = await this.deps.stores.teams.getByName(teamName);
    const teamMissing = () => AppError.notFound('app.team.get_by_name.missing.app_error', 'Unable to find the existing team.');
    if (!team || team.delete_at !== 0) throw teamMissing();
    if (!team.allow_open_invite && !(await this.authz.team(session, team.id, 'view_team'))) throw teamMissing();
    return this.getByName(team.id, name, includeDeleted, session);
  }

  /** Who may change a channel's settings: the properties permission of its type; for a direct channel, its members. */
  private async requireProperties(session: Session, channel: Channel): Promise<void> {
    if (channel.type === 'O') return this.authz.requireChannel(session, channel, 'manage_public_channel_properties');
    if (channel.type === 'P') return this.authz.requireChannel(session, channel, 'manage_private_channel_properties');
    if (!(await this.deps.stores.channels.getMember(channel.id, session.userId))) {
      throw new AppError('api.channel.patch_update_channel.forbidden.app_error', 'You do not have the appropriate permissions.', 403);
    }
  }

  /** Group sync does not exist here: asking for it is refused as Mattermost refuses it without a licence. */
  private static checkGroupConstrained(value: boolean | null | undefined): void {
    if (value === true) {
      throw AppError.badRequest('api.channel.patch_update_channel.group_constrained_not_allowed.app_error', 'Group sync is not available for this channel.');
    }
  }

  async patch(channelId: string, patch: ChannelPatch, session: Session): Promise<Channel> {
    const changes: ChannelChanges = {};
    for (const key of ['display_name', 'name', 'header', 'purpose'] as const) if (patch[key] !== undefined) changes[key] = patch[key];
    const channel = await this.deps.stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    if (Object.keys(changes).length === 0 && (patch.group_constrained === undefined || patch.group_constrained === null)) {
      throw AppError.badRequest('api.channel.patch_update_channel.no_changes.app_error', 'No changes to make to the channel.');
    }
    ChannelsService.checkGroupConstrained(patch.group_constrained);
    await this.requireProperties(session, channel);
    if (channel.type === 'D' || channel.type === 'G') {
      const differs = (key: 'name' | 'display_name' | 'purpose') => changes[key] !== undefined && changes[key] !== channel[key];
      if (differs('name') || differs('display_name') || differs('purpose')) {
        throw AppError.badRequest('api.channel.patch_update_channel.update_direct_or_group_messages_not_allowed.app_error', 'Only the header of a direct or group message can be changed.');
      }
    }
    if (channel.name === 'town-square' && changes.name !== undefined && changes.name !== channel.name) throw cannotRenameDefault();
    // Mattermost lets a patch change an archived channel; here an archived channel is read-only, as UpdateChannel
    // (and the clients) treat it.
    if (channel.delete_at !== 0) throw archived();
    return this.applyChanges(channel, changes);
  }

  async update(channelId: string, input: UpdateChannelInput, session: Session): Promise<Channel> {
    if (input.id !== channelId) throw AppError.invalidParam('channel_id');
    const channel = await this.deps.stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.requireProperties(session, channel);
    if (channel.type === 'D' || channel.type === 'G') {
      if ((input.name && input.name !== channel.name) || (input.display_name && input.display_name !== channel.display_name) || (input.purpose ?? '') !== channel.purpose) {
        throw AppError.badRequest('api.channel.update_channel.update_direct_or_group_messages_not_allowed.app_error', 'Only the header of a direct or group message can be changed.');
      }
    }
    if (channel.delete_at !== 0) throw archived();
    if (input.type && input.type !== channel.type) {
      throw AppError.badRequest('api.channel.update_channel.typechange.app_error', 'Channel type cannot be updated.');
    }
    if (channel.name === 'town-square' && input.name && input.name !== channel.name) throw cannotRenameDefault();
    ChannelsService.checkGroupConstrained(input.group_constrained);
    // As in Mattermost: header and purpose are always the body's; names only when given.
    const changes: ChannelChanges = { header: input.header ?? '', purpose: input.purpose ?? '' };
    if (input.display_name) changes.display_name = input.display_name;
    if (input.name) changes.name = input.name;
    return this.applyChanges(channel, changes);
  }

  /** Checks and writes new settings, then tells the channel's members. */
  private async applyChanges(channel: Channel, changes: ChannelChanges): Promise<Channel> {
    const { stores } = this.deps;
    const isDirect = channel.type === 'D' || channel.type === 'G';
    if (changes.name !== undefined && changes.name !== channel.name && !isValidChannelName(changes.name)) {
      throw invalid('2_or_more', 'Name must be 1 to 64 lowercase alphanumeric characters, dashes or underscores.');
    }
    if (changes.display_name !== undefined && !isDirect && (!changes.display_name || !withinRunes(changes.display_name, CHANNEL_LIMITS.displayName))) {
      throw invalid('display_name', 'Invalid display name.');
    }
    if (!withinRunes(changes.header, CHANNEL_LIMITS.header)) throw invalid('header', 'Invalid header.');
    if (!withinRunes(changes.purpose, CHANNEL_LIMITS.purpose)) throw invalid('purpose', 'Invalid purpose.');
    if (changes.name !== undefined && changes.name !== channel.name) {
      const other = await stores.channels.getByName(channel.team_id, changes.name, true);
      if (other && other.id !== channel.id) throw nameTakenOnUpdate();
    }
    // Strictly later than before, so a cached copy (the webhook path's) is seen to be stale even within a millisecond.
    const updateAt = Math.max(this.deps.now(), channel.update_at + 1);
    try {
      if (!(await stores.channels.update(channel.id, { ...changes, update_at: updateAt }))) throw channelNotFound();
    } catch (err) {
      // Lost a race on the unique (team, name) to a channel created or renamed after the check above.
      if (isDatabaseError(err, 'duplicate')) throw nameTakenOnUpdate();
      throw err;
    }
    const updated: Channel = { ...channel, ...changes, update_at: updateAt };
    this.realtime.channelUpdated(updated);
    return updated;
  }

  /**
   * Archives a channel: no more posts, and its incoming webhooks are deleted (as Mattermost does), in one
   * transaction. Public channels are announced to the whole team, private ones to their members.
   */
  async archive(channelId: string, permanent: boolean, session: Session): Promise<void> {
    const { stores } = this.deps;
    const channel = await stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    if (channel.type !== 'O' && channel.type !== 'P') {
      throw AppError.badRequest('api.channel.delete_channel.type.invalid', 'Could not delete channel of this type.');
    }
    await this.authz.requireChannel(session, channel, channel.type === 'O' ? 'delete_public_channel' : 'delete_private_channel');
    if (permanent) {
      // ServiceSettings.EnableAPIChannelDeletion does not exist here: permanent deletion is always off.
      const forAdmin = this.authz.system(session, 'manage_system');
      throw new AppError(
        forAdmin ? 'api.user.delete_channel.not_enabled.for_admin.app_error' : 'api.user.delete_channel.not_enabled.app_error',
        'Permanent channel deletion is not enabled on this server.',
        401,
      );
    }
    const alreadyArchived = () => AppError.badRequest('api.channel.delete_channel.deleted.app_error', 'The channel has been archived or deleted.');
    if (channel.delete_at !== 0) throw alreadyArchived();
    if (channel.name === 'town-square') {
      throw AppError.badRequest('api.channel.delete_channel.cannot.app_error', 'Unable to delete the default channel town-square.');
    }
    const now = this.deps.now();
    await stores.transaction(async (tx) => {
      // Conditional: of two archives racing, one wins and the other is told the channel is archived already.
      if (!(await tx.channels.setDeleteAt(channel.id, now, Math.max(now, channel.update_at + 1)))) throw alreadyArchived();
      await tx.webhooks.softDeleteForChannel(channel.id, now);
    });
    this.realtime.channelDeleted(channel, now);
  }

  /** Unarchives a channel; its webhooks stay deleted. */
  async restore(channelId: string, session: Session): Promise<Channel> {
    const { stores } = this.deps;
    const channel = await stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireTeam(session, channel.team_id, 'manage_team');
    const notArchived = () => AppError.badRequest('api.channel.restore_channel.restored.app_error', 'The channel is not archived.');
    if (channel.delete_at === 0) throw notArchived();
    const updateAt = Math.max(this.deps.now(), channel.update_at + 1);
    if (!(await stores.channels.setDeleteAt(channel.id, 0, updateAt))) throw notArchived();
    const restored: Channel = { ...channel, delete_at: 0, update_at: updateAt };
    this.realtime.channelRestored(restored);
    return restored;
  }

  /** A user's memberships of a team's channels and of their direct channels: what a client's unread markers need. */
  async membersForUser(userId: string, teamId: string, session: Session): Promise<ChannelMember[]> {
    await this.authz.requireTeam(session, teamId, 'view_team');
    if (userId !== session.userId) this.authz.requireSystem(session, 'manage_system');
    const members = await this.deps.stores.channels.membersForUser(teamId, userId);
    return members.map((m) => sanitizeMember(m, session.userId));
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

  /**
   * Sets a member's channel roles. Only the scheme's roles exist here: `channel_user`, which every member holds,
   * and `channel_admin`.
   */
  async updateMemberRoles(channelId: string, userId: string, roles: string, session: Session): Promise<void> {
    const { stores } = this.deps;
    const names = roles.split(/\s+/).filter(Boolean);
    if (!names.every((n) => ROLE_NAME.test(n))) throw AppError.invalidParam('roles');
    const channel = await stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'manage_channel_roles');
    if (!(await stores.channels.getMember(channelId, userId))) throw memberMissing();
    for (const name of names) {
      if (SCHEME_CHANNEL_ROLES.has(name)) continue;
      if (name === 'channel_guest') {
        throw AppError.badRequest('api.channel.update_channel_member_roles.changing_guest_role.app_error', 'Invalid channel member update: You cannot add or remove the guest role manually.');
      }
      if (OTHER_SCOPE_ROLES.has(name)) {
        throw AppError.badRequest('api.channel.update_channel_member_roles.scheme_role.app_error', 'The provided role is managed by a Scheme and therefore cannot be applied directly to a Channel Member.');
      }
      throw AppError.badRequest('app.role.get_by_name.app_error', `Unable to find the role ${name}.`);
    }
    if (!names.includes('channel_user')) {
      throw AppError.badRequest('api.channel.update_channel_member_roles.unset_user_scheme.app_error', 'Invalid channel member update: A user must be a guest or a user, but not both.');
    }
    const now = this.deps.now();
    if (!(await stores.channels.updateMemberRoles(channelId, userId, { schemeAdmin: names.includes('channel_admin'), explicit: '', now }))) throw memberMissing();
    const member = await stores.channels.getMember(channelId, userId);
    if (member) this.realtime.channelMemberUpdated(member);
  }

  /**
   * UpdateChannelNotifyProps: changes the given keys of a membership's notify_props (notify-props.ts says which and
   * to what), as the user themselves or with edit_other_users (Mattermost asks nothing of the channel).
   */
  async updateMemberNotifyProps(channelId: string, userId: string, body: Record<string, unknown>, session: Session): Promise<void> {
    const { stores } = this.deps;
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    const change = channelNotifyPropsChange(body);
    const member = await stores.channels.getMember(channelId, userId);
    if (!member) throw memberMissing();
    const now = this.deps.now();
    const notifyProps = { ...member.notify_props, ...change };
    if (!(await stores.channels.setNotifyProps(channelId, userId, notifyProps, now))) throw memberMissing();
    this.realtime.channelMemberUpdated({ ...member, notify_props: notifyProps, last_update_at: now });
  }
}
