import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { Team } from '../api';
import { canManageTeam, regenerateInvite } from '../actions/teams';
import { errorText } from '../error-text';
import { inviteLink } from '../routes';

/**
 * The team's invite link, to copy and send: whoever opens it can create an account and join the team (or join it
 * with an existing account). Team admins can regenerate it, which makes the old link stop working.
 */
export function InviteDialog({ team, onClose }: { team: Team; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const id = useId();
  const [inviteId, setInviteId] = useState(team.invite_id ?? '');
  const [canRegenerate, setCanRegenerate] = useState(false);
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    void canManageTeam(team.id).then(setCanRegenerate);
    return () => opener?.focus?.();
  }, []);
  const link = inviteId ? inviteLink(location.origin, inviteId) : '';

  const copy = async () => {
    inputRef.current?.select();
    try {
      await navigator.clipboard.writeText(link);
      setStatus('Link copied.');
    } catch {
      setStatus('The link is selected: copy it with Ctrl+C (⌘C on a Mac).');
    }
  };

  const regenerate = async () => {
    setError('');
    try {
      const updated = await regenerateInvite(team.id);
      setInviteId(updated.invite_id ?? '');
      setStatus('A new link was made. The old one no longer works.');
    } catch (err) {
      setError(errorText(err));
    }
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
      <h2 id={`${id}-title`}>Invite people to {team.display_name}</h2>
      <p>Send this link to the people you want to invite. With it they can create an account and join the team, or join with the account they have.</p>
      {link ? (
        <div class="field">
          <label class="field__label" for={`${id}-link`}>
            Invite link
          </label>
          <div class="copy-row">
            <input ref={inputRef} id={`${id}-link`} class="input" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
            <button type="button" class="btn btn--primary" onClick={() => void copy()}>
              Copy link
            </button>
          </div>
        </div>
      ) : (
        <p class="alert">You cannot invite people to this team. Ask a team admin.</p>
      )}
      <p class="dialog__status" role="status">
        {status}
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="dialog__actions">
        {canRegenerate && (
          <button type="button" class="btn btn--secondary" onClick={() => void regenerate()}>
            Regenerate link
          </button>
        )}
        <button type="button" class="btn btn--secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
