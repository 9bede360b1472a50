import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type App } from './app';
import { ConfigService } from './config/config-service';
import { bootSettings, loadBootConfig, type BootConfig } from './config/load';
import { createRequestListener } from './http/server';
import { createLogger, type Logger } from './http/logger';
import { loadSpec } from './spec';
import { createStores } from './store';
import { migrate, openDatabase, type Database } from './store/db';

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
}

function parseListen(address: string): { host: string | undefined; port: number } {
  const i = address.lastIndexOf(':');
  const host = i > 0 ? address.slice(0, i).replace(/^\[|\]$/g, '') : undefined;
  const port = Number(address.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid ListenAddress "${address}"`);
  return { host, port };
}

/** Boots a Parley server: config, database (migrated), shared config, HTTP. */
export async function startParley(options: StartOptions = {}): Promise<Parley> {
  const boot: BootConfig = loadBootConfig(options.env ?? process.env);
  const settings = bootSettings(boot);
  const logger = createLogger();
  const db = openDatabase({ driverName: settings.SqlSettings.DriverName, dataSource: settings.SqlSettings.DataSource });
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
  const app = createApp(stores, config);
  const listener = await createRequestListener(app, {
    spec: loadSpec(),
    validateResponses: options.validateResponses ?? process.env.NODE_ENV === 'test',
    logger,
  });
  const server = http.createServer({ keepAliveTimeout: 65000 }, listener);
  const { host, port } = parseListen(options.listen ?? settings.ServiceSettings.ListenAddress);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? (address.address === '::' ? 'localhost' : `[${address.address}]`) : address.address === '0.0.0.0' ? 'localhost' : address.address;
  let closing: Promise<void> | undefined;
  return {
    app,
    db,
    server,
    config,
    logger,
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      (closing ??= (async () => {
        config.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await db.close();
      })()),
  };
}
