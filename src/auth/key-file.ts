import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { LockedJsonFile } from './json-file.ts';

/** Every key starts with this, so a leaked key is recognisable (and secret scanners can match it). */
export const KEY_PREFIX = 'hcs_';
/** The 401 for a key this service does not hold: keys live in the data directory they were made in, and one made with another --data-dir is unknown here. */
export const UNKNOWN_KEY = "The key is unknown to this service or has been revoked (a key works only with the data directory it was created in: run keys create with --data-dir set to the service's HELP_DATA_DIR)";
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

const isStoredKey = (r: unknown): boolean => {
  const k = r as Partial<Record<keyof StoredKey, unknown>> | null;
  return typeof k === 'object' && k !== null && typeof k.name === 'string' && typeof k.prefix === 'string' && typeof k.hash === 'string' && Array.isArray(k.scopes) && k.scopes.every((s) => typeof s === 'string');
};

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const newKeySecret = () => `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
export const displayPrefix = (key: string) => key.slice(0, KEY_PREFIX.length + 8);

/**
 * `keys.json` in the data directory: the key records, written by the CLI while the server may be
 * running (see LockedJsonFile), and `key-usage.json`, where the server records when each key was
 * last used.
 */
export class KeyFile {
  readonly path: string;
  readonly usagePath: string;
  private readonly file: LockedJsonFile<StoredKey>;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'keys.json');
    this.usagePath = join(dataDir, 'key-usage.json');
    this.file = new LockedJsonFile<StoredKey>(this.path, 'keys', isStoredKey, 'a key (name, prefix, hash, scopes)');
  }

  read(): StoredKey[] {
    return this.file.read();
  }

  /** Last use per key prefix, as the server records it. */
  readUsage(): Record<string, string> {
    try {
      return JSON.parse(fs.readFileSync(this.usagePath, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }

  update<T>(change: (keys: StoredKey[]) => { keys: StoredKey[]; result: T }): Promise<T> {
    return this.file.update((records) => {
      const { keys, result } = change(records);
      return { records: keys, result };
    });
  }
}
