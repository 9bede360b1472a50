// A user's memberships across all their teams: what the web app reads once per page load (its teams' members, every
// channel, every channel membership) instead of team by team.
import { MEMBERSHIP_LIMITS, type Channel, type ChannelMemberWithTeamData, type Session, type TeamMember } from '../model';
import { Authz } from './authz';
import { sanitizeMember } from './channel-members';
import type { Deps } from './deps';

export class UserMembershipsService {
  private readonly authz: Authz;

  constructor(private readonly deps: Deps) {
    this.authz = new Authz(deps);
  }

  /** Every team membership of the user, the ones they left included (as Mattermost returns them). */
  async teamMembers(userId: string, session: Session): Promise<TeamMember[]> {
    if (userId !== session.userId) this.authz.requireSystem(session, 'read_other_users_teams');
    return this.deps.stores.teams.membershipsOfUser(userId, MEMBERSHIP_LIMITS.perUserListMax);
  }

  /** Every channel of the user in all teams, with their direct channels. */
  async channels(userId: string, includeDeleted: boolean, lastDeleteAt: number, session: Session): Promise<Channel[]> {
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    return this.deps.stores.channels.listAllForUser(userId, { includeDeleted, lastDeleteAt, limit: MEMBERSHIP_LIMITS.perUserListMax });
  }

  /** The user's channel memberships with their teams: a page, or (page -1) all of them. */
  async channelMembers(userId: string, page: number, perPage: number, session: Session): Promise<ChannelMemberWithTeamData[]> {
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    const window = page === -1 ? { offset: 0, limit: MEMBERSHIP_LIMITS.perUserListMax } : { offset: page * perPage, limit: perPage };
    if (window.limit === 0) return [];
    const members = await this.deps.stores.channels.membersWithTeamsOfUser(userId, window);
    // Another caller (an admin) sees them with the read state blanked, as every other membership read does.
    return members.map((m) => sanitizeMember(m, session.userId));
  }
}
