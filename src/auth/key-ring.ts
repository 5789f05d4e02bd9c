import * as fs from 'node:fs';
import type { Logger } from 'pino';
import { writeAtomic } from './json-file.ts';
import { hashKey, KEY_PREFIX, KeyFile, type StoredKey } from './key-file.ts';

/** Last-use stamps are written at most this often. */
const USAGE_FLUSH_MS = 1000;

/**
 * The server's view of the API keys, looked up by hash. Every lookup first compares keys.json's
 * stat (inode, size, mtime) with the one last read and re-reads the file when it differs, so a key
 * works the moment `keys create` has printed it and a revoked key is refused the moment `keys revoke`
 * has returned (the CLI replaces the file by rename, so the inode always changes). A stat costs a
 * few microseconds, less than hashing the key. Last use is kept in memory and flushed to
 * key-usage.json in the background.
 */
export class KeyRing {
  private byHash = new Map<string, StoredKey>();
  private readonly usage: Record<string, string>;
  private dirty = false;
  private timers: NodeJS.Timeout[] = [];
  /** What keys.json looked like (inode, size, mtime) when it was last read. */
  private seen = '';

  constructor(
    private readonly file: KeyFile,
    private readonly log: Logger,
  ) {
    this.usage = file.readUsage();
    this.reload();
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
    this.reloadIfChanged();
    return this.byHash.get(hashKey(secret)) ?? null;
  }

  touch(key: StoredKey, at: string): void {
    this.usage[key.prefix] = at;
    this.dirty = true;
  }

  lastUsedAt(key: StoredKey): string | null {
    return this.usage[key.prefix] ?? null;
  }

  private signature(): string {
    const st = fs.statSync(this.file.path, { throwIfNoEntry: false });
    return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : 'none';
  }

  private reloadIfChanged(): void {
    if (this.signature() !== this.seen) this.reload();
  }

  private reload(): void {
    // Stat first, then read: a change after the stat is seen by the next poll.
    this.seen = this.signature();
    try {
      this.byHash = new Map(this.file.read().map((k) => [k.hash, k]));
    } catch (err) {
      // Keep the keys we had: a half-edited file must not lock everyone out.
      this.log.error({ err, path: this.file.path }, 'keys.json could not be read; keeping the previous keys');
    }
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
