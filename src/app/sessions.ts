import { newId } from '../lib/ids';
import { hashToken, newToken, verifyPassword } from '../lib/secrets';
import { AppError, TOKEN_LIMITS, type Session, type User, type UserAccessToken, type UserRecord } from '../model';
import { Authz } from './authz';
import type { Deps } from './deps';
import { sanitizeUser } from './sanitize';
import { findByLogin } from './users';

// Sessions last 30 days, Mattermost's default for web sessions.
const SESSION_LENGTH_MS = 30 * 24 * 60 * 60 * 1000;
// last_activity_at drives @here; writing it more often than this would put a write on every request.
const ACTIVITY_WRITE_INTERVAL_MS = 60 * 1000;

// A valid scrypt hash of a random password, so a login for a missing user costs as much as a real one.
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export interface LoginResult {
  user: User;
  token: string;
  csrfToken: string;
  expiresAt: number;
}

/** Login, logout, resolving a token to a session, and personal access tokens. */
export class SessionsService {
  private readonly authz: Authz;
  private readonly activityWritten = new Map<string, number>();

  constructor(private readonly deps: Deps) {
    this.authz = new Authz(deps);
  }

  async login(input: { login_id?: string; id?: string; password?: string }): Promise<LoginResult> {
    const { stores } = this.deps;
    const badCredentials = () =>
      new AppError('api.user.login.invalid_credentials_email_username', 'Enter a valid email or username and/or password.', 401);
    if (!input.password) throw AppError.badRequest('api.user.login.blank_pwd.app_error', 'Password field must not be blank');
    let user: UserRecord | undefined;
    if (input.id) user = await stores.users.get(input.id);
    else if (input.login_id) user = await findByLogin(stores, input.login_id);
    // Verify against a dummy hash for unknown users too, so timing does not reveal which usernames exist.
    const ok = await verifyPassword(input.password, user?.password || DUMMY_HASH);
    if (!user || !ok) throw badCredentials();
    if (user.delete_at !== 0) throw new AppError('api.user.login.inactive.app_error', 'Login failed because your account has been deactivated.', 401);
    const token = newToken();
    const csrfToken = newId();
    const now = this.deps.now();
    const expiresAt = now + SESSION_LENGTH_MS;
    await stores.sessions.createSession({ id: newId(), tokenHash: hashToken(token), userId: user.id, createAt: now, expiresAt, csrfToken });
    await stores.users.touchActivity(user.id, now);
    this.activityWritten.set(user.id, now);
    return { user: sanitizeUser(user, { userId: user.id, isAdmin: false }, this.deps.config.get()), token, csrfToken, expiresAt };
  }

  async logout(token: string | null): Promise<void> {
    if (token) await this.deps.stores.sessions.deleteSession(hashToken(token));
  }

  /** Resolves a bearer token; also records activity (for @here) at most once a minute per user. */
  async authenticate(token: string): Promise<Session | undefined> {
    const now = this.deps.now();
    const session = await this.deps.stores.sessions.findByTokenHash(hashToken(token), now);
    // As in Mattermost, turning personal access tokens off stops existing ones from working (until turned on again).
    if (session?.isAccessToken && !this.deps.config.get().ServiceSettings.EnableUserAccessTokens) return undefined;
    if (session) {
      const last = this.activityWritten.get(session.userId) ?? 0;
      if (now - last > ACTIVITY_WRITE_INTERVAL_MS) {
        this.activityWritten.set(session.userId, now);
        await this.deps.stores.users.touchActivity(session.userId, now);
      }
    }
    return session;
  }

  async createAccessToken(userId: string, input: { description: string; expires_at?: number }, session: Session): Promise<UserAccessToken> {
    const { stores, config } = this.deps;
    // Permissions first, then the feature switch, as Mattermost's handler and app do (with its id, 501).
    this.authz.requireSystem(session, 'create_user_access_token');
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    if (!config.get().ServiceSettings.EnableUserAccessTokens) {
      throw AppError.notImplemented('app.user_access_token.disabled', 'Personal access tokens are disabled on this server. Please contact your system administrator for details.');
    }
    if (!input.description || input.description.length > TOKEN_LIMITS.description) {
      throw AppError.badRequest('model.user_access_token.is_valid.description.app_error', `Invalid description, must be ${TOKEN_LIMITS.description} or less characters.`);
    }
    if (!(await stores.users.get(userId))) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    const token = newToken();
    const record: UserAccessToken = { id: newId(), user_id: userId, description: input.description, is_active: true, expires_at: input.expires_at ?? 0 };
    await stores.sessions.createAccessToken({ ...record, tokenHash: hashToken(token) });
    return { ...record, token };
  }
}
