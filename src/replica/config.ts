import { type Fail, whole } from '../env-values.ts';
/** A read replica: the primary it follows and how (`HELP_REPLICA_*`, docs/replicas.md). */
export interface ReplicaConfig {
  /** The primary's API base URL, e.g. https://primary.internal:8080/help/v1 (`HELP_REPLICA_OF`). */
  readonly primary: string;
  /** A key of the primary's with `help:read`, for its repository and its revision endpoint (`HELP_REPLICA_KEY`). Never logged. */
  readonly key: string;
  /** Milliseconds a read that asks for a revision not served yet waits for it before 503 (`HELP_REPLICA_MIN_REVISION_WAIT`, seconds, default 5). */
  readonly minRevisionWaitMs: number;
  /** Seconds the primary holds a long poll open when nothing moves (`HELP_REPLICA_LONG_POLL`, default 25). */
  readonly longPollSeconds: number;
  /** Milliseconds between two checks of the primary when the long poll is not available or fails (`HELP_REPLICA_POLL_MS`, default 1,000). */
  readonly pollMs: number;
  /** Milliseconds a key's verdict from the primary is trusted before it is asked again (`HELP_REPLICA_KEY_CACHE_MS`, default 2,000). */
  readonly keyCacheMs: number;
  /** Seconds a key the primary accepted keeps working while the primary cannot be reached (`HELP_REPLICA_KEY_GRACE`, default 600; 0: none). */
  readonly keyGraceSeconds: number;
}


/** The replica settings from the environment, or null when `HELP_REPLICA_OF` is not set (the service is a primary). */
export function replicaConfig(env: NodeJS.ProcessEnv, fail: Fail): ReplicaConfig | null {
  const raw = env.HELP_REPLICA_OF;
  if (raw === undefined || raw === '') {
    if (env.HELP_REPLICA_KEY) throw fail('HELP_REPLICA_KEY is set but HELP_REPLICA_OF is not: name the primary to follow, or remove the key');
    return null;
  }
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '' || url.search !== '' || url.hash !== '') {
    throw fail(`HELP_REPLICA_OF must be the primary's API base URL with http:// or https://, such as https://primary.internal:8080/help/v1, not ${JSON.stringify(raw)}`);
  }
  if (url.username !== '' || url.password !== '') throw fail('HELP_REPLICA_OF must not hold a user name or password; give the key in HELP_REPLICA_KEY');
  if (!url.pathname.replace(/\/+$/, '').endsWith('/help/v1')) throw fail(`HELP_REPLICA_OF must end with the API's base path /help/v1 (such as https://primary.internal:8080/help/v1), not ${JSON.stringify(raw)}`);
  const key = env.HELP_REPLICA_KEY ?? '';
  // Not quoted: it is a secret.
  if (!/^hcs_[A-Za-z0-9_-]{8,}$/.test(key)) throw fail('HELP_REPLICA_KEY must be an API key of the primary with help:read (hcs_…), made there with npm run cli -- keys create --name replica --scopes help:read');
  return Object.freeze({
    primary: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
    key,
    minRevisionWaitMs: whole(env, 'HELP_REPLICA_MIN_REVISION_WAIT', 5, 0, 60, fail) * 1000,
    longPollSeconds: whole(env, 'HELP_REPLICA_LONG_POLL', 25, 1, 55, fail),
    pollMs: whole(env, 'HELP_REPLICA_POLL_MS', 1000, 50, 60_000, fail),
    keyCacheMs: whole(env, 'HELP_REPLICA_KEY_CACHE_MS', 2000, 0, 60_000, fail),
    keyGraceSeconds: whole(env, 'HELP_REPLICA_KEY_GRACE', 600, 0, 86_400, fail),
  });
}
