import { isIP } from 'node:net';
import { type Fail, whole } from '../env-values.ts';

/** Outbound webhook deliveries: where they may go and how they are retried. */
export interface WebhookConfig {
  /**
   * Hosts and address ranges that deliveries may reach although they are loopback, link-local or
   * private (`HELP_WEBHOOK_ALLOW_HOSTS`): host names match the URL's host, addresses and CIDR ranges
   * the address it resolves to.
   */
  readonly allowHosts: readonly string[];
  /** Milliseconds before the first retry of a failed delivery, doubling at each one up to an hour (`HELP_WEBHOOK_RETRY_MS`, default 30,000). */
  readonly retryMs: number;
  /** Seconds a delivery is retried before it is given up and its subscription disabled (`HELP_WEBHOOK_RETRY_WINDOW`, default 86,400: a day). */
  readonly retryWindowSeconds: number;
  /** Seconds one delivery attempt may take, connection and answer (`HELP_WEBHOOK_TIMEOUT`, default 10). */
  readonly timeoutSeconds: number;
}


/** The webhook settings from the environment; `fail` makes the error that stops the start. */
export function webhookConfig(env: NodeJS.ProcessEnv, fail: Fail): WebhookConfig {
  return Object.freeze({
    allowHosts: Object.freeze(allowHosts(env.HELP_WEBHOOK_ALLOW_HOSTS, fail)),
    retryMs: whole(env, 'HELP_WEBHOOK_RETRY_MS', 30_000, 10, 3_600_000, fail),
    retryWindowSeconds: whole(env, 'HELP_WEBHOOK_RETRY_WINDOW', 86_400, 1, 30 * 86_400, fail),
    timeoutSeconds: whole(env, 'HELP_WEBHOOK_TIMEOUT', 10, 1, 120, fail),
  });
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

function allowHosts(raw: string | undefined, fail: Fail): string[] {
  const entries = (raw ?? '').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);
  const bad = entries.find((e) => !isRange(e) && !HOST_NAME.test(e));
  if (bad !== undefined) throw fail(`HELP_WEBHOOK_ALLOW_HOSTS takes host names, IP addresses and CIDR ranges separated by commas (such as hooks.internal,10.1.0.0/16,127.0.0.1); ${JSON.stringify(bad)} is none of these`);
  return entries;
}

/** An IP address, or one with a prefix length (`10.0.0.0/8`). */
export function isRange(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}
