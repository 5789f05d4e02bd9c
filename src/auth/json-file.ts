import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { readTextIfExists } from '../storage/durable-fs.ts';

/** A records file that is not what the service writes (edited by hand, damaged): nothing is read from it, and nothing written over it. */
export class DamagedFileError extends Error {}

/**
 * A JSON file of records in the data directory (keys.json, accounts.json), changed by the CLI while
 * the server may be reading it. A change takes `<file>.lock` and replaces the file atomically, so the
 * server never reads half a file and two CLI runs never lose each other's change.
 */
export class LockedJsonFile<T> {
  constructor(
    readonly path: string,
    /** The document's property that holds the records: `{ "keys": [...] }`. */
    private readonly property: string,
    /** Whether a record has the fields the readers use; `what` says what a record is, for the error. */
    private readonly isRecord: (record: unknown) => boolean,
    private readonly what: string,
  ) {}

  /**
   * The records; none when the file does not exist. A file of another shape is refused, not read as
   * empty: the next change would otherwise write an empty list over every record it held.
   */
  read(): T[] {
    const text = readTextIfExists(this.path);
    if (text === null) return [];
    const damaged = (why: string) => new DamagedFileError(`${this.path} ${why}; nothing was read or changed: fix it, or restore it from a backup`);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw damaged(`is not valid JSON (${(err as Error).message})`);
    }
    const records = typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>)[this.property] : undefined;
    if (!Array.isArray(records)) throw damaged(`does not hold { "${this.property}": [ … ] }`);
    const bad = records.findIndex((r) => !this.isRecord(r));
    if (bad >= 0) throw damaged(`holds at "${this.property}[${bad}]" something that is not ${this.what}`);
    return records as T[];
  }

  async update<R>(change: (records: T[]) => { records: T[]; result: R }): Promise<R> {
    const release = await takeFileLock(`${this.path}.lock`);
    try {
      const { records, result } = change(this.read());
      writeAtomic(this.path, `${JSON.stringify({ [this.property]: records }, null, 2)}\n`);
      return result;
    } finally {
      release();
    }
  }
}

/** Replaces a file atomically and durably (temp file, fsync, rename, fsync folder); mode 600: it holds hashes. */
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
