import { isValidId } from '../lib/ids';
import { AppError, CHANNEL_LIMITS, isDatabaseError, type Channel, type ChannelMember, type CreateChannelInput, type Session, type Team } from '../model';
import type { TxStores } from '../store';
import { Authz } from './authz';
import type { Deps } from './deps';
import type { Realtime } from './realtime';
import type { StatusService } from './status';
import { newChannel } from './records';
import { directChannelName, isValidChannelName, withinRunes } from './rules';

const DEFAULT_CHANNELS = [
  { name: 'town-square', display_name: 'Town Square' },
  { name: 'off-topic', display_name: 'Off-Topic' },
];

const invalid = (field: string, message: string) => AppError.badRequest(`model.channel.is_valid.${field}.app_error`, message);

export const channelNotFound = () => AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');

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
    const missing = () => AppError.notFound('app.channel.get_by_name.missing.app_error', 'Unable to find the channel by name.');
    const channel = await this.deps.stores.channels.getByName(teamId, name, includeDeleted);
    if (!channel) throw missing();
    if (channel.type !== 'O') {
      if (!(await this.authz.channel(session, channel, 'read_channel'))) throw missing();
      return channel;
    }
    await this.authz.requireChannel(session, channel, 'read_channel');
    return channel;
  }

  async listPublic(teamId: string, page: number, perPage: number, session: Session): Promise<Channel[]> {
    if (!(await this.deps.stores.teams.get(teamId))) throw AppError.notFound('app.team.get.find.app_error', 'Unable to find the existing team.');
    await this.authz.requireTeam(session, teamId, 'list_team_channels');
    return this.deps.stores.channels.listPublic(teamId, page, perPage);
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
    return this.deps.stores.channels.listMembers(channelId, page, perPage);
  }

  async member(channelId: string, userId: string, session: Session): Promise<ChannelMember> {
    const channel = await this.deps.stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    const member = await this.deps.stores.channels.getMember(channelId, userId);
    if (!member) throw AppError.notFound('app.channel.get_member.missing.app_error', 'No channel member found for that user ID and channel ID.');
    return member;
  }

  async removeMember(channelId: string, id: string, session: Session): Promise<void> {
    const { stores } = this.deps;
    const channel = await stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    if (channel.type !== 'O' && channel.type !== 'P') {
      throw AppError.badRequest('api.channel.remove_user_from_channel.direct.app_error', 'Users cannot be removed from direct or group message channels.');
    }
    if (id !== session.userId) {
      await this.authz.requireChannel(session, channel, channel.type === 'O' ? 'manage_public_channel_members' : 'manage_private_channel_members');
    }
    // Every team member stays in the default channel, as in Mattermost (Parley has no guests).
    if (channel.name === 'town-square') {
      throw AppError.badRequest('api.channel.remove.default.app_error', 'Unable to remove user from the default channel town-square.');
    }
    if ((await stores.channels.removeMember(channelId, id)) === 0) {
      throw AppError.notFound('app.channel.get_member.missing.app_error', 'No channel member found for that user ID and channel ID.');
    }
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
}
