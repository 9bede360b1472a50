// Mattermost's name and field rules, as plain functions so they can be table-tested.
import { codePointLength } from '../lib/text';

export const MAX_POST_RUNES = 16383;
export const MAX_PROPS_RUNES = 800000;
export const MAX_USER_PROPS_RUNES = 760000;
/** A post's type is stored in 64 characters (Mattermost's own column is narrower; its types are all shorter). */
export const MAX_POST_TYPE_LENGTH = 64;
/** A user's props and notify_props are each stored as JSON in a TEXT column: 65535 bytes on MySQL and MariaDB. */
export const MAX_USER_MAP_BYTES = 65535;

const USERNAME = /^[a-z0-9.\-_]+$/;
const RESERVED_USERNAMES = new Set(['all', 'channel', 'matterbot', 'system']);

export function isValidUsername(username: string): boolean {
  return username.length >= 1 && username.length <= 64 && USERNAME.test(username) && !RESERVED_USERNAMES.has(username);
}

// Accepts exactly what Mattermost's ^[a-z0-9]+([a-z\-0-9]+|(__)?)[a-z0-9]+$ accepts (alphanumeric at both ends and
// [a-z0-9-] between, or two alphanumeric runs joined by "__") without its three overlapping runs, which backtrack
// cubically on a near miss ("aaaa…a!"). The 64-character check bounds that today; this form does not rely on it.
const TEAM_NAME = /^(?:[a-z0-9][a-z0-9-]*[a-z0-9]|[a-z0-9]+__[a-z0-9]+)$/;
const RESERVED_TEAM_PREFIXES = [
  'admin', 'api', 'channel', 'claim', 'error', 'files', 'help', 'landing', 'login', 'mfa', 'oauth', 'plug',
  'plugins', 'post', 'signup', 'boards', 'playbooks',
];

/** Why a team name is refused, named as Mattermost's error ids name it; null when it is valid. */
export function teamNameProblem(name: string): 'url' | 'characters' | 'reserved' | null {
  if (name.length < 2 || name.length > 64) return 'url';
  if (!TEAM_NAME.test(name)) return 'characters';
  if (RESERVED_TEAM_PREFIXES.some((word) => name.startsWith(word))) return 'reserved';
  return null;
}

export function isValidTeamName(name: string): boolean {
  return teamNameProblem(name) === null;
}

// Accepts exactly what Mattermost's ^[a-z0-9]+([a-z\-_0-9]+|(__)?)[a-z0-9]*$ accepts (an alphanumeric, then any
// of [a-z0-9_-]) without its overlapping runs, which backtrack polynomially on a near miss, as the team name's did.
const CHANNEL_NAME = /^[a-z0-9][a-z0-9_-]*$/;
const DM_NAME = /^[a-z0-9]{26}__[a-z0-9]{26}$/;
const GM_NAME = /^[a-f0-9]{40}$/;

/** Names of public and private channels; direct/group channel name shapes are reserved for those. */
export function isValidChannelName(name: string): boolean {
  if (name.length < 1 || name.length > 64 || !CHANNEL_NAME.test(name)) return false;
  return !DM_NAME.test(name) && !GM_NAME.test(name);
}

// A local part, "@", and a domain of at least two non-empty dot-separated labels ("a@b..c" and "a@b.c." are not
// addresses); no spaces, control characters or the punctuation that would need quoting.
const EMAIL = /^[^\s\x00-\x1f\x7f@<>(),;:"]+@[^\s\x00-\x1f\x7f@<>(),;:".]+(\.[^\s\x00-\x1f\x7f@<>(),;:".]+)+$/;

export function isValidEmail(email: string): boolean {
  return email.length <= 128 && EMAIL.test(email);
}

/** Whether a map, stored as JSON, fits a user's TEXT column. */
export function fitsUserMap(value: Record<string, unknown> | undefined): boolean {
  return value === undefined || Buffer.byteLength(JSON.stringify(value)) <= MAX_USER_MAP_BYTES;
}

export function withinRunes(value: string | undefined, max: number): boolean {
  return value === undefined || codePointLength(value) <= max;
}

export function directChannelName(a: string, b: string): string {
  return a < b ? `${a}__${b}` : `${b}__${a}`;
}
