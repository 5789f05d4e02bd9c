import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';

/** Every key starts with this, so a leaked key is recognisable (and secret scanners can match it). */
export const KEY_PREFIX = 'hcs_';
export const SCOPES = ['help:read', 'help:write'] as const;
export type Scope = (typeof SCOPES)[number];
export const KEY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A key as stored: never the key itself, only its SHA-256 (keys are 192 random bits, so a fast hash is enough). */
export interface StoredKey {
  name: string;
  /** The first characters of the key, shown to tell keys apart. */
  prefix: string;
  hash: string;
  scopes: Scope[];
  canWritePublished: boolean;
  createdAt: string;
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const newKeySecret = () => `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
export const displayPrefix = (key: string) => key.slice(0, KEY_PREFIX.length + 8);

/**
 * `keys.json` in the data directory: the key records, written by the CLI while the server may be
 * running. Writes take `keys.json.lock` and replace the file atomically, so the server never reads
 * half a file and two CLI runs never lose each other's change.
 */
export class KeyFile {
  readonly path: string;
  readonly usagePath: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'keys.json');
    this.usagePath = join(dataDir, 'key-usage.json');
  }

  read(): StoredKey[] {
    let text: string;
    try {
      text = fs.readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const doc = JSON.parse(text) as { keys?: StoredKey[] };
    return Array.isArray(doc.keys) ? doc.keys : [];
  }

  /** Last use per key prefix, as the server records it. */
  readUsage(): Record<string, string> {
    try {
      return JSON.parse(fs.readFileSync(this.usagePath, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }

  async update<T>(change: (keys: StoredKey[]) => { keys: StoredKey[]; result: T }): Promise<T> {
    const lock = `${this.path}.lock`;
    const release = await takeFileLock(lock);
    try {
      const { keys, result } = change(this.read());
      writeAtomic(this.path, `${JSON.stringify({ keys }, null, 2)}\n`);
      return result;
    } finally {
      release();
    }
  }
}

/** Replaces a file atomically and durably (temp file, fsync, rename, fsync folder); mode 600, it holds key hashes. */
export function writeAtomic(path: string, content: string): void {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(temp, 'w', 0o600);
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, path);
  const dir = fs.openSync(join(path, '..'), 'r');
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
}

async function takeFileLock(path: string): Promise<() => void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(path, 'wx'));
      return () => fs.rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A lock older than the deadline belongs to a process that died mid-write.
      const held = fs.statSync(path, { throwIfNoEntry: false });
      if (held === undefined) continue;
      if (Date.now() - held.mtimeMs > 10_000) fs.rmSync(path, { force: true });
      else if (Date.now() > deadline) throw new Error(`${path} is held by another process`);
      else await new Promise((r) => setTimeout(r, 25));
    }
  }
}
