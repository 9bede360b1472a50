import { useId, useState } from 'preact/hooks';
import { createChannel } from '../actions/channel-manage';
import { CHANNEL_DISPLAY_NAME_MAX, CHANNEL_NAME_MAX, CHANNEL_NAME_MESSAGES, CHANNEL_PURPOSE_MAX, channelNameProblem, suggestChannelName } from '../channel-name';
import { FormField } from './FormField';
import { ModalDialog } from './ModalDialog';
import '../styles/channels.css';

type Errors = { display_name?: string; name?: string; purpose?: string; form?: string };

/**
 * "Create a new channel": a name, the URL derived from it (editable, checked as the server checks it), public or
 * private, an optional purpose. The server's refusals are shown beside their field.
 */
export function NewChannelDialog({ teamId, teamName, onClose }: { teamId: string; teamName: string; onClose: () => void }) {
  const id = useId();
  const [displayName, setDisplayName] = useState('');
  const [name, setName] = useState('');
  const [nameEdited, setNameEdited] = useState(false);
  const [type, setType] = useState<'O' | 'P'>('O');
  const [purpose, setPurpose] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Errors>({});

  const onDisplayName = (value: string) => {
    setDisplayName(value);
    if (!nameEdited) setName(suggestChannelName(value));
    setErrors((e) => ({ ...e, display_name: undefined, name: nameEdited ? e.name : undefined, form: undefined }));
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const next: Errors = {};
    const shown = displayName.trim();
    if (!shown) next.display_name = 'Enter a name for the channel.';
    else if (Array.from(shown).length > CHANNEL_DISPLAY_NAME_MAX) next.display_name = `The name can be at most ${CHANNEL_DISPLAY_NAME_MAX} characters long.`;
    const problem = channelNameProblem(name);
    if (problem) next.name = name ? CHANNEL_NAME_MESSAGES[problem] : 'Enter a URL for the channel (letters, digits, dashes).';
    if (Array.from(purpose).length > CHANNEL_PURPOSE_MAX) next.purpose = `The purpose can be at most ${CHANNEL_PURPOSE_MAX} characters long.`;
    setErrors(next);
    if (next.display_name || next.name || next.purpose) return;
    setBusy(true);
    const result = await createChannel({ teamId, displayName: shown, name, type, purpose: purpose.trim() });
    setBusy(false);
    if (result.ok) onClose();
    else setErrors({ [result.field]: result.message });
  };

  return (
    <ModalDialog title="Create a new channel" wide onClose={onClose}>
      {errors.form && (
        <div class="alert" role="alert">
          {errors.form}
        </div>
      )}
      <form class="new-channel" onSubmit={submit} noValidate>
        <FormField label="Name" name="display_name" autoFocus maxLength={CHANNEL_DISPLAY_NAME_MAX} value={displayName} onInput={onDisplayName} error={errors.display_name} />
        <FormField
          label="URL"
          name="name"
          maxLength={CHANNEL_NAME_MAX}
          prefix={`/${teamName}/channels/`}
          value={name}
          onInput={(v) => {
            setNameEdited(true);
            setName(v);
            setErrors((e) => ({ ...e, name: undefined }));
          }}
          hint="Lower-case letters, digits, dashes and underscores."
          error={errors.name}
        />
        <fieldset class="new-channel__type">
          <legend class="field__label">Type</legend>
          <label class="new-channel__option">
            <input type="radio" name={`${id}-type`} value="O" checked={type === 'O'} onChange={() => setType('O')} />
            <span>
              <strong>Public channel</strong>
              <span class="hint"> Anyone in the team can find and join it.</span>
            </span>
          </label>
          <label class="new-channel__option">
            <input type="radio" name={`${id}-type`} value="P" checked={type === 'P'} onChange={() => setType('P')} />
            <span>
              <strong>Private channel</strong>
              <span class="hint"> Only invited members can see it.</span>
            </span>
          </label>
        </fieldset>
        <FormField label="Purpose (optional)" name="purpose" maxLength={CHANNEL_PURPOSE_MAX} value={purpose} onInput={(v) => { setPurpose(v); setErrors((e) => ({ ...e, purpose: undefined })); }} hint="Describe how this channel should be used." error={errors.purpose} />
        <div class="dialog__actions">
          <button type="button" class="btn btn--secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="btn btn--primary" disabled={busy}>
            {busy ? 'Creating channel…' : 'Create channel'}
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
