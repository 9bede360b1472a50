import { rest } from '../api';
import { errorText } from '../error-text';
import { appStore } from '../state/app-store';
import { dropThemePreferences, isThemePreference, mergeThemePreferences, themeChanges, type ThemePreference, type ThemeSetting } from '../theme';

/** The theme: read from the user's preferences at the session's start, chosen in the account settings, live. */

/** Reads the user's theme preferences (at the session's start and after a reconnection). */
export async function loadTheme(): Promise<void> {
  const me = appStore.get().me;
  if (!me) return;
  try {
    const all = await rest.preferences(me.id);
    if (appStore.get().me?.id !== me.id) return;
    appStore.set({ themePreferences: all.filter(isThemePreference) });
  } catch {
    // The page keeps following the system (or the last known choice) until the next load.
  }
}

/** Saves a choice: the page changes at once, the server's copy right after; the error's words on failure. */
export async function chooseTheme(setting: ThemeSetting): Promise<string | undefined> {
  const me = appStore.get().me;
  if (!me) return 'You are not signed in.';
  const before = appStore.get().themePreferences;
  const { save, remove } = themeChanges(setting, before, me.id);
  appStore.set({ themePreferences: mergeThemePreferences(dropThemePreferences(before, remove), save) });
  try {
    await rest.savePreferences(me.id, save);
    if (remove.length) await rest.deletePreferences(me.id, remove);
    return undefined;
  } catch (err) {
    appStore.set({ themePreferences: before });
    return errorText(err);
  }
}

function parseList(value: unknown): ThemePreference[] {
  if (typeof value !== 'string') return [];
  try {
    const list: unknown = JSON.parse(value);
    if (!Array.isArray(list)) return [];
    return list.filter(
      (p): p is ThemePreference =>
        typeof p === 'object' && p !== null && typeof p.category === 'string' && typeof p.name === 'string' && typeof (p.value ?? '') === 'string',
    ).map((p) => ({ user_id: p.user_id, category: p.category, name: p.name, value: p.value ?? '' }));
  } catch {
    return [];
  }
}

/** `preferences_changed`: the user saved preferences somewhere (another tab, another browser, Mattermost's apps). */
export function preferencesChanged(preferences: unknown): void {
  const saved = parseList(preferences);
  appStore.set((s) => {
    const next = mergeThemePreferences(s.themePreferences, saved);
    return next === s.themePreferences ? {} : { themePreferences: next };
  });
}

/** `preferences_deleted`. */
export function preferencesDeleted(preferences: unknown): void {
  const deleted = parseList(preferences);
  appStore.set((s) => {
    const next = dropThemePreferences(s.themePreferences, deleted);
    return next === s.themePreferences ? {} : { themePreferences: next };
  });
}
