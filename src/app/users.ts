import { newId } from '../lib/ids';
import { defaultAvatar } from '../lib/avatar';
import { AppError, USER_LIMITS, isDatabaseError, type CreateUserInput, type Session, type User, type UserAutocomplete, type UserPatch, type UserRecord } from '../model';
import type { StoreSet, TxStores } from '../store';
import type { UserFilter } from '../store/users-store';
import { Authz } from './authz';
import type { Deps } from './deps';
import { LoginLock, accountKey, sessionKey } from './login-lock';
import type { Passwords } from './passwords';
import { VALID_SYSTEM_ROLES, isSystemAdmin } from './permissions';
import { fitsUserMap, isValidEmail, isValidUsername, withinRunes } from './rules';
import type { Realtime } from './realtime';
import { checkUserNotifyProps } from './notify-props';
import { keywordIndexFor } from './post-notifications';
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

export const DEFAULT_TIMEZONE = { useAutomaticTimezone: 'true', automaticTimezone: '', manualTimezone: '' };




// MySQL/MariaDB's utf8mb4_unicode_ci compares "josé" equal to "jose" and ignores trailing spaces; SQLite does not.
// A lookup by name must find exactly that name on every database.
const exactly = (record: UserRecord | undefined, key: 'username' | 'email', value: string) => (record && record[key] === value ? record : undefined);

/** The user a login id names: an email when it has an "@", else a username; letter case does not matter. */
export async function findByLogin(stores: StoreSet, loginId: string): Promise<UserRecord | undefined> {
  const id = loginId.toLowerCase();
  return id.includes('@') ? exactly(await stores.users.getByEmail(id), 'email', id) : exactly(await stores.users.getByUsername(id), 'username', id);
}

const invalid = (field: string, message: string) => AppError.badRequest(`model.user.is_valid.${field}.app_error`, message);

export function validateProfile(u: UserPatch): void {
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

export function validatePassword(password: string): void {
  if (password.length < USER_LIMITS.passwordMinChars || Buffer.byteLength(password) > USER_LIMITS.passwordMaxBytes) {
    throw AppError.badRequest('model.user.is_valid.pwd.app_error', `Your password must contain between ${USER_LIMITS.passwordMinChars} and ${USER_LIMITS.passwordMaxBytes} characters.`);
  }
}

/** The fact whose unique name makes exactly one sign-up on an empty database the first system admin. */
const FIRST_ADMIN = 'FirstAdminUserId';

const usernameTaken = () => AppError.badRequest('app.user.save.username_exists.app_error', 'An account with that username already exists.');
const emailTaken = () => AppError.badRequest('app.user.save.email_exists.app_error', 'An account with that email already exists.');
const userNotFound = () => AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');

export const tooManyAttempts = () =>
  new AppError('api.user.check_user_login_attempts.too_many.app_error', 'Your account is locked because of too many failed password attempts. Please reset your password.', 401);
/** Mattermost's id, for the per-session count of wrong current passwords (the account itself is not locked). */
const tooManyInSession = () =>
  new AppError('api.user.check_user_login_attempts.too_many.app_error', 'Too many wrong passwords from this session. Please wait and try again.', 401);

class LostFirstAdmin extends Error {}

/** How an account is created beyond its fields: through an invitation, and what else its transaction writes. */
export interface CreateOptions {
  /** A team invite link (`iid`): sign-up needs no open server. */
  invited?: boolean;
  /** More writes in the transaction that inserts the user (joining the invite's team). */
  inTransaction?: (tx: TxStores, userId: string, now: number) => Promise<void>;
}

export class UsersService {
  private readonly authz: Authz;
  private readonly lock: LoginLock;

  constructor(
    private readonly deps: Deps,
    private readonly passwords: Passwords,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
    this.lock = new LoginLock(deps);
  }

  viewer(session: Session | null) {
    return session ? { userId: session.userId, isAdmin: isSystemAdmin(session.roles) } : null;
  }

  sanitize(user: UserRecord, session: Session | null): User {
    return sanitizeUser(user, this.viewer(session), this.deps.config.get());
  }

  /**
   * Creates an account. On an empty database the first account (no session needed) becomes the system admin: it
   * claims a unique row in the same transaction as its insert, so of many sign-ups racing on an empty database exactly
   * one wins; the others are ordinary sign-ups (which the open-server rules may then refuse).
   */
  async create(input: CreateUserInput, session: Session | null, options: CreateOptions = {}): Promise<User> {
    const { stores, config } = this.deps;
    const username = (input.username ?? '').toLowerCase();
    const email = (input.email ?? '').toLowerCase();
    validateProfile({ ...input, username, email });
    validatePassword(input.password ?? '');
    const notifyProps = { ...DEFAULT_NOTIFY_PROPS, ...(input.notify_props ?? {}) };
    checkStoredMaps({ props: input.props, notify_props: notifyProps });
    let claimFirst = (await stores.users.countAll()) === 0;
    this.requireSignUpAllowed(claimFirst, session, options.invited === true);
    if (await stores.users.getByUsername(username)) throw usernameTaken();
    if (await stores.users.getByEmail(email)) throw emailTaken();
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
      roles: 'system_user',
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
      password: await this.passwords.hash(input.password),
    };
    for (;;) {
      record.roles = claimFirst ? 'system_admin system_user' : 'system_user';
      try {
        await stores.transaction(async (tx) => {
          if (claimFirst) {
            await tx.systems.insert(FIRST_ADMIN, record.id).catch((err: unknown) => {
              throw isDatabaseError(err, 'duplicate') ? new LostFirstAdmin() : err;
            });
          }
          await tx.users.insert(record);
          await options.inTransaction?.(tx, record.id, now);
        });
        break;
      } catch (err) {
        if (err instanceof LostFirstAdmin) {
          // Another sign-up became the first admin meanwhile: this one is an ordinary sign-up after all.
          claimFirst = false;
          this.requireSignUpAllowed(false, session, options.invited === true);
          continue;
        }
        // Lost a race on the unique username/email indexes.
        if (isDatabaseError(err, 'duplicate')) {
          if (await stores.users.getByUsername(username)) throw usernameTaken();
          if (await stores.users.getByEmail(email)) throw emailTaken();
        }
        throw err;
      }
    }
    this.realtime.newUser(record.id);
    return sanitizeUser(record, { userId: record.id, isAdmin: claimFirst }, config.get());
  }

  /**
   * Who may create this account: the first one, an admin, an invited person, or anyone when sign-up is open to all.
   * An invitation is held to EnableUserCreation whoever sends it (Mattermost's CreateUserWithInviteId).
   */
  private requireSignUpAllowed(first: boolean, session: Session | null, invited: boolean): void {
    const settings = this.deps.config.get().TeamSettings;
    if (invited) return this.requireUserCreation();
    if (first || (session !== null && isSystemAdmin(session.roles))) return;
    this.requireUserCreation();
    if (!settings.EnableOpenServer) {
      throw new AppError('api.user.create_user.no_open_server', 'This server does not allow open signups. Please speak with your Administrator to receive an invitation.', 403);
    }
  }

  /** Mattermost's IsUserSignUpAllowed: a 501 with this id, not a 403, as Mattermost answers. */
  requireUserCreation(): void {
    if (!this.deps.config.get().TeamSettings.EnableUserCreation) {
      throw AppError.notImplemented('api.user.create_user.signup_email_disabled.app_error', 'User sign-up with email is disabled.');
    }
  }

  async get(id: string, session: Session): Promise<{ user: User; etag: string }> {
    const record = await this.deps.stores.users.get(id);
    if (!record) throw userNotFound();
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

  /**
   * A user's own password, given inside their session: counted per session (MaximumLoginAttempts, with locks that
   * expire), not against the account's login lock. Anyone who knows a username can lock the account's logins; that
   * must not also stop its owner, from a session they still have, changing the password (which ends the lock). A
   * stolen session is still held to the same number of guesses.
   */
  private async checkOwnPassword(user: UserRecord, password: string, session: Session, wrong: () => AppError): Promise<void> {
    const key = sessionKey(session.id);
    const counted = await this.lock.attempt(key);
    const ok = await this.passwords.verify(password, user.password);
    if (!counted) throw tooManyInSession();
    if (!ok) throw wrong();
    await this.lock.clear(key);
  }

  async patch(id: string, patch: UserPatch & { password?: string }, session: Session): Promise<User> {
    const { stores } = this.deps;
    if (id !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    const record = await stores.users.get(id);
    if (!record) throw userNotFound();
    const { password, ...rest } = patch;
    const next: UserPatch = { ...rest };
    if (next.username !== undefined) next.username = next.username.toLowerCase();
    if (next.email !== undefined) next.email = next.email.toLowerCase();
    validateProfile(next);
    if (next.username && next.username !== record.username && (await stores.users.getByUsername(next.username))) {
      throw AppError.badRequest('app.user.save.username_exists.app_error', 'An account with that username already exists.');
    }
    if (next.email && next.email !== record.email && (await stores.users.getByEmail(next.email))) {
      throw AppError.badRequest('app.user.save.email_exists.app_error', 'An account with that email already exists.');
    }
    // Changing your own email takes your password, as in Mattermost: a stolen session alone must not be enough to
    // move the account's recovery address. Checked last, so a request that would fail anyway costs no hash (and,
    // unlike Mattermost, re-sending the current address needs none).
    if (id === session.userId && next.email !== undefined && next.email !== record.email) {
      if (!password) throw AppError.invalidParam('password');
      await this.checkOwnPassword(record, password, session, () => new AppError('api.user.check_user_password.invalid.app_error', 'Login failed because of invalid password.', 401));
    }
    const fields: Partial<UserRecord> = { update_at: Math.max(this.deps.now(), record.update_at + 1) };
    for (const key of ['username', 'email', 'first_name', 'last_name', 'nickname', 'position', 'locale'] as const) {
      if (next[key] !== undefined) fields[key] = next[key];
    }
    if (next.props !== undefined) fields.props = next.props;
    if (next.notify_props !== undefined) {
      checkUserNotifyProps(next.notify_props);
      fields.notify_props = { ...record.notify_props, ...next.notify_props };
    }
    if (next.timezone !== undefined) fields.timezone = { ...record.timezone, ...next.timezone };
    checkStoredMaps(fields);
    await stores.users.update(id, fields);
    if (fields.notify_props || fields.first_name !== undefined) keywordIndexFor(stores).update({ ...record, ...fields });
    this.realtime.userUpdated({ ...record, ...fields });
    return this.sanitize({ ...record, ...fields }, session);
  }

  /**
   * Sets a new password: your own with the current one (wrong ones are counted per session), or another user's as a
   * system admin. Either unlocks an account locked by failed logins: the guesses were at the old password. Every
   * other session of the user ends.
   */
  async updatePassword(id: string, input: { current_password?: string; new_password: string }, session: Session): Promise<void> {
    const { stores } = this.deps;
    const self = id === session.userId;
    if (!self && !this.authz.system(session, 'manage_system')) {
      throw new AppError('api.user.update_password.context.app_error', 'Update password failed because context user_id did not match props user_id.', 403);
    }
    const user = await stores.users.get(id);
    if (!user) throw userNotFound();
    if (self) {
      if (!input.current_password) throw AppError.invalidParam('current_password');
      await this.checkOwnPassword(user, input.current_password, session, () => AppError.badRequest('api.user.update_password.incorrect.app_error', 'The "Current Password" you entered is incorrect. Please check that Caps Lock is off and try again.'));
    }
    validatePassword(input.new_password);
    const now = this.deps.now();
    await stores.users.update(id, { password: await this.passwords.hash(input.new_password), last_password_update: now, update_at: Math.max(now, user.update_at + 1) });
    await this.lock.clear(accountKey(id));
    const ended = await stores.sessions.deleteForUser(id, self ? session.id : undefined);
    if (ended.length > 0) this.deps.events.revoke({ userId: id, sessionIds: ended });
  }

  /**
   * Deactivates (every session ends, every access token is deleted: reactivating does not bring them back) or
   * reactivates a user. Anyone may deactivate themselves; anything else takes `permission`.
   */
  async setActive(id: string, active: boolean, session: Session, permission: 'manage_system' | 'edit_other_users' = 'manage_system'): Promise<void> {
    const { stores } = this.deps;
    const selfDeactivation = id === session.userId && !active;
    if (!selfDeactivation && !this.authz.system(session, permission)) {
      throw new AppError('api.user.update_active.permissions.app_error', 'You do not have the appropriate permissions.', 403);
    }
    const user = await stores.users.get(id);
    if (!user) throw userNotFound();
    // A system admin's account is changed only by a system admin.
    if (isSystemAdmin(user.roles) && !selfDeactivation) this.authz.requireSystem(session, 'manage_system');
    const now = this.deps.now();
    const fields = { delete_at: active ? 0 : now, update_at: Math.max(now, user.update_at + 1) };
    await stores.transaction(async (tx) => {
      await tx.users.update(id, fields);
      if (!active) {
        await tx.sessions.deleteForUser(id);
        await tx.sessions.deleteAccessTokensForUser(id);
      }
    });
    if (!active) this.deps.events.revoke({ userId: id });
    this.realtime.userUpdated({ ...user, ...fields });
  }

  /** Users by their usernames (in any letter case: usernames are stored lower-case); unknown ones are left out. */
  async getByUsernames(usernames: string[], session: Session): Promise<User[]> {
    const wanted = [...new Set(usernames.map((u) => u.toLowerCase()))];
    const users = await this.deps.stores.users.getByUsernames(wanted);
    return users.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0)).map((u) => this.sanitize(u, session));
  }

  /**
   * Sets a user's system roles. The last active system admin keeps the role: the admins are read and locked in the
   * transaction that writes, so two admins demoting each other at once cannot leave the server without one.
   */
  async updateRoles(id: string, roles: string, session: Session): Promise<void> {
    const { stores } = this.deps;
    const names = [...new Set(roles.split(/\s+/).filter(Boolean))];
    // As Mattermost's IsValidUserRoles: known system roles only, and every account is a system_user.
    if (!names.includes('system_user') || !names.every((n) => VALID_SYSTEM_ROLES.has(n))) throw AppError.invalidParam('roles');
    this.authz.requireSystem(session, 'manage_roles');
    const user = await stores.users.get(id);
    // A 400, not a 404, as Mattermost answers here.
    if (!user) throw AppError.badRequest('app.user.missing_account.const', 'Unable to find the user.');
    const newRoles = names.join(' ');
    const updateAt = Math.max(this.deps.now(), user.update_at + 1);
    await stores.transaction(async (tx) => {
      if (!names.includes('system_admin')) {
        const admins = await tx.users.activeAdminIdsForUpdate();
        if (admins.includes(id) && admins.length === 1) {
          throw AppError.badRequest('app.user.update.lastAdmin.app_error', 'You cannot remove the system admin role from the last system admin.');
        }
      }
      await tx.users.update(id, { roles: newRoles, update_at: updateAt });
    });
    this.realtime.userRoleUpdated(id, newRoles);
  }

  /**
   * Users whose names start with the search words, for @-mention completion: within a channel (and the rest of its
   * team), a team, or everyone. Full names are searched only where the caller may see them; e-mail never.
   */
  async autocomplete(q: { inTeam: string; inChannel: string; name: string; limit: number }, session: Session): Promise<UserAutocomplete> {
    const { stores, config } = this.deps;
    // Mattermost answers a channel without its team with a 500; it is the request that is wrong, so here a 400.
    if (q.inChannel && !q.inTeam) {
      throw AppError.badRequest('api.user.autocomplete_users.missing_team_id.app_error', 'Team id parameter is required to autocomplete by channel.');
    }
    if (q.inChannel) {
      const channel = await stores.channels.get(q.inChannel);
      if (!channel) throw AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
      await this.authz.requireChannel(session, channel, 'read_channel');
    }
    if (q.inTeam) await this.authz.requireTeam(session, q.inTeam, 'view_team');
    const words = q.name.trim().replace(/^@/, '').split(/\s+/).filter(Boolean);
    const fullNames = isSystemAdmin(session.roles) || config.get().PrivacySettings.ShowFullName;
    const limit = q.limit > 0 ? Math.min(q.limit, 1000) : 100;
    const find = async (where: { inTeam?: string; inChannel?: string; notInChannel?: string }) =>
      (await stores.users.autocomplete({ words, fullNames, limit, ...where })).map((u) => this.sanitize(u, session));
    if (q.inChannel) {
      const [users, outOfChannel] = await Promise.all([find({ inChannel: q.inChannel }), find({ inTeam: q.inTeam, notInChannel: q.inChannel })]);
      return { users, out_of_channel: outOfChannel };
    }
    return { users: await find({ inTeam: q.inTeam || undefined }) };
  }

  /**
   * A user's generated picture (GetDefaultProfileImage; GetProfileImage without an upload, see profile-images.ts), a
   * PNG that depends on the user id (its colour) and the username's first character. The ETag names both (and the
   * drawing's version).
   */
  async profileImage(id: string): Promise<{ png: Buffer; etag: string }> {
    const user = await this.deps.stores.users.get(id);
    if (!user) throw userNotFound();
    const avatar = defaultAvatar(user.id, user.username);
    return { png: avatar.png, etag: `${user.last_picture_update}.${avatar.key}` };
  }
}
