import type { Channel } from '../api-types';
import type { HandledWsEvent } from '../ws-events';
import { nested } from '../ws-events';
import type { AppState } from './app-state';

/**
 * The dialogs that fetch a team's lists themselves (Browse channels, the team's members) fetch them again when a live
 * event changes them: the event raises the list's revision in the state (`revisions`), the open dialog reads it.
 * Pure: which lists an event changes, and the next revisions.
 */

export type RevisionKind = 'channels' | 'members';

export function revisionKey(kind: RevisionKind, teamId: string): string {
  return `${kind}:${teamId}`;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The team lists an event changes. Which events reach whom is the server's (as Mattermost's): `channel_created` only
 * the creator, an archive or restore of a public channel the whole team, `channel_updated` the channel's members;
 * a join of the team `user_added` in its default channels (with the team's id) and `added_to_team` to the one who
 * joined; `leave_team` the team.
 */
export function revisionsOf(event: HandledWsEvent, s: Pick<AppState, 'channels' | 'currentTeamId'>): string[] {
  const teamOfChannel = (channelId: string) => text(event.broadcast?.team_id) || s.channels[channelId]?.team_id || s.currentTeamId || '';
  const keys = (kind: RevisionKind, teamId: string) => (teamId ? [revisionKey(kind, teamId)] : []);
  switch (event.event) {
    case 'channel_created':
      return keys('channels', text(event.data.team_id));
    case 'channel_deleted':
    case 'channel_restored':
      return keys('channels', teamOfChannel(text(event.data.channel_id)));
    case 'channel_updated': {
      const channel = nested<Channel>(event.data.channel);
      return keys('channels', channel?.team_id ?? '');
    }
    case 'added_to_team':
    case 'leave_team':
    case 'user_added':
      return keys('members', text(event.data.team_id));
    default:
      return [];
  }
}

/** The revisions raised by one (pure: the state's next value). */
export function raised(revisions: Record<string, number>, keys: string[]): Record<string, number> {
  const next = { ...revisions };
  for (const key of keys) next[key] = (next[key] ?? 0) + 1;
  return next;
}
