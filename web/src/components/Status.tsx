import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { Post } from '../post-store';
import { isFromWebhook } from '../post-rows';
import { dndEndFor, loadMyStatus, setMyStatus, watchStatuses } from '../actions/status';
import type { StatusValue } from '../state/reactions-state';
import { useStore } from '../state/use-store';
import { PostAvatar, UserAvatar } from './Avatar';
import '../styles/reactions.css';

export const STATUS_NAMES: Record<StatusValue, string> = { online: 'Online', away: 'Away', dnd: 'Do not disturb', offline: 'Offline' };

/** The dot on an avatar: the user's presence (asked for when it is first shown, then polled). Decorative. */
export function StatusDot({ userId }: { userId: string }) {
  const status = useStore((s) => s.statuses.byUser[userId]);
  useEffect(() => watchStatuses([userId]), [userId]);
  return <span class={`status-dot status-dot--${status ?? 'offline'}`} data-status={status ?? 'unknown'} title={status ? STATUS_NAMES[status] : undefined} aria-hidden="true" />;
}

/** A user's avatar with their status dot. */
export function StatusAvatar({ userId, size }: { userId: string; size?: number }) {
  return (
    <span class="status-avatar">
      <UserAvatar userId={userId} size={size} />
      <StatusDot userId={userId} />
    </span>
  );
}

/** A post's avatar; a person's (not a webhook's) with their status dot. */
export function PostAvatarWithStatus({ post }: { post: Post }) {
  if (isFromWebhook(post)) return <PostAvatar post={post} />;
  return (
    <span class="status-avatar">
      <PostAvatar post={post} />
      <StatusDot userId={post.user_id} />
    </span>
  );
}

/** "Until 14:30", "Until tomorrow 09:00", "Until Mon 3 Mar 09:00": when a timed dnd ends. */
export function dndUntil(endSeconds: number, now = Date.now()): string {
  if (!endSeconds) return '';
  const end = new Date(endSeconds * 1000);
  const time = end.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const today = new Date(now);
  const tomorrow = new Date(now);
  tomorrow.setDate(today.getDate() + 1);
  if (end.toDateString() === today.toDateString()) return `Until ${time}`;
  if (end.toDateString() === tomorrow.toDateString()) return `Until tomorrow ${time}`;
  return `Until ${end.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' })} ${time}`;
}

/** The viewer's own status, for the account button's name (", Online"). */
export function useMyStatus(): { status?: StatusValue; dndEnd: number } {
  const meId = useStore((s) => s.me?.id ?? '');
  const status = useStore((s) => s.statuses.byUser[meId]);
  const dndEnd = useStore((s) => s.statuses.dndEndTime);
  useEffect(() => {
    if (meId) void loadMyStatus();
  }, [meId]);
  return { status, dndEnd };
}

const DND_CHOICES: Array<{ key: 'never' | '30m' | '1h' | '2h' | 'tomorrow'; label: string }> = [
  { key: 'never', label: "Don't clear" },
  { key: '30m', label: '30 mins' },
  { key: '1h', label: '1 hour' },
  { key: '2h', label: '2 hours' },
  { key: 'tomorrow', label: 'Tomorrow' },
];

/**
 * The status part of the account menu, as Mattermost's: Online, Away, Do not disturb (with when it ends: don't
 * clear, 30 mins, 1 hour, 2 hours, tomorrow, or a custom date and time), Offline.
 */
export function StatusMenuItems(props: { close: () => void; onCustomDnd: () => void; onError: (message: string) => void }) {
  const { status, dndEnd } = useMyStatus();
  const [dndOpen, setDndOpen] = useState(false);
  const choose = async (next: StatusValue, end = 0) => {
    props.close();
    const err = await setMyStatus(next, end);
    if (err) props.onError(err);
  };
  const radio = (value: StatusValue, sub?: string) => (
    <button type="button" role="menuitemradio" aria-checked={status === value} class="menu__item status-menu__item" onClick={() => void choose(value)}>
      <span class={`status-dot status-dot--${value} status-dot--inline`} aria-hidden="true" />
      <span class="status-menu__text">
        {STATUS_NAMES[value]}
        {sub && <span class="status-menu__sub">{sub}</span>}
      </span>
    </button>
  );
  return (
    <div role="group" aria-label="Status" class="status-menu">
      {radio('online')}
      {radio('away')}
      <button
        type="button"
        role="menuitemradio"
        aria-checked={status === 'dnd'}
        aria-expanded={dndOpen}
        class="menu__item status-menu__item"
        onClick={() => setDndOpen(!dndOpen)}
      >
        <span class="status-dot status-dot--dnd status-dot--inline" aria-hidden="true" />
        <span class="status-menu__text">
          Do not disturb
          <span class="status-menu__sub">{status === 'dnd' && dndEnd ? dndUntil(dndEnd) : 'Disables all notifications'}</span>
        </span>
      </button>
      {dndOpen && (
        <div role="group" aria-label="Clear after" class="status-menu__dnd">
          {DND_CHOICES.map((c) => (
            <button key={c.key} type="button" role="menuitem" class="menu__item" onClick={() => void choose('dnd', dndEndFor(c.key))}>
              {c.label}
            </button>
          ))}
          <button
            type="button"
            role="menuitem"
            class="menu__item"
            onClick={() => {
              props.close();
              props.onCustomDnd();
            }}
          >
            Custom
          </button>
        </div>
      )}
      {radio('offline')}
      <div class="menu__separator" role="separator" />
    </div>
  );
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "Do not disturb until…": a date and a time (local), at least a minute ahead. */
export function DndCustomDialog({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const inAnHour = new Date(Date.now() + 60 * 60_000);
  const [date, setDate] = useState(`${inAnHour.getFullYear()}-${pad(inAnHour.getMonth() + 1)}-${pad(inAnHour.getDate())}`);
  const [time, setTime] = useState(`${pad(inAnHour.getHours())}:${pad(inAnHour.getMinutes())}`);
  const [error, setError] = useState('');
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    return () => opener?.focus?.();
  }, []);
  const save = async () => {
    const end = new Date(`${date}T${time}`);
    if (Number.isNaN(end.getTime()) || end.getTime() <= Date.now() + 30_000) {
      setError('Choose a date and time in the future.');
      return;
    }
    const err = await setMyStatus('dnd', Math.floor(end.getTime() / 1000));
    if (err) setError(err);
    else onClose();
  };
  return (
    <dialog
      ref={ref}
      class="dialog dnd-dialog"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <h2 id={`${id}-title`}>Do not disturb until</h2>
        <div class="dnd-dialog__fields">
          <div class="field">
            <label class="field__label" for={`${id}-date`}>
              Date
            </label>
            <input id={`${id}-date`} class="input" type="date" value={date} required onInput={(e) => setDate(e.currentTarget.value)} aria-describedby={error ? `${id}-error` : undefined} />
          </div>
          <div class="field">
            <label class="field__label" for={`${id}-time`}>
              Time
            </label>
            <input id={`${id}-time`} class="input" type="time" value={time} required onInput={(e) => setTime(e.currentTarget.value)} aria-describedby={error ? `${id}-error` : undefined} />
          </div>
        </div>
        {error && (
          <p class="form-error" id={`${id}-error`} role="alert">
            {error}
          </p>
        )}
        <div class="dialog__actions">
          <button type="button" class="btn btn--secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="btn btn--primary">
            Disable notifications
          </button>
        </div>
      </form>
    </dialog>
  );
}
