// Who is in a channel: adding and removing members, reading them (sanitised for other callers), their roles and
// notification settings, and marking channels viewed.
import { isValidId } from '../lib/ids';
import { AppError, type ChannelMember, type Session } from '../model';
import { Authz } from './authz';
import { channelNotFound } from './channel-errors';
import type { Deps } from './deps';
import { channelNotifyPropsChange } from './notify-props';
import type { Realtime } from './realtime';
import type { StatusService } from './status';

const memberMissing = () => AppError.notFound('app.channel.get_member.missing.app_error', 'No channel member found for that user ID and channel ID.');

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

export class ChannelMembers {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly realtime: Realtime,
    private readonly status: StatusService,
  ) {
    this.authz = new Authz(deps);
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

  /** A user's memberships of a team's channels and of their direct channels: what a client's unread markers need. */
  async membersForUser(userId: string, teamId: string, session: Session): Promise<ChannelMember[]> {
    await this.authz.requireTeam(session, teamId, 'view_team');
    if (userId !== session.userId) this.authz.requireSystem(session, 'manage_system');
    const members = await this.deps.stores.channels.membersForUser(teamId, userId);
    return members.map((m) => sanitizeMember(m, session.userId));
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
