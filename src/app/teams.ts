import { newId } from '../lib/ids';
import { AppError, TEAM_LIMITS, type Channel, type CreateTeamInput, type Session, type Team, type TeamMember, type TeamPatch, type TeamStats, type TeamUnread, type UserRecord } from '../model';
import type { TxStores } from '../store';
import type { ChannelUnreadRow } from '../store/channels-store';
import { isDatabaseError } from '../model/store-errors';
import { domainNotAllowed, isTeamEmailAllowed } from './allowed-domains';
import { Authz } from './authz';
import type { ChannelsService } from './channels';
import type { Deps } from './deps';
import { teamNameProblem, withinRunes } from './rules';
import { permissionsOf } from './permissions';
import type { Realtime } from './realtime';
import { sanitizeTeam } from './sanitize';

const invalid = (field: string, message: string) => AppError.badRequest(`model.team.is_valid.${field}.app_error`, message);

const teamNotFound = () => AppError.notFound('app.team.get.find.app_error', 'Unable to find the existing team.');

export class TeamsService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly channels: ChannelsService,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
  }

  async show(team: Team, session: Session): Promise<Team> {
    const manage = await this.authz.team(session, team.id, 'manage_team');
    return sanitizeTeam(team, manage, manage || (await this.authz.team(session, team.id, 'invite_user')));
  }

  /** Creates the team, makes the creator its admin and creates town-square and off-topic, as Mattermost does. */
  async create(input: CreateTeamInput, session: Session): Promise<Team> {
    const { stores } = this.deps;
    this.authz.requireSystem(session, 'create_team');
    const problem = teamNameProblem(input.name);
    if (problem === 'url') throw invalid('url', 'Name must be 2 to 64 characters long.');
    if (problem === 'characters') throw invalid('characters', 'Name must be lowercase letters, digits and dashes, starting and ending with a letter or digit.');
    if (problem === 'reserved') throw invalid('reserved', 'This team name is unavailable: it starts with a reserved word.');
    if (!input.display_name || !withinRunes(input.display_name, TEAM_LIMITS.displayName)) {
      throw invalid('name', `Invalid display name: it must be 1 to ${TEAM_LIMITS.displayName} characters.`);
    }
    if (!withinRunes(input.description, TEAM_LIMITS.description)) throw invalid('description', 'Invalid description.');
    if (!withinRunes(input.company_name, TEAM_LIMITS.companyName)) throw invalid('companyname', 'Invalid company name.');
    if ((input.email ?? '').length > TEAM_LIMITS.email) throw invalid('email', 'Invalid email.');
    if ((input.allowed_domains ?? '').length > TEAM_LIMITS.allowedDomains) throw invalid('domains', 'Invalid allowed domains.');
    const nameTaken = () => AppError.badRequest('app.team.save.existing.app_error', 'A team with that name already exists.');
    if (await stores.teams.getByName(input.name)) throw nameTaken();
    const now = this.deps.now();
    const team: Team = {
      id: newId(),
      create_at: now,
      update_at: now,
      delete_at: 0,
      display_name: input.display_name,
      name: input.name,
      description: input.description ?? '',
      email: input.email ?? '',
      type: input.type as Team['type'],
      company_name: input.company_name ?? '',
      allowed_domains: input.allowed_domains ?? '',
      invite_id: newId(),
      // Open teams are joinable by anyone; Mattermost keeps the two fields in step.
      allow_open_invite: input.type === 'O',
      scheme_id: null,
      group_constrained: null,
      policy_id: null,
    };
    await stores.transaction(async (tx) => {
      try {
        await tx.teams.insert(team);
      } catch (err) {
        // Lost a race on the unique name: another request created it between the check above and this insert.
        if (isDatabaseError(err, 'duplicate')) throw nameTaken();
        throw err;
      }
      await tx.teams.insertMember({ team_id: team.id, user_id: session.userId, scheme_admin: true, create_at: now });
      await this.channels.createDefaultChannels(tx, team, session.userId, now);
    });
    return team;
  }

  async get(teamId: string, session: Session): Promise<Team> {
    const team = await this.deps.stores.teams.get(teamId);
    if (!team || (team.delete_at !== 0 && !this.authz.system(session, 'manage_system'))) throw teamNotFound();
    // Open teams can be looked at by anyone who might join them.
    if (!team.allow_open_invite) await this.authz.requireTeam(session, team.id, 'view_team');
    return this.show(team, session);
  }

  /**
   * A team by its name. An invite-only team the caller is not on answers exactly as a missing one (404): names are
   * guessable, so a 403 would confirm that one exists. (Mattermost answers 403 there; Parley chooses not to tell.)
   */
  async getByName(name: string, session: Session): Promise<Team> {
    const team = await this.deps.stores.teams.getByName(name);
    if (!team || team.delete_at !== 0) throw teamNotFound();
    if (!team.allow_open_invite && !(await this.authz.team(session, team.id, 'view_team'))) throw teamNotFound();
    return this.show(team, session);
  }

  async list(opts: { page: number; perPage: number; includeTotal: boolean }, session: Session): Promise<Team[] | { teams: Team[]; total_count: number }> {
    const openOnly = !this.authz.system(session, 'manage_system');
    const teams = await this.deps.stores.teams.list({ openOnly, page: opts.page, perPage: opts.perPage });
    const shown = await Promise.all(teams.map((t) => this.show(t, session)));
    if (!opts.includeTotal) return shown;
    return { teams: shown, total_count: await this.deps.stores.teams.count({ openOnly }) };
  }

  async listForUser(id: string, session: Session): Promise<Team[]> {
    if (id !== session.userId) this.authz.requireSystem(session, 'manage_system');
    const teams = await this.deps.stores.teams.listForUser(id);
    return Promise.all(teams.map((t) => this.show(t, session)));
  }

  /**
   * Joins a user to a team (and its town-square and off-topic): self-join for open teams, else add_user_to_team.
   * The user's email must be in the team's allowed_domains when it has any (Mattermost's IsTeamEmailAllowed).
   */
  async addMember(teamId: string, userId: string, session: Session): Promise<TeamMember> {
    const { stores } = this.deps;
    const team = await stores.teams.get(teamId);
    if (!team || team.delete_at !== 0) throw teamNotFound();
    const selfJoinOpen = userId === session.userId && team.allow_open_invite;
    if (!selfJoinOpen) await this.authz.requireTeam(session, teamId, 'add_user_to_team');
    const user = await stores.users.get(userId);
    if (!user || user.delete_at !== 0) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    return this.join(team, user);
  }

  /**
   * Mattermost's JoinUserToTeam, once the caller may: the e-mail domain check (before the membership is looked at,
   * as in Mattermost: a member outside the list is not re-added either), then the membership and the default
   * channels in one transaction. A current member gets their membership back unchanged.
   */
  async join(team: Team, user: UserRecord): Promise<TeamMember> {
    const { stores } = this.deps;
    if (!isTeamEmailAllowed(user, team)) throw domainNotAllowed();
    const existing = await stores.teams.getMember(team.id, user.id);
    if (existing && existing.delete_at === 0) return existing;
    let joined: Channel[] = [];
    await stores.transaction(async (tx) => {
      joined = await this.writeJoin(tx, team, user.id, this.deps.now(), existing !== undefined);
    });
    this.announceJoin(team.id, user.id, joined);
    return (await stores.teams.getMember(team.id, user.id)) as TeamMember;
  }

  /** The writes of a join inside `tx` (a removed membership made current again, or a new one); the channels joined. */
  async writeJoin(tx: TxStores, team: Team, userId: string, now: number, rejoin: boolean): Promise<Channel[]> {
    if (rejoin) await tx.teams.reactivateMember(team.id, userId);
    else await tx.teams.insertMember({ team_id: team.id, user_id: userId, scheme_admin: false, create_at: now });
    return this.channels.joinDefaultChannels(tx, team, userId, now);
  }

  /** What a committed join tells: `added_to_team` to the user, `user_added` in each default channel joined. */
  announceJoin(teamId: string, userId: string, joined: Channel[]): void {
    this.realtime.addedToTeam(teamId, userId);
    for (const channel of joined) this.realtime.userAdded(channel, userId);
  }

  async members(teamId: string, opts: { page: number; perPage: number; sort: string; excludeDeletedUsers: boolean }, session: Session): Promise<TeamMember[]> {
    const team = await this.deps.stores.teams.get(teamId);
    if (!team) throw teamNotFound();
    await this.authz.requireTeam(session, teamId, 'view_team');
    return this.deps.stores.teams.listMembers(teamId, {
      page: opts.page,
      perPage: opts.perPage,
      byUsername: opts.sort.toLowerCase() === 'username',
      excludeDeletedUsers: opts.excludeDeletedUsers,
    });
  }

  /**
   * Changes some settings of a team. `allow_open_invite` and `type` move together, and closing a team gives it a
   * new invite id (old invitations stop working), as in Mattermost.
   */
  async patch(teamId: string, patch: TeamPatch, session: Session): Promise<Team> {
    const { stores } = this.deps;
    const team = await stores.teams.get(teamId);
    if (!team || team.delete_at !== 0) throw teamNotFound();
    await this.authz.requireTeam(session, teamId, 'manage_team');
    // Group sync does not exist here.
    if (patch.group_constrained === true) throw AppError.invalidParam('group_constrained');
    const changes: Partial<Team> = {};
    if (patch.display_name !== undefined) {
      if (!patch.display_name || !withinRunes(patch.display_name, TEAM_LIMITS.displayName)) {
        throw invalid('name', `Invalid display name: it must be 1 to ${TEAM_LIMITS.displayName} characters.`);
      }
      changes.display_name = patch.display_name;
    }
    if (patch.description !== undefined) {
      if (!withinRunes(patch.description, TEAM_LIMITS.description)) throw invalid('description', 'Invalid description.');
      changes.description = patch.description;
    }
    if (patch.company_name !== undefined) {
      if (!withinRunes(patch.company_name, TEAM_LIMITS.companyName)) throw invalid('companyname', 'Invalid company name.');
      changes.company_name = patch.company_name;
    }
    if (patch.allowed_domains !== undefined) {
      if (patch.allowed_domains.length > TEAM_LIMITS.allowedDomains) throw invalid('domains', 'Invalid allowed domains.');
      changes.allowed_domains = patch.allowed_domains;
    }
    if (patch.allow_open_invite !== undefined) {
      changes.allow_open_invite = patch.allow_open_invite;
      changes.type = patch.allow_open_invite ? 'O' : 'I';
      if (!patch.allow_open_invite) changes.invite_id = newId();
    }
    changes.update_at = Math.max(this.deps.now(), team.update_at + 1);
    if (!(await stores.teams.update(teamId, changes))) throw teamNotFound();
    const updated: Team = { ...team, ...changes };
    this.realtime.updateTeam(updated);
    return this.show(updated, session);
  }

  /**
   * Takes a user off a team (leaving it, or removed by a manager) and out of all of its channels, in one
   * transaction. As in Mattermost the channels are left silently (no user_removed), and the team is told once.
   */
  async removeMember(teamId: string, userId: string, session: Session): Promise<void> {
    const { stores } = this.deps;
    if (userId !== session.userId) await this.authz.requireTeam(session, teamId, 'remove_user_from_team');
    const team = await stores.teams.get(teamId);
    if (!team) throw teamNotFound();
    if (!(await stores.users.get(userId))) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    const now = this.deps.now();
    await stores.transaction(async (tx) => {
      if (!(await tx.teams.removeMember(teamId, userId, now))) {
        throw AppError.badRequest('api.team.remove_user_from_team.missing.app_error', 'The user does not appear to be part of this team.');
      }
      await tx.channels.removeMemberFromTeamChannels(teamId, userId);
      await tx.sidebar.clearTeam(userId, teamId);
    });
    this.realtime.leaveTeam(teamId, userId);
  }

  /**
   * Mattermost's UpdateTeamMemberRoles: the list is checked (IsValidUserRoles), then the caller's manage_team_roles,
   * then each name: team_user and team_admin set the scheme flags; team_guest would change a guest flag (no guests
   * here); any other role Parley has belongs to another scope; an unknown name is not a role. No explicit roles
   * remain (Parley has no team-scoped role outside the scheme).
   */
  async updateMemberRoles(teamId: string, userId: string, roles: string, session: Session): Promise<void> {
    const names = roles.split(/\s+/).filter(Boolean);
    if (!names.every(isValidRoleName) || (names.length === 1 && names[0] === 'system_admin')) throw AppError.invalidParam('team_member_roles');
    await this.authz.requireTeam(session, teamId, 'manage_team_roles');
    const { stores } = this.deps;
    const member = await this.authz.teamMember(teamId, userId);
    if (!member) throw AppError.notFound('app.team.get_member.missing.app_error', 'No team member found for that user ID and team ID.');
    const flags = { scheme_user: false, scheme_admin: false, explicit_roles: '' };
    for (const name of names) {
      if (name === 'team_user') flags.scheme_user = true;
      else if (name === 'team_admin') flags.scheme_admin = true;
      else if (name === 'team_guest') {
        throw AppError.badRequest('api.channel.update_team_member_roles.changing_guest_role.app_error', 'Invalid team member update: You can not add or remove the guest role manually.');
      } else if (permissionsOf(name) !== undefined) {
        throw AppError.badRequest('api.channel.update_team_member_roles.scheme_role.app_error', 'The provided role is managed by a Scheme and therefore cannot be applied directly to a Team Member.', `role_name=${name}`);
      } else throw AppError.badRequest('app.role.get_by_name.app_error', 'Unable to get the role.', `role_name=${name}`);
    }
    if (!(await stores.teams.updateMemberRoles(teamId, userId, flags))) {
      throw AppError.notFound('app.team.get_member.missing.app_error', 'No team member found for that user ID and team ID.');
    }
    this.realtime.memberRoleUpdated((await stores.teams.getMember(teamId, userId)) as TeamMember);
  }

  async stats(teamId: string, session: Session): Promise<TeamStats> {
    await this.authz.requireTeam(session, teamId, 'view_team');
    if (!(await this.deps.stores.teams.get(teamId))) throw teamNotFound();
    const counts = await this.deps.stores.teams.memberCounts(teamId);
    return { team_id: teamId, total_member_count: counts.total, active_member_count: counts.active };
  }

  async unread(userId: string, teamId: string, session: Session): Promise<TeamUnread> {
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    await this.authz.requireTeam(session, teamId, 'view_team');
    const rows = await this.deps.stores.channels.unreadsForUser(userId, { teamId });
    return sumUnreads(teamId, rows);
  }

  /**
   * With `includeThreads` (include_collapsed_threads), the unread followed threads and their mentions per team too:
   * one grouped query over the user's thread memberships (direct and group threads belong to no team).
   */
  async unreads(userId: string, excludeTeamId: string, session: Session, includeThreads = false): Promise<TeamUnread[]> {
    if (userId !== session.userId) this.authz.requireSystem(session, 'manage_system');
    const rows = await this.deps.stores.channels.unreadsForUser(userId, { excludeTeamId });
    const byTeam = new Map<string, ChannelUnreadRow[]>();
    for (const r of rows) byTeam.set(r.teamId, [...(byTeam.get(r.teamId) ?? []), r]);
    const out = [...byTeam].map(([teamId, list]) => sumUnreads(teamId, list));
    if (includeThreads && out.length > 0) {
      const threads = await this.deps.stores.threads.teamUnreads(userId, out.map((u) => u.team_id));
      for (const u of out) {
        const t = threads.get(u.team_id);
        if (t) Object.assign(u, { thread_count: t.threads, thread_mention_count: t.mentions, thread_urgent_mention_count: t.urgent });
      }
    }
    return out;
  }
}

/**
 * A team's unread counts from its channels', as Mattermost sums them: mentions always count; plain messages only
 * where the member's mark_unread is not "mention". Thread counts are 0 here (see unreads' includeThreads).
 */
/** Mattermost's IsValidRoleName: 1 to 64 lower-case letters, digits and underscores. */
function isValidRoleName(name: string): boolean {
  return /^[a-z0-9_]{1,64}$/.test(name);
}

function sumUnreads(teamId: string, rows: ChannelUnreadRow[]): TeamUnread {
  const out: TeamUnread = {
    team_id: teamId,
    msg_count: 0,
    mention_count: 0,
    mention_count_root: 0,
    msg_count_root: 0,
    thread_count: 0,
    thread_mention_count: 0,
    thread_urgent_mention_count: 0,
  };
  for (const r of rows) {
    out.mention_count += r.mentionCount;
    out.mention_count_root += r.mentionCountRoot;
    if (r.markUnread !== 'mention') {
      out.msg_count += r.msgCount;
      out.msg_count_root += r.msgCountRoot;
    }
  }
  return out;
}
