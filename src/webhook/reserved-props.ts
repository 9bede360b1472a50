import type { WEBHOOK_RESERVED_PROPS as SERVER_RESERVED } from '../model/props';
import type { PayloadProblem } from './validate';

/**
 * Props keys a payload cannot set (docs/webhook-rules.md, rule 8): the server owns them, so the BOT marker and the
 * name shown on a post cannot be forged. The server does not reject them, it overwrites or drops them; the payload
 * checker and the mock report them so an integration author learns why a value never shows up.
 */
// Keyed by the server's own list, so the two cannot drift apart: a key missing here is a compile error.
export const RESERVED_PROPS: Readonly<Record<(typeof SERVER_RESERVED)[number], string>> = {
  from_webhook: 'reserved key; the server always sets it to "true"',
  webhook_display_name: "reserved key; the server sets it to the hook's display name",
  from_bot: 'reserved key; the server sets it on posts by bot accounts only',
  override_username: 'reserved key; the server drops it: send the top-level "username" (used when EnablePostUsernameOverride is on)',
  override_icon_url: 'reserved key; the server drops it: send the top-level "icon_url" (used when EnablePostIconOverride is on)',
  override_icon_emoji: 'reserved key; the server drops it: send the top-level "icon_emoji" (used when EnablePostIconOverride is on)',
  attachments: 'reserved key; the server drops it: send the top-level "attachments"',
};

/** The reserved keys a decoded payload sets in `props`, as problems with the rule "reserved". */
export function reservedPropsProblems(payload: unknown): PayloadProblem[] {
  if (!payload || typeof payload !== 'object') return [];
  const props = (payload as { props?: unknown }).props;
  if (!props || typeof props !== 'object' || Array.isArray(props)) return [];
  return Object.keys(props)
    .filter((key): key is keyof typeof RESERVED_PROPS => Object.prototype.hasOwnProperty.call(RESERVED_PROPS, key))
    .map((key) => ({ path: `/props/${key}`, rule: 'reserved', message: RESERVED_PROPS[key] }));
}
