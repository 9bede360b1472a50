import type { Deps } from './deps';
import { AppError } from '../model';
import type { Channel, ChannelMember, Session, TeamMember } from '../model';
import { Permission, isSystemAdmin, rolesGrant } from './permissions';

/** Permission checks, layered as in Mattermost: system roles, then the team membership, then the channel one. */
export class Authz {
  constructor(private readonly deps: Deps) {}

  system(session: Session, permission: Permission): boolean {
    return rolesGrant(session.roles, permission);
  }

  requireSystem(session: Session, permission: Permission): void {
    if (!this.system(session, permission)) throw AppError.forbidden(permission);
  }

  async teamMember(teamId: string, userId: string): Promise<TeamMember | undefined> {
    const member = await this.deps.stores.teams.getMember(teamId, userId);
    return member && member.delete_at === 0 ? member : undefined;
  }

  async team(session: Session, teamId: string, permission: Permission): Promise<boolean> {
    if (this.system(session, permission)) return true;
    const member = await this.teamMember(teamId, session.userId);
    return member !== undefined && rolesGrant(member.roles, permission);
  }

  async requireTeam(session: Session, teamId: string, permission: Permission): Promise<void> {
    if (!(await this.team(session, teamId, permission))) throw AppError.forbidden(permission);
  }

  /**
   * A channel permission comes from the channel membership, or from the team membership (team admins moderate
   * every channel of their team). For public channels, reading needs only team membership.
   */
  async channel(session: Session, channel: Channel, permission: Permission, member?: ChannelMember | null): Promise<boolean> {
    if (isSystemAdmin(session.roles)) return true;
    const channelMember = member === undefined ? await this.deps.stores.channels.getMember(channel.id, session.userId) : member;
    if (channelMember && rolesGrant(channelMember.roles, permission)) return true;
    if (channel.team_id === '') return false;
    const teamMember = await this.teamMember(channel.team_id, session.userId);
    if (!teamMember) return false;
    if (rolesGrant(teamMember.roles, permission)) return true;
    return channel.type === 'O' && permission === 'read_channel' && rolesGrant(teamMember.roles, 'read_public_channel');
  }

  async requireChannel(session: Session, channel: Channel, permission: Permission): Promise<void> {
    if (!(await this.channel(session, channel, permission))) throw AppError.forbidden(permission);
  }
}
