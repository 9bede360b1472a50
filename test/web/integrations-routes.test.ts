// The integrations page's URLs (Mattermost's under /{team}/integrations, plus Parley's delivery logs), the hook URL
// and curl example it shows, and which form field a server error belongs beside.
import { fieldOfError } from '../../web/src/integrations-errors';
import { curlExample, incomingHookUrl, integrationsPath, parseIntegrationsPath, splitList, type IntegrationsView } from '../../web/src/integrations-routes';
import { parseRoute } from '../../web/src/routes';

describe('integrations routes', () => {
  test.each<[string, string, IntegrationsView | undefined]>([
    ['', '', { page: 'home' }],
    ['incoming_webhooks', '', { page: 'list', section: 'incoming_webhooks' }],
    ['incoming_webhooks/add', '', { page: 'add', section: 'incoming_webhooks' }],
    ['incoming_webhooks/edit', '?id=abc', { page: 'edit', section: 'incoming_webhooks', id: 'abc' }],
    ['incoming_webhooks/edit', '', { page: 'list', section: 'incoming_webhooks' }],
    ['outgoing_webhooks/deliveries', '?id=h1', { page: 'deliveries', section: 'outgoing_webhooks', id: 'h1' }],
    ['commands', '', { page: 'list', section: 'commands' }],
    ['commands/installed', '', { page: 'list', section: 'commands' }],
    ['commands/installed/add', '', { page: 'add', section: 'commands' }],
    ['commands/add', '', { page: 'add', section: 'commands' }],
    ['commands/deliveries', '?id=c1', { page: 'deliveries', section: 'commands', id: 'c1' }],
    ['bots/edit', '?id=b1', { page: 'edit', section: 'bots', id: 'b1' }],
    ['bots/deliveries', '?id=b1', undefined],
    ['confirm', '?type=incoming_webhooks&id=x1', { page: 'confirm', section: 'incoming_webhooks', id: 'x1' }],
    ['confirm', '?type=oauth2-apps&id=x1', { page: 'home' }],
    ['oauth2-apps', '', undefined],
    ['incoming_webhooks/add/more', '', undefined],
  ])('%s%s', (rest, search, want) => {
    expect(parseIntegrationsPath(rest, search)).toEqual(want);
  });

  test('every view survives its own path', () => {
    const views: IntegrationsView[] = [
      { page: 'home' },
      { page: 'list', section: 'commands' },
      { page: 'list', section: 'bots' },
      { page: 'add', section: 'outgoing_webhooks' },
      { page: 'edit', section: 'incoming_webhooks', id: 'a b&c' },
      { page: 'deliveries', section: 'commands', id: 'x' },
      { page: 'confirm', section: 'bots', id: 'y' },
    ];
    for (const view of views) {
      const url = new URL(integrationsPath('team-a', view), 'http://x');
      expect(parseRoute(url.pathname, url.search)).toEqual({ kind: 'integrations', team: 'team-a', view });
    }
    expect(integrationsPath('team-a', { page: 'list', section: 'commands' })).toBe('/team-a/integrations/commands/installed');
    expect(integrationsPath('team-a', { page: 'confirm', section: 'incoming_webhooks', id: 'h' })).toBe('/team-a/integrations/confirm?type=incoming_webhooks&id=h');
  });

  test('a channel or a team page is not taken for the integrations page', () => {
    expect(parseRoute('/team-a/channels/integrations', '')).toEqual({ kind: 'channel', team: 'team-a', channel: 'integrations' });
    expect(parseRoute('/integrations', '')).toEqual({ kind: 'team', team: 'integrations' });
    expect(parseRoute('/team-a/integrations/nothing', '').kind).toBe('unknown');
  });

  test('the hook URL is the site URL when set, else the page origin; the curl example posts JSON to it', () => {
    expect(incomingHookUrl('https://chat.example.com/', 'http://127.0.0.1:8065', 'abc')).toBe('https://chat.example.com/hooks/abc');
    expect(incomingHookUrl('', 'http://127.0.0.1:8065', 'abc')).toBe('http://127.0.0.1:8065/hooks/abc');
    expect(incomingHookUrl(undefined, 'http://h', 'abc')).toBe('http://h/hooks/abc');
    const curl = curlExample('http://h/hooks/abc');
    expect(curl).toMatch(/^curl -i -X POST -H 'Content-Type: application\/json' -d '\{"text": ".*"\}' http:\/\/h\/hooks\/abc$/);
    expect(JSON.parse(/-d '(.*)'/.exec(curl)![1]).text).toContain('\n');
  });

  test('lists typed one per line', () => {
    expect(splitList(' deploy \n\nship\r\n', 'lines')).toEqual(['deploy', 'ship']);
    expect(splitList('a, b  c', 'words')).toEqual(['a', 'b', 'c']);
  });
});

describe('server errors beside their field', () => {
  test.each([
    ['incoming_webhooks', 'model.incoming_hook.display_name.app_error', '', 'display_name'],
    ['incoming_webhooks', 'api.incoming_webhook.invalid_username.app_error', '', 'username'],
    ['incoming_webhooks', 'model.incoming_hook.icon_url.app_error', '', 'icon_url'],
    ['incoming_webhooks', 'api.context.invalid_param.app_error', 'Invalid or missing channel_id parameter in request body or URL.', 'channel_id'],
    ['incoming_webhooks', 'app.channel.get.existing.app_error', '', 'channel_id'],
    ['outgoing_webhooks', 'model.outgoing_hook.is_valid.callback.app_error', '', 'callback_urls'],
    ['outgoing_webhooks', 'model.outgoing_hook.is_valid.url.app_error', '', 'callback_urls'],
    ['outgoing_webhooks', 'model.outgoing_hook.is_valid.words.app_error', '', 'trigger_words'],
    ['outgoing_webhooks', 'api.webhook.create_outgoing.triggers.app_error', '', 'trigger_words'],
    ['outgoing_webhooks', 'api.webhook.create_outgoing.not_open.app_error', '', 'channel_id'],
    ['outgoing_webhooks', 'api.webhook.create_outgoing.intersect.app_error', '', 'form'],
    ['commands', 'model.command.is_valid.trigger.app_error', '', 'trigger'],
    ['commands', 'api.command.duplicate_trigger.app_error', '', 'trigger'],
    ['commands', 'model.command.is_valid.url_http.app_error', '', 'url'],
    ['commands', 'model.command.is_valid.auto_complete_hint.app_error', '', 'auto_complete_hint'],
    ['commands', 'model.command.is_valid.description.app_error', '', 'description'],
    ['bots', 'model.bot.is_valid.username.app_error', '', 'username'],
    ['bots', 'app.user.save.username_exists.app_error', '', 'username'],
    ['bots', 'model.bot.is_valid.user_id.app_error', '', 'display_name'],
    ['bots', 'model.user_access_token.is_valid.description', '', 'token_description'],
    ['bots', 'api.bot.create_disabled', '', 'form'],
  ] as const)('%s: %s', (section, id, message, field) => {
    expect(fieldOfError(section, id, message)).toBe(field);
  });
});
