import type { IntegrationSection } from './integrations-routes';

/** Field name → the server's words about it; `form` for what is about no one field. */
export type FieldErrors = Record<string, string>;

/**
 * Which field of a section's form a server error is about, from its error id (Mattermost's ids name the field:
 * `model.command.is_valid.trigger.app_error`, `model.incoming_hook.display_name.app_error`, ...) or, for
 * `api.context.invalid_param.app_error`, from the parameter its message names. Aliases: ids whose word is not the
 * field's name. Pure: unit-tested in Node.
 */
const FIELDS: Record<IntegrationSection, Array<[RegExp, string]>> = {
  incoming_webhooks: [
    [/display_name/, 'display_name'],
    [/description/, 'description'],
    [/icon_url/, 'icon_url'],
    [/username/, 'username'],
    [/channel/, 'channel_id'],
  ],
  outgoing_webhooks: [
    [/display_name/, 'display_name'],
    [/description/, 'description'],
    [/content_type/, 'content_type'],
    [/icon_url/, 'icon_url'],
    [/username/, 'username'],
    [/\.(words|trigger_words|triggers)\b/, 'trigger_words'],
    [/\.(callback|url|callback_urls)\b/, 'callback_urls'],
    [/channel|not_open/, 'channel_id'],
  ],
  commands: [
    [/display_name/, 'display_name'],
    [/auto_complete_desc/, 'auto_complete_desc'],
    [/auto_complete_hint/, 'auto_complete_hint'],
    [/description/, 'description'],
    [/icon_url/, 'icon_url'],
    [/username/, 'username'],
    [/trigger/, 'trigger'],
    [/\.(url|url_http)\b/, 'url'],
    [/method/, 'method'],
  ],
  bots: [
    [/user_access_token/, 'token_description'],
    [/username/, 'username'],
    // Mattermost reports a bad display name under model.bot.is_valid.user_id.
    [/\.(user_id|display_name)\b/, 'display_name'],
    [/description/, 'description'],
  ],
};

export function fieldOfError(section: IntegrationSection, id: string, message: string): string {
  let subject = id;
  if (id === 'api.context.invalid_param.app_error') {
    const m = /Invalid or missing (\S+) parameter/.exec(message);
    subject = m ? `.${m[1]}.` : '';
  }
  for (const [pattern, field] of FIELDS[section]) if (pattern.test(subject)) return field;
  return 'form';
}
