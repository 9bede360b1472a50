// A channel's settings: PatchChannel and UpdateChannel (names, header, purpose), checked by the channel rules and
// announced to its members.
import { AppError, CHANNEL_LIMITS, isDatabaseError, type Channel, type ChannelPatch, type Session, type UpdateChannelInput } from '../model';
import { Authz } from './authz';
import { channelNotFound, invalidChannelField as invalid } from './channel-errors';
import type { Deps } from './deps';
import type { Realtime } from './realtime';
import { isValidChannelName, withinRunes } from './rules';

const cannotRenameDefault = () => AppError.badRequest('api.channel.update_channel.tried.app_error', 'Tried to perform an invalid update of the default channel town-square.');
const archived = () => AppError.badRequest('api.channel.update_channel.deleted.app_error', 'The channel has been archived or deleted.');
const nameTakenOnUpdate = () => AppError.badRequest('store.sql_channel.update.exists.app_error', 'A channel with that name already exists on the same team.');

/** The settings PatchChannel and UpdateChannel may change. */
type ChannelChanges = Partial<Pick<Channel, 'display_name' | 'name' | 'header' | 'purpose'>>;

export class ChannelSettings {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
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
    ChannelSettings.checkGroupConstrained(patch.group_constrained);
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
    ChannelSettings.checkGroupConstrained(input.group_constrained);
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
}
