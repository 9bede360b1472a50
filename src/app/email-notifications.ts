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

/** The outbox rows of these commits: one per post and recipient the rules chose for an email. */
export function emailRows(commits: EmailCommit[], now: number, id: () => string = () => sortableId(now)): OutboxRow[] {
  const rows: OutboxRow[] = [];
  for (const c of commits) {
    if (!c.notifications || c.notifications.size === 0) continue;
    for (const post of c.posts) {
      for (const r of c.notifications.get(post.id)?.recipients ?? []) {
        if (!r.email) continue;
        rows.push({
          id: id(),
          user_id: r.userId,
          post_id: post.id,
          channel_id: c.channel.id,
          team_id: c.channel.team_id,
          create_at: post.create_at,
          next_attempt_at: now,
          attempts: 0,
        });
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
