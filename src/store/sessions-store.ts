import type { Session, SessionInfo, UserAccessToken } from '../model';
import { Executor, Row, bool, json, num, paged, str } from './rows';
import { prepared } from './prepared';

const TABLE = 'sessions';
const TOKENS = 'user_access_tokens';

/** A new login session, as Parley creates them. */
export interface NewSession {
  id: string;
  tokenHash: string;
  userId: string;
  createAt: number;
  expiresAt: number;
  csrfToken: string;
}

function mapRow(r: Row): SessionInfo {
  return {
    id: str(r.id),
    // Listed sessions never show their token (only its digest is stored anyway) nor their CSRF token.
    token: '',
    create_at: num(r.create_at),
    expires_at: num(r.expires_at),
    last_activity_at: num(r.last_activity_at),
    user_id: str(r.user_id),
    device_id: str(r.device_id),
    roles: str(r.roles),
    is_oauth: false,
    expired_notify: false,
    props: json<Record<string, string>>(r.props, {}),
    team_members: [],
    local: false,
  };
}

/** A new session's row: only the token's digest is stored; it is active from its creation. */
function toRow(s: NewSession): Row {
  return {
    id: s.id,
    token_hash: s.tokenHash,
    user_id: s.userId,
    create_at: s.createAt,
    expires_at: s.expiresAt,
    csrf_token: s.csrfToken,
    last_activity_at: s.createAt,
  };
}

function mapToken(r: Row): UserAccessToken {
  return { id: str(r.id), user_id: str(r.user_id), description: str(r.description), is_active: bool(r.is_active), expires_at: num(r.expires_at) };
}

/** Every authenticated request's first read. */
const sessionByTokenHash = prepared((db, tokenHash: string) =>
  db(`${TABLE} as s`).join('users as u', 'u.id', 's.user_id').where('s.token_hash', tokenHash).where('u.delete_at', 0).select('s.id', 's.user_id', 's.expires_at', 's.csrf_token', 'u.roles').limit(1),
);

export class SessionsStore {
  constructor(private readonly db: Executor) {}

  async createSession(s: NewSession): Promise<void> {
    await this.db(TABLE).insert(toRow(s));
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db(TABLE).where({ token_hash: tokenHash }).delete();
  }

  async deleteById(id: string): Promise<void> {
    await this.db(TABLE).where({ id }).delete();
  }

  /**
   * Ends every login session of the user, or every one but `exceptId` (the session that changed the password);
   * returns the ids of the sessions ended (their sockets close too).
   */
  async deleteForUser(userId: string, exceptId?: string): Promise<string[]> {
    const q = this.db(TABLE).where({ user_id: userId }).select('id');
    if (exceptId) q.whereNot({ id: exceptId });
    const ids = ((await q) as Row[]).map((r) => str(r.id));
    if (ids.length > 0) await this.db(TABLE).whereIn('id', ids).delete();
    return ids;
  }

  async get(id: string): Promise<SessionInfo | undefined> {
    const r = await this.db(`${TABLE} as s`).join('users as u', 'u.id', 's.user_id').where('s.id', id).select('s.*', 'u.roles').first();
    return r ? mapRow(r) : undefined;
  }

  async listForUser(userId: string): Promise<SessionInfo[]> {
    const rows = await this.db(`${TABLE} as s`)
      .join('users as u', 'u.id', 's.user_id')
      .where('s.user_id', userId)
      .select('s.*', 'u.roles')
      .orderBy('s.last_activity_at', 'desc')
      .orderBy('s.id');
    return rows.map(mapRow);
  }

  async touch(id: string, now: number): Promise<void> {
    await this.db(TABLE).where({ id }).update({ last_activity_at: now });
  }

  /**
   * Resolves a token digest to a session with the user's roles in one round trip: login sessions first, then
   * personal access tokens. Deleted users and expired or revoked tokens resolve to nothing.
   */
  async findByTokenHash(tokenHash: string, now: number): Promise<Session | undefined> {
    const [session] = await sessionByTokenHash(this.db, tokenHash);
    if (session) {
      const expiresAt = num(session.expires_at);
      if (expiresAt !== 0 && expiresAt < now) return undefined;
      return { id: str(session.id), userId: str(session.user_id), roles: str(session.roles), isAccessToken: false, csrfToken: str(session.csrf_token) };
    }
    const pat = await this.db(`${TOKENS} as t`)
      .join('users as u', 'u.id', 't.user_id')
      .where('t.token_hash', tokenHash)
      .where('u.delete_at', 0)
      .select('t.id', 't.user_id', 't.is_active', 't.expires_at', 'u.roles', 'u.is_bot')
      .first();
    if (!pat || !bool(pat.is_active)) return undefined;
    const expiresAt = num(pat.expires_at);
    if (expiresAt !== 0 && expiresAt < now) return undefined;
    return { id: str(pat.id), userId: str(pat.user_id), roles: str(pat.roles), isAccessToken: true, csrfToken: '', isBot: bool(pat.is_bot) };
  }

  async createAccessToken(t: UserAccessToken & { tokenHash: string }): Promise<void> {
    await this.db(TOKENS).insert({
      id: t.id,
      token_hash: t.tokenHash,
      user_id: t.user_id,
      description: t.description,
      is_active: t.is_active,
      expires_at: t.expires_at,
    });
  }

  async getAccessToken(id: string): Promise<UserAccessToken | undefined> {
    const r: Row | undefined = await this.db(TOKENS).where({ id }).first();
    return r ? mapToken(r) : undefined;
  }

  async listAccessTokens(userId: string, page: number, perPage: number): Promise<UserAccessToken[]> {
    const q = this.db(TOKENS).where({ user_id: userId }).orderBy('id');
    return (await paged(q, page, perPage)).map(mapToken);
  }

  async deleteAccessToken(id: string): Promise<void> {
    await this.db(TOKENS).where({ id }).delete();
  }

  async setAccessTokenActive(id: string, active: boolean): Promise<void> {
    await this.db(TOKENS).where({ id }).update({ is_active: active });
  }

  /** Deactivating a user revokes every way in: login sessions and access tokens alike. */
  async deleteAccessTokensForUser(userId: string): Promise<void> {
    await this.db(TOKENS).where({ user_id: userId }).delete();
  }
}
