/**
 * Light and dark, kept where Mattermost keeps them: the user's preferences on the server, so every browser (and
 * Mattermost's own apps) of the user shows the same. The facts mirrored:
 * - category `theme`, name "" (all teams) or a team id (that team only, first): a JSON theme object whose `type`
 *   names a built-in theme ("Denim", "Sapphire", "Quartz" light; "Indigo", "Onyx" dark) or is "custom";
 * - following the system (Mattermost's automatic light/dark switching): category `display_settings`, name
 *   `theme_auto_switch`, "true"/"false"; the theme for dark mode in category `theme_dark` (same names, same value
 *   shape); `theme` is then the light mode's.
 * Parley has one light and one dark palette: a stored theme only decides which of the two shows.
 */

export interface ThemePreference {
  user_id: string;
  category: string;
  name: string;
  value: string;
}

export type ThemeSetting = 'light' | 'dark' | 'system';

export const THEME_CATEGORY = 'theme';
export const THEME_DARK_CATEGORY = 'theme_dark';
export const DISPLAY_SETTINGS_CATEGORY = 'display_settings';
export const THEME_AUTO_SWITCH = 'theme_auto_switch';

/** Mattermost's Denim, the default light theme. */
export const DENIM: Record<string, string> = {
  type: 'Denim',
  sidebarBg: '#1e325c',
  sidebarText: '#ffffff',
  sidebarUnreadText: '#ffffff',
  sidebarTextHoverBg: '#28427b',
  sidebarTextActiveBorder: '#5d89ea',
  sidebarTextActiveColor: '#ffffff',
  sidebarHeaderBg: '#192a4d',
  sidebarHeaderTextColor: '#ffffff',
  sidebarTeamBarBg: '#14213e',
  onlineIndicator: '#3db887',
  awayIndicator: '#ffbc1f',
  dndIndicator: '#d24b4e',
  mentionBg: '#ffffff',
  mentionColor: '#1e325c',
  centerChannelBg: '#ffffff',
  centerChannelColor: '#3f4350',
  newMessageSeparator: '#cc8f00',
  linkColor: '#386fe5',
  buttonBg: '#1c58d9',
  buttonColor: '#ffffff',
  errorTextColor: '#d24b4e',
  mentionHighlightBg: '#ffd470',
  mentionHighlightLink: '#1b1d22',
  codeTheme: 'github',
};

/** Mattermost's Onyx, the dark theme Parley's dark palette follows. */
export const ONYX: Record<string, string> = {
  type: 'Onyx',
  sidebarBg: '#202228',
  sidebarText: '#ffffff',
  sidebarUnreadText: '#ffffff',
  sidebarTextHoverBg: '#25262a',
  sidebarTextActiveBorder: '#4a7ce8',
  sidebarTextActiveColor: '#ffffff',
  sidebarHeaderBg: '#24272d',
  sidebarHeaderTextColor: '#ffffff',
  sidebarTeamBarBg: '#292c33',
  onlineIndicator: '#3db887',
  awayIndicator: '#f5ab00',
  dndIndicator: '#d24b4e',
  mentionBg: '#4b7ce7',
  mentionColor: '#ffffff',
  centerChannelBg: '#191b1f',
  centerChannelColor: '#e3e4e8',
  newMessageSeparator: '#1adbdb',
  linkColor: '#5d89ea',
  buttonBg: '#4a7ce8',
  buttonColor: '#ffffff',
  errorTextColor: '#da6c6e',
  mentionHighlightBg: '#0d6e6e',
  mentionHighlightLink: '#a4f4f4',
  codeTheme: 'monokai',
};

const DARK_TYPES = new Set(['onyx', 'indigo', 'mattermost dark', 'windows dark']);
const LIGHT_TYPES = new Set(['denim', 'sapphire', 'quartz', 'mattermost', 'organization']);

/** The preferences this module reads (and the only ones the client keeps for it). */
export function isThemePreference(p: { category: string; name: string }): boolean {
  return p.category === THEME_CATEGORY || p.category === THEME_DARK_CATEGORY || (p.category === DISPLAY_SETTINGS_CATEGORY && p.name === THEME_AUTO_SWITCH);
}

/** Relative luminance of #rgb / #rrggbb (WCAG's formula); undefined for anything else. */
function luminance(colour: string): number | undefined {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour.trim());
  if (!m) return undefined;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Whether a stored theme value is a dark one: by its built-in name, else (custom) by its centre background. */
export function isDarkTheme(value: string): boolean {
  let theme: unknown;
  try {
    theme = JSON.parse(value);
  } catch {
    return false;
  }
  if (theme === null || typeof theme !== 'object') return false;
  const t = theme as Record<string, unknown>;
  const type = typeof t.type === 'string' ? t.type.toLowerCase() : '';
  if (DARK_TYPES.has(type)) return true;
  if (LIGHT_TYPES.has(type)) return false;
  const bg = typeof t.centerChannelBg === 'string' ? luminance(t.centerChannelBg) : undefined;
  return bg !== undefined && bg < 0.2;
}

/** A category's value for the team (its own first, then the one for all teams), as Mattermost's getTheme reads it. */
function pick(prefs: ThemePreference[], category: string, teamId: string | undefined): ThemePreference | undefined {
  return (teamId ? prefs.find((p) => p.category === category && p.name === teamId) : undefined) ?? prefs.find((p) => p.category === category && p.name === '');
}

/**
 * What the user chose. Nothing stored follows the system (the default; Mattermost's would be Denim); automatic
 * switching follows it too; otherwise the stored theme's darkness decides (Denim when only `theme_auto_switch` =
 * "false" is stored, as Mattermost's default).
 */
export function themeSetting(prefs: ThemePreference[], teamId?: string): ThemeSetting {
  const auto = prefs.find((p) => p.category === DISPLAY_SETTINGS_CATEGORY && p.name === THEME_AUTO_SWITCH)?.value;
  const theme = pick(prefs, THEME_CATEGORY, teamId);
  if (auto === 'true') return 'system';
  if (auto !== 'false' && !theme) return 'system';
  return theme && isDarkTheme(theme.value) ? 'dark' : 'light';
}

/**
 * The preferences to save and to delete for a choice. A stored theme of the right darkness is kept (a user's
 * Sapphire from Mattermost stays Sapphire), otherwise Denim or Onyx is written. The choice is for all teams, as
 * Mattermost's "apply to all teams": team-specific themes are deleted.
 */
export function themeChanges(setting: ThemeSetting, prefs: ThemePreference[], userId: string): { save: ThemePreference[]; remove: ThemePreference[] } {
  const current = (category: string) => prefs.find((p) => p.category === category && p.name === '');
  const keepOr = (category: string, dark: boolean, fallback: Record<string, string>): ThemePreference => {
    const found = current(category);
    const value = found && isDarkTheme(found.value) === dark ? found.value : JSON.stringify(fallback);
    return { user_id: userId, category, name: '', value };
  };
  const auto = (on: boolean): ThemePreference => ({ user_id: userId, category: DISPLAY_SETTINGS_CATEGORY, name: THEME_AUTO_SWITCH, value: on ? 'true' : 'false' });
  const save =
    setting === 'system'
      ? [keepOr(THEME_CATEGORY, false, DENIM), keepOr(THEME_DARK_CATEGORY, true, ONYX), auto(true)]
      : [setting === 'dark' ? keepOr(THEME_CATEGORY, true, ONYX) : keepOr(THEME_CATEGORY, false, DENIM), auto(false)];
  const remove = prefs.filter((p) => (p.category === THEME_CATEGORY || p.category === THEME_DARK_CATEGORY) && p.name !== '').map((p) => ({ ...p, user_id: userId }));
  return { save, remove };
}

const key = (p: { category: string; name: string }) => `${p.category}\u0000${p.name}`;

/** The kept theme preferences after some were saved (anywhere: the `preferences_changed` event too). */
export function mergeThemePreferences(prefs: ThemePreference[], saved: ThemePreference[]): ThemePreference[] {
  const relevant = saved.filter(isThemePreference);
  if (!relevant.length) return prefs;
  const replaced = new Set(relevant.map(key));
  return [...prefs.filter((p) => !replaced.has(key(p))), ...relevant];
}

/** The kept theme preferences after some were deleted. */
export function dropThemePreferences(prefs: ThemePreference[], deleted: Array<{ category: string; name: string }>): ThemePreference[] {
  const gone = new Set(deleted.filter(isThemePreference).map(key));
  if (!gone.size) return prefs;
  return prefs.filter((p) => !gone.has(key(p)));
}
