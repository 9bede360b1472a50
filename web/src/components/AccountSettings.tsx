import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { changePassword, resetPicture, saveProfile, signOutEverywhere, uploadPicture } from '../actions/account';
import type { ProfilePatch, User } from '../api';
import { followLink } from '../links';
import { useStore } from '../state/use-store';
import { UserAvatar } from './Avatar';
import { ConfirmDialog } from './ConfirmDialog';
import { ThemeSettings } from './ThemeSettings';
import { FormField } from './FormField';
import { NotificationSettings } from './NotificationSettings';

/** The account settings (Mattermost's Profile and Security): picture, names, password, sessions. */

const PICTURE_TYPES = 'image/png,image/jpeg,image/gif';

function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="settings__section" aria-labelledby={id}>
      <h2 id={id} class="settings__heading">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** One result line per form: read out when it changes. */
function Outcome({ ok, error }: { ok: string; error: string }) {
  return (
    <>
      <p class="settings__ok" role="status">
        {ok}
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

function PictureSection({ me }: { me: User }) {
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [ok, setOk] = useState('');
  const [error, setError] = useState('');
  const uploaded = (me.last_picture_update ?? 0) > 0;
  const run = async (job: () => Promise<string | undefined>, done: string) => {
    setBusy(true);
    setOk('');
    setError('');
    const err = await job();
    setBusy(false);
    if (err) setError(err);
    else setOk(done);
  };
  return (
    <Section id="settings-picture" title="Profile picture">
      <div class="settings__picture">
        <UserAvatar userId={me.id} size={96} />
        <div class="settings__picture-actions">
          <input
            ref={input}
            hidden
            type="file"
            accept={PICTURE_TYPES}
            aria-label="Picture file"
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              e.currentTarget.value = '';
              if (file) void run(() => uploadPicture(file), 'Your picture was updated.');
            }}
          />
          <button type="button" class="btn btn--primary" disabled={busy} onClick={() => input.current?.click()}>
            Upload a picture
          </button>
          {uploaded && (
            <button type="button" class="btn btn--secondary" disabled={busy} onClick={() => void run(resetPicture, 'Your picture is the default one again.')}>
              Use the default picture
            </button>
          )}
          <p class="hint">PNG, JPEG or GIF.</p>
        </div>
      </div>
      <Outcome ok={ok} error={error} />
    </Section>
  );
}

function ProfileSection({ me }: { me: User }) {
  const [fields, setFields] = useState<Required<ProfilePatch>>({ first_name: me.first_name ?? '', last_name: me.last_name ?? '', nickname: me.nickname ?? '', position: me.position ?? '' });
  const [ok, setOk] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const set = (key: keyof ProfilePatch) => (value: string) => setFields((f) => ({ ...f, [key]: value }));
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setOk('');
    setError('');
    const err = await saveProfile({ first_name: fields.first_name.trim(), last_name: fields.last_name.trim(), nickname: fields.nickname.trim(), position: fields.position.trim() });
    setBusy(false);
    if (err) setError(err);
    else setOk('Your profile was saved.');
  };
  return (
    <Section id="settings-profile" title="Name and details">
      <form class="settings__form" onSubmit={submit} noValidate>
        <div class="settings__row">
          <FormField label="First name" name="first_name" autoComplete="given-name" maxLength={64} value={fields.first_name} onInput={set('first_name')} />
          <FormField label="Last name" name="last_name" autoComplete="family-name" maxLength={64} value={fields.last_name} onInput={set('last_name')} />
        </div>
        <FormField label="Nickname" name="nickname" autoComplete="nickname" maxLength={64} value={fields.nickname} onInput={set('nickname')} />
        <FormField label="Position" name="position" autoComplete="organization-title" maxLength={128} value={fields.position} onInput={set('position')} hint="Your role or job title." />
        <button type="submit" class="btn btn--primary" disabled={busy}>
          Save profile
        </button>
        <Outcome ok={ok} error={error} />
      </form>
    </Section>
  );
}

function PasswordSection() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState('');
  const [ok, setOk] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setOk('');
    setError('');
    setMismatch(next !== again ? 'The two new passwords are not the same.' : '');
    if (!current || !next) return setError('Enter your current password and a new one.');
    if (next !== again) return;
    setBusy(true);
    const err = await changePassword(current, next);
    setBusy(false);
    if (err) return setError(err);
    setCurrent('');
    setNext('');
    setAgain('');
    setOk('Your password was changed.');
  };
  return (
    <Section id="settings-password" title="Password">
      <form class="settings__form" onSubmit={submit} noValidate>
        <FormField label="Current password" type="password" name="current_password" autoComplete="current-password" value={current} onInput={setCurrent} />
        <FormField label="New password" type="password" name="new_password" autoComplete="new-password" value={next} onInput={setNext} />
        <FormField label="New password again" type="password" name="new_password_again" autoComplete="new-password" value={again} onInput={setAgain} error={mismatch} />
        <button type="submit" class="btn btn--primary" disabled={busy}>
          Change password
        </button>
        <Outcome ok={ok} error={error} />
      </form>
    </Section>
  );
}

function SessionsSection() {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState('');
  return (
    <Section id="settings-sessions" title="Sessions">
      <p>Signs this account out everywhere it is signed in: other browsers, phones and this page.</p>
      <button type="button" class="btn btn--danger" onClick={() => setConfirming(true)}>
        Sign out of all sessions
      </button>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {confirming && (
        <ConfirmDialog
          title="Sign out of all sessions"
          body="You will be signed out everywhere, here too, and need to log in again."
          confirmLabel="Sign out everywhere"
          onCancel={() => setConfirming(false)}
          onConfirm={async () => {
            setConfirming(false);
            const err = await signOutEverywhere();
            if (err) setError(err);
          }}
        />
      )}
    </Section>
  );
}

export function AccountSettings() {
  const me = useStore((s) => s.me);
  const siteName = useStore((s) => s.config.SiteName) || 'Parley';
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `Account settings - ${siteName}`;
    heading.current?.focus();
  }, [siteName]);
  if (!me) return null;
  return (
    <main class="center settings" id="main">
      <div class="settings__scroll">
        <div class="settings__inner">
          <a class="settings__back" href="/" onClick={(e) => followLink(e, '/')}>
            ← Back to your channels
          </a>
          <h1 class="settings__title" ref={heading} tabIndex={-1}>
            Account settings
          </h1>
          <p class="settings__who">
            Signed in as <strong>@{me.username}</strong> ({me.email})
          </p>
          <PictureSection me={me} />
          <ProfileSection me={me} />
          <NotificationSettings me={me} />
          <PasswordSection />
          <ThemeSettings />
          <SessionsSection />
        </div>
      </div>
    </main>
  );
}
