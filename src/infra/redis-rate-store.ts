import type Redis from 'ioredis';
import type { RateDecision, RateQuota, RateStore } from '../lib/gcra';

// The same GCRA as lib/gcra.ts, run inside Redis so that every process shares one TAT per key atomically, on Redis's
// clock (the processes' clocks may disagree). Replies: allowed (0/1), reset ms, retry-after ms, remaining.
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local stored = redis.call('GET', KEYS[1])
local tat = now
if stored then
  tat = tonumber(stored)
  if tat < now then tat = now end
end
local nextTat = tat + interval
local diff = now - (nextTat - tolerance)
if diff < 0 then
  return {0, tostring(tat - now), tostring(-diff), '0'}
end
redis.call('SET', KEYS[1], tostring(nextTat), 'PX', math.ceil(nextTat - now) + 1)
return {1, tostring(nextTat - now), '0', tostring(math.floor(diff / interval))}
`;

interface ScriptedRedis extends Redis {
  parleyGcra(key: string, interval: string, tolerance: string): Promise<[number, string, string, string]>;
}

/**
 * Rate limits shared by every process through Redis. If Redis cannot answer (down, slow), the request is allowed and
 * the failure reported once per outage, as Mattermost's limiter fails open: a limiter outage must not become a chat
 * outage.
 */
export class RedisRateStore implements RateStore {
  private readonly redis: ScriptedRedis;
  private failing = false;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly onFailure: (err: unknown) => void,
  ) {
    redis.defineCommand('parleyGcra', { numberOfKeys: 1, lua: SCRIPT });
    this.redis = redis as ScriptedRedis;
  }

  async take(key: string, q: RateQuota): Promise<RateDecision> {
    const interval = 1000 / q.perSec;
    const limit = q.burst + 1;
    try {
      const [allowed, reset, retry, remaining] = await this.redis.parleyGcra(this.prefix + key, String(interval), String(interval * limit));
      this.failing = false;
      return { allowed: allowed === 1, limit, remaining: Number(remaining), resetMs: Number(reset), retryAfterMs: Number(retry) };
    } catch (err) {
      if (!this.failing) this.onFailure(err);
      this.failing = true;
      return { allowed: true, limit, remaining: limit, resetMs: 0, retryAfterMs: 0 };
    }
  }
}
