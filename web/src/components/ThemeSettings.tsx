import { useState } from 'preact/hooks';
import { chooseTheme } from '../actions/theme';
import { useStore } from '../state/use-store';
import { themeSetting, type ThemeSetting } from '../theme';
import '../styles/themes.css';

/** Account settings → Theme: light, dark, or the system's (kept in the user's preferences on the server). */

const OPTIONS: Array<{ value: ThemeSetting; label: string; hint: string }> = [
  { value: 'light', label: 'Light', hint: 'Light backgrounds, dark text.' },
  { value: 'dark', label: 'Dark', hint: 'Dark backgrounds, light text.' },
  { value: 'system', label: 'Sync with system', hint: "Follows your device's light or dark appearance." },
];

export function ThemeSettings() {
  const setting = useStore((s) => themeSetting(s.themePreferences, s.currentTeamId));
  const [ok, setOk] = useState('');
  const [error, setError] = useState('');
  const choose = async (value: ThemeSetting) => {
    setOk('');
    setError('');
    const err = await chooseTheme(value);
    if (err) setError(err);
    else setOk('Your theme was saved.');
  };
  return (
    <section class="settings__section" aria-labelledby="settings-theme">
      <h2 id="settings-theme" class="settings__heading">
        Theme
      </h2>
      <fieldset class="theme-choice">
        <legend class="sr-only">Theme</legend>
        {OPTIONS.map((o) => (
          <label key={o.value} class={`theme-choice__option${setting === o.value ? ' is-checked' : ''}`}>
            <input type="radio" name="theme" value={o.value} checked={setting === o.value} aria-labelledby={`theme-label-${o.value}`} aria-describedby={`theme-hint-${o.value}`} onChange={() => void choose(o.value)} />
            <span class={`theme-choice__swatch theme-choice__swatch--${o.value}`} aria-hidden="true" />
            <span class="theme-choice__text">
              <span class="theme-choice__label" id={`theme-label-${o.value}`}>
                {o.label}
              </span>
              <span class="hint" id={`theme-hint-${o.value}`}>
                {o.hint}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      <p class="settings__ok" role="status">
        {ok}
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
