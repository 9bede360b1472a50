// Who a post mentions and who it notifies (Mattermost's SendNotifications rules), decided in one place for API and
// webhook posts alike: the mention counts, the `mentions` of the `posted` event, desktop and email all come from
// decideNotifications (and, threads collapsed, who is told in `posted` that they follow the reply's thread). Pure: the
// callers read the members and the thread's followers (post-notifications.ts) and act on the answer.

import { type MentionKeys, type TextWords, parseMentions, textWords } from './mentions';

export type StatusName = 'online' | 'away' | 'offline' | 'dnd' | 'ooo';

export interface NotifyPost {
  id: string;
  user_id: string;
  channel_id: string;
  root_id: string;
  type: string;
  message: string;
  props: Record<string, unknown>;
}

export interface NotifyChannel {
  id: string;
  type: string;
  /** Active members (MaxNotificationsPerChannel is compared with it). */
  memberCount: number;
}

export interface NotifyMember {
  userId: string;
  username: string;
  firstName: string;
  /** Bots get no email. */
  isBot: boolean;
  /** The user's notify_props (missing keys read as Mattermost's defaults). */
  notifyProps: Record<string, string>;
  /** This channel membership's notify_props. */
  channelNotifyProps: Record<string, string>;
  /** The status now (see effectiveStatus). */
  status: StatusName;
  /** Replies only, threads not collapsed (`comments`): whether the member started the thread or replied in it. */
  threadRole?: 'root' | 'replied';
}

export interface NotifyConfig {
  /** TeamSettings.MaxNotificationsPerChannel: @channel/@all/@here do nothing in channels with more members. */
  maxNotificationsPerChannel: number;
  /** EmailSettings.SendEmailNotifications. */
  sendEmailNotifications: boolean;
  /** ServiceSettings.CollapsedThreads: with threads collapsed, thread followers are told of replies instead of `comments`. */
  collapsedThreads: string;
}

export type MentionReason = 'dm' | 'gm' | 'username' | 'keyword' | 'channel' | 'here' | 'comment';

export interface MemberNotification {
  userId: string;
  /** Counts in mention_count and goes into the `posted` event's `mentions`. */
  mentioned: boolean;
  reason?: MentionReason;
  /** The web client should raise a desktop notification. */
  desktop: boolean;
  /** An email should be sent. */
  email: boolean;
}

export interface NotifyDecision {
  /** The members with anything to tell, in the members' order. */
  recipients: MemberNotification[];
  /** The members mentioned (recipients with `mentioned`). */
  mentioned: string[];
  /**
   * Threads collapsed, replies only: the thread's followers told so in their copy of `posted` (`followers`), whatever
   * their settings (the web client applies them, as Mattermost's); never the poster, except of a webhook's post.
   * Absent when none.
   */
  followers?: string[];
  /** A channel-wide mention dropped because the channel is too large; the poster is warned. */
  channelWideSuppressed?: '@here' | '@channel' | '@all';
}

/** What the caller read besides the members. */
export interface NotifyContext {
  /** The post's texts, scanned (scanPost) when the caller has done it already. */
  scan?: ScannedPost;
  /**
   * Replies with threads collapsed: the users following the thread once this reply's own changes are made (the root's
   * author on a first reply, the replier, whoever it mentions), as Mattermost reads them.
   */
  followers?: ReadonlySet<string>;
}

/** What a post's texts hold, worked out once per post (the members' rules are looked up in it). */
export interface ScannedPost {
  keys: MentionKeys;
  words: TextWords;
}

/** Texts that can mention someone: the message and, for Slack attachments, their pretext, text and field values. */
export function mentionTexts(post: Pick<NotifyPost, 'message' | 'props'>): string[] {
  const texts = [post.message];
  const attachments = post.props.attachments;
  if (Array.isArray(attachments)) {
    for (const a of attachments) {
      if (!a || typeof a !== 'object') continue;
      const att = a as Record<string, unknown>;
      for (const key of ['pretext', 'text']) if (typeof att[key] === 'string') texts.push(att[key] as string);
      if (Array.isArray(att.fields)) for (const f of att.fields) if (f && typeof f.value === 'string') texts.push(f.value);
    }
  }
  return texts;
}

export function scanPost(post: Pick<NotifyPost, 'message' | 'props'>): ScannedPost {
  const texts = mentionTexts(post);
  // The words are split only when a member's own keys or first name are looked up in them: mention keys are empty
  // by default, and the split was the webhook path's largest cost of our own (~5 µs a post).
  let words: TextWords | undefined;
  return {
    keys: parseMentions(texts),
    get words() {
      return (words ??= textWords(texts));
    },
  };
}

export function hasAtMention(keys: MentionKeys): boolean {
  return keys.channel || keys.all || keys.here || keys.usernames.size > 0;
}

/** A user's mention keys: the comma-separated `mention_keys`, trimmed, lower-cased, empty ones dropped. */
export function mentionKeysOf(notifyProps: Record<string, string>): string[] {
  const raw = notifyProps.mention_keys;
  if (!raw) return [];
  return raw
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter((k) => k !== '');
}

/** Whether `comments` (replies in threads the user started or took part in) counts for users on this server. */
export function commentsApply(config: Pick<NotifyConfig, 'collapsedThreads'>): boolean {
  // Mattermost skips `comments` for users with collapsed threads: they follow threads instead. The per-user choice
  // (default_on/default_off) is read as the server's default here.
  return config.collapsedThreads === 'disabled' || config.collapsedThreads === 'default_off';
}

const isMuted = (m: NotifyMember) => m.channelNotifyProps.mark_unread === 'mention';

/**
 * Whether @channel/@all/@here reach this member: the user's `channel` setting on ("true", the default) and the
 * channel's `ignore_channel_mentions` not "on" — nor left at "default" in a muted channel (as Mattermost).
 */
function takesChannelMentions(m: NotifyMember): boolean {
  if ((m.notifyProps.channel ?? 'true') !== 'true') return false;
  const ignore = m.channelNotifyProps.ignore_channel_mentions || 'default';
  if (ignore === 'on') return false;
  return !(ignore === 'default' && isMuted(m));
}

function mentionReason(post: NotifyPost, channel: NotifyChannel, scan: ScannedPost, m: NotifyMember, channelWide: boolean, comments: boolean): MentionReason | undefined {
  if (channel.type === 'D') return 'dm';
  if (channel.type === 'G') return 'gm';
  if (scan.keys.usernames.has(m.username.toLowerCase())) return 'username';
  for (const key of mentionKeysOf(m.notifyProps)) if (scan.words.lower.has(key)) return 'keyword';
  if (m.notifyProps.first_name === 'true' && m.firstName !== '' && scan.words.exact.has(m.firstName)) return 'keyword';
  if (channelWide && takesChannelMentions(m)) {
    if (scan.keys.channel || scan.keys.all) return 'channel';
    if (scan.keys.here && m.status === 'online') return 'here';
  }
  if (comments && post.root_id !== '' && m.threadRole) {
    const setting = m.notifyProps.comments ?? 'never';
    if (setting === 'any' || (setting === 'root' && m.threadRole === 'root')) return 'comment';
  }
  return undefined;
}

/** The desktop level that applies: the channel's unless "default", else the user's ("all" when unset). */
function desktopLevel(channel: NotifyChannel, m: NotifyMember): string {
  const own = m.channelNotifyProps.desktop;
  if (own && own !== 'default') return own;
  const user = m.notifyProps.desktop || 'all';
  // A group message at the user's "mention" level notifies for every message (Mattermost's web app).
  return channel.type === 'G' && user === 'mention' ? 'all' : user;
}

/** Thread replies at the "mention" level (`desktop_threads`): the channel's when set, else the user's ("all" when unset). */
export function threadsLevel(userProps: Record<string, string> | undefined, channelProps: Record<string, string> | undefined): string {
  const own = channelProps?.desktop_threads;
  if (own === 'all' || own === 'mention' || own === 'none') return own;
  return userProps?.desktop_threads || 'all';
}

function wantsDesktop(post: NotifyPost, channel: NotifyChannel, m: NotifyMember, mentioned: boolean, following: boolean | undefined): boolean {
  if (isMuted(m) || m.status === 'dnd' || m.status === 'ooo') return false;
  if (post.type.startsWith('system_')) return false;
  const level = desktopLevel(channel, m);
  if (level === 'none') return false;
  if (mentioned) return true;
  // With collapsed threads a reply reaches only the thread's followers: at "all", or at "mention" with thread replies
  // on (`desktop_threads` "all", the default), as Mattermost's "Notify me about replies to threads I'm following".
  if (following !== undefined) return following && (level === 'all' || (level === 'mention' && threadsLevel(m.notifyProps, m.channelNotifyProps) === 'all'));
  return level === 'all';
}

function wantsEmail(post: NotifyPost, m: NotifyMember, config: NotifyConfig): boolean {
  if (!config.sendEmailNotifications || m.isBot || isMuted(m)) return false;
  if (post.type === 'system_auto_responder') return false;
  // Only users who are not at their screen: online and do-not-disturb (and out of office) get none.
  if (m.status !== 'away' && m.status !== 'offline') return false;
  const channel = m.channelNotifyProps.email;
  if (channel && channel !== 'default') return channel !== 'false';
  return m.notifyProps.email !== 'false';
}

/** Which channel-wide mention is dropped for the channel's size, in Mattermost's order of precedence. */
function suppressedChannelWide(keys: MentionKeys): NotifyDecision['channelWideSuppressed'] {
  if (keys.here) return '@here';
  if (keys.channel) return '@channel';
  if (keys.all) return '@all';
  return undefined;
}

/**
 * Who the post mentions and notifies among the channel's members. The poster is never mentioned nor notified by
 * their own post, except by a webhook's (which may reach the hook's creator). In direct and group channels every
 * other member is mentioned. @channel/@all/@here reach nobody in a channel with more than MaxNotificationsPerChannel
 * members, and not in channel header/purpose change posts.
 */
export function decideNotifications(post: NotifyPost, channel: NotifyChannel, members: NotifyMember[], config: NotifyConfig, context: NotifyContext = {}): NotifyDecision {
  const scan = context.scan ?? scanPost(post);
  const fromWebhook = post.props.from_webhook === 'true';
  const crt = !commentsApply(config);
  // Threads collapsed, a reply: who follows its thread is what counts (no followers given: nobody follows).
  const followers = crt && post.root_id !== '' ? (context.followers ?? new Set<string>()) : undefined;
  const tooLarge = channel.memberCount > config.maxNotificationsPerChannel;
  const systemChange = post.type === 'system_header_change' || post.type === 'system_purpose_change';
  const channelWide = !tooLarge && !systemChange;
  const decision: NotifyDecision = { recipients: [], mentioned: [] };
  if (channel.type !== 'D' && channel.type !== 'G' && tooLarge && !systemChange) decision.channelWideSuppressed = suppressedChannelWide(scan.keys);
  const told = followers ? [...followers].filter((id) => id !== post.user_id || fromWebhook).sort() : [];
  if (told.length > 0) decision.followers = told;
  for (const m of members) {
    if (m.userId === post.user_id && !fromWebhook) continue;
    const reason = mentionReason(post, channel, scan, m, channelWide, !crt);
    const mentioned = reason !== undefined;
    const desktop = wantsDesktop(post, channel, m, mentioned, followers?.has(m.userId));
    const email = mentioned && wantsEmail(post, m, config);
    if (!mentioned && !desktop) continue;
    decision.recipients.push({ userId: m.userId, mentioned, ...(reason ? { reason } : {}), desktop, email });
    if (mentioned) decision.mentioned.push(m.userId);
  }
  return decision;
}

/** The status a member has now, from their stored status and last activity (`lastActivityAt`, users table). */
export function effectiveStatus(
  stored: { status: string; manual: boolean; dnd_end_time: number; prev_status: string } | undefined,
  lastActivityAt: number,
  now: number,
  awayAfterMs: number,
): StatusName {
  if (stored) {
    let { status, manual } = stored;
    // A timed dnd that has ended reads as what it replaced.
    if (status === 'dnd' && stored.dnd_end_time > 0 && now / 1000 >= stored.dnd_end_time) {
      status = stored.prev_status || 'offline';
      manual = status !== 'online' && status !== 'offline';
    }
    if (status === 'dnd') return 'dnd';
    if (status === 'ooo') return 'ooo';
    if (manual && (status === 'away' || status === 'offline')) return status;
    if (status === 'offline') return 'offline';
  }
  if (now - lastActivityAt <= awayAfterMs) return 'online';
  return stored ? 'away' : 'offline';
}
