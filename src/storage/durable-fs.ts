import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A file's text, or null when there is no such file (a store's file before its first write); other errors are thrown. */
export function readTextIfExists(path: string): string | null {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Where temp files wait before their rename; inside the git dir, so renames stay on one file system. */
export const TEMP_DIR = 'tmp-writes';

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const fsyncFd = (fd: number) =>
  new Promise<void>((resolve, reject) => {
    fs.fsync(fd, (err) => (err ? reject(err) : resolve()));
  });

/** Folders kept open for their fsyncs, by path (the few every commit syncs: objects/pack/, refs/heads/). */
const openDirs = new Map<string, { fd: number; ino: number; dev: number }>();
const MAX_OPEN_DIRS = 16;

/**
 * fsyncDir() for a folder synced at every commit: its descriptor is kept open, which saves an open
 * and a close (two trips through the thread pool) per commit. The descriptor is checked to be the
 * folder's still (the same inode), so a folder removed and made again is opened again.
 */
export async function fsyncKeptDir(dir: string): Promise<void> {
  const now = fs.statSync(dir);
  let kept = openDirs.get(dir);
  if (kept !== undefined && (kept.ino !== now.ino || kept.dev !== now.dev)) {
    openDirs.delete(dir);
    fs.closeSync(kept.fd);
    kept = undefined;
  }
  if (kept === undefined) {
    if (openDirs.size >= MAX_OPEN_DIRS) {
      const [oldest, entry] = openDirs.entries().next().value as [string, { fd: number }];
      openDirs.delete(oldest);
      fs.closeSync(entry.fd);
    }
    const fd = fs.openSync(dir, 'r');
    const stat = fs.fstatSync(fd);
    kept = { fd, ino: stat.ino, dev: stat.dev };
    openDirs.set(dir, kept);
  }
  await fsyncFd(kept.fd);
}

/**
 * Large files are flushed in slices of this size: one flush of tens of MB would hold up the small
 * fsyncs of every write waiting behind it on the disk.
 */
const FLUSH_SLICE = 4 << 20;

/**
 * Up to this size a file is created and written with synchronous calls (they reach the page cache,
 * not the disk: tens of microseconds), and only its fsync waits on the thread pool. Each trip
 * through the pool cost more than the call itself, and a commit made about ten of them.
 */
const SYNC_WRITE_BYTES = 1 << 20;

/** Writes `data` to a new temp file and fsyncs it; the file is not visible anywhere until published. */
export async function stageFile(tempDir: string, data: string | Uint8Array): Promise<string> {
  const temp = join(tempDir, `${process.pid}-${randomBytes(6).toString('hex')}`);
  if (typeof data === 'string' ? data.length <= SYNC_WRITE_BYTES / 3 : data.length <= SYNC_WRITE_BYTES) return stageSmall(temp, data);
  const handle = await fs.promises.open(temp, 'w');
  try {
    if (typeof data === 'string' || data.length <= FLUSH_SLICE) await handle.writeFile(data);
    else {
      let flushed = 0;
      for (let at = 0; at < data.length; ) {
        at += (await handle.write(data, at, Math.min(FLUSH_SLICE, data.length - at), at)).bytesWritten;
        if (at - flushed >= FLUSH_SLICE) {
          await handle.datasync();
          flushed = at;
        }
      }
    }
    await handle.sync();
  } catch (err) {
    await handle.close();
    await fs.promises.rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  return temp;
}

/**
 * Renames staged files into one folder, in the order given, then fsyncs the folder once: when
 * this resolves every target is durable. Readers that need one file before another (a pack
 * before its index, see pack-publish.ts) get that order.
 */
export async function publishFiles(dir: string, files: ReadonlyArray<{ temp: string; name: string }>): Promise<void> {
  for (const f of files) await fs.promises.rename(f.temp, join(dir, f.name));
  await fsyncKeptDir(dir);
}

async function stageSmall(temp: string, data: string | Uint8Array): Promise<string> {
  let fd: number | null = null;
  try {
    fd = fs.openSync(temp, 'w');
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at, bytes.length - at);
    await fsyncFd(fd);
    fs.closeSync(fd);
    return temp;
  } catch (err) {
    if (fd !== null) fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

/** Removes staged files that will not be published (after a failure). */
export async function discardFiles(temps: readonly string[]): Promise<void> {
  await Promise.all(temps.map((t) => fs.promises.rm(t, { force: true })));
}

/**
 * Writes a file so that after a crash it is either the old content or the whole new one:
 * temp file, fsync, rename over the target, fsync the folder. The promise resolves only once
 * the new content is durable.
 */
export async function writeFileDurable(tempDir: string, target: string, data: string | Uint8Array): Promise<void> {
  const temp = await stageFile(tempDir, data);
  try {
    await publishFiles(dirname(target), [{ temp, name: basename(target) }]);
  } catch (err) {
    await discardFiles([temp]);
    throw err;
  }
}

/**
 * The `fs` given to isomorphic-git: Node's own, except that every write is durable and atomic.
 * isomorphic-git never fsyncs and rewrites refs in place; a crash could otherwise leave a
 * zero-byte ref or object that silently cuts the history.
 */
export function durableFs(gitdir: string) {
  const tempDir = join(gitdir, TEMP_DIR);
  const promises = {
    ...fs.promises,
    writeFile: (target: string, data: string | Uint8Array) => writeFileDurable(tempDir, target, data),
    // A new folder (objects/ab/) must itself be on disk before the objects renamed into it count.
    mkdir: async (dir: string, options?: fs.MakeDirectoryOptions) => {
      const made = await fs.promises.mkdir(dir, options);
      await fsyncDir(dirname(dir));
      return made;
    },
  };
  return { promises };
}

/** Removes temp files a crash left behind. */
export async function clearTempDir(gitdir: string): Promise<void> {
  const dir = join(gitdir, TEMP_DIR);
  await fs.promises.rm(dir, { recursive: true, force: true });
  await fs.promises.mkdir(dir, { recursive: true });
}
