import type { Knex } from 'knex';
import type { User, UserRecord } from '../model';
import { Executor, Row, bool, json, num, paged, str } from './rows';

const TABLE = 'users';

function mapRow(r: Row): UserRecord {
  return {
    id: str(r.id),
    create_at: num(r.create_at),
    update_at: num(r.update_at),
    delete_at: num(r.delete_at),
    username: str(r.username),
    auth_data: '',
    auth_service: str(r.auth_service),
    email: str(r.email),
    email_verified: bool(r.email_verified),
    nickname: str(r.nickname),
    first_name: str(r.first_name),
    last_name: str(r.last_name),
    position: str(r.position),
    roles: str(r.roles),
    allow_marketing: false,
    props: json(r.props, {}),
    notify_props: json(r.notify_props, {}),
    last_password_update: num(r.last_password_update),
    last_picture_update: num(r.last_picture_update),
    failed_attempts: num(r.failed_attempts),
    locale: str(r.locale),
    timezone: json(r.timezone, {}),
    mfa_active: false,
    last_activity_at: num(r.last_activity_at),
    is_bot: bool(r.is_bot),
    bot_description: str(r.bot_description),
    disable_welcome_email: false,
    password: str(r.password),
  };
}

function toRow(u: Partial<UserRecord>): Row {
  const row: Row = {};
  const copy = [
    'id', 'create_at', 'update_at', 'delete_at', 'username', 'email', 'password', 'auth_service', 'email_verified',
    'nickname', 'first_name', 'last_name', 'position', 'roles', 'locale', 'last_password_update',
    'last_picture_update', 'failed_attempts', 'last_activity_at', 'is_bot', 'bot_description',
  ] as const;
  for (const key of copy) if (u[key] !== undefined) row[key] = u[key];
  if (u.props !== undefined) row.props = JSON.stringify(u.props);
  if (u.notify_props !== undefined) row.notify_props = JSON.stringify(u.notify_props);
  if (u.timezone !== undefined) row.timezone = JSON.stringify(u.timezone);
  return row;
}

/**
 * Users holding a role. Roles are a space-separated list of lower-case names: match whole words only. The role is
 * escaped for LIKE, so "_" and "%" in it are themselves, not wildcards ("system_admin" must not match
 * "systemXadmin"); and it is lower-cased, so the filter ignores case on SQLite (where = is exact and LIKE is not) as it
 * does on MySQL.
 */
function whereRole(db: Executor, q: Knex.QueryBuilder, roleName: string): void {
  const role = roleName.toLowerCase();
  const escaped = role.replace(/[!%_]/g, '!$&');
  const like = (pattern: string) => db.raw("?? LIKE ? ESCAPE '!'", ['roles', pattern]);
  q.where((w) => w.where('roles', role).orWhere(like(`${escaped} %`)).orWhere(like(`% ${escaped}`)).orWhere(like(`% ${escaped} %`)));
}

/**
 * One counter of failed password checks (an account, an unknown login id or a session): failures since the last
 * success or expired lock, until when it is locked (0: not locked), how many locks in a row it has had, and a version
 * for compare-and-set writes.
 */
export interface LoginAttempts {
  failures: number;
  lockedUntil: number;
  lockouts: number;
  lastFailureAt: number;
  version: number;
}

const ATTEMPTS = 'login_attempts';

function mapAttempts(r: Row): LoginAttempts {
  return { failures: num(r.failures), lockedUntil: num(r.locked_until), lockouts: num(r.lockouts), lastFailureAt: num(r.last_failure_at), version: num(r.version) };
}

export interface UserFilter {
  inTeam?: string;
  notInTeam?: string;
  inChannel?: string;
  notInChannel?: string;
  active?: boolean;
  withoutTeam?: boolean;
  /** A system role the user must hold, e.g. "system_admin". */
  role?: string;
  sort?: 'username' | 'last_activity_at' | 'create_at';
  /** Keyset paging by id: only users whose id sorts after this one (then `page` is ignored). */
  cursorId?: string;
  page: number;
  perPage: number;
}

export class UsersStore {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): UsersStore {
    return new UsersStore(trx);
  }

  async insert(user: UserRecord): Promise<void> {
    const row = toRow(user);
    // A person's row leaves the bot columns to their defaults: the same insert then works on a schema from before
    // them (019), as the migration tests write users into older schemas.
    if (!user.is_bot) delete row.is_bot;
    if (!user.bot_description) delete row.bot_description;
    await this.db(TABLE).insert(row);
  }

  async update(id: string, fields: Partial<UserRecord>): Promise<void> {
    await this.db(TABLE).where({ id }).update(toRow(fields));
  }

  async get(id: string): Promise<UserRecord | undefined> {
    const row = await this.db(TABLE).where({ id }).first();
    return row ? mapRow(row) : undefined;
  }

  async getMany(ids: string[]): Promise<UserRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db(TABLE).whereIn('id', ids).orderBy('username');
    return rows.map(mapRow);
  }

  /** The user of that username, in any letter case (usernames are stored lower-case). */
  async getByUsername(username: string): Promise<UserRecord | undefined> {
    return this.getExactly('username', username.toLowerCase());
  }

  async getByUsernames(usernames: string[]): Promise<UserRecord[]> {
    if (usernames.length === 0) return [];
    const wanted = new Set(usernames);
    // As in getExactly: the column's collation ignores trailing spaces.
    return (await this.db(TABLE).whereIn('username', usernames)).filter((r: Row) => wanted.has(str(r.username))).map(mapRow);
  }

  /** The user of that email address, in any letter case (addresses are stored lower-case). */
  async getByEmail(email: string): Promise<UserRecord | undefined> {
    return this.getExactly('email', email.toLowerCase());
  }

  private async getExactly(column: 'username' | 'email', value: string): Promise<UserRecord | undefined> {
    const row = await this.db(TABLE).where(column, value).first();
    // The columns are utf8mb4_bin on MySQL, exact in case and accents, but a PAD SPACE collation: "bob " finds "bob".
    // Only an exact match counts, as on SQLite. (The unique index pads the same way, so the row found is the only
    // candidate.)
    return row && str(row[column]) === value ? mapRow(row) : undefined;
  }

  /** Counts every user ever created, deleted ones included: only an empty database makes a first admin. */
  async countAll(): Promise<number> {
    const row = await this.db(TABLE).count<{ n: number }[]>({ n: '*' }).first();
    return num(row?.n);
  }

  /** Users not deactivated (ServerLimits' activeUserCount). */
  async countActive(): Promise<number> {
    const row = await this.db(TABLE).where('delete_at', 0).count<{ n: number }[]>({ n: '*' }).first();
    return num(row?.n);
  }

  async list(filter: UserFilter): Promise<UserRecord[]> {
    const q = this.db(TABLE).select(`${TABLE}.*`);
    if (filter.inTeam) {
      q.whereExists((sub: Knex.QueryBuilder) =>
        sub.from('team_members as tm').whereRaw('tm.user_id = users.id').where({ 'tm.team_id': filter.inTeam, 'tm.delete_at': 0 }),
      );
    }
    if (filter.notInTeam) {
      q.whereNotExists((sub: Knex.QueryBuilder) =>
        sub.from('team_members as tm').whereRaw('tm.user_id = users.id').where({ 'tm.team_id': filter.notInTeam, 'tm.delete_at': 0 }),
      );
    }
    if (filter.inChannel) {
      q.whereExists((sub: Knex.QueryBuilder) =>
        sub.from('channel_members as cm').whereRaw('cm.user_id = users.id').where('cm.channel_id', filter.inChannel),
      );
    }
    if (filter.notInChannel) {
      q.whereNotExists((sub: Knex.QueryBuilder) =>
        sub.from('channel_members as cm').whereRaw('cm.user_id = users.id').where('cm.channel_id', filter.notInChannel),
      );
    }
    if (filter.withoutTeam) {
      q.whereNotExists((sub: Knex.QueryBuilder) => sub.from('team_members as tm').whereRaw('tm.user_id = users.id').where('tm.delete_at', 0));
    }
    if (filter.active === true) q.where('delete_at', 0);
    if (filter.active === false) q.where('delete_at', '>', 0);
    if (filter.role) whereRole(this.db, q, filter.role);
    if (filter.cursorId !== undefined) {
      q.where('id', '>', filter.cursorId).orderBy('id').limit(filter.perPage);
      return (await q).map(mapRow);
    }
    if (filter.sort === 'last_activity_at' || filter.sort === 'create_at') q.orderBy(filter.sort, 'desc');
    q.orderBy('username');
    return (await paged(q, filter.page, filter.perPage)).map(mapRow);
  }

  /**
   * Active users whose names start with every word of a search, for autocompletion: each word must begin the
   * username or nickname, or (with `fullNames`) the first or last name; letter case is ignored. E-mail is never
   * searched. Sorted by username.
   */
  async autocomplete(opts: { words: string[]; fullNames: boolean; inTeam?: string; inChannel?: string; notInChannel?: string; limit: number }): Promise<UserRecord[]> {
    const q = this.db(TABLE).select(`${TABLE}.*`).where('delete_at', 0);
    const like = (column: string, pattern: string) => this.db.raw("LOWER(??) LIKE ? ESCAPE '!'", [column, pattern]);
    for (const word of opts.words) {
      const prefix = `${word.toLowerCase().replace(/[!%_]/g, '!$&')}%`;
      q.where((w) => {
        w.where(like('username', prefix)).orWhere(like('nickname', prefix));
        if (opts.fullNames) w.orWhere(like('first_name', prefix)).orWhere(like('last_name', prefix));
      });
    }
    if (opts.inTeam) {
      q.whereExists((sub: Knex.QueryBuilder) =>
        sub.from('team_members as tm').whereRaw('tm.user_id = users.id').where({ 'tm.team_id': opts.inTeam, 'tm.delete_at': 0 }),
      );
    }
    if (opts.inChannel) {
      q.whereExists((sub: Knex.QueryBuilder) => sub.from('channel_members as cm').whereRaw('cm.user_id = users.id').where('cm.channel_id', opts.inChannel));
    }
    if (opts.notInChannel) {
      q.whereNotExists((sub: Knex.QueryBuilder) => sub.from('channel_members as cm').whereRaw('cm.user_id = users.id').where('cm.channel_id', opts.notInChannel));
    }
    return (await q.orderBy('username').limit(opts.limit)).map(mapRow);
  }

  /**
   * The ids of the active system admins, locked until the transaction ends (on MySQL; SQLite runs one write
   * transaction at a time anyway): two requests demoting the last two admins at once are decided one after the other.
   */
  async activeAdminIdsForUpdate(): Promise<string[]> {
    const q = this.db(TABLE).select('id').where('delete_at', 0);
    whereRole(this.db, q, 'system_admin');
    if (this.db.client.config.client === 'mysql2') q.forUpdate();
    return (await q).map((r: Row) => str(r.id));
  }

  /** The password-check counter kept under `keyHash` (see LoginLock), or undefined when there is none. */
  async getLoginAttempts(keyHash: string): Promise<LoginAttempts | undefined> {
    const row = await this.db(ATTEMPTS).where({ key_hash: keyHash }).first();
    return row ? mapAttempts(row) : undefined;
  }

  /**
   * Writes a counter only if nobody else wrote it since it was read: a new one when `readVersion` is undefined (a
   * duplicate-key error when another request created it first), else the one still at `readVersion`. False when
   * another write came first (the caller reads again): parallel attempts are counted one after the other, on every
   * database, without a transaction held across the password check.
   */
  async saveLoginAttempts(keyHash: string, next: Omit<LoginAttempts, 'version'>, readVersion: number | undefined): Promise<boolean> {
    const row = { failures: next.failures, locked_until: next.lockedUntil, lockouts: next.lockouts, last_failure_at: next.lastFailureAt };
    if (readVersion === undefined) {
      await this.db(ATTEMPTS).insert({ key_hash: keyHash, ...row, version: 0 });
      return true;
    }
    const changed = await this.db(ATTEMPTS).where({ key_hash: keyHash, version: readVersion }).update({ ...row, version: readVersion + 1 });
    return changed === 1;
  }

  async clearLoginAttempts(keyHash: string): Promise<void> {
    await this.db(ATTEMPTS).where({ key_hash: keyHash }).delete();
  }

  /** Deletes the counters with no lock in force and no failure since `before` (they count as empty anyway). */
  async purgeLoginAttempts(before: number): Promise<number> {
    return this.db(ATTEMPTS).where('last_failure_at', '<=', before).where('locked_until', '<=', before).delete();
  }

  /**
   * Active users whose notify_props can make a post mention them without an "@" (mention keys, first name, replies),
   * for the notification rules' in-memory pre-check. notify_props is stored by JSON.stringify, so its text is
   * canonical and LIKE can find the settings; a full scan, run now and then by one cache, never per post.
   */
  async notifyKeywordHolders(limit: number): Promise<Array<{ id: string; first_name: string; notify_props: Record<string, string> }>> {
    const rows = await this.db(TABLE)
      .where('delete_at', 0)
      .where((w) =>
        w
          .where((k) => k.where('notify_props', 'like', '%"mention_keys":%').whereNot('notify_props', 'like', '%"mention_keys":""%'))
          .orWhere('notify_props', 'like', '%"first_name":"true"%')
          .orWhere('notify_props', 'like', '%"comments":"any"%')
          .orWhere('notify_props', 'like', '%"comments":"root"%'),
      )
      .limit(limit)
      .select('id', 'first_name', 'notify_props');
    return rows.map((r: Row) => ({ id: str(r.id), first_name: str(r.first_name), notify_props: json<Record<string, string>>(r.notify_props, {}) }));
  }

  async touchActivity(id: string, at: number): Promise<void> {
    await this.db(TABLE).where({ id }).update({ last_activity_at: at });
  }
}

export type { User };
