import { startParley } from './parley';

/** `npm start`: run until SIGTERM/SIGINT, then drain in-flight requests and close the database pool. */
async function main(): Promise<void> {
  const parley = await startParley();
  const settings = parley.config.get().SqlSettings;
  parley.logger.info({ url: parley.url, driver: settings.DriverName }, 'parley listening');
  process.stdout.write(`Parley listening on ${parley.url} (database: ${settings.DriverName})\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    parley.logger.info({ signal }, 'shutting down');
    parley.close().then(
      () => process.exit(0),
      (err) => {
        parley.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`parley: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
