import type { Store } from './state/store';
import { themeSetting, type ThemeSetting } from './theme';

/**
 * Puts the user's theme on the page: `data-theme="light"|"dark"` on <html> for a chosen one (styles.css redefines its
 * colours under it), none when following the system (styles.css's prefers-color-scheme block decides). Signed out,
 * and until the preferences are read, the page follows the system.
 */

export function applyTheme(root: HTMLElement, setting: ThemeSetting): void {
  if (setting === 'system') root.removeAttribute('data-theme');
  else if (root.getAttribute('data-theme') !== setting) root.setAttribute('data-theme', setting);
}

/** Keeps <html> in step with the store; returns the unsubscribe. */
export function watchTheme(store: Store, root: HTMLElement = document.documentElement): () => void {
  const update = () => {
    const s = store.get();
    applyTheme(root, s.me ? themeSetting(s.themePreferences, s.currentTeamId) : 'system');
  };
  update();
  return store.subscribe(update);
}
