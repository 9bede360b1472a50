// Sends the notification emails the post writer recorded in the outbox (email-notifications.ts), after commit. Woken
// in-process when a commit queued one, and by a timer: the next row falling due (a retry's backoff, a batch's end) or
// at the latest every poll period, which also picks up what another process (or one that died) left behind.
//
// At least once: a post leaves its row (the row is shortened, or deleted after its last post) only after the SMTP
// server accepted its email. Several workers (processes) share the table: each claims rows with a conditional UPDATE
// (a lease), so a row is sent by one of them; a worker that dies between the server's answer and that write leaves its
// rows to be claimed again when the lease ends, and the one email in flight is sent a second time.

import { newId } from '../lib/ids';
import type { Post, UserRecord } from '../model';
import type { OutboxRow } from '../store/email-outbox-store';
import type { Deps } from './deps';
import { type EmailItem, renderBatch, renderSingle, type RenderedEmail } from './email-render';

export interface OutgoingEmail {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId?: string;
  inReplyTo?: string;
}

/**
 * What a send came to: `sent` (the server took it); `rejected` (a permanent refusal of this email: it is dropped);
 * `failed` (a temporary refusal of this email: retried with backoff); `unavailable` (the server could not be reached
 * or refused the session: nothing more is tried this run, everything is retried with backoff).
 */
export type SendOutcome = { kind: 'sent' } | { kind: 'rejected' | 'failed' | 'unavailable'; message: string };

/** The outside engine that delivers email (src/infra/smtp-mailer.ts). */
export interface Mailer {
  send(email: OutgoingEmail): Promise<SendOutcome>;
  close(): void;
}

export interface EmailWorkerOptions {
  /** Longest wait between runs without batching (default 15 s); with batching on, EmailBatchingInterval. */
  pollMs?: number;
  /** How long a claim holds before another worker may take the rows (default 5 min: longer than any send). */
  leaseMs?: number;
  /**
   * Whether requests are being served now. Email is background work: while they are, the worker sends at most one
   * email per FOREGROUND_PACE_MS and the rest wait in the outbox (emails arrive later under load, posts never slow
   * down for them); once the server is idle it sends at full speed.
   */
  foregroundBusy?: () => boolean;
}

/** The pause before each email while requests are being served: at most 20 emails a second then. */
export const FOREGROUND_PACE_MS = 50;

const SITE_NAME = 'Parley';
/** Batching: users whose rows one run claims (all of each one's). A run with a full page runs again at once. */
const USERS_PER_RUN = 50;
/**
 * Without batching: rows one run claims, each listing at most MAX_POSTS_PER_ROW posts (an email each). Small, so a run
 * never holds the database long (better-sqlite3 blocks the event loop for every statement), its at most 500 emails go
 * well within the lease even at the pace under load (25 s), and a configuration change applies within one page.
 */
const ROWS_PER_RUN = 25;
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 10 * 60 * 1000;
/** A notification not delivered within three days is no longer news: dropped (with a warning). */
const MAX_AGE_MS = 3 * 24 * 60 * 60 * 1000;
/** Mattermost's default email_interval with batching on (seconds); "30" means at once, without batching. */
const DEFAULT_INTERVAL_S = 900;
const IMMEDIATE = '30';

/** Backoff after the n-th failed attempt: 1 s, 2 s, 4 s ... at most 10 min. */
export function retryDelayMs(attempts: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, Math.min(attempts - 1, 20)));
}

/** The seconds a user's batch waits, from their email_interval preference (invalid or missing: 900). */
export function batchIntervalSeconds(value: string | undefined): number {
  const n = value === undefined ? NaN : Number(value);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_INTERVAL_S;
}

/** The text a notification shows for a post: its message, else its attachments' text, else that files came with it. */
function notificationText(post: Post): string {
  if (post.message.trim() !== '') return post.message;
  const parts: string[] = [];
  const attachments = post.props.attachments;
  if (Array.isArray(attachments)) {
    for (const a of attachments.slice(0, 20)) {
      if (!a || typeof a !== 'object') continue;
      const att = a as Record<string, unknown>;
      for (const key of ['pretext', 'title', 'text', 'fallback']) if (typeof att[key] === 'string' && att[key] !== '') {
        parts.push(att[key] as string);
        break;
      }
    }
  }
  if (parts.length) return parts.join('\n');
  return post.file_ids.length ? `sent ${post.file_ids.length === 1 ? 'a file' : `${post.file_ids.length} files`}` : '';
}

function timeZoneOf(user: UserRecord): string {
  const tz = user.timezone ?? {};
  return (tz.useAutomaticTimezone === 'false' ? tz.manualTimezone : tz.automaticTimezone || tz.manualTimezone) ?? '';
}

type RunResult = 'done' | 'unavailable';

export class EmailWorker {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = true;

  constructor(
    private readonly deps: Deps,
    private readonly mailer: Mailer,
    private readonly options: EmailWorkerOptions = {},
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Runs now (or right after the run in flight): a commit queued an email. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.loop().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Stops the timer and waits for the run in flight (its claims are settled: sent and deleted, or given back). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    this.mailer.close();
  }

  private async loop(): Promise<void> {
    let delay: number | undefined;
    try {
      while (!this.stopped && (await this.runOnce()) === 'full');
      delay = await this.nextDelay();
    } catch (err) {
      this.deps.onBackgroundError(err, 'email notifications not sent');
    }
    this.schedule(delay ?? this.pollMs());
  }

  private pollMs(): number {
    const email = this.deps.config.get().EmailSettings;
    return email.EnableEmailBatching ? email.EmailBatchingInterval * 1000 : (this.options.pollMs ?? 15_000);
  }

  private async nextDelay(): Promise<number> {
    const now = this.deps.now();
    const due = await this.deps.stores.emailOutbox.nextDue(now);
    return due === undefined ? this.pollMs() : Math.min(this.pollMs(), Math.max(0, due - now));
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, Math.max(10, delayMs));
    this.timer.unref();
  }

  /**
   * One run: claims a page of due rows (batching: every row of up to USERS_PER_RUN users with something due; else up to
   * ROWS_PER_RUN rows) and settles each user's (sent and deleted, given back for later, or dropped). 'full' when there
   * may be more due at once.
   */
  async runOnce(): Promise<'full' | 'done' | 'off'> {
    const config = this.deps.config.get();
    if (!config.EmailSettings.SendEmailNotifications) return 'off';
    const store = this.deps.stores.emailOutbox;
    const now = this.deps.now();
    const token = newId();
    const until = now + (this.options.leaseMs ?? 5 * 60 * 1000);
    let rows: OutboxRow[];
    let full: boolean;
    if (config.EmailSettings.EnableEmailBatching) {
      const users = await store.dueUsers(now, USERS_PER_RUN);
      if (users.length === 0) return 'done';
      rows = await store.claim(users, token, now, until);
      full = users.length === USERS_PER_RUN;
    } else {
      rows = await store.claimDue(token, now, until, ROWS_PER_RUN);
      if (rows.length === 0) return 'done';
      full = rows.length === ROWS_PER_RUN;
    }
    const byUser = new Map<string, OutboxRow[]>();
    for (const r of rows) byUser.set(r.user_id, [...(byUser.get(r.user_id) ?? []), r]);
    const groups = [...byUser.values()];
    for (let i = 0; i < groups.length; i++) {
      let result: RunResult;
      try {
        result = await this.settleUser(groups[i], token);
      } catch (err) {
        // A database error: give this user's rows back for a later run.
        await store.release(groups[i].map((r) => r.id), token, this.deps.now() + FIRST_RETRY_MS, false).catch(() => undefined);
        throw err;
      }
      if (result === 'unavailable') {
        // The server is down: the rest wait with the row that failed (not counted as attempts of their own).
        const retryAt = this.deps.now() + retryDelayMs(Math.max(1, ...groups[i].map((r) => r.attempts + 1)));
        await store.release(groups.slice(i + 1).flatMap((g) => g.map((r) => r.id)), token, retryAt, false);
        return 'done';
      }
    }
    return full ? 'full' : 'done';
  }

  /** Sends (or drops, or puts off) one user's claimed rows. */
  private async settleUser(rows: OutboxRow[], token: string): Promise<RunResult> {
    const { stores } = this.deps;
    const config = this.deps.config.get();
    const now = this.deps.now();
    const ids = (list: OutboxRow[]) => list.map((r) => r.id);
    const userId = rows[0].user_id;
    const recipient = await stores.users.get(userId);
    const stale = rows.filter((r) => now - r.create_at > MAX_AGE_MS);
    if (!recipient || recipient.delete_at > 0 || recipient.is_bot) {
      await stores.emailOutbox.remove(ids(rows), token);
      return 'done';
    }
    if (stale.length) {
      this.deps.onBackgroundError(new Error(`${stale.length} notification email(s) to user ${userId} undelivered for three days: dropped`), 'email notifications dropped');
      await stores.emailOutbox.remove(ids(stale), token);
      rows = rows.filter((r) => !stale.includes(r));
      if (rows.length === 0) return 'done';
    }
    const batching = config.EmailSettings.EnableEmailBatching;
    const preference = batching ? (await stores.preferences.get(userId, 'notifications', 'email_interval'))?.value : undefined;
    if (!batching || preference === IMMEDIATE) {
      // The posts, senders and channels of all the rows read at once; then one email per post, each recorded (the
      // row shortened, or deleted after its last) before the next is sent.
      const items = new Map((await this.items(recipient, rows)).map((i) => [i.post.id, i]));
      for (let i = 0; i < rows.length; i++) {
        const outcome = await this.sendRow(recipient, rows[i], items, token);
        if (outcome === 'unavailable') {
          await this.retry(rows.slice(i), rows[i].attempts + 1, token, [rows[i].id]);
          return 'unavailable';
        }
        if (outcome === 'failed') await this.retry([rows[i]], rows[i].attempts + 1, token, [rows[i].id]);
        else await stores.emailOutbox.remove([rows[i].id], token);
      }
      return 'done';
    }
    // A batch: everything waiting for the user, once the oldest has waited their interval.
    const start = Math.min(...rows.map((r) => r.create_at));
    const dueAt = start + batchIntervalSeconds(preference) * 1000;
    if (await stores.emailOutbox.viewedSince(userId, [...new Set(rows.map((r) => r.team_id))], start)) {
      await stores.emailOutbox.remove(ids(rows), token);
      return 'done';
    }
    if (now < dueAt) {
      await stores.emailOutbox.release(ids(rows), token, dueAt, false);
      return 'done';
    }
    const items = await this.items(recipient, rows);
    const outcome = items.length ? await this.send(recipient, renderBatch(items.map((i) => i.item), this.renderOptions(recipient))) : 'sent';
    const attempts = Math.max(...rows.map((r) => r.attempts)) + 1;
    if (outcome === 'unavailable' || outcome === 'failed') {
      await this.retry(rows, attempts, token, ids(rows));
      return outcome === 'unavailable' ? 'unavailable' : 'done';
    }
    await stores.emailOutbox.remove(ids(rows), token);
    return 'done';
  }

  /**
   * Sends a row's emails, one per post in order. 'sent' when all went (the caller deletes the row); otherwise the row
   * keeps the post that was not sent and those after it, to be retried.
   */
  private async sendRow(recipient: UserRecord, row: OutboxRow, items: Map<string, { item: EmailItem; post: Post }>, token: string): Promise<'sent' | 'failed' | 'unavailable'> {
    // Where the stored row starts now: a post whose email went is recorded before the next email, a post with nothing
    // to send (deleted since) only along with the next record.
    let stored = 0;
    const storeFrom = async (j: number) => {
      if (j === stored) return;
      await this.deps.stores.emailOutbox.keep(row.id, token, row.post_ids.slice(j));
      stored = j;
    };
    for (let j = 0; j < row.post_ids.length; j++) {
      const item = items.get(row.post_ids[j]);
      if (!item) continue;
      const outcome = await this.send(recipient, renderSingle(item.item, this.renderOptions(recipient)), item.post);
      if (outcome !== 'sent') {
        await storeFrom(j);
        return outcome;
      }
      if (j < row.post_ids.length - 1) await storeFrom(j + 1);
    }
    return 'sent';
  }

  /** Gives rows back to be tried after the backoff of `attempts`; those in `tried` count the attempt. */
  private async retry(rows: OutboxRow[], attempts: number, token: string, tried: string[]): Promise<void> {
    const at = this.deps.now() + retryDelayMs(attempts);
    const triedSet = new Set(tried);
    await this.deps.stores.emailOutbox.release(tried, token, at, true);
    const others = rows.filter((r) => !triedSet.has(r.id)).map((r) => r.id);
    if (others.length) await this.deps.stores.emailOutbox.release(others, token, at, false);
  }

  private renderOptions(recipient: UserRecord) {
    const contents = this.deps.config.get().EmailSettings.EmailNotificationContentsType === 'generic' ? ('generic' as const) : ('full' as const);
    return { siteName: SITE_NAME, contents, timeZone: timeZoneOf(recipient) };
  }

  /** The posts of these rows as email items, in order; posts deleted since (or gone) are left out. */
  private async items(recipient: UserRecord, rows: OutboxRow[]): Promise<Array<{ item: EmailItem; post: Post }>> {
    const { stores } = this.deps;
    const config = this.deps.config.get();
    const postIds = rows.flatMap((r) => r.post_ids);
    const posts = new Map((await stores.posts.getMany(postIds)).map((p) => [p.id, p]));
    const live = postIds.map((id) => posts.get(id)).filter((p): p is Post => p !== undefined && p.delete_at === 0);
    if (live.length === 0) return [];
    const senders = new Map((await stores.users.getMany([...new Set(live.map((p) => p.user_id))])).map((u) => [u.id, u]));
    const channels = new Map<string, Awaited<ReturnType<typeof stores.channels.get>>>();
    for (const id of new Set(live.map((p) => p.channel_id))) channels.set(id, await stores.channels.get(id));
    const teamNames = new Map<string, string>();
    let ownTeam: string | undefined;
    const teamName = async (teamId: string): Promise<string> => {
      if (teamId === '') {
        // Direct and group channels belong to no team: the link goes through the recipient's first team.
        ownTeam ??= (await stores.teams.listForUser(recipient.id))[0]?.name ?? '';
        return ownTeam;
      }
      if (!teamNames.has(teamId)) teamNames.set(teamId, (await stores.teams.get(teamId))?.name ?? '');
      return teamNames.get(teamId) as string;
    };
    const siteUrl = config.ServiceSettings.SiteURL.replace(/\/+$/, '');
    const out: Array<{ item: EmailItem; post: Post }> = [];
    for (const post of live) {
      const channel = channels.get(post.channel_id);
      if (!channel) continue;
      const sender = senders.get(post.user_id);
      const override = post.props.override_username;
      const senderName = post.props.from_webhook === 'true' && typeof override === 'string' && override !== '' ? override : (sender?.username ?? 'someone');
      const team = await teamName(channel.team_id);
      out.push({
        post,
        item: {
          senderName,
          channelType: channel.type,
          channelName: channel.type === 'D' ? 'Direct Message' : channel.display_name,
          message: notificationText(post),
          createAt: post.create_at,
          link: team ? `${siteUrl}/${team}/pl/${post.id}` : `${siteUrl}/`,
        },
      });
    }
    return out;
  }

  private async send(recipient: UserRecord, email: RenderedEmail, post?: Post): Promise<'sent' | 'failed' | 'unavailable'> {
    if (this.options.foregroundBusy?.()) await new Promise<void>((resolve) => setTimeout(resolve, FOREGROUND_PACE_MS));
    const settings = this.deps.config.get().EmailSettings;
    const host = (() => {
      try {
        return new URL(this.deps.config.get().ServiceSettings.SiteURL).hostname || 'localhost';
      } catch {
        return 'localhost';
      }
    })();
    const outcome = await this.mailer.send({
      from: { name: settings.FeedbackName, address: settings.FeedbackEmail },
      to: recipient.email,
      ...email,
      // As Mattermost: a single post's email is named after the post, and a reply points at its thread's root.
      messageId: post ? `<${post.id}@${host}>` : undefined,
      inReplyTo: post?.root_id ? `<${post.root_id}@${host}>` : undefined,
    });
    if (outcome.kind === 'sent') return 'sent';
    this.deps.onBackgroundError(new Error(`notification email to user ${recipient.id}: ${outcome.message}`), `email notification ${outcome.kind}`);
    // A permanent refusal will not change: the row is dropped as if sent.
    return outcome.kind === 'rejected' ? 'sent' : outcome.kind;
  }
}
