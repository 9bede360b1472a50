/**
 * Post props only the server sets (docs/webhook-rules.md, rule 8): the BOT marker and the name
 * and icon shown. Neither a post's author nor a webhook payload can set them through `props`; editing a post keeps
 * them as they were.
 */
export const SERVER_PROPS = ['from_webhook', 'from_bot', 'override_username', 'override_icon_url', 'override_icon_emoji', 'webhook_display_name'] as const;

/** What a webhook payload's `props` may not set: the server's own props, and `attachments` (sent at the top level). */
export const WEBHOOK_RESERVED_PROPS = [...SERVER_PROPS, 'attachments'] as const;
