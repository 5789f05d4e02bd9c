import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Every setting of the service, read from the environment once at start, checked, and frozen.
 * README.md's configuration table documents the same list.
 */
export interface Config {
  /** TCP port (`PORT`, default 8080; 0 picks a free one). */
  readonly port: number;
  /** Interface to listen on (`HOST`, default 127.0.0.1). */
  readonly host: string;
  /** Where the content repository, keys and lock file live (`HELP_DATA_DIR`, default ./data). */
  readonly dataDir: string;
  /** Content imported on first start when the repository holds no version (`HELP_SAMPLE_CONTENT`; `off` disables). */
  readonly sampleContentDir: string | null;
  /** Largest JSON body accepted, in bytes (`HELP_BODY_LIMIT`, default 5 MB). */
  readonly bodyLimit: number;
  /** pino log level (`LOG_LEVEL`, default info; `silent` turns logging off). */
  readonly logLevel: string;
  /** Path prefix of the API (fixed: the API version is part of the path). */
  readonly basePath: '/help/v1';
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const sample = env.HELP_SAMPLE_CONTENT || resolve(PROJECT_ROOT, 'content-sample');
  return Object.freeze({
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.HELP_DATA_DIR || 'data'),
    sampleContentDir: sample === 'off' ? null : resolve(sample),
    bodyLimit: integer(env, 'HELP_BODY_LIMIT', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    logLevel,
    basePath: '/help/v1' as const,
    ...overrides,
  });
}
