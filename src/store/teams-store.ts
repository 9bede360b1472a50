import type { Team, TeamMember } from '../model';
import { Executor, Row, bool, num, paged, str } from './rows';

const TABLE = 'teams';
const MEMBERS = 'team_members';

function mapRow(r: Row): Team {
  return {
    id: str(r.id),
    create_at: num(r.create_at),
    update_at: num(r.update_at),
    delete_at: num(r.delete_at),
    display_name: str(r.display_name),
    name: str(r.name),
    description: str(r.description),
    email: str(r.email),
    type: str(r.type) as Team['type'],
    company_name: str(r.company_name),
    allowed_domains: str(r.allowed_domains),
    invite_id: str(r.invite_id),
    allow_open_invite: bool(r.allow_open_invite),
    scheme_id: null,
    group_constrained: null,
    policy_id: null,
  };
}

/** A team's stored columns: the scheme and policy fields are always null here and not stored. */
function toRow(team: Team): Row {
  const { scheme_id: _s, group_constrained: _g, policy_id: _p, ...row } = team;
  return row;
}

export function mapTeamMember(r: Row): TeamMember {
  const schemeUser = bool(r.scheme_user);
  const schemeAdmin = bool(r.scheme_admin);
  const explicit = str(r.roles);
  const roles = [explicit, schemeUser ? 'team_user' : '', schemeAdmin ? 'team_admin' : ''].filter(Boolean).join(' ');
  return {
    team_id: str(r.team_id),
    user_id: str(r.user_id),
    roles,
    delete_at: num(r.delete_at),
    scheme_guest: false,
    scheme_user: schemeUser,
    scheme_admin: schemeAdmin,
    explicit_roles: explicit,
  };
}

export class TeamsStore {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): TeamsStore {
    return new TeamsStore(trx);
  }

  async insert(team: Team): Promise<void> {
    await this.db(TABLE).insert(toRow(team));
  }

  async get(id: string): Promise<Team | undefined> {
    const r = await this.db(TABLE).where({ id }).first();
    return r ? mapRow(r) : undefined;
  }

  async getByName(name: string): Promise<Team | undefined> {
    const r = await this.db(TABLE).where({ name }).first();
    // MySQL's default collation folds case and trailing spaces: only an exact match counts, as on SQLite. (The
    // unique index folds the same way, so the row found is the only candidate.)
    return r && str(r.name) === name ? mapRow(r) : undefined;
  }

  async list(opts: { openOnly: boolean; page: number; perPage: number }): Promise<Team[]> {
    const q = this.db(TABLE).where('delete_at', 0).orderBy('display_name').orderBy('id');
    if (opts.openOnly) q.where('allow_open_invite', true);
    return (await paged(q, opts.page, opts.perPage)).map(mapRow);
  }

  async count(opts: { openOnly: boolean }): Promise<number> {
    const q = this.db(TABLE).where('delete_at', 0);
    if (opts.openOnly) q.where('allow_open_invite', true);
    const r = await q.count<{ n: number }[]>({ n: '*' }).first();
    return num(r?.n);
  }

  async listForUser(userId: string): Promise<Team[]> {
    const rows = await this.db(`${TABLE} as t`)
      .join(`${MEMBERS} as m`, 'm.team_id', 't.id')
      .where({ 'm.user_id': userId, 'm.delete_at': 0, 't.delete_at': 0 })
      .select('t.*')
      .orderBy('t.display_name');
    return rows.map(mapRow);
  }

  /** Every team membership row of the user (left teams included), by team id, at most `limit` (on the user_id index). */
  async membershipsOfUser(userId: string, limit: number): Promise<TeamMember[]> {
    const rows = await this.db(MEMBERS).where({ user_id: userId }).orderBy('team_id').limit(limit);
    return (rows as Row[]).map(mapTeamMember);
  }

  async insertMember(m: { team_id: string; user_id: string; scheme_admin: boolean; create_at: number }): Promise<void> {
    await this.db(MEMBERS).insert({ ...m, scheme_user: true, roles: '', delete_at: 0 });
  }

  /** Sets a current membership's scheme flags and explicit roles; false when there is no current membership. */
  async updateMemberRoles(teamId: string, userId: string, roles: { scheme_user: boolean; scheme_admin: boolean; explicit_roles: string }): Promise<boolean> {
    const changed = await this.db(MEMBERS)
      .where({ team_id: teamId, user_id: userId, delete_at: 0 })
      .update({ scheme_user: roles.scheme_user, scheme_admin: roles.scheme_admin, roles: roles.explicit_roles });
    return changed === 1;
  }

  /** The team an invite link names; undefined for an unknown id (on the invite_id index, 021). */
  async getByInviteId(inviteId: string): Promise<Team | undefined> {
    const r = await this.db(TABLE).where({ invite_id: inviteId }).first();
    // MySQL's collation folds case: only the exact id counts, as on SQLite.
    return r && str(r.invite_id) === inviteId ? mapRow(r) : undefined;
  }

  async reactivateMember(teamId: string, userId: string): Promise<void> {
    await this.db(MEMBERS).where({ team_id: teamId, user_id: userId }).update({ delete_at: 0 });
  }

  /** Writes changed settings of a team; false when no such team. */
  async update(id: string, fields: Partial<Omit<Team, 'id' | 'create_at' | 'scheme_id' | 'group_constrained' | 'policy_id'>>): Promise<boolean> {
    return (await this.db(TABLE).where({ id }).update(fields)) === 1;
  }

  /**
   * Ends a membership as Mattermost does: the row stays, with delete_at set and its roles (the admin flag too)
   * cleared, so a user who joins again is a plain member. False when there was no current membership.
   */
  async removeMember(teamId: string, userId: string, now: number): Promise<boolean> {
    const changed = await this.db(MEMBERS)
      .where({ team_id: teamId, user_id: userId, delete_at: 0 })
      .update({ delete_at: now, roles: '', scheme_admin: false });
    return changed === 1;
  }

  /** Current members, and those of them whose accounts are active (GetTeamStats). */
  async memberCounts(teamId: string): Promise<{ total: number; active: number }> {
    const r = await this.db(`${MEMBERS} as m`)
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.team_id': teamId, 'm.delete_at': 0 })
      .select(this.db.raw('COUNT(*) AS total'), this.db.raw('SUM(CASE WHEN u.delete_at = 0 THEN 1 ELSE 0 END) AS active'))
      .first();
    return { total: num(r?.total), active: num(r?.active) };
  }

  async getMember(teamId: string, userId: string): Promise<TeamMember | undefined> {
    const r = await this.db(MEMBERS).where({ team_id: teamId, user_id: userId }).first();
    return r ? mapTeamMember(r) : undefined;
  }

  /** The ids of the team's current members (the real-time audience of a team event). */
  async memberIds(teamId: string): Promise<string[]> {
    const rows = await this.db(MEMBERS).where({ team_id: teamId, delete_at: 0 }).select('user_id');
    return (rows as Row[]).map((r) => str(r.user_id));
  }

  async listMembers(teamId: string, opts: { page: number; perPage: number; byUsername: boolean; excludeDeletedUsers: boolean }): Promise<TeamMember[]> {
    const q = this.db(`${MEMBERS} as m`).where({ 'm.team_id': teamId, 'm.delete_at': 0 }).select('m.*');
    if (opts.byUsername || opts.excludeDeletedUsers) q.join('users as u', 'u.id', 'm.user_id');
    if (opts.excludeDeletedUsers) q.where('u.delete_at', 0);
    q.orderBy(opts.byUsername ? 'u.username' : 'm.user_id');
    return (await paged(q, opts.page, opts.perPage)).map(mapTeamMember);
  }
}
