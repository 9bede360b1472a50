// Changes to an account: its profile (PatchUser), its password, deactivation and reactivation, its system roles.
import { AppError, type Session, type User, type UserPatch, type UserRecord } from '../model';
import { Authz } from './authz';
import type { Deps } from './deps';
import { LoginLock, accountKey, sessionKey } from './login-lock';
import { checkUserNotifyProps } from './notify-props';
import type { Passwords } from './passwords';
import { VALID_SYSTEM_ROLES, isSystemAdmin } from './permissions';
import { keywordIndexFor } from './post-notifications';
import type { Realtime } from './realtime';
import { checkStoredMaps, requireFreeNames, userNotFound, validatePassword, validateProfile } from './user-profile';

/** Mattermost's id, for the per-session count of wrong current passwords (the account itself is not locked). */
const tooManyInSession = () =>
  new AppError('api.user.check_user_login_attempts.too_many.app_error', 'Too many wrong passwords from this session. Please wait and try again.', 401);

export class UserEdits {
  private readonly authz: Authz;
  private readonly lock: LoginLock;

  constructor(
    private readonly deps: Deps,
    private readonly passwords: Passwords,
    private readonly realtime: Realtime,
    /** A user as the session sees them (UsersService.sanitize). */
    private readonly sanitize: (user: UserRecord, session: Session) => User,
  ) {
    this.authz = new Authz(deps);
    this.lock = new LoginLock(deps);
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
    await requireFreeNames(stores.users, next, record);
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
}
