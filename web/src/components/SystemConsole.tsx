import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { loadConfig, saveConfig } from '../actions/console';
import { buildPatch, CONSOLE_PAGES, consolePath, errorField, findConsolePage, formValues, isDirty, type ConfigObject, type ConsolePage, type FormValues, type Setting } from '../console-settings';
import { followLink } from '../links';
import { channelPath, navigate, setLeaveGuard } from '../router';
import { isSystemAdmin } from '../state/selectors';
import { useStore } from '../state/use-store';
import { ConfirmDialog } from './ConfirmDialog';
import { Logo } from './Logo';
import '../styles/console.css';

/**
 * The system console (system admins only), as Mattermost's: pages grouped in the left navigation, each a form over
 * settings of the server's config with its own Save; the server's validation error is shown beside the setting it
 * concerns; leaving a page with unsaved changes asks first.
 */

function useBackPath(): string {
  const team = useStore((s) => s.teams.find((t) => t.id === s.currentTeamId) ?? s.teams[0]);
  return team ? channelPath(team.name, 'town-square') : '/';
}

function NoPermission({ back }: { back: string }) {
  return (
    <main class="console-denied" id="main">
      <div class="empty">
        <h1>System Console</h1>
        <p role="alert">You do not have permission to access the System Console. Ask a system admin.</p>
        <a href={back} onClick={(e) => followLink(e, back)}>
          Go to your channels
        </a>
      </div>
    </main>
  );
}

function Nav({ current, back }: { current?: ConsolePage; back: string }) {
  const groups: Array<{ group: string; label: string; pages: ConsolePage[] }> = [];
  for (const p of CONSOLE_PAGES) {
    let g = groups.find((x) => x.group === p.group);
    if (!g) groups.push((g = { group: p.group, label: p.groupLabel, pages: [] }));
    g.pages.push(p);
  }
  return (
    <nav class="console__nav" aria-label="System Console">
      <div class="console__brand">
        <Logo size={24} />
        <span>System Console</span>
      </div>
      <a class="console__back" href={back} onClick={(e) => followLink(e, back)}>
        ← Back to your channels
      </a>
      {groups.map((g) => (
        <section key={g.group} class="console__group" aria-labelledby={`console-group-${g.group}`}>
          <h2 id={`console-group-${g.group}`} class="console__group-title">
            {g.label}
          </h2>
          <ul class="console__list">
            {g.pages.map((p) => {
              const href = consolePath(p);
              const active = current === p;
              return (
                <li key={href}>
                  <a class={`console__link${active ? ' is-active' : ''}`} href={href} aria-current={active ? 'page' : undefined} onClick={(e) => followLink(e, href)}>
                    {p.title}
                  </a>
                </li>
              );
            })}
          </ul>
        </section>
      ))}
    </nav>
  );
}

function SettingControl({ setting, value, disabled, error, onChange }: { setting: Setting; value: string | boolean; disabled: boolean; error?: string; onChange: (v: string | boolean) => void }) {
  const id = useId();
  const described = `${id}-help${error ? ` ${id}-error` : ''}`;
  const help = (
    <p class="hint console__help" id={`${id}-help`}>
      {setting.help}
    </p>
  );
  const problem = error && (
    <p class="form-error" id={`${id}-error`} data-setting-error={setting.key}>
      {error}
    </p>
  );
  if (setting.kind === 'bool') {
    return (
      <fieldset class="console__setting" data-setting={setting.key} aria-describedby={described} aria-invalid={error ? true : undefined} disabled={disabled}>
        <legend class="console__label">{setting.label}</legend>
        <div class="console__radios">
          {[true, false].map((v) => (
            <label key={String(v)} class="console__radio">
              <input type="radio" name={id} checked={value === v} onChange={() => onChange(v)} />
              {v ? 'True' : 'False'}
            </label>
          ))}
        </div>
        {help}
        {problem}
      </fieldset>
    );
  }
  const common = {
    id,
    class: 'input',
    disabled,
    'aria-describedby': described,
    'aria-invalid': error ? true : undefined,
    'data-setting': setting.key,
  };
  let control;
  if (setting.kind === 'select') {
    control = (
      <select {...common} class="input console__select" value={String(value)} onChange={(e) => onChange(e.currentTarget.value)}>
        {(setting.options ?? []).map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else {
    control = (
      <input
        {...common}
        // Preact's types tie some attributes to the input type; these three take the same ones.
        type={(setting.kind === 'number' ? 'number' : setting.kind === 'password' ? 'password' : 'text') as 'text'}
        autoComplete={setting.kind === 'password' ? 'new-password' : 'off'}
        placeholder={setting.placeholder}
        value={String(value)}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
    );
  }
  return (
    <div class="console__setting">
      <label class="console__label" for={id}>
        {setting.label}
      </label>
      {control}
      {help}
      {problem}
    </div>
  );
}

function PageForm({ page, config, onSaved }: { page: ConsolePage; config: ConfigObject; onSaved: (c: ConfigObject) => void }) {
  const saved = formValues(page, config);
  const [edited, setEdited] = useState<FormValues>(saved);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState('');
  const [ok, setOk] = useState('');
  const [saving, setSaving] = useState(false);
  const [leaving, setLeaving] = useState<string | undefined>();
  const formRef = useRef<HTMLFormElement>(null);
  const dirty = isDirty(page, saved, edited);

  // Unsaved changes hold navigation inside the page (a dialog asks) and a reload or close (the browser asks).
  useEffect(() => {
    if (!dirty) return;
    setLeaveGuard((path) => {
      setLeaving(path);
      return true;
    });
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      setLeaveGuard(undefined);
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [dirty]);

  const save = async () => {
    if (!dirty || saving) return;
    setSaving(true);
    setOk('');
    setFormError('');
    setErrors({});
    const result = await saveConfig(buildPatch(page, saved, edited));
    setSaving(false);
    if (result.ok) {
      setEdited(formValues(page, result.config));
      onSaved(result.config);
      setOk('Settings saved.');
      return;
    }
    const field = errorField(result, page.settings.map((s) => s.key));
    if (field) {
      setErrors({ [field]: result.message });
      // The setting in question gets focus, so its error (tied to it) is read out.
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>(`[data-setting="${field}"] input, [data-setting="${field}"]:is(input, select)`)?.focus());
    } else {
      setFormError(result.message);
    }
  };

  const enabled = (s: Setting) => !s.dependsOn || edited[s.dependsOn] === true;
  return (
    <form
      ref={formRef}
      class="console__form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div class="console__panel">
        {page.settings.map((s) => (
          <SettingControl
            key={s.key}
            setting={s}
            value={edited[s.key]}
            disabled={!enabled(s)}
            error={errors[s.key]}
            onChange={(v) => {
              setEdited((prev) => ({ ...prev, [s.key]: v }));
              setOk('');
            }}
          />
        ))}
      </div>
      <div class="console__footer">
        <button type="submit" class="btn btn--primary" disabled={!dirty || saving}>
          {saving ? 'Saving…' : 'Save'}
        </button>
        <p class="settings__ok console__status" role="status">
          {ok}
        </p>
        {formError && (
          <p class="form-error console__status" role="alert">
            {formError}
          </p>
        )}
      </div>
      {leaving !== undefined && (
        <ConfirmDialog
          title="Discard Changes?"
          body="You have unsaved changes, are you sure you want to discard them?"
          confirmLabel="Yes, Discard"
          onCancel={() => setLeaving(undefined)}
          onConfirm={() => {
            const path = leaving;
            setLeaving(undefined);
            setLeaveGuard(undefined);
            navigate(path);
          }}
        />
      )}
    </form>
  );
}

export function SystemConsole() {
  const admin = useStore(isSystemAdmin);
  const route = useStore((s) => s.route);
  const siteName = useStore((s) => s.config.SiteName) || 'Parley';
  const back = useBackPath();
  const page = route.kind === 'console' ? findConsolePage(route.group, route.page) : undefined;
  const [config, setConfig] = useState<ConfigObject | undefined>();
  const [loadError, setLoadError] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (!admin) return;
    void loadConfig().then((r) => (r.ok ? setConfig(r.config) : setLoadError(r.message)));
  }, [admin]);
  useEffect(() => {
    document.title = `${page ? `${page.title} - ` : ''}System Console - ${siteName}`;
  }, [page, siteName]);
  useEffect(() => {
    heading.current?.focus();
  }, [page]);

  if (!admin) return <NoPermission back={back} />;
  return (
    <div class="console">
      <a class="skip-link" href="#main">
        Skip to settings
      </a>
      <Nav current={page} back={back} />
      <main class="console__main" id="main">
        <div class="console__inner">
          {page && (
            <>
              <p class="console__crumb">{page.groupLabel}</p>
              <h1 class="console__title" ref={heading} tabIndex={-1}>
                {page.title}
              </h1>
            </>
          )}
          {loadError && (
            <p class="alert" role="alert">
              The configuration could not be loaded: {loadError}
            </p>
          )}
          {page && config && <PageForm key={consolePath(page)} page={page} config={config} onSaved={setConfig} />}
          {page && !config && !loadError && <p class="console__loading">Loading…</p>}
        </div>
      </main>
    </div>
  );
}
