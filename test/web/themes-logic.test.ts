// The theme's rules (web/src/theme.ts): which theme Mattermost-style preferences mean, what a choice saves and
// deletes, live merges; the <html> attribute the page gets; and the two copies of the dark palette in styles.css.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/spec';
import {
  DENIM,
  ONYX,
  dropThemePreferences,
  isDarkTheme,
  mergeThemePreferences,
  themeChanges,
  themeSetting,
  type ThemePreference,
} from '../../web/src/theme';

const U = 'u'.repeat(26);
const TEAM = 't'.repeat(26);
const pref = (category: string, name: string, value: string): ThemePreference => ({ user_id: U, category, name, value });
const theme = (value: object, name = '') => pref('theme', name, JSON.stringify(value));
const auto = (on: string) => pref('display_settings', 'theme_auto_switch', on);

describe('themeSetting: what stored preferences mean', () => {
  test.each<[string, ThemePreference[], 'light' | 'dark' | 'system']>([
    ['nothing stored: follow the system', [], 'system'],
    ['Denim', [theme(DENIM)], 'light'],
    ['Onyx', [theme(ONYX)], 'dark'],
    ['Indigo (dark by name)', [theme({ type: 'Indigo' })], 'dark'],
    ['Sapphire (light by name)', [theme({ type: 'Sapphire', centerChannelBg: '#000000' })], 'light'],
    ['legacy "Mattermost Dark"', [theme({ type: 'Mattermost Dark' })], 'dark'],
    ['a custom theme with a dark centre', [theme({ type: 'custom', centerChannelBg: '#1f1f1f' })], 'dark'],
    ['a custom theme with a light centre', [theme({ type: 'custom', centerChannelBg: '#f0f0f0' })], 'light'],
    ['automatic switching on', [theme(DENIM), pref('theme_dark', '', JSON.stringify(ONYX)), auto('true')], 'system'],
    ['automatic switching off, Onyx', [theme(ONYX), auto('false')], 'dark'],
    ['automatic switching off, no theme: Mattermost default Denim', [auto('false')], 'light'],
    ['a broken value reads as light', [pref('theme', '', 'not json')], 'light'],
    ['unrelated preferences only', [pref('display_settings', 'use_military_time', 'true')], 'system'],
  ])('%s', (_name, prefs, want) => {
    expect(themeSetting(prefs)).toBe(want);
  });

  test("a team's own theme comes first for that team, the one for all teams elsewhere", () => {
    const prefs = [theme(DENIM), theme(ONYX, TEAM)];
    expect(themeSetting(prefs, TEAM)).toBe('dark');
    expect(themeSetting(prefs, 'x'.repeat(26))).toBe('light');
    expect(themeSetting(prefs)).toBe('light');
  });

  test('isDarkTheme', () => {
    expect(isDarkTheme(JSON.stringify(ONYX))).toBe(true);
    expect(isDarkTheme(JSON.stringify(DENIM))).toBe(false);
    expect(isDarkTheme('[]')).toBe(false);
    expect(isDarkTheme(JSON.stringify({ centerChannelBg: '#123' }))).toBe(true);
  });
});

describe('themeChanges: what a choice saves and deletes', () => {
  test('dark: Onyx for all teams, automatic switching off', () => {
    const { save, remove } = themeChanges('dark', [], U);
    expect(save).toEqual([pref('theme', '', JSON.stringify(ONYX)), auto('false')]);
    expect(remove).toEqual([]);
    expect(themeSetting(save)).toBe('dark');
  });

  test('light: Denim; a light theme already stored (Sapphire) is kept', () => {
    expect(themeChanges('light', [theme(ONYX)], U).save).toEqual([pref('theme', '', JSON.stringify(DENIM)), auto('false')]);
    const sapphire = theme({ type: 'Sapphire' });
    expect(themeChanges('light', [sapphire], U).save).toEqual([sapphire, auto('false')]);
  });

  test('system: a light `theme`, a dark `theme_dark`, automatic switching on', () => {
    const { save } = themeChanges('system', [theme(ONYX)], U);
    expect(save).toEqual([pref('theme', '', JSON.stringify(DENIM)), pref('theme_dark', '', JSON.stringify(ONYX)), auto('true')]);
    expect(themeSetting(save)).toBe('system');
  });

  test("team-specific themes are deleted (the choice is for all teams), other categories' preferences untouched", () => {
    const prefs = [theme(DENIM), theme(ONYX, TEAM), pref('theme_dark', TEAM, JSON.stringify(ONYX))];
    const { save, remove } = themeChanges('light', prefs, U);
    expect(remove.map((p) => [p.category, p.name])).toEqual([
      ['theme', TEAM],
      ['theme_dark', TEAM],
    ]);
    expect(themeSetting(mergeThemePreferences(dropThemePreferences(prefs, remove), save), TEAM)).toBe('light');
  });
});

describe('live merges (preferences_changed / preferences_deleted)', () => {
  test('a saved theme replaces the one of the same category and name; unrelated preferences are not kept', () => {
    const before = [theme(DENIM), auto('false')];
    const after = mergeThemePreferences(before, [theme(ONYX), pref('flagged_post', 'p'.repeat(26), 'true')]);
    expect(after).toEqual([auto('false'), theme(ONYX)]);
    expect(themeSetting(after)).toBe('dark');
  });

  test('nothing relevant: the same list (no re-render)', () => {
    const before = [theme(DENIM)];
    expect(mergeThemePreferences(before, [pref('flagged_post', 'x', 'true')])).toBe(before);
    expect(dropThemePreferences(before, [pref('flagged_post', 'x', 'true')])).toBe(before);
  });

  test('a deleted theme goes back to following the system', () => {
    expect(themeSetting(dropThemePreferences([theme(ONYX)], [pref('theme', '', '')]))).toBe('system');
  });
});

describe('styles.css: the dark palette', () => {
  const css = readFileSync(join(projectRoot(), 'web', 'src', 'styles.css'), 'utf8');
  const block = (start: string): Map<string, string> => {
    const from = css.indexOf(start);
    expect(from).toBeGreaterThan(-1);
    const body = css.slice(css.indexOf('{', from) + 1, css.indexOf('}', from));
    return new Map([...body.matchAll(/(--[\w-]+|color-scheme):\s*([^;]+);/g)].map((m) => [m[1], m[2].trim()]));
  };

  test('the chosen dark theme and the system dark theme are the same palette, and redefine every colour of :root', () => {
    const root = block(':root {');
    const chosen = block(":root[data-theme='dark'] {");
    const system = block(":root:not([data-theme='light']) {");
    expect([...system]).toEqual([...chosen]);
    const colours = [...root.keys()].filter((k) => /#|rgba?\(|gradient/.test(root.get(k) ?? ''));
    expect(colours.length).toBeGreaterThan(40);
    expect(colours.filter((k) => !chosen.has(k))).toEqual([]);
    expect(chosen.get('color-scheme')).toBe('dark');
  });
});
