import { AppError } from '../model/app-error';
import type { Config } from './settings';

const COLLAPSED_THREADS: readonly string[] = ['disabled', 'default_on', 'default_off', 'always_on'];

/** Mattermost's SitenameMaxLength. */
const SITE_NAME_MAX = 30;

const invalid = (id: string, message: string) => AppError.badRequest(`model.config.is_valid.${id}.app_error`, message);

/**
 * The rules a whole config must meet, checked when a patch is applied (400) and at start-up (the server refuses to
 * start on a config file or environment that breaks them). Mattermost's ids where it has them.
 */
export function configProblem(c: Config): AppError | undefined {
  const s = c.ServiceSettings;
  // A SiteURL ends up in links and redirects: only a web address, never javascript: or data:.
  if (s.SiteURL !== '' && !isHttpUrl(s.SiteURL)) return invalid('site_url', 'Site URL must be a valid URL starting with http:// or https://.');
  if (!Number.isInteger(s.MaximumPayloadSizeBytes) || s.MaximumPayloadSizeBytes < 1024) {
    return invalid('max_payload_size', 'Invalid max payload size for service settings. Must be a whole number of at least 1024.');
  }
  if (!Number.isInteger(s.MaximumLoginAttempts) || s.MaximumLoginAttempts <= 0) return invalid('login_attempts', 'Invalid maximum login attempts for service settings. Must be a positive number.');
  if (!Number.isInteger(s.LoginLockoutMinutes) || s.LoginLockoutMinutes < 1 || s.LoginLockoutMinutes > 1440) {
    return invalid('login_lockout_minutes', 'Invalid LoginLockoutMinutes: a whole number of minutes from 1 to 1440.');
  }
  if (!Number.isInteger(s.SessionLengthWebInHours) || s.SessionLengthWebInHours < 1) return invalid('session_length', 'Invalid web session length. Must be a positive whole number of hours.');
  if (!Number.isInteger(s.UniqueEmojiReactionLimitPerPost) || s.UniqueEmojiReactionLimitPerPost < 1) {
    return invalid('unique_emoji_reaction_limit_per_post', 'Invalid UniqueEmojiReactionLimitPerPost: must be a positive whole number.');
  }
  if (!COLLAPSED_THREADS.includes(s.CollapsedThreads)) {
    return invalid('collapsed_threads', 'Invalid CollapsedThreads: one of disabled, default_on, default_off, always_on.');
  }
  if ([...c.TeamSettings.SiteName].length > SITE_NAME_MAX) return invalid('sitename_length', `Site name must be less than or equal to ${SITE_NAME_MAX} characters.`);
  if (!Number.isInteger(c.TeamSettings.MaxNotificationsPerChannel) || c.TeamSettings.MaxNotificationsPerChannel <= 0) {
    return invalid('max_notify_per_channel', 'Invalid maximum notifications per channel for team settings. Must be a positive number.');
  }
  if (!Number.isInteger(c.TeamSettings.UserStatusAwayTimeout) || c.TeamSettings.UserStatusAwayTimeout < 1) {
    return invalid('user_status_away_timeout', 'Invalid UserStatusAwayTimeout: must be a positive whole number of seconds.');
  }
  const ws = c.WebSocketSettings;
  if (!Number.isInteger(ws.ReplayWindowSeconds) || ws.ReplayWindowSeconds < 0) return invalid('websocket_replay_window', 'Invalid WebSocketSettings.ReplayWindowSeconds: a whole number of seconds, at least 0.');
  if (!Number.isInteger(ws.ReplayBufferSize) || ws.ReplayBufferSize < 0 || ws.ReplayBufferSize > 10000) {
    return invalid('websocket_replay_buffer', 'Invalid WebSocketSettings.ReplayBufferSize: a whole number from 0 to 10000.');
  }
  if (!Number.isInteger(ws.ReplayBufferBytes) || ws.ReplayBufferBytes < 0 || ws.ReplayBufferBytes > 67108864) {
    return invalid('websocket_replay_buffer_bytes', 'Invalid WebSocketSettings.ReplayBufferBytes: a whole number from 0 to 67108864 (64 MiB).');
  }
  if (!Number.isInteger(ws.MaxConnectionsPerUser) || ws.MaxConnectionsPerUser < 1 || ws.MaxConnectionsPerUser > 10000) {
    return invalid('websocket_max_connections_per_user', 'Invalid WebSocketSettings.MaxConnectionsPerUser: a whole number from 1 to 10000.');
  }
  const r = c.RateLimitSettings;
  if (!Number.isInteger(r.PerSec) || r.PerSec < 1) return invalid('rate_sec', 'Invalid per second for rate limit settings. Must be a positive whole number.');
  if (!Number.isInteger(r.MaxBurst) || r.MaxBurst < 0) return invalid('max_burst', 'Invalid max burst for rate limit settings. Must be a whole number, at least 0.');
  if (!Number.isInteger(r.MemoryStoreSize) || r.MemoryStoreSize <= 0) return invalid('rate_mem', 'Invalid memory store size for rate limit settings. Must be a positive whole number.');
  if (!Number.isInteger(r.TrustedProxyHops) || r.TrustedProxyHops < 1 || r.TrustedProxyHops > 16) {
    return invalid('trusted_proxy_hops', 'Invalid TrustedProxyHops for rate limit settings. Must be a whole number from 1 to 16.');
  }
  if (!(r.WebhookPerSec >= 0)) return invalid('webhook_rate_sec', 'Invalid WebhookPerSec for rate limit settings. Must be 0 (no limit) or a positive number.');
  if (!Number.isInteger(r.WebhookMaxBurst) || r.WebhookMaxBurst < 0) return invalid('webhook_max_burst', 'Invalid WebhookMaxBurst for rate limit settings. Must be a whole number, at least 0.');
  const f = c.FileSettings;
  // Only the local driver exists (docs/files.md): an S3 setting copied from a Mattermost config must not be taken
  // for working storage.
  if (f.DriverName !== 'local') return invalid('file_driver', `Invalid FileSettings.DriverName "${f.DriverName}": only "local" is supported.`);
  if (f.Directory.trim() === '') return invalid('directory', 'FileSettings.Directory must not be empty.');
  if (!Number.isSafeInteger(f.MaxFileSize) || f.MaxFileSize < 1) return invalid('max_file_size', 'Invalid FileSettings.MaxFileSize: a whole number of bytes, at least 1.');
  if (!Number.isSafeInteger(f.MaxUserStorageBytes) || f.MaxUserStorageBytes < 0) {
    return invalid('max_user_storage', 'Invalid FileSettings.MaxUserStorageBytes: a whole number of bytes, 0 for no limit.');
  }
  for (const key of ['UnattachedRetentionHours', 'DeletedRetentionHours'] as const) {
    if (!Number.isInteger(f[key]) || f[key] < 0 || f[key] > 876000) return invalid('file_retention', `Invalid FileSettings.${key}: a whole number of hours from 0 (kept) to 876000.`);
  }
  if (c.ClusterSettings.Enable && !/^rediss?:\/\//.test(c.ClusterSettings.RedisURL)) {
    return invalid('cluster_redis', 'ClusterSettings.RedisURL must be a redis:// or rediss:// URL when ClusterSettings.Enable is on.');
  }
  return undefined;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
  } catch {
    return false;
  }
}
