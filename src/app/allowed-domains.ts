// A team's allowed_domains, read as Mattermost reads it (server/channels/app/teams/utils.go: normalizeDomains,
// IsEmailAddressAllowed, IsTeamEmailAllowed), as plain functions so they can be table-tested.
import { AppError } from '../model';

// Commas and "@" are optional separators ("@corp.example, example.com example.org"); whitespace splits as Go's
// strings.Fields does. One pass of a single character class: linear in the text's length.
const SEPARATORS = /[\s,@]+/u;

/** The domains of an allowed_domains text, lower-cased; none when it is blank. */
export function normalizeDomains(text: string): string[] {
  return text
    .toLowerCase()
    .split(SEPARATORS)
    .filter((d) => d !== '');
}

/**
 * Whether an address satisfies an allowed_domains text: a blank list allows everyone, else the address (any letter
 * case) must end in "@" and one of the domains. A subdomain is another domain ("a@x.corp.example" is not
 * "corp.example"), as in Mattermost.
 */
export function isEmailAllowed(email: string, allowedDomains: string): boolean {
  const domains = normalizeDomains(allowedDomains);
  if (domains.length === 0) return true;
  const address = email.toLowerCase();
  return domains.some((d) => address.endsWith(`@${d}`));
}

/**
 * Whether a user may be on a team with that allowed_domains: bots always (Mattermost's only exception; system admins
 * are held to the list like anyone, and Parley has no SSO accounts for the exception older versions made).
 */
export function isTeamEmailAllowed(user: { email: string; is_bot?: boolean }, team: { allowed_domains: string }): boolean {
  return user.is_bot === true || isEmailAllowed(user.email, team.allowed_domains);
}

/** Mattermost's answer to a join the team's allowed_domains refuses (JoinUserToTeam). */
export const domainNotAllowed = () =>
  AppError.badRequest(
    'api.team.join_user_to_team.allowed_domains.app_error',
    'The user cannot be added as the domain associated with the account is not permitted. Contact your Organization Administrator for additional details.',
  );
