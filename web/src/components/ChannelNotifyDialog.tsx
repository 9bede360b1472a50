import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { channelNotifyDefaults, reloadMember, saveChannelNotifyProps } from '../actions/notify-settings';
import type { Channel } from '../api';
import { collapsedThreadsOn, desktopLevel, threadsChoice, threadsLevel } from '../notify';
import { channelTitle } from '../state/selectors';
import { useStore } from '../state/use-store';
import { Checkbox, RadioGroup, THREAD_REPLIES_LABEL } from './NotificationSettings';
import '../styles/notifications.css';

const LEVEL_WORDS: Record<string, string> = { all: 'for all activity', mention: 'for mentions', none: 'never' };

/**
 * One channel's notification preferences for the viewer (Mattermost's "Notification Preferences"): mute, desktop,
 * thread replies (`desktop_threads`, "default" follows the account's), email, and whether @channel/@all/@here
 * mention them here. Opened on the server's values (the membership is read
 * again), saved with UpdateChannelNotifyProps, then read back.
 */
export function ChannelNotifyDialog({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const title = useStore((s) => channelTitle(channel, s));
  const member = useStore((s) => s.members[channel.id]);
  const userProps = useStore((s) => s.me?.notify_props);
  const collapsed = useStore((s) => collapsedThreadsOn(s.config));
  const [loaded, setLoaded] = useState(false);
  const [fields, setFields] = useState(() => channelNotifyDefaults(member?.notify_props));
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    void reloadMember(channel.id).then(() => setLoaded(true));
    return () => opener?.focus?.();
  }, []);
  // What the user changed before the server's copy came in: kept (their choice wins over the copy).
  const touched = useRef(new Set<string>());
  // The form starts from the server's copy once it is read.
  useEffect(() => {
    if (!loaded) return;
    setFields((f) => {
      const server = channelNotifyDefaults(member?.notify_props);
      for (const key of touched.current) server[key] = f[key];
      return server;
    });
  }, [loaded]);
  const muted = fields.mark_unread === 'mention';
  // Left at "default", channel-wide mentions are ignored in a muted channel (the server's rule).
  const ignoring = fields.ignore_channel_mentions === 'on' || (fields.ignore_channel_mentions === 'default' && muted);
  const userDesktop = LEVEL_WORDS[userProps?.desktop ?? 'mention'] ?? 'for mentions';
  const userEmail = userProps?.email === 'false' ? 'off' : 'on';
  // Thread replies: asked only where they matter (threads collapsed, this channel's desktop level "mention"); shown
  // as in force here (the channel's own value, else the account's).
  const askThreads = collapsed && desktopLevel(channel.type, userProps, { notify_props: fields }) === 'mention';
  const threadReplies = threadsLevel(userProps, { notify_props: fields }) === 'all';
  const set = (key: string) => (value: string) => {
    touched.current.add(key);
    setFields((f) => ({ ...f, [key]: value }));
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    const { desktop, email, mark_unread, ignore_channel_mentions } = fields;
    const props: Record<string, string> = { desktop, email, mark_unread, ignore_channel_mentions };
    const threads = touched.current.has('desktop_threads') && threadsChoice(fields.desktop_threads, userProps?.desktop_threads, member?.notify_props?.desktop_threads);
    if (threads) props.desktop_threads = threads;
    const err = await saveChannelNotifyProps(channel.id, props);
    setBusy(false);
    if (err) setError(err);
    else onClose();
  };
  return (
    <dialog
      ref={ref}
      class="dialog dialog--wide"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <form class="notify-settings" onSubmit={submit} noValidate aria-busy={!loaded}>
        <h2 id={`${id}-title`}>Notification preferences</h2>
        <p class="hint">For {channel.type === 'D' ? `your conversation with ${title}` : title} only. Your account settings apply where these say "default".</p>
        <Checkbox label="Mute channel: no desktop notifications or emails, and it is not bold when unread (mentions still count)" checked={muted} onChange={(on) => set('mark_unread')(on ? 'mention' : 'all')} />
        <RadioGroup
          legend="Desktop notifications"
          name="desktop"
          value={fields.desktop}
          onChange={set('desktop')}
          options={[
            ['default', `Default (${userDesktop})`],
            ['all', 'For all activity'],
            ['mention', 'Only for mentions'],
            ['none', 'Never'],
          ]}
        />
        {askThreads && <Checkbox label={THREAD_REPLIES_LABEL} checked={threadReplies} onChange={(on) => set('desktop_threads')(on ? 'all' : 'mention')} />}
        <RadioGroup
          legend="Email notifications"
          name="email"
          value={fields.email}
          onChange={set('email')}
          options={[
            ['default', `Default (${userEmail})`],
            ['true', 'On'],
            ['false', 'Off'],
          ]}
        />
        {channel.type !== 'D' && (
          <Checkbox label='Ignore mentions for "@channel", "@here" and "@all"' checked={ignoring} onChange={(on) => set('ignore_channel_mentions')(on ? 'on' : 'off')} />
        )}
        {error && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        <div class="dialog__actions">
          <button type="button" class="btn btn--secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="btn btn--primary" disabled={busy || !loaded}>
            Save
          </button>
        </div>
      </form>
    </dialog>
  );
}
