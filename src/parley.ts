import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type App } from './app';
import { ConfigService } from './config/config-service';
import { bootSettings, loadBootConfig, type BootConfig } from './config/load';
import { createRequestListener } from './http/server';
import { Hub } from './http/realtime-hub';
import type { Spec } from './http/spec-routes';
import { frameValidator, openContract } from './http/validation';
import { attachWebSocket } from './http/websocket';
import { LocalBus } from './infra/local-bus';
import { LocalFileStorage } from './infra/local-file-storage';
import { sendOutbound } from './infra/outbound-http';
import { SmtpMailer } from './infra/smtp-mailer';
import { EmailWorker } from './app/email-worker';
import { RedisBus } from './infra/redis-bus';
import { RateLimits } from './http/rate-limits';
import { closeRedis, connectRedis } from './infra/redis';
import { RedisRateStore } from './infra/redis-rate-store';
import { MemoryRateStore } from './lib/gcra';
import { createLogger, type Logger } from './http/logger';
import { baseUrl, parseListen } from './lib/listen';
import { loadSpec } from './spec';
import { createStores } from './store';
import { migrate, openDatabase, type Database } from './store/db';

/** Bytes a socket may have waiting to be sent before it is dropped as a slow consumer (its client resumes). */
const MAX_SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;
/** A request within this long counts as the server being busy (the email worker paces itself meanwhile). */
const FOREGROUND_WINDOW_MS = 100;

export interface Parley {
  app: App;
  db: Database;
  server: http.Server;
  config: ConfigService;
  logger: Logger;
  /** Base URL, e.g. http://127.0.0.1:8065 */
  url: string;
  /** Stops accepting, lets in-flight requests finish, then closes the pool. */
  close(): Promise<void>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  /** Overrides ServiceSettings.ListenAddress (tests use "127.0.0.1:0"). */
  listen?: string;
  validateResponses?: boolean;
  /** Where log lines go (tests read them); by default JSON lines on stdout at LOG_LEVEL. */
  logger?: Logger;
}

/** Boots a Parley server: config, database (migrated), shared config, HTTP. */
export async function startParley(options: StartOptions = {}): Promise<Parley> {
  const boot: BootConfig = loadBootConfig(options.env ?? process.env);
  const settings = bootSettings(boot);
  const logger = options.logger ?? createLogger();
  const db = openDatabase({
    driverName: settings.SqlSettings.DriverName,
    dataSource: settings.SqlSettings.DataSource,
    queryTimeoutMs: settings.SqlSettings.QueryTimeout * 1000,
  });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const stores = createStores(db);
  const config = new ConfigService(stores.config, boot);
  await config.init();
  config.startPolling();
  const cluster = settings.ClusterSettings;
  // One Redis connection for what the processes share (and one more for subscribing to the others' events);
  // without ClusterSettings each process keeps its own counts and delivers to its own sockets only.
  const redisError = (err: Error) => logger.warn({ err: err.message }, 'redis connection error');
  const redis = cluster.Enable ? connectRedis(cluster.RedisURL, redisError) : undefined;
  const subscriber = cluster.Enable ? connectRedis(cluster.RedisURL, redisError, { commandTimeout: undefined }) : undefined;
  const background = (err: unknown, what: string) => logger.warn({ err }, what);
  const validateResponses = options.validateResponses ?? process.env.NODE_ENV === 'test';
  const spec = loadSpec();
  let app: App | undefined;
  // Status writes a socket's arrival or departure starts: kept, so that closing waits for them before the database
  // goes (closing the sockets at shutdown starts one per user).
  const presenceWrites = new Set<Promise<void>>();
  const presenceWrite = (write: Promise<void>) => {
    const p = write.catch((err: unknown) => background(err, 'status not updated'));
    presenceWrites.add(p);
    void p.finally(() => presenceWrites.delete(p));
  };
  const hub = new Hub({
    replayEvents: () => config.get().WebSocketSettings.ReplayBufferSize,
    replayBytes: () => config.get().WebSocketSettings.ReplayBufferBytes,
    maxConnectionsPerUser: () => config.get().WebSocketSettings.MaxConnectionsPerUser,
    replayWindowMs: () => config.get().WebSocketSettings.ReplayWindowSeconds * 1000,
    maxBufferedBytes: MAX_SOCKET_BUFFER_BYTES,
    now: () => (app ? app.deps.now() : Date.now()),
    validateFrame: validateResponses ? frameValidator(spec as unknown as Spec) : undefined,
    onInvalidFrame: (problem, frame) => logger.error({ problem, frame: frame.slice(0, 2000) }, 'websocket frame does not match the spec'),
    presence: {
      connected: (userId) => app && presenceWrite(app.status.activity(userId, true)),
      disconnected: (userId) => app && presenceWrite(app.status.disconnected(userId)),
    },
  });
  const bus = redis && subscriber ? new RedisBus(hub, redis, subscriber, background) : new LocalBus(hub);
  // FileSettings.DriverName is validated to be 'local': the one driver there is (docs/files.md).
  const files = new LocalFileStorage(settings.FileSettings.Directory);
  app = createApp(stores, config, { events: bus, onBackgroundError: background, files, outbound: sendOutbound });
  const rateStore = (prefix: string) =>
    redis
      ? new RedisRateStore(redis, `parley:rl:${prefix}:`, (err) => logger.warn({ err }, 'rate limit store unavailable: requests are allowed until it returns'))
      : new MemoryRateStore(() => config.get().RateLimitSettings.MemoryStoreSize, () => app.deps.now());
  // VaryByUser keys by the user a token authenticates (read without recording activity), never by the token itself.
  const userOfToken = async (token: string) => (await app.sessions.check(token))?.userId;
  const limits = new RateLimits(() => config.get(), rateStore('api'), rateStore('hook'), userOfToken, () => app.deps.now());
  const stopMaintenance = app.startMaintenance((err) => logger.warn({ err }, 'maintenance job failed'));
  // Notification emails: sent from the outbox after commit, woken by the commits that queue one (docs/notifications.md).
  // Requests arriving now (the listener below stamps each): the email worker gives way to them.
  let lastRequestAt = -Infinity;
  const emailWorker = new EmailWorker(app.deps, new SmtpMailer(() => config.get().EmailSettings), {
    foregroundBusy: () => performance.now() - lastRequestAt < FOREGROUND_WINDOW_MS,
  });
  app.writer.onEmailQueued = () => emailWorker.wake();
  emailWorker.start();
  // Outgoing webhook calls: made from their durable queue after commit, woken by the commits that queue them.
  const stopOutgoing = app.outgoingDelivery.start();
  const contract = await openContract(spec as unknown as Spec);
  const listener = createRequestListener(app, { spec, contract, validateResponses, logger, limits });
  const server = http.createServer({ keepAliveTimeout: 65000 }, (req, res) => {
    lastRequestAt = performance.now();
    listener(req, res);
  });
  const websocket = attachWebSocket(server, app, {
    hub,
    limits,
    siteUrl: () => config.get().ServiceSettings.SiteURL,
    now: () => (app as App).deps.now(),
    onError: background,
  });
  const { host, port } = parseListen(options.listen ?? settings.ServiceSettings.ListenAddress);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    app,
    db,
    server,
    config,
    logger,
    url: baseUrl(address),
    close: () =>
      (closing ??= (async () => {
        config.stop();
        stopMaintenance();
        // Before the pool closes: the run in flight settles its claimed rows (sent and deleted, or given back).
        const emailStopped = emailWorker.stop();
        // Calls in flight finish (each bounded by OutgoingIntegrationRequestsTimeout) and settle their queue rows.
        const outgoingStopped = stopOutgoing();
        // Sockets are not requests: close them so the server can drain.
        websocket.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await Promise.all(presenceWrites);
        await emailStopped;
        await outgoingStopped;
        await db.close();
        await Promise.all([redis && closeRedis(redis), subscriber && closeRedis(subscriber)]);
      })()),
  };
}
