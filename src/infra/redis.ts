import Redis, { type RedisOptions } from 'ioredis';

/**
 * A Redis client for the features several processes share (rate limits, real-time events). Commands fail at once
 * while the connection is down (no offline queue, one short timeout) so a caller can fall back instead of waiting;
 * the client keeps reconnecting in the background, backing off up to 2 s between tries.
 */
export function connectRedis(url: string, onError: (err: Error) => void, extra: RedisOptions = {}): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 200,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
    lazyConnect: false,
    ...extra,
  });
  client.on('error', onError);
  return client;
}
