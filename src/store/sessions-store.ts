import type { Session, UserAccessToken } from '../model';
import { Executor, Row, bool, num, str } from './rows';

export class SessionsStore {
  constructor(private readonly db: Executor) {}

  async createSession(s: { id: string; tokenHash: string; userId: string; createAt: number; expiresAt: number; csrfToken: string }): Promise<void> {
    await this.db('sessions').insert({
      id: s.id,
      token_hash: s.tokenHash,
      user_id: s.userId,
      create_at: s.createAt,
      expires_at: s.expiresAt,
      csrf_token: s.csrfToken,
      last_activity_at: s.createAt,
    });
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db('sessions').where({ token_hash: tokenHash }).delete();
  }

  /**
   * Resolves a token digest to a session with the user's roles in one round trip: login sessions first, then
   * personal access tokens. Deleted users and expired or revoked tokens resolve to nothing.
   */
  async findByTokenHash(tokenHash: string, now: number): Promise<Session | undefined> {
    const session = await this.db('sessions as s')
      .join('users as u', 'u.id', 's.user_id')
      .where('s.token_hash', tokenHash)
      .where('u.delete_at', 0)
      .select('s.id', 's.user_id', 's.expires_at', 's.csrf_token', 'u.roles')
      .first();
    if (session) {
      const expiresAt = num(session.expires_at);
      if (expiresAt !== 0 && expiresAt < now) return undefined;
      return { id: str(session.id), userId: str(session.user_id), roles: str(session.roles), isAccessToken: false, csrfToken: str(session.csrf_token) };
    }
    const pat = await this.db('user_access_tokens as t')
      .join('users as u', 'u.id', 't.user_id')
      .where('t.token_hash', tokenHash)
      .where('u.delete_at', 0)
      .select('t.id', 't.user_id', 't.is_active', 't.expires_at', 'u.roles')
      .first();
    if (!pat || !bool(pat.is_active)) return undefined;
    const expiresAt = num(pat.expires_at);
    if (expiresAt !== 0 && expiresAt < now) return undefined;
    return { id: str(pat.id), userId: str(pat.user_id), roles: str(pat.roles), isAccessToken: true, csrfToken: '' };
  }

  async createAccessToken(t: UserAccessToken & { tokenHash: string }): Promise<void> {
    await this.db('user_access_tokens').insert({
      id: t.id,
      token_hash: t.tokenHash,
      user_id: t.user_id,
      description: t.description,
      is_active: t.is_active,
      expires_at: t.expires_at,
    });
  }

  async getAccessToken(id: string): Promise<UserAccessToken | undefined> {
    const r: Row | undefined = await this.db('user_access_tokens').where({ id }).first();
    if (!r) return undefined;
    return { id: str(r.id), user_id: str(r.user_id), description: str(r.description), is_active: bool(r.is_active), expires_at: num(r.expires_at) };
  }
}
