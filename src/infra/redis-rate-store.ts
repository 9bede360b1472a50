import type Redis from 'ioredis';
import { gcra, type RateDecision, type RateQuota, type RateStore } from '../lib/gcra';

// The same GCRA as lib/gcra.ts, run inside Redis so that every process shares one TAT per key atomically, on Redis's
// clock (the processes' clocks may disagree). ARGV[3] requests of one key are decided at once, in order, at the same
// instant: exactly as ARGV[3] single requests arriving together (a refused request does not move the TAT, so once one
// is refused the rest are too). Replies: how many were allowed, Redis's now (ms) and the TAT as stored before ('' for
// none), from which the caller works out each request's figures with the same arithmetic (lib/gcra.ts).
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local stored = redis.call('GET', KEYS[1])
local tat = now
if stored then
  tat = tonumber(stored)
  if tat < now then tat = now end
end
local allowed = 0
while allowed < n do
  local nextTat = tat + interval
  if now - (nextTat - tolerance) < 0 then break end
  tat = nextTat
  allowed = allowed + 1
end
if allowed > 0 then
  redis.call('SET', KEYS[1], tostring(tat), 'PX', math.ceil(tat - now) + 1)
end
return {allowed, tostring(now), stored or ''}
`;

interface ScriptedRedis extends Redis {
  parleyGcraBatch(key: string, interval: string, tolerance: string, count: string): Promise<[number, string, string]>;
}

/** The requests of one key (and one quota) waiting for the next round trip. */
interface Batch {
  key: string;
  q: RateQuota;
  waiters: Array<(decision: RateDecision) => void>;
}

/**
 * Rate limits shared by every process through Redis. The requests of one key that arrive in the same turn of the
 * event loop share one script call (one round trip, one reply to decode), as group commit shares a transaction: on
 * the webhook path under load that is most of them, and a call per request cost more CPU than the rest of the check
 * (BENCHMARKS.md, "Rate limiter cost"). If Redis cannot answer (down, slow), the requests are allowed and the failure
 * reported once per outage, as Mattermost's limiter fails open: a limiter outage must not become a chat outage.
 */
export class RedisRateStore implements RateStore {
  private readonly redis: ScriptedRedis;
  private failing = false;
  private pending = new Map<string, Batch>();
  private scheduled = false;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly onFailure: (err: unknown) => void,
  ) {
    redis.defineCommand('parleyGcraBatch', { numberOfKeys: 1, lua: SCRIPT });
    this.redis = redis as ScriptedRedis;
  }

  take(key: string, q: RateQuota): Promise<RateDecision> {
    // A quota changed by a PatchConfig within the turn starts a batch of its own (sent after the first, in order).
    const id = `${q.perSec}|${q.burst}|${key}`;
    let batch = this.pending.get(id);
    if (!batch) {
      batch = { key: this.prefix + key, q, waiters: [] };
      this.pending.set(id, batch);
    }
    const waiters = batch.waiters;
    if (!this.scheduled) {
      this.scheduled = true;
      // After the I/O callbacks of this turn: every request read in it is in its batch by then.
      setImmediate(() => this.flush());
    }
    return new Promise((resolve) => waiters.push(resolve));
  }

  private flush(): void {
    const batches = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    for (const batch of batches.values()) void this.send(batch);
  }

  private async send({ key, q, waiters }: Batch): Promise<void> {
    const interval = 1000 / q.perSec;
    const limit = q.burst + 1;
    let reply: [number, string, string];
    try {
      reply = await this.redis.parleyGcraBatch(key, String(interval), String(interval * limit), String(waiters.length));
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.onFailure(err);
      this.failing = true;
      for (const resolve of waiters) resolve({ allowed: true, limit, remaining: limit, resetMs: 0, retryAfterMs: 0 });
      return;
    }
    const [allowed, nowText, storedText] = reply;
    // The script's arithmetic again, request by request, for the figures of each answer (the headers, Retry-After);
    // the same doubles (Redis's integer now, the stored TAT's own text) give the same numbers. The script's count
    // decides who passes: it is what the shared TAT now records.
    const now = Number(nowText);
    let tat: number | undefined = storedText === '' ? undefined : Number(storedText);
    waiters.forEach((resolve, i) => {
      const step = gcra(tat, now, q);
      tat = step.tat;
      resolve({ ...step.decision, allowed: i < allowed });
    });
  }
}
