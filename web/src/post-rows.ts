import type { ClientPost, Post } from './post-store';

/**
 * How a list of posts is laid out: date separators, and which posts continue the previous one (same author,
 * shortly after, same thread) and so are shown without their header. A webhook post is never a continuation: its
 * name, icon and BOT badge are always shown, so a hook cannot pass its text off as the human's previous message.
 * No DOM here: unit-tested in Node.
 */

/** Mattermost's collapse window for consecutive posts. */
export const GROUP_WINDOW_MS = 5 * 60 * 1000;

export type Row =
  | { kind: 'date'; key: string; day: number }
  | { kind: 'post'; key: string; id: string; continuation: boolean; replyContext: boolean };

export function isFromWebhook(post: Pick<Post, 'props'>): boolean {
  return post.props?.from_webhook === 'true';
}

/** A post by a bot account: the server marks it (props.from_bot), as Mattermost does; clients cannot set the mark. */
export function isFromBot(post: Pick<Post, 'props'>): boolean {
  return post.props?.from_bot === 'true';
}

export function isSystemPost(post: Pick<Post, 'type'>): boolean {
  return post.type.startsWith('system_');
}

/** Local midnight of the post's day, as the key of its date separator. */
export function dayOf(ms: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

export function isContinuation(post: Post, prev: Post | undefined): boolean {
  if (!prev) return false;
  if (isFromWebhook(post) || isFromWebhook(prev) || isSystemPost(post) || isSystemPost(prev)) return false;
  // A post with a card keeps its header: the card's button sits there.
  if (typeof post.props?.card === 'string' && post.props.card !== '') return false;
  if (post.user_id !== prev.user_id) return false;
  if (post.create_at - prev.create_at >= GROUP_WINDOW_MS) return false;
  if (dayOf(post.create_at) !== dayOf(prev.create_at)) return false;
  return sameThread(post, prev);
}

/** Whether `post` continues the conversation of `prev`: both root posts, or both in one thread. */
function sameThread(post: Post, prev: Post): boolean {
  const threadOf = (p: Post) => p.root_id || p.id;
  if (!post.root_id && !prev.root_id) return true;
  return threadOf(post) === threadOf(prev);
}

/**
 * The rows of a channel view (or a thread, with `inThread`): a date separator before each new day, posts marked
 * as continuations, replies marked when they need a "Commented on …" line (their thread is not the one above).
 */
export function buildRows(ids: string[], byId: Record<string, ClientPost>, inThread = false): Row[] {
  const rows: Row[] = [];
  let prev: ClientPost | undefined;
  let prevDay = -1;
  for (const id of ids) {
    const post = byId[id];
    if (!post) continue;
    const day = dayOf(post.create_at);
    if (day !== prevDay) {
      rows.push({ kind: 'date', key: `date-${day}`, day });
      prevDay = day;
      prev = undefined;
    }
    const continuation = isContinuation(post, prev);
    const replyContext = !inThread && post.root_id !== '' && !(prev && (prev.id === post.root_id || prev.root_id === post.root_id));
    rows.push({ kind: 'post', key: id, id, continuation, replyContext });
    prev = post;
  }
  return rows;
}
