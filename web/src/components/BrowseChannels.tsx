import { useEffect, useId, useState } from 'preact/hooks';
import type { Channel } from '../api';
import { browseChannels, joinChannel, searchChannels, viewChannel } from '../actions/channel-manage';
import { errorText } from '../error-text';
import { revisionKey } from '../state/revisions';
import { useStore } from '../state/use-store';
import { ArchiveIcon, HashIcon, LockIcon, SearchIcon } from './icons';
import { ModalDialog } from './ModalDialog';
import '../styles/channels.css';

const PER_PAGE = 50;
type View = 'public' | 'archived';

/**
 * "Browse channels" (the sidebar's "+" menu): the team's public channels, searched by name (SearchChannels) or paged
 * (GetPublicChannelsForTeam), joined with one button; the "Archived channels" view lists the archived ones
 * (GetDeletedChannelsForTeam), which open read-only. While it is open, a channel archived, unarchived or renamed
 * elsewhere moves in or out of the list: the live event raises the list's revision (state/revisions.ts), and the
 * list is fetched again.
 */
export function BrowseChannels({ teamId, onClose, onCreate }: { teamId: string; onClose: () => void; onCreate: () => void }) {
  const id = useId();
  const mine = useStore((s) => s.teamChannels[teamId]);
  const revision = useStore((s) => s.revisions[revisionKey('channels', teamId)] ?? 0);
  const [view, setView] = useState<View>('public');
  const [term, setTerm] = useState('');
  const [channels, setChannels] = useState<Channel[] | undefined>(undefined);
  const [page, setPage] = useState(0);
  const [more, setMore] = useState(false);
  const [error, setError] = useState('');
  const [rowError, setRowError] = useState<{ id: string; message: string }>();
  const [busyId, setBusyId] = useState('');

  // The list for the view and term: a search when there is a term (archived: among the listed ones), else page 0.
  useEffect(() => {
    let stale = false;
    const trimmed = term.trim();
    const load = async () => {
      try {
        if (trimmed && view === 'public') {
          const found = await searchChannels(teamId, trimmed);
          if (!stale) {
            setChannels(found);
            setMore(false);
          }
          return;
        }
        const first = await browseChannels(teamId, view, 0, view === 'archived' && trimmed ? 200 : PER_PAGE);
        if (stale) return;
        const words = trimmed.toLowerCase().split(/\s+/).filter(Boolean);
        setChannels(words.length ? first.filter((c) => words.every((w) => `${c.display_name} ${c.name} ${c.purpose}`.toLowerCase().includes(w))) : first);
        setPage(0);
        setMore(!words.length && first.length === PER_PAGE);
      } catch (err) {
        if (!stale) setError(errorText(err));
      }
    };
    setError('');
    const timer = setTimeout(() => void load(), trimmed ? 250 : 0);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [teamId, view, term, revision]);

  const loadMore = async () => {
    try {
      const next = await browseChannels(teamId, view, page + 1, PER_PAGE);
      setChannels((list) => [...(list ?? []), ...next.filter((c) => !(list ?? []).some((o) => o.id === c.id))]);
      setPage(page + 1);
      setMore(next.length === PER_PAGE);
    } catch (err) {
      setError(errorText(err));
    }
  };

  const join = async (channel: Channel) => {
    setBusyId(channel.id);
    setRowError(undefined);
    const result = await joinChannel(channel);
    setBusyId('');
    if (result.ok) onClose();
    else setRowError({ id: channel.id, message: result.message });
  };

  const open = (channel: Channel) => {
    viewChannel(channel);
    onClose();
  };

  const joined = new Set(mine ?? []);
  const count = channels?.length ?? 0;
  return (
    <ModalDialog title="Browse channels" wide class="browse" onClose={onClose}>
      <div class="browse__bar">
        <div class="browse__search">
          <SearchIcon size={16} class="browse__search-icon" />
          <label class="sr-only" for={`${id}-term`}>
            Search channels
          </label>
          <input id={`${id}-term`} class="input" type="search" placeholder="Search channels" autoComplete="off" value={term} onInput={(e) => setTerm(e.currentTarget.value)} />
        </div>
        <label class="sr-only" for={`${id}-view`}>
          Channel type
        </label>
        <select id={`${id}-view`} class="input browse__view" value={view} onChange={(e) => setView(e.currentTarget.value as View)}>
          <option value="public">Public channels</option>
          <option value="archived">Archived channels</option>
        </select>
        <button type="button" class="btn btn--secondary" onClick={onCreate}>
          Create channel
        </button>
      </div>
      <p class="browse__count" role="status">
        {channels === undefined ? 'Loading channels…' : `${count} ${view === 'archived' ? 'archived ' : ''}${count === 1 ? 'channel' : 'channels'}${more ? ' shown' : ''}`}
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <ul class="browse__list" aria-label={view === 'archived' ? 'Archived channels' : 'Public channels'}>
        {(channels ?? []).map((c) => {
          const archived = c.delete_at > 0;
          const isMember = joined.has(c.id);
          const name = c.display_name || c.name;
          return (
            <li key={c.id} class="browse__row" data-channel={c.name}>
              <span class="browse__icon">{archived ? <ArchiveIcon size={16} /> : c.type === 'P' ? <LockIcon size={16} /> : <HashIcon size={16} />}</span>
              <span class="browse__text">
                <span class="browse__name">{name}</span>
                {c.purpose && <span class="browse__purpose">{c.purpose}</span>}
                {rowError?.id === c.id && <span class="form-error">{rowError.message}</span>}
              </span>
              {isMember && !archived && <span class="browse__joined">Joined</span>}
              {archived || isMember ? (
                <button type="button" class="btn btn--secondary btn--small" aria-label={`View ${name}`} onClick={() => open(c)}>
                  View
                </button>
              ) : (
                <button type="button" class="btn btn--primary btn--small" aria-label={`Join ${name}`} disabled={busyId === c.id} onClick={() => void join(c)}>
                  Join
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {channels !== undefined && count === 0 && <p class="browse__empty">{term.trim() ? `No channels match "${term.trim()}".` : view === 'archived' ? 'There are no archived channels.' : 'There are no public channels.'}</p>}
      <div class="dialog__actions">
        {more && (
          <button type="button" class="btn btn--secondary" onClick={() => void loadMore()}>
            More channels
          </button>
        )}
        <button type="button" class="btn btn--secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </ModalDialog>
  );
}
