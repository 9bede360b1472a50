import type { Channel, ChannelMember, Post } from './api-types';
import type { AppState } from './state/app-state';
import { channelTitle, isUnread } from './state/selectors';

/**
 * Desktop notifications and the tab's unread signs, as plain functions of the state and the `posted` event: who
 * gets a browser notification, what it says, the tab title and whether the favicon carries the unread dot. No DOM
 * here (live/desktop-notify.ts shows them): unit-tested in Node.
 *
 * The rule is the server's (src/app/notify-rules.ts, docs/notifications.md) as Mattermost's web app applies it:
 * the server says who is mentioned (the `posted` event's `mentions`) and, threads collapsed, who follows a reply's thread
 * (`followers`); the page applies the viewer's settings to them.
 */

/** A channel membership set to "mentions only" for unread (Mattermost's mute). */
export function isMuted(member: Pick<ChannelMember, 'notify_props'> | undefined): boolean {
  return member?.notify_props?.mark_unread === 'mention';
}

export interface DesktopCase {
  post: Pick<Post, 'user_id' | 'type' | 'root_id' | 'props'>;
  channelType: string;
  meId: string;
  /** The viewer's notify_props. */
  userProps: Record<string, string> | undefined;
  /** The viewer's membership of the channel, when known. */
  member: Pick<ChannelMember, 'notify_props'> | undefined;
  /** The server named the viewer in the event's `mentions`. */
  mentioned: boolean;
  /** The viewer's own status (dnd and out of office silence desktop notifications). */
  status: string;
  /** ServiceSettings.CollapsedThreads is on for this viewer (always_on, default_on). */
  collapsedThreads: boolean;
  /** The server named the viewer in the event's `followers`: a reply in a thread the viewer follows (threads collapsed). */
  following: boolean;
}

/** The desktop level in force: the channel's unless "default", else the user's ("all" when unset, as the server). */
export function desktopLevel(channelType: string, userProps: Record<string, string> | undefined, member: DesktopCase['member']): string {
  const own = member?.notify_props?.desktop;
  if (own && own !== 'default') return own;
  const user = userProps?.desktop || 'all';
  // A group message at "mention" counts as "all" (Mattermost's web app).
  return channelType === 'G' && user === 'mention' ? 'all' : user;
}

/** Thread replies at the "mention" level (`desktop_threads`): the channel's when set, else the user's ("all" when unset). */
export function threadsLevel(userProps: Record<string, string> | undefined, member: DesktopCase['member']): string {
  const own = member?.notify_props?.desktop_threads;
  if (own === 'all' || own === 'mention' || own === 'none') return own;
  return userProps?.desktop_threads || 'all';
}

const THREAD_LEVELS = new Set(['all', 'mention', 'none']);

/**
 * The channel's `desktop_threads` to save once the user changed the box: the choice where it differs from the
 * account's; where it equals it, "default" (follow the account's again) if the channel held its own value, else nothing.
 */
export function threadsChoice(chosen: string | undefined, user: string | undefined, stored: string | undefined): string | undefined {
  if (!chosen || !THREAD_LEVELS.has(chosen)) return undefined;
  if (chosen !== (user || 'all')) return chosen;
  return stored && THREAD_LEVELS.has(stored) ? 'default' : undefined;
}

/** Whether the rules say "notify this user on desktop" for this post (before the focus check). */
export function wantsDesktop(c: DesktopCase): boolean {
  if (c.post.user_id === c.meId && c.post.props?.from_webhook !== 'true') return false;
  if (isMuted(c.member) || c.status === 'dnd' || c.status === 'ooo') return false;
  if ((c.post.type ?? '').startsWith('system_')) return false;
  const level = desktopLevel(c.channelType, c.userProps, c.member);
  if (level === 'none') return false;
  if (c.mentioned) return true;
  // With collapsed threads a reply reaches only the thread's followers (the server says who, whatever the page holds
  // of the thread): at "all", or at "mention" with thread replies on (`desktop_threads` "all", the default).
  if (c.collapsedThreads && c.post.root_id) return c.following && (level === 'all' || (level === 'mention' && threadsLevel(c.userProps, c.member) === 'all'));
  return level === 'all';
}

/** Mattermost's cut for a notification's text. */
export const NOTIFY_TEXT_MAX = 50;

/**
 * A message's first line as plain text: code fences dropped, inline code, emphasis, strike-through, headings,
 * quotes and list markers removed, links and images reduced to their text.
 */
export function plainFirstLine(message: string): string {
  const lines = message.replace(/\r\n?/g, '\n').split('\n');
  let inFence = false;
  for (const raw of lines) {
    if (/^\s*(```|~~~)/.test(raw)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    // Only the first NOTIFY_TEXT_MAX characters are shown: the markup strip (whose emphasis patterns rescan what follows
    // an unclosed opener) sees a bounded head of the line, never a whole 16,383-character message.
    const text = plainLine(raw.slice(0, 20 * NOTIFY_TEXT_MAX));
    if (text) return text;
  }
  return '';
}

function plainLine(line: string): string {
  return line
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+\[[ xX]\]\s+|[-*+]\s+|\d+[.)]\s+)/, '')
    .replace(/^\s{0,3}>\s?/, '')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/(\*\*|__)(?=\S)(.*?\S)\1/g, '$2')
    .replace(/(\*|_)(?=\S)(.*?\S)\1/g, '$2')
    .replace(/~~(?=\S)(.*?\S)~~/g, '$1')
    .replace(/^\s*([-*_]\s*){3,}$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function cut(text: string): string {
  return text.length > NOTIFY_TEXT_MAX ? `${text.slice(0, NOTIFY_TEXT_MAX - 1)}…` : text;
}

/** The notification's body: the sender and the message's first line, or what the post holds when it has no text. */
export function notificationBody(post: Pick<Post, 'message' | 'props' | 'file_ids'>, senderName: string): string {
  let text = plainFirstLine(post.message ?? '');
  if (!text) {
    const attachments = post.props?.attachments;
    if (Array.isArray(attachments)) {
      for (const a of attachments as Array<Record<string, unknown>>) {
        const t = [a?.fallback, a?.pretext, a?.title, a?.text].find((v): v is string => typeof v === 'string' && v.trim() !== '');
        if (t) {
          text = plainFirstLine(t);
          break;
        }
      }
    }
  }
  if (!text && (post.file_ids?.length ?? 0) > 0) return `${senderName} attached a file.`;
  return text ? `${senderName}: ${cut(text)}` : `${senderName} posted a message.`;
}

/** The notification's title: the channel's name as shown in the sidebar (a direct channel: the other person). */
export function notificationTitle(channel: Channel | undefined, eventDisplayName: string, s: Pick<AppState, 'users' | 'me'>): string {
  if (channel && channel.type !== 'D' && channel.type !== 'G') return channel.display_name || channel.name;
  if (channel) return channelTitle(channel, s) || eventDisplayName;
  return eventDisplayName.replace(/^@/, '') || 'Parley';
}

/** Unread signs of the team shown: mentions outside the open channel, and whether any other channel is unread. */
export function unreadSigns(s: Pick<AppState, 'currentTeamId' | 'currentChannelId' | 'teamChannels' | 'channels' | 'members'>): { mentions: number; unread: boolean } {
  let mentions = 0;
  let unread = false;
  for (const id of (s.currentTeamId && s.teamChannels[s.currentTeamId]) || []) {
    if (id === s.currentChannelId) continue;
    const member = s.members[id];
    mentions += member?.mention_count ?? 0;
    const channel = s.channels[id];
    if (channel && !isMuted(member) && isUnread(channel, member)) unread = true;
  }
  return { mentions, unread: unread || mentions > 0 };
}

/**
 * The tab's title, as Mattermost's web app forms it: `(3) Town Square - Team A Parley` (the unread mentions of the
 * other channels), or `* Town Square - Team A Parley` while they hold unread messages and no mention; then the
 * channel, the team and the site.
 */
export function tabTitle(s: AppState): string {
  const site = s.config.SiteName || 'Parley';
  const channel = s.currentChannelId ? s.channels[s.currentChannelId] : undefined;
  const team = s.teams.find((t) => t.id === s.currentTeamId);
  const { mentions, unread } = unreadSigns(s);
  // Mattermost's unread status is the mention count when there are mentions, else whether anything is unread.
  const prefix = mentions > 0 ? `(${mentions}) ` : unread ? '* ' : '';
  if (!channel || !team) return `${prefix}${site}`;
  return `${prefix}${channelTitle(channel, s)} - ${team.display_name} ${site}`;
}

/** The favicon to show: with a dot while anything is unread. */
export function faviconPath(unread: boolean): string {
  return unread ? '/favicon-unread.svg' : '/favicon.svg';
}

/** Whether collapsed threads are on for users of this server (the per-user choice reads as the server default). */
export function collapsedThreadsOn(config: AppState['config']): boolean {
  const v = (config as Record<string, string | undefined>).CollapsedThreads;
  return v === 'always_on' || v === 'default_on';
}
