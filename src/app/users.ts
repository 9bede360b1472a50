import { newId } from '../lib/ids';
import { hashPassword, hashToken, newToken, verifyPassword } from '../lib/secrets';
import { Authz } from './authz';
import type { Deps } from './deps';
import { AppError } from './errors';
import type { Session, User, UserAccessToken, UserRecord } from './model';
import { isSystemAdmin } from './permissions';
import { fitsUserMap, isValidEmail, isValidUsername, MAX_USER_MAP_BYTES, withinRunes } from './rules';
import { sanitizeUser } from './sanitize';
import type { UserFilter } from '../store/users-store';

export const DEFAULT_NOTIFY_PROPS = {
  email: 'true',
  push: 'mention',
  desktop: 'mention',
  desktop_sound: 'true',
  mention_keys: '',
  channel: 'true',
  first_name: 'false',
  push_status: 'away',
  comments: 'never',
  desktop_threads: 'all',
  email_threads: 'all',
  push_threads: 'all',
};

const DEFAULT_TIMEZONE = { useAutomaticTimezone: 'true', automaticTimezone: '', manualTimezone: '' };

// Sessions last 30 days, Mattermost's default for web sessions.
const SESSION_LENGTH_MS = 30 * 24 * 60 * 60 * 1000;
// last_activity_at drives @here; writing it more often than this would put a write on every request.
const ACTIVITY_WRITE_INTERVAL_MS = 60 * 1000;

export interface CreateUserInput {
  username: string;
  email: string;
  password: string;
  first_name?: string;
  last_name?: string;
  nickname?: string;
  position?: string;
  locale?: string;
  props?: Record<string, string>;
  notify_props?: Record<string, string>;
  timezone?: Record<string, string>;
}

export type UserPatch = Partial<Omit<CreateUserInput, 'password'>>;

// MySQL/MariaDB's utf8mb4_unicode_ci compares "josé" equal to "jose" and ignores trailing spaces; SQLite does not.
// A lookup by name must find exactly that name on every database.
const exactly = (record: UserRecord | undefined, key: 'username' | 'email', value: string) => (record && record[key] === value ? record : undefined);

const invalid = (field: string, message: string) => AppError.badRequest(`model.user.is_valid.${field}.app_error`, message);

function validateProfile(u: UserPatch): void {
  if (u.username !== undefined && !isValidUsername(u.username)) {
    throw invalid('username', 'Username must begin with a letter and contain between 1 and 64 lowercase characters made up of numbers, letters, and the symbols ".", "-", and "_".');
  }
  if (u.email !== undefined && !isValidEmail(u.email)) throw invalid('email', 'Invalid email.');
  if (!withinRunes(u.nickname, 64)) throw invalid('nickname', 'Invalid nickname.');
  if (!withinRunes(u.first_name, 64)) throw invalid('first_name', 'Invalid first name.');
  if (!withinRunes(u.last_name, 64)) throw invalid('last_name', 'Invalid last name.');
  if (!withinRunes(u.position, 128)) throw invalid('position', 'Invalid position: must not be longer than 128 characters.');
  if (u.locale !== undefined && (u.locale.length > 5 || !/^[a-zA-Z_-]*$/.test(u.locale))) throw invalid('locale', 'Invalid locale.');
  if (u.timezone !== undefined && JSON.stringify(u.timezone).length > 256) throw invalid('timezone', 'Invalid timezone.');
}

/** props and notify_props are stored whole after merging, so it is the merged map that must fit its column. */
function checkStoredMaps(u: Pick<UserPatch, 'props' | 'notify_props'>): void {
  if (!fitsUserMap(u.props)) throw invalid('props', `Invalid props: at most ${MAX_USER_MAP_BYTES} bytes as JSON.`);
  if (!fitsUserMap(u.notify_props)) throw invalid('notify_props', `Invalid notify_props: at most ${MAX_USER_MAP_BYTES} bytes as JSON.`);
}

function validatePassword(password: string): void {
  if (password.length < 8 || Buffer.byteLength(password) > 72) {
    throw AppError.badRequest('model.user.is_valid.pwd.app_error', 'Your password must contain between 8 and 72 characters.');
  }
}

export class UsersService {
  private readonly authz: Authz;
  private readonly activityWritten = new Map<string, number>();

  constructor(private readonly deps: Deps) {
    this.authz = new Authz(deps);
  }

  viewer(session: Session | null) {
    return session ? { userId: session.userId, isAdmin: isSystemAdmin(session.roles) } : null;
  }

  sanitize(user: UserRecord, session: Session | null): User {
    return sanitizeUser(user, this.viewer(session), this.deps.config.get());
  }

  async create(input: CreateUserInput, session: Session | null): Promise<User> {
    const { stores, config } = this.deps;
    const settings = config.get().TeamSettings;
    const isFirst = (await stores.users.countAll()) === 0;
    const byAdmin = session !== null && isSystemAdmin(session.roles);
    if (!isFirst && !byAdmin) {
      // Mattermost's IsUserSignUpAllowed: a 501 with this id, not a 403.
      if (!settings.EnableUserCreation) {
        throw AppError.notImplemented('api.user.create_user.signup_email_disabled.app_error', 'User sign-up with email is disabled.');
      }
      if (!settings.EnableOpenServer) {
        throw new AppError('api.user.create_user.no_open_server', 'This server does not allow open signups. Please speak with your Administrator to receive an invitation.', 403);
      }
    }
    const username = (input.username ?? '').toLowerCase();
    const email = (input.email ?? '').toLowerCase();
    validateProfile({ ...input, username, email });
    validatePassword(input.password ?? '');
    const notifyProps = { ...DEFAULT_NOTIFY_PROPS, ...(input.notify_props ?? {}) };
    checkStoredMaps({ props: input.props, notify_props: notifyProps });
    if (await stores.users.getByUsername(username)) {
      throw AppError.badRequest('app.user.save.username_exists.app_error', 'An account with that username already exists.');
    }
    if (await stores.users.getByEmail(email)) {
      throw AppError.badRequest('app.user.save.email_exists.app_error', 'An account with that email already exists.');
    }
    const now = this.deps.now();
    const record: UserRecord = {
      id: newId(),
      create_at: now,
      update_at: now,
      delete_at: 0,
      username,
      auth_data: '',
      auth_service: '',
      email,
      email_verified: false,
      nickname: input.nickname ?? '',
      first_name: input.first_name ?? '',
      last_name: input.last_name ?? '',
      position: input.position ?? '',
      roles: isFirst ? 'system_admin system_user' : 'system_user',
      allow_marketing: false,
      props: input.props ?? {},
      notify_props: notifyProps,
      last_password_update: now,
      last_picture_update: 0,
      failed_attempts: 0,
      locale: input.locale || 'en',
      timezone: { ...DEFAULT_TIMEZONE, ...(input.timezone ?? {}) },
      mfa_active: false,
      last_activity_at: 0,
      is_bot: false,
      bot_description: '',
      disable_welcome_email: false,
      password: await hashPassword(input.password),
    };
    try {
      await stores.users.insert(record);
    } catch (err) {
      // Lost a race on the unique username/email indexes.
      if (await stores.users.getByUsername(username)) {
        throw AppError.badRequest('app.user.save.username_exists.app_error', 'An account with that username already exists.');
      }
      if (await stores.users.getByEmail(email)) {
        throw AppError.badRequest('app.user.save.email_exists.app_error', 'An account with that email already exists.');
      }
      throw err;
    }
    return sanitizeUser(record, { userId: record.id, isAdmin: isFirst }, config.get());
  }

  async login(input: { login_id?: string; id?: string; password?: string }): Promise<{ user: User; token: string; csrfToken: string; expiresAt: number }> {
    const { stores } = this.deps;
    const badCredentials = () =>
      new AppError('api.user.login.invalid_credentials_email_username', 'Enter a valid email or username and/or password.', 401);
    if (!input.password) throw AppError.badRequest('api.user.login.blank_pwd.app_error', 'Password field must not be blank');
    let user: UserRecord | undefined;
    if (input.id) user = await stores.users.get(input.id);
    else if (input.login_id) {
      const loginId = input.login_id.toLowerCase();
      user = loginId.includes('@')
        ? exactly(await stores.users.getByEmail(loginId), 'email', loginId)
        : exactly(await stores.users.getByUsername(loginId), 'username', loginId);
    }
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

  resolveId(userId: string, session: Session): string {
    return userId === 'me' ? session.userId : userId;
  }

  async get(userId: string, session: Session): Promise<{ user: User; etag: string }> {
    const id = this.resolveId(userId, session);
    const record = await this.deps.stores.users.get(id);
    if (!record) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    return { user: this.sanitize(record, session), etag: this.etag(record, session) };
  }

  async getByUsername(username: string, session: Session): Promise<{ user: User; etag: string }> {
    const record = exactly(await this.deps.stores.users.getByUsername(username), 'username', username.toLowerCase());
    if (!record) throw AppError.notFound('app.user.get_by_username.app_error', 'Unable to find an existing account matching your username for this team.');
    return { user: this.sanitize(record, session), etag: this.etag(record, session) };
  }

  private etag(record: UserRecord, session: Session): string {
    const privacy = this.deps.config.get().PrivacySettings;
    const view = session.userId === record.id ? 'self' : isSystemAdmin(session.roles) ? 'admin' : 'other';
    return `${record.id}.${record.update_at}.${privacy.ShowFullName}.${privacy.ShowEmailAddress}.${view}`;
  }

  async list(
    filter: UserFilter,
    session: Session,
  ): Promise<User[]> {
    const { stores } = this.deps;
    // Filtering by a team or channel reveals its membership: only its members (or admins) may do it.
    for (const teamId of [filter.inTeam, filter.notInTeam]) {
      if (teamId) await this.authz.requireTeam(session, teamId, 'view_team');
    }
    for (const channelId of [filter.inChannel, filter.notInChannel]) {
      if (!channelId) continue;
      const channel = await stores.channels.get(channelId);
      if (!channel) throw AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
      await this.authz.requireChannel(session, channel, 'read_channel');
    }
    const users = await stores.users.list(filter);
    return users.map((u) => this.sanitize(u, session));
  }

  async getByIds(ids: string[], since: number | undefined, session: Session): Promise<User[]> {
    const users = await this.deps.stores.users.getMany([...new Set(ids)]);
    return users.filter((u) => since === undefined || u.update_at > since).map((u) => this.sanitize(u, session));
  }

  async patch(userId: string, patch: UserPatch, session: Session): Promise<User> {
    const { stores } = this.deps;
    const id = this.resolveId(userId, session);
    if (id !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    const record = await stores.users.get(id);
    if (!record) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    const next: UserPatch = { ...patch };
    if (next.username !== undefined) next.username = next.username.toLowerCase();
    if (next.email !== undefined) next.email = next.email.toLowerCase();
    validateProfile(next);
    if (next.username && next.username !== record.username && (await stores.users.getByUsername(next.username))) {
      throw AppError.badRequest('app.user.save.username_exists.app_error', 'An account with that username already exists.');
    }
    if (next.email && next.email !== record.email && (await stores.users.getByEmail(next.email))) {
      throw AppError.badRequest('app.user.save.email_exists.app_error', 'An account with that email already exists.');
    }
    const fields: Partial<UserRecord> = { update_at: Math.max(this.deps.now(), record.update_at + 1) };
    for (const key of ['username', 'email', 'first_name', 'last_name', 'nickname', 'position', 'locale'] as const) {
      if (next[key] !== undefined) fields[key] = next[key];
    }
    if (next.props !== undefined) fields.props = next.props;
    if (next.notify_props !== undefined) fields.notify_props = { ...record.notify_props, ...next.notify_props };
    if (next.timezone !== undefined) fields.timezone = { ...record.timezone, ...next.timezone };
    checkStoredMaps(fields);
    await stores.users.update(id, fields);
    return this.sanitize({ ...record, ...fields }, session);
  }

  async createAccessToken(userId: string, input: { description: string; expires_at?: number }, session: Session): Promise<UserAccessToken> {
    const { stores, config } = this.deps;
    const id = this.resolveId(userId, session);
    // Permissions first, then the feature switch, as Mattermost's handler and app do (with its id, 501).
    this.authz.requireSystem(session, 'create_user_access_token');
    if (id !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    if (!config.get().ServiceSettings.EnableUserAccessTokens) {
      throw AppError.notImplemented('app.user_access_token.disabled', 'Personal access tokens are disabled on this server. Please contact your system administrator for details.');
    }
    if (!input.description || input.description.length > 255) {
      throw AppError.badRequest('model.user_access_token.is_valid.description.app_error', 'Invalid description, must be 255 or less characters.');
    }
    if (!(await stores.users.get(id))) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    const token = newToken();
    const record: UserAccessToken = {
      id: newId(),
      user_id: id,
      description: input.description,
      is_active: true,
      expires_at: input.expires_at ?? 0,
    };
    await stores.sessions.createAccessToken({ ...record, tokenHash: hashToken(token) });
    return { ...record, token };
  }
}

// A valid scrypt hash of a random password, so a login for a missing user costs as much as a real one.
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
