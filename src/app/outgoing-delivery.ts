import { newId } from '../lib/ids';
import { signatureHeaders } from '../lib/request-signing';
import { OUTGOING_DELIVERY } from '../model';
import type { DeliveryRecord } from '../model';
import type { TxStores } from '../store';
import { GroupCommit } from '../store/group-commit';
import type { QueuedCall } from '../store/outgoing-queue-store';
import type { Deps } from './deps';
import type { HookExecution, HookIdentity } from './hook-execution';
import type { OutboundResult, SendOutbound } from './outbound';
import { encodePayload, parseReply, type OutgoingPayload } from './outgoing-request';

/** Calls in flight at once in one process: a hanging integration holds one place until its time-out, not the queue. */
const MAX_IN_FLIGHT = 16;
/** How often the queue is looked at when nothing is due sooner (other processes' calls, retries of a dead process). */
const POLL_MS = 5000;
/** A claimed call becomes due again this long after its time-out, should its process never finish it. */
const LEASE_MARGIN_MS = 30_000;
/** Mattermost's User-Agent: integrations written for it see the same request. */
const USER_AGENT = 'Mattermost-Bot/1.1';

/** A call ready to send: its body, the token that signs it, and what posting the answer needs. */
interface CallRequest {
  contentType: string;
  body: string;
  token: string;
  hook: HookIdentity & { creator_id: string };
  channelId: string;
  /** The thread a `comment` answer joins. */
  rootId: string;
}

/** What an attempt leaves behind: its log entry, and the call finished or given back for a retry at `retryAt`. */
interface Settled {
  delivery: DeliveryRecord;
  call: QueuedCall;
  claim: string;
  retryAt?: number;
}

/**
 * At most one transaction of settled attempts starts per this many ms under load. Attempts end one by one (each
 * after its own HTTP answer); on SQLite each autocommit is an fsync that blocks the event loop, so a busy hook's
 * attempts settled one at a time (a log insert, its prune, the queue delete) took the posts' turn. Spaced, the
 * attempts that ended meanwhile share one transaction.
 */
const SETTLE_SPACING_MS = 20;

async function settleAll(tx: TxStores, items: Settled[]): Promise<void[]> {
  await tx.deliveries.recordMany(items.map((i) => i.delivery));
  for (const i of items) {
    if (i.retryAt !== undefined) await tx.outgoingQueue.retryAt(i.call.id, i.claim, i.delivery.attempt, i.retryAt);
    else await tx.outgoingQueue.finish(i.call.id, i.claim);
  }
  return items.map(() => undefined);
}

/** How one attempt ended: whether the call is over, and why the log says what it says. */
interface Outcome {
  statusCode: number;
  error: string;
  retry: boolean;
}

/** Connect errors, time-outs and 5xx are worth another attempt; an answer below 500 or a refused address is final. */
export function judge(result: OutboundResult): Outcome {
  if (!result.ok) {
    const retry = result.kind === 'timeout' || result.kind === 'connect';
    return { statusCode: 0, error: `${result.kind}: ${result.message}`, retry };
  }
  if (result.status >= 500) return { statusCode: result.status, error: `the integration answered ${result.status}`, retry: true };
  if (result.status >= 400) return { statusCode: result.status, error: `the integration answered ${result.status}`, retry: false };
  return { statusCode: result.status, error: '', retry: false };
}

/** The delay before retry `n` (1-based): about 1 s, doubling, ±25 % jitter so retries of many calls spread out. */
export function retryDelay(n: number, baseMs: number, random: () => number = Math.random): number {
  return Math.round(baseMs * 2 ** (n - 1) * (0.75 + random() * 0.5));
}

/**
 * The delivery worker of outgoing webhooks: takes due calls from the durable queue (a conditional claim, so with
 * several processes each attempt is made once), sends them signed through the outbound adapter, records every
 * attempt in the delivery log, retries what may succeed later, and posts the integration's answer. Woken at once by
 * a commit that queued calls; otherwise it looks again when the next call is due, at least every POLL_MS.
 */
export class OutgoingDelivery {
  /** The first retry's delay (doubling after); tests shorten it. */
  retryBaseMs: number = OUTGOING_DELIVERY.firstRetryMs;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private cycling: Promise<void> | undefined;
  private again = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts' log entries and queue changes, committed together (see SETTLE_SPACING_MS). */
  private readonly settled: GroupCommit<Settled, void>;

  constructor(
    private readonly deps: Deps,
    private readonly hookExecution: HookExecution,
    private readonly send: SendOutbound,
  ) {
    this.settled = new GroupCommit(deps.stores, settleAll, { concurrency: 1, maxItems: 500, spacingMs: SETTLE_SPACING_MS });
  }

  /** Starts the worker; returns what stops it (it waits for the calls in flight, each bounded by its time-out). */
  start(): () => Promise<void> {
    this.stopped = false;
    this.schedule(0);
    return async () => {
      this.stopped = true;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      await this.cycling;
      await Promise.all(this.inFlight);
    };
  }

  /** Looks at the queue now (after a commit that queued calls). */
  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.runCycle();
    }, ms);
    this.timer.unref();
  }

  private runCycle(): void {
    if (this.cycling) {
      this.again = true;
      return;
    }
    this.cycling = this.cycle()
      .catch((err: unknown) => {
        this.deps.onBackgroundError(err, 'outgoing webhook queue not read');
        this.schedule(POLL_MS);
      })
      .finally(() => {
        this.cycling = undefined;
        if (this.again) {
          this.again = false;
          this.schedule(0);
        }
      });
  }

  /** Claims what is due while there is room, starts each call, then sleeps until the next is due. */
  private async cycle(): Promise<void> {
    const { stores, config } = this.deps;
    while (!this.stopped && this.inFlight.size < MAX_IN_FLIGHT) {
      const now = this.deps.now();
      const timeoutMs = config.get().ServiceSettings.OutgoingIntegrationRequestsTimeout * 1000;
      const claim = newId();
      const calls = await stores.outgoingQueue.claimDue(now, MAX_IN_FLIGHT - this.inFlight.size, claim, now + timeoutMs + LEASE_MARGIN_MS);
      if (calls.length === 0) break;
      // The requests of a claimed batch are built together: one read of each post, hook, channel, team and poster
      // for the batch, not five reads per call (the worker shares the process with the posts it serves).
      const requests = config.get().ServiceSettings.EnableOutgoingWebhooks ? await this.buildAll(calls) : new Map<string, CallRequest>();
      for (const call of calls) this.track(this.deliver(call, claim, timeoutMs, requests.get(call.id)));
    }
    if (this.stopped) return;
    // A full process is woken by its own calls finishing; otherwise by the next due call, or the poll.
    if (this.inFlight.size >= MAX_IN_FLIGHT) return;
    const next = await stores.outgoingQueue.nextDue();
    const wait = next === undefined ? POLL_MS : Math.min(POLL_MS, Math.max(25, next - this.deps.now()));
    this.schedule(wait);
  }

  private track(work: Promise<void>): void {
    const p = work
      .catch((err: unknown) => this.deps.onBackgroundError(err, 'outgoing webhook call failed'))
      .finally(() => {
        this.inFlight.delete(p);
        this.wake();
      });
    this.inFlight.add(p);
  }

  /** One attempt of one call: build the request from what is stored now, send it, record it, then finish or retry. */
  private async deliver(call: QueuedCall, claim: string, timeoutMs: number, request: CallRequest | undefined): Promise<void> {
    const { stores, config } = this.deps;
    if (!request) {
      // Outgoing webhooks were switched off, or the hook, post or channel is gone (or the hook no longer calls this
      // URL): nothing to send.
      await stores.outgoingQueue.finish(call.id, claim);
      return;
    }
    const attempt = call.attempt + 1;
    const startedAt = this.deps.now();
    const headers: Record<string, string> = {
      'Content-Type': request.contentType,
      Accept: 'application/json',
      'User-Agent': USER_AGENT,
      ...signatureHeaders(request.token, request.body, startedAt),
    };
    if (attempt > 1) headers['X-Parley-Retry-Num'] = String(attempt - 1);
    const settings = config.get().ServiceSettings;
    const result = await this.send(
      { method: 'POST', url: call.callback_url, headers, body: request.body, timeoutMs },
      { allowList: settings.AllowedUntrustedInternalConnections },
    );
    const outcome = judge(result);
    const delivery: DeliveryRecord = {
      integration_id: call.hook_id,
      kind: 'outgoing_webhook',
      post_id: call.post_id,
      attempt,
      request_at: startedAt,
      duration_ms: this.deps.now() - startedAt,
      status_code: outcome.statusCode,
      error: outcome.error,
      callback_url: call.callback_url,
    };
    const retry = outcome.retry && attempt < OUTGOING_DELIVERY.maxAttempts;
    await this.settled.submit({ delivery, call, claim, retryAt: retry ? this.deps.now() + retryDelay(attempt, this.retryBaseMs) : undefined });
    if (retry) return;
    if (result.ok) await this.postAnswer(request, result.body);
  }

  /** The requests of claimed calls (by call id), from the hooks, posts, channels, teams and posters as they are now. */
  private async buildAll(calls: QueuedCall[]): Promise<Map<string, CallRequest>> {
    const { stores } = this.deps;
    const memo = <T>(cache: Map<string, Promise<T>>, id: string, read: (id: string) => Promise<T>): Promise<T> => {
      let found = cache.get(id);
      if (!found) {
        found = read(id);
        cache.set(id, found);
      }
      return found;
    };
    const hooks = new Map<string, Promise<Awaited<ReturnType<typeof stores.outgoingHooks.get>>>>();
    const channels = new Map<string, Promise<Awaited<ReturnType<typeof stores.channels.get>>>>();
    const teams = new Map<string, Promise<Awaited<ReturnType<typeof stores.teams.get>>>>();
    const members = new Map<string, Promise<boolean>>();
    const posts = new Map((await stores.posts.getMany([...new Set(calls.map((c) => c.post_id))])).map((p) => [p.id, p]));
    const posters = new Map((await stores.users.getMany([...new Set([...posts.values()].map((p) => p.user_id))])).map((u) => [u.id, u]));
    const built = new Map<string, CallRequest>();
    for (const call of calls) {
      const hook = await memo(hooks, call.hook_id, (id) => stores.outgoingHooks.get(id));
      if (!hook || !hook.callback_urls.includes(call.callback_url)) continue;
      const post = posts.get(call.post_id);
      if (!post || post.delete_at !== 0) continue;
      const channel = await memo(channels, post.channel_id, (id) => stores.channels.get(id));
      if (!channel || channel.delete_at !== 0) continue;
      // A hook on a private channel speaks for its creator: once they have left the channel, it no longer fires there.
      if (channel.type !== 'O' && !(await memo(members, `${channel.id}/${hook.creator_id}`, async () => Boolean(await stores.channels.getMember(channel.id, hook.creator_id))))) continue;
      const team = await memo(teams, channel.team_id, (id) => stores.teams.get(id));
      const payload: OutgoingPayload = {
        token: hook.token,
        team_id: hook.team_id,
        team_domain: team?.name ?? '',
        channel_id: channel.id,
        channel_name: channel.name,
        timestamp: post.create_at,
        user_id: post.user_id,
        user_name: posters.get(post.user_id)?.username ?? '',
        post_id: post.id,
        text: post.message,
        trigger_word: call.trigger_word,
        file_ids: (post.file_ids ?? []).join(','),
      };
      built.set(call.id, {
        ...encodePayload(payload, hook.content_type),
        token: hook.token,
        hook,
        channelId: channel.id,
        // A comment joins the triggering post's thread (Mattermost replies to the post itself, which breaks threads
        // when that post is a reply: mattermost#10463).
        rootId: post.root_id || post.id,
      });
    }
    return built;
  }

  /** Posts the integration's answer as Mattermost does (text or attachments, response_type comment → a reply). */
  private async postAnswer(request: CallRequest, body: Buffer): Promise<void> {
    const reply = parseReply(body);
    if (!reply) return;
    if ('invalid' in reply) {
      this.deps.onBackgroundError(new Error(reply.invalid), 'outgoing webhook answer not posted');
      return;
    }
    const payload = reply.comment ? { ...reply.payload, root_id: request.rootId } : reply.payload;
    await this.hookExecution.postReply(request.hook, request.hook.creator_id, request.channelId, payload);
  }
}
