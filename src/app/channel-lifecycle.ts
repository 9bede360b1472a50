// A channel's life: the team's default channels, creating (open, private, direct), archiving and restoring.
import { isValidId } from '../lib/ids';
import { AppError, CHANNEL_LIMITS, isDatabaseError, type Channel, type CreateChannelInput, type Session, type Team } from '../model';
import type { TxStores } from '../store';
import { Authz } from './authz';
import { channelNotFound, invalidChannelField as invalid } from './channel-errors';
import type { Deps } from './deps';
import type { Realtime } from './realtime';
import { newChannel } from './records';
import { directChannelName, isValidChannelName, withinRunes } from './rules';

const DEFAULT_CHANNELS = [
  { name: 'town-square', display_name: 'Town Square' },
  { name: 'off-topic', display_name: 'Off-Topic' },
];

export class ChannelLifecycle {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly realtime: Realtime,
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
}
