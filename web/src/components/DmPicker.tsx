import { useEffect, useId, useState } from 'preact/hooks';
import type { User } from '../api';
import { findTeamUsers, openDirect } from '../actions/channel-manage';
import { errorText } from '../error-text';
import { useStore } from '../state/use-store';
import { UserAvatar } from './Avatar';
import { ModalDialog } from './ModalDialog';
import '../styles/channels.css';

/**
 * "Direct messages" (the "+" beside the sidebar's Direct messages): people of the team found as one types
 * (AutocompleteUsers in the team); choosing one opens `/{team}/messages/@{username}` (CreateDirectChannel).
 */
export function DmPicker({ teamId, onClose }: { teamId: string; onClose: () => void }) {
  const id = useId();
  const meId = useStore((s) => s.me?.id ?? '');
  const [term, setTerm] = useState('');
  const [found, setFound] = useState<User[]>();
  const [error, setError] = useState('');

  useEffect(() => {
    let stale = false;
    const timer = setTimeout(
      () =>
        findTeamUsers(teamId, term.trim()).then(
          (users) => {
            if (stale) return;
            setFound(users);
            setError('');
          },
          (err) => !stale && setError(errorText(err)),
        ),
      term ? 200 : 0,
    );
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [teamId, term]);

  const choose = (user: User) => {
    openDirect(teamId, user.username);
    onClose();
  };

  const shown = (found ?? []).slice(0, 20);
  return (
    <ModalDialog title="Direct messages" wide class="dm-picker" onClose={onClose}>
      <div class="field">
        <label class="field__label" for={`${id}-term`}>
          Find people
        </label>
        <input id={`${id}-term`} class="input" type="search" autoComplete="off" autoFocus placeholder="Search by username or name" value={term} onInput={(e) => setTerm(e.currentTarget.value)} />
      </div>
      <p class="browse__count" role="status">
        {found === undefined ? 'Searching…' : found.length === 0 ? `No one matches "${term.trim()}".` : `${found.length} ${found.length === 1 ? 'person' : 'people'} found`}
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <ul class="people" aria-label="People">
        {shown.map((u) => {
          const full = [u.first_name, u.last_name].filter(Boolean).join(' ');
          return (
            <li key={u.id} class="people__row">
              <UserAvatar userId={u.id} size={28} />
              <span class="people__name">
                @{u.username}
                {u.id === meId && <span class="people__full"> (you)</span>}
                {full && <span class="people__full"> {full}</span>}
              </span>
              <button type="button" class="btn btn--primary btn--small" aria-label={`Message @${u.username}`} onClick={() => choose(u)}>
                Message
              </button>
            </li>
          );
        })}
      </ul>
      <div class="dialog__actions">
        <button type="button" class="btn btn--secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </ModalDialog>
  );
}
