import { useState } from 'preact/hooks';
import type { components } from '../../../generated/api';
import { doPostAction } from '../actions/post-actions';
import { errorText } from '../error-text';

type PostAction = components['schemas']['PostAction'];

/**
 * The interactive actions of one attachment (Mattermost's action buttons and menus): buttons in their style, a
 * static menu as a labelled <select> with its own Send button (choosing with the keyboard never fires a call by
 * itself). While a call is in flight every action of the attachment is disabled; a failure is announced under them.
 * Only stored posts can be clicked: a pending or ephemeral post shows its actions disabled.
 */

const STYLES = new Set(['default', 'primary', 'success', 'good', 'warning', 'danger']);
const HEX = /^#[0-9a-fA-F]{6}$/;

function styleClass(style: string | undefined): string {
  return style && STYLES.has(style) ? ` action-button--${style}` : '';
}

function Select({ action, busy, onSend }: { action: PostAction; busy: boolean; onSend: (value: string) => void }) {
  const options = Array.isArray(action.options) ? action.options.filter((o) => o && typeof o.value === 'string' && o.value !== '') : [];
  const [value, setValue] = useState(typeof action.default_option === 'string' ? action.default_option : '');
  const name = action.name ?? '';
  return (
    <span class="action-select">
      <select aria-label={name} value={value} disabled={busy || action.disabled === true} onChange={(e) => setValue((e.currentTarget as HTMLSelectElement).value)}>
        <option value="" disabled>
          {name}
        </option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.text}
          </option>
        ))}
      </select>
      <button type="button" class="action-button" aria-label={`Send ${name}`} disabled={busy || value === '' || action.disabled === true} onClick={() => onSend(value)}>
        Send
      </button>
    </span>
  );
}

export function AttachmentActions({ postId, actions, clickable }: { postId: string; actions: unknown; clickable: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  if (!Array.isArray(actions)) return null;
  const list = (actions as unknown[]).filter((a): a is PostAction => !!a && typeof a === 'object' && typeof (a as PostAction).id === 'string' && typeof (a as PostAction).name === 'string');
  if (list.length === 0) return null;
  const run = async (actionId: string, selected = '') => {
    setBusy(true);
    setError('');
    try {
      await doPostAction(postId, actionId, selected);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const off = busy || !clickable;
  return (
    <div class="attachment__actions" role="group" aria-label="Message actions from the integration" aria-busy={busy}>
      {list.map((a) =>
        a.type === 'select' ? (
          // Menus of users or channels (data_source) are not offered by this client: shown, not usable.
          <Select key={a.id} action={a.data_source ? { ...a, options: [], disabled: true } : a} busy={off} onSend={(v) => run(a.id as string, v)} />
        ) : (
          <button
            key={a.id}
            type="button"
            class={`action-button${styleClass(a.style)}`}
            style={a.style && HEX.test(a.style) ? { color: a.style, borderColor: a.style } : undefined}
            disabled={off || a.disabled === true}
            onClick={() => run(a.id as string)}
          >
            {a.name}
          </button>
        ),
      )}
      {error && (
        <p class="form-error attachment__actions-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
