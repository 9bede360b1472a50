import { api, call, rest } from '../api';
import type { ClientPost } from '../post-store';
import { errorText } from '../error-text';
import { appStore } from '../state/app-store';
import type { AppState } from '../state/app-state';
import { isUnread } from '../state/selectors';

/**
 * The "New messages" line and "Mark as Unread", as Mattermost's web app: when a channel with unread posts is opened,
 * the member's last_viewed_at (before the channel is viewed) places the line above the first later post by someone
 * else; it stays until the channel is left. Marking a post unread (SetPostUnread) moves the line to that post and
 * keeps the channel unread, in the sidebar too, until it is left.
 */

function setLine(channelId: string, lastViewedAt: number | undefined): void {
  appStore.set((s) => {
    const line = { ...s.unread.line };
    if (lastViewedAt === undefined) delete line[channelId];
    else line[channelId] = lastViewedAt;
    return { unread: { ...s.unread, line } };
  });
}

/**
 * Called as a channel opens, before it is viewed: remembers where its unread posts start. The membership held says
 * whether the channel has unread posts; its last_viewed_at is read afresh (GetChannelMember: the held copy's time is
 * the one of the last full load, not of the last view), and fetched at all only for a channel with unread posts, or
 * without a membership at hand (the first channel of a page load: memberships come after the first screen).
 */
export async function noteUnreadLine(channelId: string): Promise<void> {
  const s = appStore.get();
  const held = s.members[channelId];
  const channel = s.channels[channelId];
  if (held && channel && !isUnread(channel, held)) return setLine(channelId, undefined);
  let member;
  try {
    member = await rest.myMember(channelId);
  } catch {
    return;
  }
  const latest = appStore.get().channels[channelId] ?? channel;
  if (appStore.get().currentChannelId !== channelId) return;
  if (latest && isUnread(latest, member) && member.last_viewed_at > 0) setLine(channelId, member.last_viewed_at);
  else setLine(channelId, undefined);
}

/**
 * A channel is left: its line goes, and whether it was marked unread is answered (then it must not be viewed on
 * leaving: it stays unread, as the user asked).
 */
export function leaveUnread(channelId: string | undefined): boolean {
  if (!channelId) return false;
  const manual = appStore.get().unread.manual[channelId] === true;
  appStore.set((s) => {
    const line = { ...s.unread.line };
    delete line[channelId];
    const kept = { ...s.unread.manual };
    delete kept[channelId];
    return { unread: { line, manual: kept } };
  });
  return manual;
}

export function isManuallyUnread(s: AppState, channelId: string): boolean {
  return s.unread.manual[channelId] === true;
}

/** The new counts of a membership marked unread (the answer, or post_unread from another tab). */
export function markedUnread(channelId: string, counts: { msg_count?: number; mention_count?: number; last_viewed_at?: number }): void {
  const { msg_count, mention_count, last_viewed_at } = counts;
  if (typeof msg_count !== 'number' || typeof last_viewed_at !== 'number') return;
  appStore.set((s) => {
    const member = s.members[channelId];
    const members = member ? { ...s.members, [channelId]: { ...member, msg_count, mention_count: mention_count ?? member.mention_count, last_viewed_at } } : s.members;
    const open = s.currentChannelId === channelId;
    return {
      members,
      unread: {
        line: open ? { ...s.unread.line, [channelId]: last_viewed_at } : s.unread.line,
        manual: open ? { ...s.unread.manual, [channelId]: true } : s.unread.manual,
      },
    };
  });
}

/** "Mark as Unread" on a post (SetPostUnread). Resolves with an error message, or undefined. */
export async function markPostUnread(post: Pick<ClientPost, 'id' | 'channel_id'>): Promise<string | undefined> {
  const me = appStore.get().me;
  if (!me) return undefined;
  try {
    const unread = await call(api.POST('/api/v4/users/{user_id}/posts/{post_id}/set_unread', { params: { path: { user_id: me.id, post_id: post.id } }, body: { collapsed_threads_supported: false } }));
    markedUnread(post.channel_id, unread);
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

/** The first post after the line that someone else wrote (Mattermost's START_OF_NEW_MESSAGES), among `ids`. */
export function firstUnreadId(ids: string[], byId: AppState['posts']['byId'], lastViewedAt: number | undefined, meId: string): string | undefined {
  if (lastViewedAt === undefined) return undefined;
  for (const id of ids) {
    const p = byId[id];
    if (p && p.create_at > lastViewedAt && p.user_id !== meId && !(p as ClientPost).pending) return id;
  }
  return undefined;
}
