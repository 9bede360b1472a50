import { rest, type Channel } from '../api';
import { channelRest } from '../api-channels';
import { errorText } from '../error-text';
import { appStore } from '../state/app-store';
import { raised } from '../state/revisions';
import { refreshTeamChannels } from './channels';

/**
 * A channel's life after it was archived (unarchiving it, here or by someone else), and the revisions the live events
 * raise (state/revisions.ts), on which the dialogs that fetch a team's lists themselves fetch them again.
 */

export function raiseRevisions(keys: string[]): void {
  if (keys.length) appStore.set((s) => ({ revisions: raised(s.revisions, keys) }));
}

/** A channel back from the archive: its header and composer where it is open, the sidebar of its members. */
function holdRestored(channel: Channel): void {
  appStore.set((s) => ({ channels: { ...s.channels, [channel.id]: { ...s.channels[channel.id], ...channel } } }));
  const teamId = channel.team_id || appStore.get().currentTeamId;
  if (teamId) void refreshTeamChannels(teamId);
}

/** RestoreChannel ("Unarchive channel" in the channel menu): the server's refusal in words, or undefined. */
export async function restoreChannel(channelId: string): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    holdRestored(await channelRest.restoreChannel(channelId));
    return { ok: true };
  } catch (err) {
    return { ok: false, message: errorText(err) };
  }
}

/** `channel_restored`: someone unarchived a channel this viewer can see. */
export async function channelRestored(channelId: string): Promise<void> {
  try {
    holdRestored(await rest.channel(channelId));
  } catch {
    // No longer visible: nothing to show.
  }
}
