// Who a message mentions, following Mattermost's rules for @username, @channel, @all and @here.

export interface MentionKeys {
  usernames: Set<string>;
  channel: boolean;
  all: boolean;
  here: boolean;
}

// "@name" counts only at a word start, so "mail@example.com" mentions nobody. Usernames may contain ".-_",
// which also end sentences ("thanks @alice."), so a trailing run of them is tried both kept and trimmed.
// Linear (as every pass over user text must be): the name is one greedy run with nothing after it to backtrack for.
const MENTION = /(?:^|[^a-z0-9_.\-@])@([a-z0-9][a-z0-9._\-]*)/gi;

// Code is quoted, not addressed: Mattermost ignores mentions inside fenced blocks and `inline code`.
// Both stay linear: an opened fence either closes or runs to the end (`$`), so a block is read once and never
// retried; an inline span that fails stops at a newline or the end, and no other span starts inside it (no "`").
const FENCED_CODE = /(^|\n)(```|~~~)[^\n]*\n[\s\S]*?(\n\2[^\n]*(?=\n|$)|$)/g;
const INLINE_CODE = /`[^`\n]*`/g;

function withoutCode(text: string): string {
  if (!text.includes('`') && !text.includes('~~~')) return text;
  return text.replace(FENCED_CODE, '$1').replace(INLINE_CODE, ' ');
}

// By hand, not /[._\-]+$/: that regex retries from every character of a run of ".-_" that does not reach the
// end ("@a....b"), which is quadratic in the run; a 150 KB one froze the server for half a minute.
function withoutTrailingPunctuation(word: string): string {
  let end = word.length;
  while (end > 0 && isNamePunctuation(word.charCodeAt(end - 1))) end--;
  return word.slice(0, end);
}

function isNamePunctuation(c: number): boolean {
  return c === 0x2e /* . */ || c === 0x5f /* _ */ || c === 0x2d /* - */;
}

export function parseMentions(texts: string[]): MentionKeys {
  const keys: MentionKeys = { usernames: new Set(), channel: false, all: false, here: false };
  for (const raw of texts) {
    if (!raw || !raw.includes('@')) continue;
    const text = withoutCode(raw);
    for (const match of text.matchAll(MENTION)) {
      const word = match[1].toLowerCase();
      const trimmed = withoutTrailingPunctuation(word);
      for (const name of new Set([word, trimmed])) {
        if (name === 'channel') keys.channel = true;
        else if (name === 'all') keys.all = true;
        else if (name === 'here') keys.here = true;
        else if (name) keys.usernames.add(name);
      }
    }
  }
  return keys;
}

export interface ChannelAudience {
  channelType: string;
  members: Array<{ userId: string; username: string; lastActivityAt: number }>;
}

export interface MentionOptions {
  posterId: string;
  /** Webhook posts may mention (and notify) the hook's own creator; ordinary posts never mention their author. */
  allowSelf: boolean;
  /** @channel/@all/@here are ignored above this many members (TeamSettings.MaxNotificationsPerChannel). */
  maxChannelWide: number;
  now: number;
}

// @here reaches members active in the last five minutes.
export const HERE_WINDOW_MS = 5 * 60 * 1000;

/** The members a post mentions: by name, channel-wide, or (in a direct channel) always the other member. */
export function mentionedMembers(keys: MentionKeys, audience: ChannelAudience, opts: MentionOptions): Set<string> {
  const out = new Set<string>();
  const eligible = (userId: string) => opts.allowSelf || userId !== opts.posterId;
  const channelWide = audience.members.length <= opts.maxChannelWide;
  for (const m of audience.members) {
    if (!eligible(m.userId)) continue;
    if (audience.channelType === 'D') out.add(m.userId);
    else if (keys.usernames.has(m.username)) out.add(m.userId);
    else if (channelWide && (keys.channel || keys.all)) out.add(m.userId);
    else if (channelWide && keys.here && opts.now - m.lastActivityAt <= HERE_WINDOW_MS) out.add(m.userId);
  }
  return out;
}
