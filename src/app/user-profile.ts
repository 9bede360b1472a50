// The rules of a user's profile, shared by sign-up (user-signup.ts), edits (user-edits.ts) and bot accounts
// (bots.ts): defaults of a new account, field limits, unique usernames and emails, the password rule, Mattermost's
// ids for each.
import { AppError, USER_LIMITS, type UserPatch, type UserRecord } from '../model';
import type { Stores } from '../store';
import { fitsUserMap, isValidEmail, isValidUsername, withinRunes } from './rules';

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

export const userNotFound = () => AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
export const usernameTaken = () => AppError.badRequest('app.user.save.username_exists.app_error', 'An account with that username already exists.');
export const emailTaken = () => AppError.badRequest('app.user.save.email_exists.app_error', 'An account with that email already exists.');

/**
 * The username and email given are nobody's yet (for an existing account `current`, only those it changes): the
 * username is checked first, as Mattermost orders its errors. Also how a lost race on the unique indexes (a
 * `duplicate` database error) is told apart: the same lookups, after the fact.
 */
export async function requireFreeNames(
  users: Pick<Stores['users'], 'getByUsername' | 'getByEmail'>,
  names: { username?: string; email?: string },
  current?: { username: string; email: string },
): Promise<void> {
  if (names.username && names.username !== current?.username && (await users.getByUsername(names.username))) throw usernameTaken();
  if (names.email && names.email !== current?.email && (await users.getByEmail(names.email))) throw emailTaken();
}

/** A new account's record at `now`: no picture, no activity, role system_user, Mattermost's defaults under `fields`. */
export function newUserRecord(id: string, now: number, fields: Pick<UserRecord, 'username' | 'email' | 'password'> & Partial<UserRecord>): UserRecord {
  // In the stored record's field order, which the spread keeps.
  const defaults: UserRecord = {
    id,
    create_at: now,
    update_at: now,
    delete_at: 0,
    username: '',
    auth_data: '',
    auth_service: '',
    email: '',
    email_verified: false,
    nickname: '',
    first_name: '',
    last_name: '',
    position: '',
    roles: 'system_user',
    allow_marketing: false,
    props: {},
    notify_props: { ...DEFAULT_NOTIFY_PROPS },
    last_password_update: now,
    last_picture_update: 0,
    failed_attempts: 0,
    locale: 'en',
    timezone: { ...DEFAULT_TIMEZONE },
    mfa_active: false,
    last_activity_at: 0,
    is_bot: false,
    bot_description: '',
    disable_welcome_email: false,
    password: '',
  };
  return { ...defaults, ...fields };
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
export function checkStoredMaps(u: Pick<UserPatch, 'props' | 'notify_props'>): void {
  if (!fitsUserMap(u.props)) throw invalid('props', `Invalid props: at most ${USER_LIMITS.mapBytes} bytes as JSON.`);
  if (!fitsUserMap(u.notify_props)) throw invalid('notify_props', `Invalid notify_props: at most ${USER_LIMITS.mapBytes} bytes as JSON.`);
}

export function validatePassword(password: string): void {
  if (password.length < USER_LIMITS.passwordMinChars || Buffer.byteLength(password) > USER_LIMITS.passwordMaxBytes) {
    throw AppError.badRequest('model.user.is_valid.pwd.app_error', `Your password must contain between ${USER_LIMITS.passwordMinChars} and ${USER_LIMITS.passwordMaxBytes} characters.`);
  }
}
