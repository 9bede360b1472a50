/**
 * A team's URL name, checked as the server checks it (src/app/rules.ts teamNameProblem, Mattermost's IsValidTeamName
 * and its reserved prefixes; test/web/team-name.test.ts holds the two to the same answers), and the name suggested
 * for a display name (Mattermost's cleanUpUrlable). No DOM here: unit-tested in Node.
 */

export const TEAM_NAME_MIN = 2;
export const TEAM_NAME_MAX = 64;
export const TEAM_DISPLAY_NAME_MAX = 64;

const TEAM_NAME = /^(?:[a-z0-9][a-z0-9-]*[a-z0-9]|[a-z0-9]+__[a-z0-9]+)$/;
const RESERVED_TEAM_PREFIXES = [
  'admin', 'api', 'channel', 'claim', 'error', 'files', 'help', 'landing', 'login', 'mfa', 'oauth', 'plug',
  'plugins', 'post', 'signup', 'boards', 'playbooks',
];

export type TeamNameProblem = 'url' | 'characters' | 'reserved';

export function teamNameProblem(name: string): TeamNameProblem | null {
  if (name.length < TEAM_NAME_MIN || name.length > TEAM_NAME_MAX) return 'url';
  if (!TEAM_NAME.test(name)) return 'characters';
  if (RESERVED_TEAM_PREFIXES.some((word) => name.startsWith(word))) return 'reserved';
  return null;
}

export const TEAM_NAME_MESSAGES: Record<TeamNameProblem, string> = {
  url: `The URL name must be ${TEAM_NAME_MIN} to ${TEAM_NAME_MAX} characters long.`,
  characters: 'The URL name may hold only lower-case letters, digits and dashes, and must start and end with a letter or digit.',
  reserved: 'This URL name starts with a reserved word (such as "api", "admin" or "login"). Choose another.',
};

/**
 * The URL name suggested for a display name: accents dropped, lower case, every run of other characters one dash, no
 * dash at the ends (may still be refused, e.g. too short or reserved: the form says so).
 */
export function suggestTeamName(displayName: string): string {
  const name = displayName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, TEAM_NAME_MAX)
    .replace(/-+$/, '');
  return name;
}
