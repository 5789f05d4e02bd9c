import type { Logger } from 'pino';
import { writeAtomic } from './json-file.ts';
import { ReloadingFile } from './reloading.ts';
import { hashKey, KEY_PREFIX, KeyFile, type StoredKey } from './key-file.ts';

/** Last-use stamps are written at most this often. */
const USAGE_FLUSH_MS = 1000;

/**
 * The server's view of the API keys, looked up by hash. keys.json is re-read whenever it changes
 * (ReloadingFile), so a key works the moment `keys create` has printed it and a revoked key is
 * refused the moment `keys revoke` has returned. Last use is kept in memory and flushed to
 * key-usage.json in the background.
 */
export class KeyRing {
  private readonly byHash: ReloadingFile<Map<string, StoredKey>>;
  private readonly usage: Record<string, string>;
  private dirty = false;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly file: KeyFile,
    private readonly log: Logger,
  ) {
    this.usage = file.readUsage();
    this.byHash = new ReloadingFile(file.path, () => new Map(file.read().map((k) => [k.hash, k])), log, new Map());
  }

  start(): void {
    this.timers = [setInterval(() => this.flushUsage(), USAGE_FLUSH_MS)];
    for (const t of this.timers) t.unref();
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.flushUsage();
  }

  /** The key record for a presented secret, or null when it is unknown or revoked. */
  find(secret: string): StoredKey | null {
    if (!secret.startsWith(KEY_PREFIX)) return null;
    return this.byHash.current().get(hashKey(secret)) ?? null;
  }

  touch(key: StoredKey, at: string): void {
    this.usage[key.prefix] = at;
    this.dirty = true;
  }

  lastUsedAt(key: StoredKey): string | null {
    return this.usage[key.prefix] ?? null;
  }

  private flushUsage(): void {
    if (!this.dirty) return;
    this.dirty = false;
    try {
      writeAtomic(this.file.usagePath, `${JSON.stringify(this.usage, null, 2)}\n`);
    } catch (err) {
      this.log.warn({ err }, 'could not record key usage');
    }
  }
}
