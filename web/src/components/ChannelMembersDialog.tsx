import { useEffect, useId, useState } from 'preact/hooks';
import type { Channel, User } from '../api';
import { addChannelMember, channelMembers, removeChannelMember, usersToAdd } from '../actions/channel-manage';
import { isTownSquare } from '../channel-name';
import { errorText } from '../error-text';
import { useStore } from '../state/use-store';
import { UserAvatar } from './Avatar';
import { ModalDialog } from './ModalDialog';
import '../styles/channels.css';

function fullName(u: User): string {
  return [u.first_name, u.last_name].filter(Boolean).join(' ') || u.nickname || '';
}

/**
 * A channel's members (GetChannelMembers). In a live channel other than town-square, people of the team are added
 * (found with AutocompleteUsers, the channel's non-members) and members removed; the list follows `user_added` /
 * `user_removed` (through the member count the page keeps).
 */
export function ChannelMembersDialog({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  const id = useId();
  const meId = useStore((s) => s.me?.id ?? '');
  const count = useStore((s) => s.memberCounts[channel.id]);
  const [members, setMembers] = useState<User[]>();
  const [term, setTerm] = useState('');
  const [candidates, setCandidates] = useState<User[]>([]);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const manage = channel.delete_at === 0 && !isTownSquare(channel);
  const name = channel.display_name || channel.name;

  const reload = () =>
    channelMembers(channel.id).then(
      (list) => setMembers(list),
      (err) => setError(errorText(err)),
    );

  useEffect(() => {
    void reload();
  }, [channel.id, count?.count]);

  useEffect(() => {
    if (!manage || !term.trim()) {
      setCandidates([]);
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      usersToAdd(channel.team_id, channel.id, term.trim()).then(
        (found) => !stale && setCandidates(found),
        (err) => !stale && setError(errorText(err)),
      );
    }, 200);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [term, channel.id, members]);

  const add = async (user: User) => {
    setError('');
    const result = await addChannelMember(channel.id, user.id);
    if (!result.ok) return setError(result.message);
    setStatus(`@${user.username} was added to ${name}.`);
    setTerm('');
    await reload();
  };

  const remove = async (user: User) => {
    setError('');
    const result = await removeChannelMember(channel.id, user.id);
    if (!result.ok) return setError(result.message);
    if (user.id === meId) return onClose();
    setStatus(`@${user.username} was removed from ${name}.`);
    await reload();
  };

  return (
    <ModalDialog title={`Members of ${name}`} wide class="members-dialog" onClose={onClose}>
      {manage && (
        <div class="field members-dialog__add">
          <label class="field__label" for={`${id}-add`}>
            Add people
          </label>
          <input
            id={`${id}-add`}
            class="input"
            type="search"
            autoComplete="off"
            placeholder="Search for people by username or name"
            value={term}
            aria-describedby={`${id}-add-hint`}
            onInput={(e) => setTerm(e.currentTarget.value)}
          />
          <p class="hint field__hint" id={`${id}-add-hint`}>
            People of the team who are not in the channel.
          </p>
          {candidates.length > 0 && (
            <ul class="people" aria-label="People to add">
              {candidates.map((u) => (
                <li key={u.id} class="people__row">
                  <UserAvatar userId={u.id} size={28} />
                  <span class="people__name">
                    @{u.username}
                    {fullName(u) && <span class="people__full"> {fullName(u)}</span>}
                  </span>
                  <button type="button" class="btn btn--primary btn--small" aria-label={`Add @${u.username}`} onClick={() => void add(u)}>
                    Add
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <p class="dialog__status" role="status">
        {status}
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <h3 class="members-dialog__heading">{members ? `${members.length} ${members.length === 1 ? 'member' : 'members'}` : 'Loading members…'}</h3>
      <ul class="people" aria-label="Members">
        {(members ?? []).map((u) => (
          <li key={u.id} class="people__row" data-username={u.username}>
            <UserAvatar userId={u.id} size={28} />
            <span class="people__name">
              @{u.username}
              {u.id === meId && <span class="people__full"> (you)</span>}
              {fullName(u) && <span class="people__full"> {fullName(u)}</span>}
            </span>
            {manage && (
              <button type="button" class="btn btn--secondary btn--small" aria-label={u.id === meId ? 'Leave channel' : `Remove @${u.username}`} onClick={() => void remove(u)}>
                {u.id === meId ? 'Leave' : 'Remove'}
              </button>
            )}
          </li>
        ))}
      </ul>
      <div class="dialog__actions">
        <button type="button" class="btn btn--secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </ModalDialog>
  );
}
