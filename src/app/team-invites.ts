import { newId } from '../lib/ids';
import { AppError, type CreateUserInput, type Session, type Team, type TeamMember, type User } from '../model';
import { isTeamEmailAllowed } from './allowed-domains';
import { Authz } from './authz';
import type { Deps } from './deps';
import type { Realtime } from './realtime';
import type { TeamsService } from './teams';
import type { UsersService } from './users';

/** What a team invite link shows before sign-up (GetTeamInviteInfo). */
export interface TeamInviteInfo {
  id: string;
  name: string;
  display_name: string;
  description: string;
}

const inviteNotFound = () => AppError.notFound('app.team.get_by_invite_id.finding.app_error', 'Unable to find the team for that invite link.');

/** Parley sends no e-mail invitations: no token of one can be valid. */
export const NO_EMAIL_INVITATIONS = 'api.user.create_user.signup_link_invalid.app_error';
const invalidSignupLink = (status: number) => new AppError(NO_EMAIL_INVITATIONS, 'The signup link does not appear to be valid.', status);

/**
 * A team's invite link (its invite_id): what it shows, sign-up and joining through it, and giving the team a new one.
 * The invite id is the credential: whoever has the link may join, open team or invite-only.
 */
export class TeamInvitesService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly users: UsersService,
    private readonly teams: TeamsService,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
  }

  /** The live team an invite id names; an archived team's link no longer leads anywhere. */
  private async teamByInvite(inviteId: string): Promise<Team> {
    const team = inviteId ? await this.deps.stores.teams.getByInviteId(inviteId) : undefined;
    if (!team || team.delete_at !== 0) throw inviteNotFound();
    return team;
  }

  async info(inviteId: string): Promise<TeamInviteInfo> {
    const team = await this.teamByInvite(inviteId);
    return { id: team.id, name: team.name, display_name: team.display_name, description: team.description };
  }

  /**
   * Mattermost's CreateUserWithInviteId: sign-up needs EnableUserCreation but not an open server (the link is the
   * invitation), the e-mail must be in the team's allowed domains, and the new account joins the team in the
   * transaction that creates it (no account without its team, even if the join fails).
   */
  async signUp(input: CreateUserInput, inviteId: string, session: Session | null): Promise<User> {
    this.users.requireUserCreation();
    const team = await this.teamByInvite(inviteId);
    if (!isTeamEmailAllowed({ email: (input.email ?? '').toLowerCase() }, team)) {
      throw new AppError('api.team.invite_members.invalid_email.app_error', `The following email addresses do not belong to an accepted domain: ${team.allowed_domains}.`, 403);
    }
    let joined: Awaited<ReturnType<TeamsService['writeJoin']>> = [];
    const user = await this.users.create(input, session, {
      invited: true,
      inTransaction: async (tx, userId, now) => {
        joined = await this.teams.writeJoin(tx, team, userId, now, false);
      },
    });
    this.teams.announceJoin(team.id, user.id, joined);
    return user;
  }

  /** Mattermost's AddTeamMemberByInviteId: the caller joins the team the link names. */
  async join(inviteId: string, token: string, session: Session): Promise<TeamMember> {
    // A token is looked at first, as in Mattermost (an e-mail invitation's, which never exists here).
    if (token) throw invalidSignupLink(400);
    if (!inviteId) throw AppError.badRequest('api.team.add_user_to_team.missing_parameter.app_error', 'Parameter required to add user to team.');
    const team = await this.teamByInvite(inviteId);
    const user = await this.deps.stores.users.get(session.userId);
    if (!user || user.delete_at !== 0) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    return this.teams.join(team, user);
  }

  /** A new invite id: links with the old one stop working. The team's members hear of the change (without the id). */
  async regenerate(teamId: string, session: Session): Promise<Team> {
    const { stores } = this.deps;
    await this.authz.requireTeam(session, teamId, 'manage_team');
    const team = await stores.teams.get(teamId);
    if (!team || team.delete_at !== 0) throw AppError.notFound('app.team.get.find.app_error', 'Unable to find the existing team.');
    const changes = { invite_id: newId(), update_at: Math.max(this.deps.now(), team.update_at + 1) };
    if (!(await stores.teams.update(teamId, changes))) throw AppError.notFound('app.team.get.find.app_error', 'Unable to find the existing team.');
    const updated: Team = { ...team, ...changes };
    this.realtime.updateTeam(updated);
    return this.teams.show(updated, session);
  }

  /** CreateUser's `t`: an e-mail invitation's token, which Parley never issues (Mattermost's 404 for an unknown one). */
  static refuseEmailToken(): never {
    throw invalidSignupLink(404);
  }
}
