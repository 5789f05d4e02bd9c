import { pino } from 'pino';
import { ConfigError, loadConfig } from './config.ts';
import { startService } from './service.ts';
import { DataDirLockedError } from './storage/lock-file.ts';
import { BrokenRepositoryError } from './storage/repository.ts';

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
  let service;
  try {
    service = await startService(config, log);
  } catch (err) {
    if (err instanceof DataDirLockedError || err instanceof BrokenRepositoryError) {
      log.fatal(err.message);
      process.exit(1);
    }
    throw err;
  }
  log.info({ url: service.url, dataDir: config.dataDir }, 'listening');
  service.ready.catch(() => process.exit(1));
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
