// Mattermost's name and field rules, as plain functions so they can be table-tested.
import { codePointLength } from '../lib/text';
import { CHANNEL_LIMITS, TEAM_LIMITS, USER_LIMITS } from '../model/limits';

const USERNAME = /^[a-z0-9.\-_]+$/;
const RESERVED_USERNAMES = new Set(['all', 'channel', 'matterbot', 'system']);

export function isValidUsername(username: string): boolean {
  return username.length >= 1 && username.length <= USER_LIMITS.username && USERNAME.test(username) && !RESERVED_USERNAMES.has(username);
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
  if (name.length < TEAM_LIMITS.nameMin || name.length > TEAM_LIMITS.name) return 'url';
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
  if (name.length < 1 || name.length > CHANNEL_LIMITS.name || !CHANNEL_NAME.test(name)) return false;
  return !DM_NAME.test(name) && !GM_NAME.test(name);
}

// A local part, "@", and a domain of at least two non-empty dot-separated labels ("a@b..c" and "a@b.c." are not
// addresses); no spaces, control characters or the punctuation that would need quoting.
const EMAIL = /^[^\s\x00-\x1f\x7f@<>(),;:"]+@[^\s\x00-\x1f\x7f@<>(),;:".]+(\.[^\s\x00-\x1f\x7f@<>(),;:".]+)+$/;

export function isValidEmail(email: string): boolean {
  return email.length <= USER_LIMITS.email && EMAIL.test(email);
}

/** Whether a map, stored as JSON, fits a user's TEXT column. */
export function fitsUserMap(value: Record<string, unknown> | undefined): boolean {
  return value === undefined || Buffer.byteLength(JSON.stringify(value)) <= USER_LIMITS.mapBytes;
}

export function withinRunes(value: string | undefined, max: number): boolean {
  return value === undefined || codePointLength(value) <= max;
}

export function directChannelName(a: string, b: string): string {
  return a < b ? `${a}__${b}` : `${b}__${a}`;
}
