// The notification settings users change: a channel membership's notify_props (UpdateChannelNotifyProps) and the
// user's own (PatchUser), each checked against Mattermost's allowed values and error ids.

import { AppError, type StringMap } from '../model';

const CHANNEL_LEVELS = ['default', 'all', 'mention', 'none'];

/** Channel keys with a fixed set of values, and the id of the error for anything else (Mattermost's IsValid). */
const CHANNEL_CHECKS: Record<string, { allowed: string[]; errorId: string }> = {
  desktop: { allowed: CHANNEL_LEVELS, errorId: 'model.channel_member.is_valid.notify_level.app_error' },
  mark_unread: { allowed: ['all', 'mention'], errorId: 'model.channel_member.is_valid.unread_level.app_error' },
  push: { allowed: CHANNEL_LEVELS, errorId: 'model.channel_member.is_valid.push_level.app_error' },
  email: { allowed: ['default', 'true', 'false'], errorId: 'model.channel_member.is_valid.email_value.app_error' },
  ignore_channel_mentions: { allowed: ['default', 'on', 'off'], errorId: 'model.channel_member.is_valid.ignore_channel_mentions_value.app_error' },
  channel_auto_follow_threads: { allowed: ['on', 'off'], errorId: 'model.channel_member.is_valid.channel_auto_follow_threads_value.app_error' },
};

/** Channel keys Mattermost keeps without a fixed set of values (sounds, thread levels): short strings. */
const CHANNEL_FREE_KEYS = ['desktop_threads', 'push_threads', 'desktop_sound', 'desktop_notification_sound'];
const FREE_VALUE_MAX = 20;

/**
 * The channel settings a request changes: only the keys UpdateChannelNotifyProps knows (Client4 sends `channel_id`
 * and `user_id` along, which are ignored), each valid, or a 400 naming the first bad one.
 */
export function channelNotifyPropsChange(body: Record<string, unknown>): StringMap {
  const change: StringMap = {};
  for (const [key, value] of Object.entries(body)) {
    // Own keys only: a body key such as `valueOf` or `constructor` must not find Object.prototype's members.
    const check = Object.hasOwn(CHANNEL_CHECKS, key) ? CHANNEL_CHECKS[key] : undefined;
    if (!check && !CHANNEL_FREE_KEYS.includes(key)) continue;
    if (typeof value !== 'string') throw AppError.invalidParam('notify_props');
    if (check && !check.allowed.includes(value)) throw AppError.badRequest(check.errorId, `Invalid ${key} value for channel member.`);
    if (!check && value.length > FREE_VALUE_MAX) throw AppError.badRequest('model.channel_member.is_valid.notify_props.app_error', `Invalid ${key} value for channel member.`);
    change[key] = value;
  }
  return change;
}

/** User keys with a fixed set of values (Mattermost's web and mobile apps send no others for them); `push` is kept
 * as given, for compatibility (Parley sends no push notifications). */
const USER_CHECKS: Record<string, string[]> = {
  desktop: ['all', 'mention', 'none'],
  desktop_threads: ['all', 'mention', 'none'],
  push_threads: ['all', 'mention', 'none'],
  email: ['true', 'false'],
  email_threads: ['all', 'mention', 'none'],
  desktop_sound: ['true', 'false'],
  channel: ['true', 'false'],
  first_name: ['true', 'false'],
  comments: ['never', 'root', 'any'],
  push_status: ['online', 'away', 'offline', 'dnd', 'ooo'],
  auto_responder_active: ['true', 'false'],
};

/** At most this many mention keys, each at most this long (the field is typed by hand in the settings screen). */
const MENTION_KEYS_MAX = 100;
const MENTION_KEY_MAX_CHARS = 64;

/**
 * Checks the notify_props of a PatchUser: the known keys must hold one of their values
 * (`model.user.is_valid.notify_props.app_error`, 400, naming the key); mention_keys is a comma-separated list of at
 * most MENTION_KEYS_MAX keys of at most MENTION_KEY_MAX_CHARS characters. Other keys are kept as given (the apps
 * store their own), within the user's stored-map size limit checked by the caller.
 */
export function checkUserNotifyProps(props: StringMap): void {
  for (const [key, value] of Object.entries(props)) {
    const allowed = Object.hasOwn(USER_CHECKS, key) ? USER_CHECKS[key] : undefined;
    if (typeof value !== 'string' || (allowed && !allowed.includes(value))) {
      throw AppError.badRequest('model.user.is_valid.notify_props.app_error', `Invalid notify_props: ${key} must be one of ${(allowed ?? ['a string']).join(', ')}.`);
    }
  }
  const keys = props.mention_keys;
  if (keys !== undefined) {
    const list = keys.split(',');
    if (list.length > MENTION_KEYS_MAX || list.some((k) => k.trim().length > MENTION_KEY_MAX_CHARS)) {
      throw AppError.badRequest('model.user.is_valid.notify_props.app_error', `Invalid notify_props: at most ${MENTION_KEYS_MAX} mention keys of at most ${MENTION_KEY_MAX_CHARS} characters.`);
    }
  }
}
