/**
 * The system console's pages, as Mattermost's (`/admin_console/<group>/<page>`, the same groups, names and
 * wording where Mattermost has them), each a form over settings of the server's config (GetConfig / PatchConfig),
 * and how a PatchConfig error is put beside the setting it concerns. Pure: no DOM, unit-tested in Node.
 */

export type SettingKind = 'text' | 'number' | 'bool' | 'password' | 'select';

export interface Setting {
  /** `Section.Key` of the server's config. */
  key: string;
  label: string;
  help: string;
  kind: SettingKind;
  options?: Array<{ value: string; label: string }>;
  placeholder?: string;
  /** Shown only while this boolean setting (a key of the same page) is on, as Mattermost greys out dependants. */
  dependsOn?: string;
}

export interface ConsolePage {
  group: string;
  groupLabel: string;
  page: string;
  title: string;
  settings: Setting[];
}

export const CONSOLE_PAGES: readonly ConsolePage[] = [
  {
    group: 'environment',
    groupLabel: 'Environment',
    page: 'web_server',
    title: 'Web Server',
    settings: [
      {
        key: 'ServiceSettings.SiteURL',
        label: 'Site URL',
        kind: 'text',
        placeholder: 'Ex "https://chat.example.com:8065"',
        help: 'The URL that users will use to access Parley. It is used in email notifications, invite links and the response URL of slash commands. It cannot be cleared once set.',
      },
    ],
  },
  {
    group: 'environment',
    groupLabel: 'Environment',
    page: 'smtp',
    title: 'SMTP',
    settings: [
      { key: 'EmailSettings.SMTPServer', label: 'SMTP Server', kind: 'text', placeholder: 'Ex "smtp.yourcompany.com"', help: 'Location of the SMTP email server.' },
      { key: 'EmailSettings.SMTPPort', label: 'SMTP Server Port', kind: 'text', placeholder: 'Ex "25", "465", "587"', help: 'Port of the SMTP email server.' },
      {
        key: 'EmailSettings.ConnectionSecurity',
        label: 'Connection Security',
        kind: 'select',
        options: [
          { value: '', label: 'None' },
          { value: 'TLS', label: 'TLS (Recommended)' },
          { value: 'STARTTLS', label: 'STARTTLS' },
        ],
        help: 'None: send email over an unsecure connection. TLS: encrypt the connection from the start. STARTTLS: upgrade an existing connection to TLS.',
      },
      { key: 'EmailSettings.SMTPUsername', label: 'SMTP Server Username', kind: 'text', placeholder: 'Ex "admin@yourcompany.com"', help: 'The username for authenticating to the SMTP server; empty for none.' },
      {
        key: 'EmailSettings.SMTPPassword',
        label: 'SMTP Server Password',
        kind: 'password',
        help: 'The password associated with the SMTP username. It is never shown: leave it as it is to keep the stored password.',
      },
    ],
  },
  {
    group: 'environment',
    groupLabel: 'Environment',
    page: 'rate_limiting',
    title: 'Rate Limiting',
    settings: [
      { key: 'RateLimitSettings.Enable', label: 'Enable Rate Limiting', kind: 'bool', help: 'When true, APIs are throttled at rates specified below.' },
      { key: 'RateLimitSettings.PerSec', label: 'Maximum Queries per Second', kind: 'number', dependsOn: 'RateLimitSettings.Enable', help: 'Throttles the API at this number of requests per second.' },
      { key: 'RateLimitSettings.MaxBurst', label: 'Maximum Burst Size', kind: 'number', dependsOn: 'RateLimitSettings.Enable', help: 'Maximum number of requests allowed beyond the per second query limit.' },
      { key: 'RateLimitSettings.MemoryStoreSize', label: 'Memory Store Size', kind: 'number', dependsOn: 'RateLimitSettings.Enable', help: 'Maximum number of users sessions connected to the system as determined by the settings below.' },
      { key: 'RateLimitSettings.VaryByRemoteAddr', label: 'Vary rate limit by remote address', kind: 'bool', dependsOn: 'RateLimitSettings.Enable', help: 'When true, rate limit API access by IP address.' },
      { key: 'RateLimitSettings.VaryByUser', label: 'Vary rate limit by user', kind: 'bool', dependsOn: 'RateLimitSettings.Enable', help: 'When true, rate limit API access by user authentication token.' },
      { key: 'RateLimitSettings.VaryByHeader', label: 'Vary rate limit by HTTP header', kind: 'text', dependsOn: 'RateLimitSettings.Enable', placeholder: 'Ex "X-Real-IP", "X-Forwarded-For"', help: 'When filled in, vary rate limiting by the HTTP header field specified.' },
      { key: 'RateLimitSettings.WebhookPerSec', label: 'Webhook posts per second', kind: 'number', help: "Posts per second each incoming webhook may make (0: no limit). Parley's own setting, on whether or not the API limit is enabled." },
      { key: 'RateLimitSettings.WebhookMaxBurst', label: 'Webhook burst size', kind: 'number', help: 'Posts an incoming webhook may make at once beyond its per second limit.' },
    ],
  },
  {
    group: 'site_config',
    groupLabel: 'Site Configuration',
    page: 'customization',
    title: 'Customization',
    settings: [{ key: 'TeamSettings.SiteName', label: 'Site Name', kind: 'text', placeholder: 'Ex "Parley"', help: 'Name of service shown in login screens and UI. When not specified, it defaults to "Parley". At most 30 characters.' }],
  },
  {
    group: 'site_config',
    groupLabel: 'Site Configuration',
    page: 'users_and_teams',
    title: 'Users and Teams',
    settings: [
      {
        key: 'TeamSettings.MaxNotificationsPerChannel',
        label: 'Max Notifications Per Channel',
        kind: 'number',
        help: 'Maximum total number of users in a channel before users typing messages, @all, @here, and @channel no longer send notifications because of performance.',
      },
    ],
  },
  {
    group: 'site_config',
    groupLabel: 'Site Configuration',
    page: 'notifications',
    title: 'Notifications',
    settings: [
      { key: 'EmailSettings.SendEmailNotifications', label: 'Enable Email Notifications', kind: 'bool', help: 'Sends email notifications to users who are mentioned or sent a direct message while away or offline.' },
      { key: 'EmailSettings.FeedbackName', label: 'Notification Display Name', kind: 'text', placeholder: 'Ex "Parley Notification", "System", "No-Reply"', help: 'Display name on email account used when sending notification emails from Parley.' },
      { key: 'EmailSettings.FeedbackEmail', label: 'Notification From Address', kind: 'text', placeholder: 'Ex "parley@yourcompany.com", "admin@yourcompany.com"', help: 'Email address displayed on email account used when sending notification emails from Parley.' },
    ],
  },
  {
    group: 'authentication',
    groupLabel: 'Authentication',
    page: 'signup',
    title: 'Signup',
    settings: [
      { key: 'TeamSettings.EnableUserCreation', label: 'Enable Account Creation', kind: 'bool', help: 'When false, the ability to create accounts is disabled: sign-up is refused, even through an invite link.' },
      { key: 'TeamSettings.EnableOpenServer', label: 'Enable Open Server', kind: 'bool', help: 'When true, anyone can sign up for a user account on this server without the need to be invited.' },
    ],
  },
  {
    group: 'integrations',
    groupLabel: 'Integrations',
    page: 'integration_management',
    title: 'Integration Management',
    settings: [
      { key: 'ServiceSettings.EnableIncomingWebhooks', label: 'Enable Incoming Webhooks', kind: 'bool', help: 'When true, incoming webhooks will be allowed. To help combat phishing attacks, all posts from webhooks will be labelled by a BOT tag.' },
      { key: 'ServiceSettings.EnableOutgoingWebhooks', label: 'Enable Outgoing Webhooks', kind: 'bool', help: 'When true, outgoing webhooks will be allowed.' },
      { key: 'ServiceSettings.EnableCommands', label: 'Enable Custom Slash Commands', kind: 'bool', help: 'When true, slash commands run and custom slash commands may be created (when false, built-in commands do not run either).' },
      { key: 'ServiceSettings.EnablePostUsernameOverride', label: 'Enable integrations to override usernames', kind: 'bool', help: 'When true, integrations are allowed to change the username on which they are posting.' },
      { key: 'ServiceSettings.EnablePostIconOverride', label: 'Enable integrations to override profile picture icons', kind: 'bool', help: 'When true, integrations are allowed to change the profile picture icon on which they are posting.' },
    ],
  },
  {
    group: 'integrations',
    groupLabel: 'Integrations',
    page: 'bot_accounts',
    title: 'Bot Accounts',
    settings: [{ key: 'ServiceSettings.EnableBotAccountCreation', label: 'Enable Bot Account Creation', kind: 'bool', help: 'When true, system admins can create bot accounts for integrations in Integrations > Bot Accounts.' }],
  },
];

export function consolePath(page: Pick<ConsolePage, 'group' | 'page'>): string {
  return `/admin_console/${page.group}/${page.page}`;
}

/** The page a console path names; `/admin_console` itself (or an unknown page) names none. */
export function findConsolePage(group: string, page: string): ConsolePage | undefined {
  return CONSOLE_PAGES.find((p) => p.group === group && p.page === page);
}

export type ConfigObject = Record<string, Record<string, unknown>>;
/** A form's values: `Section.Key` → what the control holds (text, or a boolean for a true/false setting). */
export type FormValues = Record<string, string | boolean>;

/** What the server's config says for a page's settings, as the form holds them. */
export function formValues(page: ConsolePage, config: ConfigObject): FormValues {
  const out: FormValues = {};
  for (const s of page.settings) {
    const [section, key] = s.key.split('.');
    const value = config[section]?.[key];
    out[s.key] = s.kind === 'bool' ? value === true : value === undefined || value === null ? '' : String(value);
  }
  return out;
}

/** The password mask GetConfig returns in place of a secret (Mattermost's FakeSetting). */
export const MASK = '********************************';

/**
 * The PatchConfig body for what changed on a page: only the settings that differ from the saved ones, typed as
 * the server's config has them. A number field that is not a number is sent as it is typed (a string), so the
 * server's own validation answers it. A masked password left as it is is never sent.
 */
export function buildPatch(page: ConsolePage, saved: FormValues, edited: FormValues): ConfigObject {
  const patch: ConfigObject = {};
  for (const s of page.settings) {
    const value = edited[s.key];
    if (value === saved[s.key]) continue;
    if (s.kind === 'password' && value === MASK) continue;
    const [section, key] = s.key.split('.');
    let out: unknown = value;
    if (s.kind === 'number' && typeof value === 'string') {
      const trimmed = value.trim();
      out = trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : value;
    }
    (patch[section] ??= {})[key] = out;
  }
  return patch;
}

export function isDirty(page: ConsolePage, saved: FormValues, edited: FormValues): boolean {
  return Object.keys(buildPatch(page, saved, edited)).length > 0;
}

/** Mattermost's config error ids (`model.config.is_valid.<id>.app_error`) → the setting each one concerns. */
const ERROR_FIELDS: Record<string, string> = {
  site_url: 'ServiceSettings.SiteURL',
  sitename_length: 'TeamSettings.SiteName',
  max_notify_per_channel: 'TeamSettings.MaxNotificationsPerChannel',
  rate_sec: 'RateLimitSettings.PerSec',
  max_burst: 'RateLimitSettings.MaxBurst',
  rate_mem: 'RateLimitSettings.MemoryStoreSize',
  webhook_rate_sec: 'RateLimitSettings.WebhookPerSec',
  webhook_max_burst: 'RateLimitSettings.WebhookMaxBurst',
  email_security: 'EmailSettings.ConnectionSecurity',
};

const SPECIAL_IDS: Record<string, string> = {
  'api.config.update_config.clear_siteurl.app_error': 'ServiceSettings.SiteURL',
};

/**
 * The setting a PatchConfig error concerns, when it names one: a config rule's id, or the request validator's
 * "body/<Section>/<Key> …" path; undefined for any other error (shown for the whole form).
 */
export function errorField(error: { id: string; message: string }, keys: readonly string[]): string | undefined {
  const special = SPECIAL_IDS[error.id];
  if (special) return keys.includes(special) ? special : undefined;
  const rule = /^model\.config\.is_valid\.(.+)\.app_error$/.exec(error.id);
  if (rule) {
    const key = ERROR_FIELDS[rule[1]];
    return key && keys.includes(key) ? key : undefined;
  }
  if (error.id === 'api.context.invalid_param.app_error') {
    for (const m of error.message.matchAll(/body\/([A-Za-z]+)\/([A-Za-z]+)/g)) {
      const key = `${m[1]}.${m[2]}`;
      if (keys.includes(key)) return key;
    }
  }
  return undefined;
}
