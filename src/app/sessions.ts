import { newId } from '../lib/ids';
import { hashToken, newToken } from '../lib/secrets';
import { AppError, TOKEN_LIMITS, type Session, type SessionInfo, type User, type UserAccessToken, type UserRecord } from '../model';
import type { ActivityWrites } from './activity-writes';
import { Authz } from './authz';
import { requireManageBot } from './bots';
import type { Deps } from './deps';
import { LoginLock, accountKey, loginIdKey } from './login-lock';
import type { Passwords } from './passwords';
import { sanitizeUser } from './sanitize';
import { findByLogin } from './users';

// last_activity_at drives @here; writing it more often than this would put a write on every request.
const ACTIVITY_WRITE_INTERVAL_MS = 60 * 1000;

export interface LoginResult {
  user: User;
  token: string;
  csrfToken: string;
  expiresAt: number;
}

/** An account locked by failed logins (MaximumLoginAttempts): Mattermost's id, until the password is reset. */
const tooManyAttempts = () =>
  new AppError('api.user.check_user_login_attempts.too_many.app_error', 'Your account is locked because of too many failed password attempts. Please reset your password.', 401);
const badCredentials = () => new AppError('api.user.login.invalid_credentials_email_username', 'Enter a valid email or username and/or password.', 401);
const sessionNotFound = () => AppError.badRequest('app.session.get.app_error', 'Unable to find the session.');
const tokenNotFound = () => AppError.notFound('app.user_access_token.get_by_user.app_error', 'Unable to get user access token.');

/** Login (with its lockout), logout, resolving a token to a session, listing and revoking sessions and access tokens. */
export class SessionsService {
  private readonly authz: Authz;
  private readonly activityWritten = new Map<string, number>();
  private readonly lock: LoginLock;

  constructor(
    private readonly deps: Deps,
    private readonly passwords: Passwords,
    /** Where last activity is written, batched with the status writes (see ActivityWrites). */
    private readonly activity: ActivityWrites,
  ) {
    this.authz = new Authz(deps);
    this.lock = new LoginLock(deps);
  }

  /**
   * Logs in with a username or email (or a user id) and a password. An account past MaximumLoginAttempts failed
   * attempts is locked (see LoginLock): refused with Mattermost's too_many id even with the right password, until the
   * lock expires, an admin sets a new password or the user changes theirs from a session. The attempt is counted
   * before the password is checked, so parallel guesses cannot get past the limit together. An unknown id is counted
   * the same way in the same table, and checked against a dummy hash: the same answers after the same work.
   */
  async login(input: { login_id?: string; id?: string; password?: string }): Promise<LoginResult> {
    const { stores } = this.deps;
    if (!input.password) throw AppError.badRequest('api.user.login.blank_pwd.app_error', 'Password field must not be blank');
    let user: UserRecord | undefined;
    if (input.id) user = await stores.users.get(input.id);
    else if (input.login_id) user = await findByLogin(stores, input.login_id);
    const key = user ? accountKey(user.id) : loginIdKey(input.login_id ?? input.id ?? '');
    const counted = await this.lock.attempt(key);
    const ok = await this.passwords.verify(input.password, user?.password);
    if (!counted) throw tooManyAttempts();
    // A bot has no password to log in with (its owner gives it access tokens), whatever was sent: Mattermost's answer.
    if (user?.is_bot) throw new AppError('api.user.login.bot_login_forbidden.app_error', 'Bot login is forbidden.', 401);
    if (!user || !ok) throw badCredentials();
    if (user.delete_at !== 0) throw new AppError('api.user.login.inactive.app_error', 'Login failed because your account has been deactivated.', 401);
    await this.lock.clear(key);
    // Hashes made with older settings (scrypt, or weaker argon2 parameters) are replaced now that the password is known.
    if (this.passwords.needsRehash(user.password)) await stores.users.update(user.id, { password: await this.passwords.hash(input.password) });
    return this.openSession(user);
  }

  private async openSession(user: UserRecord): Promise<LoginResult> {
    const { stores, config } = this.deps;
    const token = newToken();
    const csrfToken = newId();
    const now = this.deps.now();
    const expiresAt = now + Math.round(config.get().ServiceSettings.SessionLengthWebInHours * 3600 * 1000);
    await stores.sessions.createSession({ id: newId(), tokenHash: hashToken(token), userId: user.id, createAt: now, expiresAt, csrfToken });
    await stores.users.touchActivity(user.id, now);
    this.activityWritten.set(user.id, now);
    return { user: sanitizeUser(user, { userId: user.id, isAdmin: false }, config.get()), token, csrfToken, expiresAt };
  }

  async logout(token: string | null): Promise<void> {
    if (!token) return;
    const hash = hashToken(token);
    const session = await this.deps.stores.sessions.findByTokenHash(hash, this.deps.now());
    await this.deps.stores.sessions.deleteSession(hash);
    if (session && !session.isAccessToken) this.deps.events.revoke({ userId: session.userId, sessionIds: [session.id] });
  }

  /** Resolves a bearer token; also records activity (for @here and GetSessions) at most once a minute per user. */
  async authenticate(token: string): Promise<Session | undefined> {
    const now = this.deps.now();
    const session = await this.check(token);
    if (session) {
      const last = this.activityWritten.get(session.userId) ?? 0;
      if (now - last > ACTIVITY_WRITE_INTERVAL_MS) {
        this.activityWritten.set(session.userId, now);
        const user = this.activity.write({ kind: 'user-activity', userId: session.userId, at: now });
        await (session.isAccessToken ? user : Promise.all([user, this.activity.write({ kind: 'session-activity', sessionId: session.id, at: now })]));
      }
    }
    return session;
  }

  /**
   * Whether a token still resolves to a live session, without recording activity: the periodic re-check of open
   * sockets. (An open socket is not activity: recording it at each re-check made an idle socket count for @here
   * forever, and cost two writes per socket every minute or two; with a thousand sockets on SQLite, webhook posts
   * waited 3 s behind them. See BENCHMARKS.md, "Real-time events".)
   */
  async check(token: string): Promise<Session | undefined> {
    const session = await this.deps.stores.sessions.findByTokenHash(hashToken(token), this.deps.now());
    // As in Mattermost, turning personal access tokens off stops existing ones from working (until turned on again);
    // a bot's tokens are its only way in, so they work either way.
    if (session?.isAccessToken && !session.isBot && !this.deps.config.get().ServiceSettings.EnableUserAccessTokens) return undefined;
    return session;
  }

  /** Self, or a user manager: who may see and revoke a user's sessions and tokens. */
  private requireOwnerOrManager(userId: string, session: Session): void {
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
  }

  async list(userId: string, session: Session): Promise<SessionInfo[]> {
    this.requireOwnerOrManager(userId, session);
    return this.deps.stores.sessions.listForUser(userId);
  }

  async revoke(userId: string, sessionId: string, session: Session): Promise<void> {
    this.requireOwnerOrManager(userId, session);
    if (!sessionId) throw AppError.invalidParam('session_id');
    const target = await this.deps.stores.sessions.get(sessionId);
    if (!target) throw sessionNotFound();
    if (target.user_id !== userId) throw AppError.invalidParam('user_id');
    await this.deps.stores.sessions.deleteById(sessionId);
    this.deps.events.revoke({ userId, sessionIds: [sessionId] });
  }

  async revokeAll(userId: string, session: Session): Promise<void> {
    this.requireOwnerOrManager(userId, session);
    const ended = await this.deps.stores.sessions.deleteForUser(userId);
    // Access tokens stay (they are revoked one by one); their sockets too.
    if (ended.length > 0) this.deps.events.revoke({ userId, sessionIds: ended });
  }

  async createAccessToken(userId: string, input: { description: string; expires_at?: number }, session: Session): Promise<UserAccessToken> {
    const { stores, config } = this.deps;
    // Permissions first, then the feature switch, as Mattermost's handler and app do (with its id, 501).
    this.authz.requireSystem(session, 'create_user_access_token');
    // A bot's tokens are for whoever may manage the bot (its owner), as Mattermost's SessionHasPermissionToUserOrBot.
    const bot = userId !== session.userId ? await stores.bots.get(userId, true) : undefined;
    if (bot) requireManageBot(this.authz, session, bot);
    else if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    const user = await stores.users.get(userId);
    // Bots get tokens even with personal access tokens off: they have no other way to log in.
    if (!config.get().ServiceSettings.EnableUserAccessTokens && !user?.is_bot) {
      throw AppError.notImplemented('app.user_access_token.disabled', 'Personal access tokens are disabled on this server. Please contact your system administrator for details.');
    }
    if (!input.description || input.description.length > TOKEN_LIMITS.description) {
      throw AppError.badRequest('model.user_access_token.is_valid.description.app_error', `Invalid description, must be ${TOKEN_LIMITS.description} or less characters.`);
    }
    if (!user) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    const token = newToken();
    const record: UserAccessToken = { id: newId(), user_id: userId, description: input.description, is_active: true, expires_at: input.expires_at ?? 0 };
    await stores.sessions.createAccessToken({ ...record, tokenHash: hashToken(token) });
    return { ...record, token };
  }

  async listAccessTokens(userId: string, page: number, perPage: number, session: Session): Promise<UserAccessToken[]> {
    this.authz.requireSystem(session, 'read_user_access_token');
    this.requireOwnerOrManager(userId, session);
    return this.deps.stores.sessions.listAccessTokens(userId, page, perPage);
  }

  /** A token the caller may manage: its owner's own (with the permission), or any for a user manager. */
  private async managedToken(tokenId: string, permission: 'read_user_access_token' | 'revoke_user_access_token' | 'create_user_access_token', session: Session): Promise<UserAccessToken> {
    this.authz.requireSystem(session, permission);
    const token = await this.deps.stores.sessions.getAccessToken(tokenId);
    if (!token) throw tokenNotFound();
    this.requireOwnerOrManager(token.user_id, session);
    return token;
  }

  getAccessToken(tokenId: string, session: Session): Promise<UserAccessToken> {
    return this.managedToken(tokenId, 'read_user_access_token', session);
  }

  /** Revoking deletes the token: no setting turned off and on again brings it back. */
  async revokeAccessToken(tokenId: string, session: Session): Promise<void> {
    const token = await this.managedToken(tokenId, 'revoke_user_access_token', session);
    await this.deps.stores.sessions.deleteAccessToken(tokenId);
    this.deps.events.revoke({ userId: token.user_id, sessionIds: [tokenId] });
  }

  async setAccessTokenActive(tokenId: string, active: boolean, session: Session): Promise<void> {
    const token = await this.managedToken(tokenId, active ? 'create_user_access_token' : 'revoke_user_access_token', session);
    await this.deps.stores.sessions.setAccessTokenActive(tokenId, active);
    if (!active) this.deps.events.revoke({ userId: token.user_id, sessionIds: [tokenId] });
  }
}
