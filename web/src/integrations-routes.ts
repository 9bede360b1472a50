/**
 * The integrations page's URLs, as Mattermost's web app has them under `/{team}/integrations`: `incoming_webhooks`,
 * `outgoing_webhooks`, `commands/installed` (`commands` alone too) and `bots`, each with `/add` and `/edit?id=`, and
 * `confirm?type=<section>&id=` after adding. Parley adds `<section>/deliveries?id=` (the delivery log of an
 * outgoing webhook or a command). Pure: unit-tested in Node.
 */

export type IntegrationSection = 'incoming_webhooks' | 'outgoing_webhooks' | 'commands' | 'bots';

export type IntegrationsView =
  | { page: 'home' }
  | { page: 'list'; section: IntegrationSection }
  | { page: 'add'; section: IntegrationSection }
  | { page: 'edit'; section: IntegrationSection; id: string }
  | { page: 'deliveries'; section: 'outgoing_webhooks' | 'commands'; id: string }
  | { page: 'confirm'; section: IntegrationSection; id: string };

const SECTIONS: readonly IntegrationSection[] = ['incoming_webhooks', 'outgoing_webhooks', 'commands', 'bots'];

function isSection(s: string): s is IntegrationSection {
  return (SECTIONS as readonly string[]).includes(s);
}

/** The view a path below `/{team}/integrations` names (`rest` is what follows it, without a leading slash). */
export function parseIntegrationsPath(rest: string, search: string): IntegrationsView | undefined {
  const q = new URLSearchParams(search);
  const id = q.get('id') ?? '';
  const parts = rest.split('/').filter(Boolean);
  if (parts.length === 0) return { page: 'home' };
  if (parts[0] === 'confirm' && parts.length === 1) {
    const type = q.get('type') ?? '';
    return isSection(type) && id ? { page: 'confirm', section: type, id } : { page: 'home' };
  }
  const section = parts[0];
  if (!isSection(section)) return undefined;
  // Mattermost's list of commands is `commands/installed`; `commands` alone leads there too.
  const tail = section === 'commands' && parts[1] === 'installed' ? parts.slice(2) : parts.slice(1);
  if (tail.length === 0) return { page: 'list', section };
  if (tail.length > 1) return undefined;
  if (tail[0] === 'add') return { page: 'add', section };
  if (tail[0] === 'edit') return id ? { page: 'edit', section, id } : { page: 'list', section };
  if (tail[0] === 'deliveries' && (section === 'outgoing_webhooks' || section === 'commands')) return id ? { page: 'deliveries', section, id } : { page: 'list', section };
  return undefined;
}

/** The path of a view of a team's integrations page. */
export function integrationsPath(team: string, view: IntegrationsView): string {
  const base = `/${encodeURIComponent(team)}/integrations`;
  const q = (id: string) => `?id=${encodeURIComponent(id)}`;
  switch (view.page) {
    case 'home':
      return base;
    case 'list':
      return `${base}/${view.section === 'commands' ? 'commands/installed' : view.section}`;
    case 'add':
      return `${base}/${view.section}/add`;
    case 'edit':
      return `${base}/${view.section}/edit${q(view.id)}`;
    case 'deliveries':
      return `${base}/${view.section}/deliveries${q(view.id)}`;
    case 'confirm':
      return `${base}/confirm?type=${view.section}&id=${encodeURIComponent(view.id)}`;
  }
}

/** An incoming webhook's URL: the site URL when the server has one, else the page's own origin. */
export function incomingHookUrl(siteUrl: string | undefined, origin: string, hookId: string): string {
  return `${(siteUrl || origin).replace(/\/+$/, '')}/hooks/${hookId}`;
}

/** A curl command that posts a message through the hook (shown after adding one, to try it at once). */
export function curlExample(url: string): string {
  return `curl -i -X POST -H 'Content-Type: application/json' -d '{"text": "Hello, this is some text\\nThis is more text. :tada:"}' ${url}`;
}

/** Text from a list field (one per line or separated by commas/spaces, as typed) → the non-empty entries. */
export function splitList(text: string, by: 'lines' | 'words'): string[] {
  const parts = by === 'lines' ? text.split(/\r?\n/) : text.split(/[\s,]+/);
  return parts.map((p) => p.trim()).filter(Boolean);
}
