/**
 * Slash commands in the composer, the parts with no DOM and no server (unit-tested in Node): whether a message is
 * a command, the command line as Mattermost's web app sends it, the error of an unknown command, and where a
 * command's `goto_location` leads.
 */

/** A message that runs a command: it starts with "/" (Mattermost: a leading space sends it as a message). */
export function isCommand(message: string): boolean {
  return message.startsWith('/') && message.length > 1;
}

/**
 * The command line sent to ExecuteCommand, as Mattermost's web app makes it: the trigger lower-cased, one space,
 * the rest trimmed (`/code` keeps its text as typed, but for trailing space).
 */
export function commandLine(message: string): string {
  let end = message.search(/\s/);
  if (end < 0) end = message.length;
  const trigger = message.slice(0, end).toLowerCase();
  const rest = message.slice(end);
  return trigger === '/code' ? `${trigger} ${rest.replace(/^[ \t]/, '').trimEnd()}` : `${trigger} ${rest.trim()}`;
}

/** The command's first word (with its "/"), as the unknown-command error names it. */
export function commandTrigger(message: string): string {
  const end = message.search(/\s/);
  return end < 0 ? message : message.slice(0, end);
}

export const NOT_FOUND_ID = 'api.command.execute_command.not_found.app_error';

/** Mattermost's web app's words for an unknown command (followed by its "send as a message" link). */
export function notFoundText(message: string): string {
  return `Command with a trigger of '${commandTrigger(message)}' not found.`;
}

export type GotoTarget = { kind: 'route'; path: string } | { kind: 'external'; url: string } | { kind: 'logout' } | { kind: 'none' };

/**
 * Where a command's `goto_location` leads, as Mattermost's web app reads it: a path or a URL of this site is shown
 * in the page (no reload); `/logout` logs out; another site's http(s) URL opens in a new tab; anything else
 * (javascript:, data:, …) is ignored.
 */
export function gotoTarget(location: string, origin: string, siteUrl = ''): GotoTarget {
  const value = location.trim();
  if (!value) return { kind: 'none' };
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return { kind: 'none' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'none' };
  let site: URL | undefined;
  try {
    site = siteUrl ? new URL(siteUrl) : undefined;
  } catch {
    site = undefined;
  }
  const local = url.origin === origin || (site !== undefined && url.origin === site.origin);
  if (!local) return { kind: 'external', url: url.href };
  const path = `${url.pathname}${url.search}`;
  if (url.pathname === '/logout') return { kind: 'logout' };
  return { kind: 'route', path };
}
