import { useId, useState } from 'preact/hooks';
import type { Channel } from '../api';
import { patchChannel } from '../actions/channel-manage';
import { CHANNEL_HEADER_MAX, CHANNEL_PURPOSE_MAX } from '../channel-name';
import { ModalDialog } from './ModalDialog';

/** "Edit header" / "Edit purpose" of a channel (PatchChannel); the server's refusal shown under the field. */
export function EditChannelTextDialog({ channel, field, onClose }: { channel: Channel; field: 'header' | 'purpose'; onClose: () => void }) {
  const id = useId();
  const [value, setValue] = useState(field === 'header' ? channel.header ?? '' : channel.purpose ?? '');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const max = field === 'header' ? CHANNEL_HEADER_MAX : CHANNEL_PURPOSE_MAX;
  const name = channel.display_name || channel.name;
  const label = field === 'header' ? 'Header' : 'Purpose';

  const save = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    if (Array.from(value).length > max) return setError(`The ${field} can be at most ${max} characters long.`);
    setBusy(true);
    const result = await patchChannel(channel.id, { [field]: value.trim() });
    setBusy(false);
    if (result.ok) onClose();
    else setError(result.message);
  };

  return (
    <ModalDialog title={`Edit ${field} for ${name}`} wide onClose={onClose}>
      <form onSubmit={save} noValidate>
        <div class="field">
          <label class="field__label" for={id}>
            {label}
          </label>
          <textarea
            id={id}
            class="textarea channel-text__input"
            rows={field === 'header' ? 3 : 4}
            maxLength={max}
            autoFocus
            value={value}
            aria-invalid={error ? true : undefined}
            aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
            onInput={(e) => {
              setValue(e.currentTarget.value);
              setError('');
            }}
          />
          <p class="hint field__hint" id={`${id}-hint`}>
            {field === 'header' ? 'Shown beside the channel name at the top of the channel (Markdown allowed).' : 'Describe how this channel should be used.'}
          </p>
          {error && (
            <p class="form-error" id={`${id}-error`}>
              {error}
            </p>
          )}
        </div>
        <div class="dialog__actions">
          <button type="button" class="btn btn--secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="btn btn--primary" disabled={busy}>
            Save
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
