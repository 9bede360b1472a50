// Notification emails recorded in the post's own transaction (the email outbox): a committed post never loses its
// email, a rolled-back one never sends one, and the post never waits for SMTP (the worker sends after commit:
// email-worker.ts). Who gets one is notify-rules.ts's decision (`email` on each recipient); this only writes it down.

import { sortableId } from '../lib/ids';
import type { Channel, Post } from '../model';
import type { TxStores } from '../store';
import type { OutboxRow } from '../store/email-outbox-store';
import type { NotifyDecision } from './notify-rules';

/** What the writer hands over per commit: the channel, its posts, and the rules' decision per post. */
export interface EmailCommit {
  channel: Channel;
  posts: Post[];
  notifications?: Map<string, NotifyDecision>;
}

/**
 * Posts one outbox row lists at most. The worker claims rows a page at a time (email-worker.ts: ROWS_PER_RUN), so this
 * bounds the emails one run sends, and how long it holds its lease, at their product.
 */
export const MAX_POSTS_PER_ROW = 20;

/**
 * The outbox rows of these commits (one transaction): one per recipient and channel the rules chose for an email,
 * listing that recipient's posts in the channel in post order. A stream of posts mentioning the same people writes
 * one row per transaction for each of them instead of one per post (migration 024 says what that saves).
 */
export function emailRows(commits: EmailCommit[], now: number, id: () => string = () => sortableId(now)): OutboxRow[] {
  const rows: OutboxRow[] = [];
  // Open rows by channel and recipient, while this transaction's posts are walked in order.
  const open = new Map<string, OutboxRow>();
  for (const c of commits) {
    if (!c.notifications || c.notifications.size === 0) continue;
    for (const post of c.posts) {
      for (const r of c.notifications.get(post.id)?.recipients ?? []) {
        if (!r.email) continue;
        const key = `${c.channel.id} ${r.userId}`;
        const row = open.get(key);
        if (row && row.post_ids.length < MAX_POSTS_PER_ROW) {
          row.post_ids.push(post.id);
          continue;
        }
        const next: OutboxRow = {
          id: id(),
          user_id: r.userId,
          post_ids: [post.id],
          channel_id: c.channel.id,
          team_id: c.channel.team_id,
          // The first post's: where a batch's interval starts, and what the three-day limit counts from.
          create_at: post.create_at,
          next_attempt_at: now,
          attempts: 0,
        };
        open.set(key, next);
        rows.push(next);
      }
    }
  }
  return rows;
}

/**
 * Writes the commits' outbox rows inside `tx`; returns whether any was written. No statement at all when nobody gets
 * an email (the rules say no one when SendEmailNotifications is off), and no read: the rules' decision has it all.
 */
export async function queueEmailNotifications(tx: TxStores, commits: EmailCommit[], now: number): Promise<boolean> {
  const rows = emailRows(commits, now);
  if (rows.length === 0) return false;
  await tx.emailOutbox.enqueue(rows);
  return true;
}
