// The system console's and the composer's slash-command logic, without a browser: the console's routes and pages,
// which settings a save sends (and in which types), which setting a server error belongs beside; the command line
// as Mattermost's web app sends it, and where a command's goto_location leads.
import { buildPatch, CONSOLE_PAGES, consolePath, errorField, findConsolePage, formValues, isDirty, MASK } from '../../web/src/console-settings';
import { commandLine, gotoTarget, isCommand, notFoundText } from '../../web/src/command-text';
import { parseRoute } from '../../web/src/routes';
import { MASK as SERVER_MASK } from '../../src/config/settings';
import { defaultConfig } from '../../src/config/settings';

const page = (group: string, name: string) => {
  const p = findConsolePage(group, name);
  if (!p) throw new Error(`no page ${group}/${name}`);
  return p;
};

describe('system console pages', () => {
  test('routes: /admin_console and each page, as Mattermost names them; never a team', () => {
    expect(parseRoute('/admin_console', '')).toEqual({ kind: 'console', group: '', page: '' });
    expect(parseRoute('/admin_console/', '')).toEqual({ kind: 'console', group: '', page: '' });
    expect(parseRoute('/admin_console/site_config/customization', '')).toEqual({ kind: 'console', group: 'site_config', page: 'customization' });
    for (const p of CONSOLE_PAGES) expect(parseRoute(consolePath(p), '')).toEqual({ kind: 'console', group: p.group, page: p.page });
    expect(findConsolePage('site_config', 'nope')).toBeUndefined();
    expect(parseRoute('/admin-console', '').kind).toBe('team');
  });

  test('every setting names a key of the server config, once', () => {
    const config = defaultConfig() as unknown as Record<string, Record<string, unknown>>;
    const keys = CONSOLE_PAGES.flatMap((p) => p.settings.map((s) => s.key));
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) {
      const [section, name] = key.split('.');
      expect([key, name in (config[section] ?? {})]).toEqual([key, true]);
    }
    for (const p of CONSOLE_PAGES) for (const s of p.settings) if (s.dependsOn) expect(p.settings.find((x) => x.key === s.dependsOn)?.kind).toBe('bool');
    expect(MASK).toBe(SERVER_MASK);
  });

  test('the form holds text and booleans; a save sends only what changed, typed as the config', () => {
    const rate = page('environment', 'rate_limiting');
    const config = defaultConfig() as unknown as Record<string, Record<string, unknown>>;
    const saved = formValues(rate, config);
    expect(saved['RateLimitSettings.Enable']).toBe(false);
    expect(saved['RateLimitSettings.PerSec']).toBe('10');
    expect(isDirty(rate, saved, saved)).toBe(false);
    const edited = { ...saved, 'RateLimitSettings.Enable': true, 'RateLimitSettings.PerSec': '25', 'RateLimitSettings.VaryByHeader': 'X-Real-IP' };
    expect(buildPatch(rate, saved, edited)).toEqual({ RateLimitSettings: { Enable: true, PerSec: 25, VaryByHeader: 'X-Real-IP' } });
    expect(isDirty(rate, saved, edited)).toBe(true);
    // Not a number: sent as typed, for the server to answer (and its error to be shown beside the field).
    expect(buildPatch(rate, saved, { ...saved, 'RateLimitSettings.PerSec': 'ten' })).toEqual({ RateLimitSettings: { PerSec: 'ten' } });
    expect(buildPatch(rate, saved, { ...saved, 'RateLimitSettings.PerSec': '' })).toEqual({ RateLimitSettings: { PerSec: '' } });
  });

  test('the SMTP password is write-only: the mask is never sent back, a new one is', () => {
    const smtp = page('environment', 'smtp');
    const config = { EmailSettings: { SMTPServer: 'mail', SMTPPort: '25', ConnectionSecurity: '', SMTPUsername: 'u', SMTPPassword: MASK } };
    const saved = formValues(smtp, config);
    expect(saved['EmailSettings.SMTPPassword']).toBe(MASK);
    expect(buildPatch(smtp, saved, { ...saved, 'EmailSettings.SMTPPort': '587' })).toEqual({ EmailSettings: { SMTPPort: '587' } });
    expect(buildPatch(smtp, saved, { ...saved, 'EmailSettings.SMTPPassword': 'hunter2' })).toEqual({ EmailSettings: { SMTPPassword: 'hunter2' } });
  });

  test.each([
    [{ id: 'model.config.is_valid.sitename_length.app_error', message: 'Site name must be…' }, 'TeamSettings.SiteName'],
    [{ id: 'model.config.is_valid.site_url.app_error', message: '' }, 'ServiceSettings.SiteURL'],
    [{ id: 'api.config.update_config.clear_siteurl.app_error', message: '' }, 'ServiceSettings.SiteURL'],
    [{ id: 'model.config.is_valid.rate_sec.app_error', message: '' }, 'RateLimitSettings.PerSec'],
    [{ id: 'api.context.invalid_param.app_error', message: 'Invalid or missing parameters: body/RateLimitSettings/MaxBurst must be >= 0' }, 'RateLimitSettings.MaxBurst'],
    [{ id: 'api.context.invalid_param.app_error', message: 'Invalid or missing parameters: body/EmailSettings/ConnectionSecurity must be equal to one of the allowed values' }, 'EmailSettings.ConnectionSecurity'],
    [{ id: 'api.context.invalid_param.app_error', message: 'Invalid or missing parameters: body must be object' }, undefined],
    [{ id: 'model.config.is_valid.file_driver.app_error', message: '' }, undefined],
    [{ id: 'api.context.permissions.app_error', message: '' }, undefined],
  ])('a PatchConfig error %j is shown beside %s', (error, key) => {
    const all = CONSOLE_PAGES.flatMap((p) => p.settings.map((s) => s.key));
    expect(errorField(error, all)).toBe(key);
  });

  test("an error about a setting of another page is the form's", () => {
    expect(errorField({ id: 'model.config.is_valid.rate_sec.app_error', message: '' }, ['TeamSettings.SiteName'])).toBeUndefined();
  });
});

describe('slash commands in the composer', () => {
  test.each([
    ['/echo hello', true],
    ['/', false],
    [' /echo', false],
    ['hello /echo', false],
    ['//', true],
  ])('isCommand(%j) is %s', (text, want) => expect(isCommand(text)).toBe(want));

  test.each([
    ['/echo hello', '/echo hello'],
    ['/ECHO  hello world  ', '/echo hello world'],
    ['/echo', '/echo '],
    ['/Deploy\napi', '/deploy api'],
    ['/code   x = 1  ', '/code   x = 1'],
  ])('the command line of %j is %j', (text, want) => expect(commandLine(text)).toBe(want));

  test("an unknown command is named as Mattermost's web app names it", () => {
    expect(notFoundText('/nope some text')).toBe("Command with a trigger of '/nope' not found.");
  });

  test.each([
    ['/team-a/channels/deploys', { kind: 'route', path: '/team-a/channels/deploys' }],
    ['https://chat.example.com/team-a/channels/x?y=1', { kind: 'route', path: '/team-a/channels/x?y=1' }],
    ['http://127.0.0.1:9/team-a/channels/x', { kind: 'route', path: '/team-a/channels/x' }],
    ['https://elsewhere.example.org/page', { kind: 'external', url: 'https://elsewhere.example.org/page' }],
    ['/logout', { kind: 'logout' }],
    ['javascript:alert(1)', { kind: 'none' }],
    ['data:text/html,x', { kind: 'none' }],
    ['', { kind: 'none' }],
  ])('goto_location %j leads to %j', (loc, want) => {
    expect(gotoTarget(loc, 'http://127.0.0.1:9', 'https://chat.example.com')).toEqual(want);
  });
});
