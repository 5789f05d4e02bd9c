import { pino } from 'pino';
import { ConfigError, loadConfig } from './config.ts';
import { startService } from './service.ts';
import { describeStartupError } from './startup-errors.ts';

/** Entry point: config → service → signals. Exits non-zero, with the reason, when it cannot serve. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const log = pino({ level: config.logLevel });
  // One line on stderr that says what to change; the stack only when asked for (LOG_LEVEL=debug).
  const cannotStart = (err: unknown): never => {
    const known = describeStartupError(err, config);
    console.error(`Cannot start: ${known ?? (err as Error).message ?? String(err)}`);
    if (known === null) log.debug({ err }, 'start-up failed');
    process.exit(1);
  };
  const service = await startService(config, log).catch(cannotStart);
  log.info({ url: service.url, dataDir: config.dataDir }, 'listening');
  service.ready.catch(cannotStart);
  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down: finishing in-flight writes');
    service.close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

await main();
