import type { Channel } from '../api';
import { channelPath, navigate } from '../router';
import { useStore } from '../state/use-store';
import { ArchiveIcon } from './icons';
import '../styles/channels.css';

/** In place of the composer in an archived channel: it is read-only. "Close channel" goes back to town-square. */
export function ArchivedNotice({ channel }: { channel: Channel }) {
  const teamName = useStore((s) => s.teams.find((t) => t.id === (channel.team_id || s.currentTeamId))?.name ?? '');
  return (
    <div class="archived-notice" role="note">
      <ArchiveIcon size={18} />
      <p>
        You are viewing an <strong>archived channel</strong>. New messages cannot be posted.
      </p>
      <button type="button" class="btn btn--primary btn--small" onClick={() => navigate(channelPath(teamName, 'town-square'))}>
        Close channel
      </button>
    </div>
  );
}
