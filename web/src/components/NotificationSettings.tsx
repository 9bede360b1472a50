import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import { saveUserNotifyProps, userNotifyDefaults, type UserNotifyProps } from '../actions/notify-settings';
import type { User } from '../api';
import { collapsedThreadsOn } from '../notify';
import { useStore } from '../state/use-store';
import { FormField } from './FormField';
import '../styles/notifications.css';

/** Mattermost's words for `desktop_threads` ("all": replies in followed threads notify at the "mention" level). */
export const THREAD_REPLIES_LABEL = "Notify me about replies to threads I'm following";

/**
 * The account's notification settings (Mattermost's Settings › Notifications): desktop notifications (with thread
 * replies, `desktop_threads`, while threads are collapsed and desktop is "mention") and their sound, email, the words that mention you, and replies. Saved with PatchUser; the form shows the server's values
 * (read back after a save, and again when another tab or device changes them: `user_updated`).
 */

export function RadioGroup(props: { legend: string; name: string; value: string; options: Array<[string, string]>; onChange: (value: string) => void; hint?: string }) {
  const id = useId();
  return (
    <fieldset class="choice-group" aria-describedby={props.hint ? `${id}-hint` : undefined}>
      <legend class="field__label">{props.legend}</legend>
      {props.options.map(([value, label]) => (
        <label class="choice" key={value}>
          <input type="radio" name={`${props.name}-${id}`} value={value} checked={props.value === value} onChange={() => props.onChange(value)} />
          <span>{label}</span>
        </label>
      ))}
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
    </fieldset>
  );
}

export function Checkbox(props: { label: ComponentChildren; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label class="choice">
      <input type="checkbox" checked={props.checked} onChange={(e) => props.onChange(e.currentTarget.checked)} />
      <span>{props.label}</span>
    </label>
  );
}

const EDITED = ['desktop', 'desktop_threads', 'desktop_sound', 'email', 'mention_keys', 'first_name', 'channel', 'comments'] as const;

function pick(props: UserNotifyProps): UserNotifyProps {
  const out: UserNotifyProps = {};
  for (const k of EDITED) out[k] = props[k];
  return out;
}

export function NotificationSettings({ me }: { me: User }) {
  const collapsed = useStore((s) => collapsedThreadsOn(s.config));
  const server = pick(userNotifyDefaults(me.notify_props));
  const serverKey = JSON.stringify(server);
  const [fields, setFields] = useState(server);
  const [ok, setOk] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // The server's values replace the form's whenever they change (a save here, or elsewhere).
  useEffect(() => setFields(JSON.parse(serverKey) as UserNotifyProps), [serverKey]);
  const set = (key: string) => (value: string) => setFields((f) => ({ ...f, [key]: value }));
  const flag = (key: string) => (checked: boolean) => set(key)(checked ? 'true' : 'false');
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setOk('');
    setError('');
    const keys = fields.mention_keys
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean)
      .join(',');
    const err = await saveUserNotifyProps({ ...fields, mention_keys: keys });
    setBusy(false);
    if (err) setError(err);
    else setOk('Your notification settings were saved.');
  };
  const firstName = me.first_name?.trim();
  return (
    <section class="settings__section" aria-labelledby="settings-notifications">
      <h2 id="settings-notifications" class="settings__heading">
        Notifications
      </h2>
      <form class="settings__form notify-settings" onSubmit={submit} noValidate>
        <RadioGroup
          legend="Desktop notifications"
          name="desktop"
          value={fields.desktop}
          onChange={set('desktop')}
          options={[
            ['all', 'For all activity'],
            ['mention', 'Only for mentions, direct messages and group messages'],
            ['none', 'Never'],
          ]}
          hint="Shown by this browser while Parley is open in a tab you are not looking at."
        />
        {/* At "all" thread replies are implied, at "never" nothing notifies: only "mention" asks (Mattermost's rule). */}
        {collapsed && fields.desktop === 'mention' && (
          <Checkbox label={THREAD_REPLIES_LABEL} checked={fields.desktop_threads === 'all'} onChange={(on) => set('desktop_threads')(on ? 'all' : 'mention')} />
        )}
        <Checkbox label="Play a sound with desktop notifications" checked={fields.desktop_sound !== 'false'} onChange={flag('desktop_sound')} />
        <RadioGroup
          legend="Email notifications"
          name="email"
          value={fields.email === 'false' ? 'false' : 'true'}
          onChange={set('email')}
          options={[
            ['true', 'Send me an email for mentions and direct messages while I am away or offline'],
            ['false', 'Never'],
          ]}
        />
        <fieldset class="choice-group">
          <legend class="field__label">Words that mention you</legend>
          <Checkbox label={firstName ? `Your first name, "${firstName}" (case-sensitive)` : 'Your first name (set one in Name and details)'} checked={fields.first_name === 'true'} onChange={flag('first_name')} />
          <Checkbox label='Channel-wide mentions: "@channel", "@all" and "@here"' checked={fields.channel !== 'false'} onChange={flag('channel')} />
          <FormField
            label="Other words, separated by commas"
            name="mention_keys"
            value={fields.mention_keys}
            onInput={set('mention_keys')}
            maxLength={6400}
            hint='Not case-sensitive, whole words only. Your "@username" always mentions you.'
          />
        </fieldset>
        <RadioGroup
          legend="Reply notifications"
          name="comments"
          value={fields.comments}
          onChange={set('comments')}
          options={[
            ['any', 'For replies in threads I start or take part in'],
            ['root', 'For replies in threads I start'],
            ['never', 'Only when I am mentioned'],
          ]}
          hint="Applies while threads are not collapsed on this server."
        />
        <button type="submit" class="btn btn--primary" disabled={busy}>
          Save notifications
        </button>
        <p class="settings__ok" role="status">
          {ok}
        </p>
        {error && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </section>
  );
}
