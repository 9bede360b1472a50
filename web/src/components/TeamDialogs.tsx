import { useEffect, useState } from 'preact/hooks';
import type { Team } from '../api';
import { joinableTeams, joinTeam, removeFromTeam, setTeamAdmin, teamMembers, type TeamMemberRow } from '../actions/channel-manage';
import { canManageTeam } from '../actions/teams';
import { errorText } from '../error-text';
import { revisionKey } from '../state/revisions';
import { useStore } from '../state/use-store';
import { UserAvatar } from './Avatar';
import { ModalDialog } from './ModalDialog';
import '../styles/channels.css';

export type TeamDialog = 'join' | 'members';

/** The team menu's items of this area: "Join another team", and the team's members (to manage, for its admins). */
export function TeamMenuItems({ team, close, open }: { team: Team; close: () => void; open: (d: TeamDialog) => void }) {
  const [manager, setManager] = useState(false);
  useEffect(() => {
    void canManageTeam(team.id).then(setManager);
  }, [team.id]);
  const item = (label: string, d: TeamDialog) => (
    <button
      type="button"
      role="menuitem"
      class="menu__item"
      onClick={() => {
        close();
        open(d);
      }}
    >
      {label}
    </button>
  );
  return (
    <>
      {item(manager ? 'Manage members' : 'View members', 'members')}
      {item('Join another team', 'join')}
    </>
  );
}

export function TeamDialogs({ team, dialog, onClose }: { team: Team; dialog?: TeamDialog; onClose: () => void }) {
  if (dialog === 'join') return <JoinTeamDialog onClose={onClose} />;
  if (dialog === 'members') return <TeamMembersDialog team={team} onClose={onClose} />;
  return null;
}

/** "Join another team": the open teams (allow_open_invite) one is not on, each joined with one button. */
export function JoinTeamDialog({ onClose }: { onClose: () => void }) {
  const [teams, setTeams] = useState<Team[]>();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState('');
  useEffect(() => {
    joinableTeams().then(setTeams, (err) => setError(errorText(err)));
  }, []);
  const join = async (team: Team) => {
    setBusy(team.id);
    const result = await joinTeam(team);
    setBusy('');
    if (result.ok) onClose();
    else setError(result.message);
  };
  return (
    <ModalDialog title="Join another team" wide onClose={onClose}>
      <p class="browse__count" role="status">
        {teams === undefined ? 'Loading teams…' : teams.length === 0 ? 'There are no other teams open to join. Ask a team admin for an invite link.' : `${teams.length} open ${teams.length === 1 ? 'team' : 'teams'}`}
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <ul class="browse__list" aria-label="Open teams">
        {(teams ?? []).map((t) => (
          <li key={t.id} class="browse__row" data-team={t.name}>
            <span class="browse__text">
              <span class="browse__name">{t.display_name}</span>
              {t.description && <span class="browse__purpose">{t.description}</span>}
            </span>
            <button type="button" class="btn btn--primary btn--small" aria-label={`Join ${t.display_name}`} disabled={busy === t.id} onClick={() => void join(t)}>
              Join
            </button>
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

/**
 * The team's members and their role. Team admins and system admins make someone a team admin or a member
 * (UpdateTeamMemberRoles) and remove people from the team (RemoveTeamMember); everyone else sees the list.
 */
export function TeamMembersDialog({ team, onClose }: { team: Team; onClose: () => void }) {
  const meId = useStore((s) => s.me?.id ?? '');
  const [rows, setRows] = useState<TeamMemberRow[]>();
  const [manager, setManager] = useState(false);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  // Someone joining or leaving the team while it is open (live events) fetches the list again.
  const revision = useStore((s) => s.revisions[revisionKey('members', team.id)] ?? 0);
  const reload = () => teamMembers(team.id).then(setRows, (err) => setError(errorText(err)));
  useEffect(() => {
    void canManageTeam(team.id).then(setManager);
  }, [team.id]);
  useEffect(() => {
    let stale = false;
    teamMembers(team.id).then(
      (list) => !stale && setRows(list),
      (err) => !stale && setError(errorText(err)),
    );
    return () => {
      stale = true;
    };
  }, [team.id, revision]);

  const change = async (row: TeamMemberRow, to: 'admin' | 'member' | 'remove') => {
    setError('');
    const result = to === 'remove' ? await removeFromTeam(team.id, row.user.id) : await setTeamAdmin(team.id, row.user.id, to === 'admin');
    if (!result.ok) return setError(result.message);
    setStatus(to === 'remove' ? `@${row.user.username} was removed from the team.` : `@${row.user.username} is now ${to === 'admin' ? 'a team admin' : 'a member'}.`);
    await reload();
  };

  return (
    <ModalDialog title={`${manager ? 'Manage members' : 'Members'} of ${team.display_name}`} wide class="members-dialog" onClose={onClose}>
      <p class="dialog__status" role="status">
        {status}
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <h3 class="members-dialog__heading">{rows ? `${rows.length} ${rows.length === 1 ? 'member' : 'members'}` : 'Loading members…'}</h3>
      <ul class="people" aria-label="Team members">
        {(rows ?? []).map((row) => {
          const role = row.admin ? 'Team admin' : 'Member';
          return (
            <li key={row.user.id} class="people__row" data-username={row.user.username}>
              <UserAvatar userId={row.user.id} size={28} />
              <span class="people__name">
                @{row.user.username}
                {row.user.id === meId && <span class="people__full"> (you)</span>}
              </span>
              {manager ? (
                <>
                  <label class="sr-only" for={`role-${row.user.id}`}>
                    Role of @{row.user.username}
                  </label>
                  <select id={`role-${row.user.id}`} class="input role-select" value={row.admin ? 'admin' : 'member'} onChange={(e) => void change(row, e.currentTarget.value as 'admin' | 'member')}>
                    <option value="member">Member</option>
                    <option value="admin">Team admin</option>
                  </select>
                  <button type="button" class="btn btn--secondary btn--small" aria-label={`Remove @${row.user.username} from the team`} onClick={() => void change(row, 'remove')}>
                    Remove
                  </button>
                </>
              ) : (
                <span class="people__role">{role}</span>
              )}
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
