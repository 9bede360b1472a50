import type { Channel, OutgoingWebhook } from '../model';

// Unicode White_Space, as Go's strings.Fields splits on (unicode.IsSpace): JavaScript's \s differs in two code points
// (it has U+FEFF, lacks U+0085), so the class is spelt out.
const SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
// Two disjoint runs, anchored: one pass over the text, no backtracking.
const FIRST_WORD = new RegExp(`^[${SPACE}]*([^${SPACE}]*)`);

/** A message's first word: the text up to the first white space after any leading white space ("" when none). */
export function firstWord(message: string): string {
  return FIRST_WORD.exec(message)?.[1] ?? '';
}

/**
 * Whether a post in `channel` whose first word is `word` fires `hook`, and the trigger word its call carries.
 * Mattermost's rules: a hook bound to the channel without trigger words fires on every post there (trigger word "");
 * otherwise the first word must equal a trigger word (trigger_when 0) or start with one (1), case-sensitively.
 * Team-wide hooks fire in public channels only; a hook bound to a private channel (Parley's) fires there.
 */
export function matchHook(hook: OutgoingWebhook, channel: Pick<Channel, 'id' | 'type'>, word: string): { triggerWord: string } | undefined {
  if (hook.channel_id === '') {
    if (channel.type !== 'O') return undefined;
  } else if (hook.channel_id !== channel.id || (channel.type !== 'O' && channel.type !== 'P')) {
    return undefined;
  }
  if (hook.channel_id !== '' && hook.trigger_words.length === 0) return { triggerWord: '' };
  if (word === '') return undefined;
  if (hook.trigger_when === 1) {
    const w = hook.trigger_words.find((t) => t !== '' && word.startsWith(t));
    return w === undefined ? undefined : { triggerWord: w };
  }
  return hook.trigger_words.includes(word) ? { triggerWord: word } : undefined;
}
