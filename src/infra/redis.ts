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
    // disconnect() ends the stream and destroys it if it has not closed after this long; while reconnecting the
    // stream is already closed, so this timer is all that is left, and it holds the process open (2 s by default).
    disconnectTimeout: 100,
    ...extra,
  });
  client.on('error', onError);
  return client;
}

/**
 * Closes a client for good: QUIT when connected (pending replies first), else stop reconnecting. Resolves when no
 * timer or socket of the client keeps the process alive (at most `disconnectTimeout` later).
 */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // the connection went away meanwhile: disconnect below
    }
  }
  client.disconnect();
}
