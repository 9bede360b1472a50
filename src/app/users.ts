import { newId } from '../lib/ids';
import { hashPassword } from '../lib/secrets';
import { AppError, USER_LIMITS, type CreateUserInput, type Session, type User, type UserPatch, type UserRecord } from '../model';
import type { StoreSet } from '../store';
import type { UserFilter } from '../store/users-store';
import { Authz } from './authz';
import type { Deps } from './deps';
import { isSystemAdmin } from './permissions';
import { fitsUserMap, isValidEmail, isValidUsername, withinRunes } from './rules';
import { sanitizeUser } from './sanitize';

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




// MySQL/MariaDB's utf8mb4_unicode_ci compares "josé" equal to "jose" and ignores trailing spaces; SQLite does not.
// A lookup by name must find exactly that name on every database.
const exactly = (record: UserRecord | undefined, key: 'username' | 'email', value: string) => (record && record[key] === value ? record : undefined);

/** The user a login id names: an email when it has an "@", else a username; letter case does not matter. */
export async function findByLogin(stores: StoreSet, loginId: string): Promise<UserRecord | undefined> {
  const id = loginId.toLowerCase();
  return id.includes('@') ? exactly(await stores.users.getByEmail(id), 'email', id) : exactly(await stores.users.getByUsername(id), 'username', id);
}

const invalid = (field: string, message: string) => AppError.badRequest(`model.user.is_valid.${field}.app_error`, message);

function validateProfile(u: UserPatch): void {
  if (u.username !== undefined && !isValidUsername(u.username)) {
    throw invalid('username', 'Username must begin with a letter and contain between 1 and 64 lowercase characters made up of numbers, letters, and the symbols ".", "-", and "_".');
  }
  if (u.email !== undefined && !isValidEmail(u.email)) throw invalid('email', 'Invalid email.');
  if (!withinRunes(u.nickname, USER_LIMITS.nickname)) throw invalid('nickname', 'Invalid nickname.');
  if (!withinRunes(u.first_name, USER_LIMITS.firstName)) throw invalid('first_name', 'Invalid first name.');
  if (!withinRunes(u.last_name, USER_LIMITS.lastName)) throw invalid('last_name', 'Invalid last name.');
  if (!withinRunes(u.position, USER_LIMITS.position)) throw invalid('position', `Invalid position: must not be longer than ${USER_LIMITS.position} characters.`);
  if (u.locale !== undefined && (u.locale.length > USER_LIMITS.locale || !/^[a-zA-Z_-]*$/.test(u.locale))) throw invalid('locale', 'Invalid locale.');
  if (u.timezone !== undefined && JSON.stringify(u.timezone).length > USER_LIMITS.timezoneChars) throw invalid('timezone', 'Invalid timezone.');
}

/** props and notify_props are stored whole after merging, so it is the merged map that must fit its column. */
function checkStoredMaps(u: Pick<UserPatch, 'props' | 'notify_props'>): void {
  if (!fitsUserMap(u.props)) throw invalid('props', `Invalid props: at most ${USER_LIMITS.mapBytes} bytes as JSON.`);
  if (!fitsUserMap(u.notify_props)) throw invalid('notify_props', `Invalid notify_props: at most ${USER_LIMITS.mapBytes} bytes as JSON.`);
}

function validatePassword(password: string): void {
  if (password.length < USER_LIMITS.passwordMinChars || Buffer.byteLength(password) > USER_LIMITS.passwordMaxBytes) {
    throw AppError.badRequest('model.user.is_valid.pwd.app_error', `Your password must contain between ${USER_LIMITS.passwordMinChars} and ${USER_LIMITS.passwordMaxBytes} characters.`);
  }
}

export class UsersService {
  private readonly authz: Authz;

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

  async get(id: string, session: Session): Promise<{ user: User; etag: string }> {
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

  async patch(id: string, patch: UserPatch, session: Session): Promise<User> {
    const { stores } = this.deps;
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
}
