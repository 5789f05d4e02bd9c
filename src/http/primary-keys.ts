import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { hashKey, KEY_PREFIX, type KeyFile, type Scope, type StoredKey } from '../auth/key-file.ts';
import { KeyRing } from '../auth/key-ring.ts';
import { AppError } from '../errors.ts';
import { secretOf } from './authorization.ts';
import type { ReplicaConfig } from '../replica/config.ts';

/** What the primary last said of a key: its record, or null (unknown or revoked), and when. */
interface Verdict {
  key: StoredKey | null;
  at: number;
}

/** Keys a replica keeps a verdict on at once; a client trying made-up keys only pushes out old verdicts. */
const VERDICTS_KEPT = 10_000;
/** Seconds a client is asked to wait when the primary cannot check its key. */
const RETRY_AFTER_S = 2;

/**
 * A replica's keys are its primary's: each key presented is checked by the primary (its `whoami`,
 * with the key itself), and the answer trusted for a short while (HELP_REPLICA_KEY_CACHE_MS, 2 s),
 * so a key revoked on the primary stops working on every replica within that time. Nothing about
 * keys is copied to replicas, not even their hashes. While the primary cannot be reached, a key it
 * accepted lately keeps working for HELP_REPLICA_KEY_GRACE; others are answered 503.
 *
 * `check` (before authentication, awaited) asks the primary when the verdict is old; `find`, which
 * authentication calls synchronously, reads the verdict.
 */
export class PrimaryKeys extends KeyRing {
  private readonly verdicts = new LRUCache<string, Verdict>({ max: VERDICTS_KEPT });
  private readonly asking = new Map<string, Promise<void>>();

  constructor(
    file: KeyFile,
    private readonly replica: ReplicaConfig,
    private readonly logger: Logger,
  ) {
    super(file, logger);
  }

  override find(secret: string): StoredKey | null {
    if (!secret.startsWith(KEY_PREFIX)) return null;
    return this.verdicts.get(hashKey(secret))?.key ?? null;
  }

  /** The primary records when its keys are used (each check is a use there). */
  override touch(): void {}

  /** Has a recent verdict of the primary on the key in an Authorization header (Bearer, or Basic as git sends it), if it holds one. */
  async check(header: string): Promise<void> {
    const secret = keyIn(header);
    if (secret === null) return;
    const hash = hashKey(secret);
    const verdict = this.verdicts.get(hash);
    if (verdict !== undefined && Date.now() - verdict.at < this.replica.keyCacheMs) return;
    let asking = this.asking.get(hash);
    if (asking === undefined) {
      asking = this.ask(secret, hash, verdict).finally(() => this.asking.delete(hash));
      this.asking.set(hash, asking);
    }
    await asking;
  }

  private async ask(secret: string, hash: string, previous: Verdict | undefined): Promise<void> {
    let res: Response;
    try {
      res = await fetch(`${this.replica.primary}/whoami`, { headers: { authorization: `Bearer ${secret}`, accept: 'application/json' }, signal: AbortSignal.timeout(5000) });
    } catch (err) {
      return this.unreachable(previous, (err as Error).message);
    }
    if (res.status === 401) {
      await res.body?.cancel();
      this.verdicts.set(hash, { key: null, at: Date.now() });
      return;
    }
    const body = (await res.json().catch(() => null)) as { keyName?: unknown; keyPrefix?: unknown; createdAt?: unknown; scopes?: unknown; canWritePublished?: unknown } | null;
    if (res.status !== 200 || body === null || typeof body.keyName !== 'string' || !Array.isArray(body.scopes)) return this.unreachable(previous, `the primary answered ${res.status}`);
    const key: StoredKey = {
      name: body.keyName,
      prefix: typeof body.keyPrefix === 'string' ? body.keyPrefix : secret.slice(0, KEY_PREFIX.length + 8),
      hash,
      scopes: body.scopes.filter((s): s is Scope => s === 'help:read' || s === 'help:write'),
      canWritePublished: body.canWritePublished === true,
      createdAt: typeof body.createdAt === 'string' ? body.createdAt : new Date(0).toISOString(),
    };
    this.verdicts.set(hash, { key, at: Date.now() });
  }

  /** The primary did not answer: a verdict it gave lately stands; without one the request cannot be answered. */
  private unreachable(previous: Verdict | undefined, reason: string): void {
    if (previous !== undefined && Date.now() - previous.at < this.replica.keyGraceSeconds * 1000) return;
    this.logger.warn({ primary: this.replica.primary, reason }, 'a key could not be checked: the primary cannot be reached');
    throw new AppError('primary_unreachable', 'This replica checks keys with its primary, which cannot be reached now; retry in a moment', { retryAfter: RETRY_AFTER_S });
  }
}

/** The API key an Authorization header carries (Bearer, or the password of Basic as git credential helpers send it), or null. */
function keyIn(header: string): string | null {
  const secret = secretOf(header);
  return secret !== null && secret.startsWith(KEY_PREFIX) ? secret : null;
}
