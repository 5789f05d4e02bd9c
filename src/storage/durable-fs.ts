import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { dropRecycled } from './recycled-files.ts';
import { uniqueName } from './unique-names.ts';

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
  if (typeof data === 'string' ? data.length <= SYNC_WRITE_BYTES / 3 : data.length <= SYNC_WRITE_BYTES) return stageSmall(tempDir, data);
  const temp = tempName(tempDir);
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
 * before its index, see pack-publish.ts) get that order. The renames are synchronous calls: a
 * rename allocates nothing and waits on no disk (tens of microseconds), while each trip through
 * the thread pool woke a pool thread and then the event loop, and on two cores the thread woken
 * took the core from the one that woke it.
 */
export async function publishFiles(dir: string, files: ReadonlyArray<{ temp: string; name: string }>): Promise<void> {
  for (const f of files) fs.renameSync(f.temp, join(dir, f.name));
  await fsyncKeptDir(dir);
}

const tempName = (dir: string) => join(dir, uniqueName());

async function stageSmall(tempDir: string, data: string | Uint8Array): Promise<string> {
  const spare = takeSpare(tempDir);
  const temp = spare?.path ?? tempName(tempDir);
  let fd: number | null = spare?.fd ?? null;
  try {
    fd ??= fs.openSync(temp, 'w');
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

/** Removes temp files a crash left behind, and the spare files made ahead (see prepareSpares). */
export async function clearTempDir(gitdir: string): Promise<void> {
  const dir = join(gitdir, TEMP_DIR);
  dropSpares(dir);
  dropRecycled(join(gitdir, SPARE_DIR));
  for (const folder of [dir, join(gitdir, SPARE_DIR)]) {
    await fs.promises.rm(folder, { recursive: true, force: true });
    await fs.promises.mkdir(folder, { recursive: true });
  }
}

/**
 * Where files made ahead for the writes to come wait (see prepareSpares): empty files, inside the git
 * dir (one file system with objects/pack/), apart from the temp files of writes under way.
 */
export const SPARE_DIR = 'tmp-spares';

/**
 * Temp files made ahead of the writes that fill them, by the temp folder they stand in for. Creating
 * a file can take long: the file system looks for a free inode (ext4 without a journal skips every
 * inode freed in the last minute or more, and a service that writes often has freed many) or waits
 * for its journal. A commit created its two temp files (pack and index) on the main thread, and each
 * create took about 0.3 ms at the median and up to tens of ms, measured in the service. Made after a
 * commit, on the thread pool, while the service answers, they leave the next commit only its writes
 * into them. A spare is an empty file in SPARE_DIR: nothing refers to it until the write that takes
 * it has fsynced its content and renamed it into place, as with any temp file; a start removes those
 * a crash or a stop left (clearTempDir), and a commit that failed on the disk drops them.
 */
const spares = new Map<string, { dir: string; ready: Array<{ path: string; fd: number }>; making: number; generation: number }>();

/**
 * Makes spare files for stageFile(tempDir, …) in `spareDir` until `count` are ready or being made,
 * in the background and side by side (on the thread pool, where a create can take a millisecond: made
 * one after the other, the next write often came before the second); a failure only means the next
 * writes create their own files, as without spares.
 */
export function prepareSpares(tempDir: string, spareDir: string, count: number): void {
  let entry = spares.get(tempDir);
  if (entry === undefined) {
    entry = { dir: spareDir, ready: [], making: 0, generation: 0 };
    spares.set(tempDir, entry);
  }
  const state = entry;
  const generation = state.generation;
  for (let missing = count - state.ready.length - state.making; missing > 0; missing--) {
    state.making++;
    const path = tempName(state.dir);
    fs.open(path, 'wx', (err, fd) => {
      if (state.generation !== generation) {
        // Dropped meanwhile (a start clearing the folder): not one of this folder's spares.
        if (err === null) fs.close(fd, () => fs.rm(path, { force: true }, () => undefined));
        return;
      }
      state.making--;
      if (err === null) state.ready.push({ path, fd });
    });
  }
}

/** How many spare files wait for stageFile(tempDir, …), made and not yet taken. */
export function sparesReadyFor(tempDir: string): number {
  return spares.get(tempDir)?.ready.length ?? 0;
}

function takeSpare(tempDir: string): { path: string; fd: number } | undefined {
  return spares.get(tempDir)?.ready.shift();
}

/** Closes and removes the spare files made for `tempDir` (a start clearing its folders, a stop). */
export function dropSpares(tempDir: string): void {
  const entry = spares.get(tempDir);
  if (entry === undefined) return;
  spares.delete(tempDir);
  entry.generation++;
  entry.making = 0;
  for (const { path, fd } of entry.ready) {
    try {
      fs.closeSync(fd);
      fs.rmSync(path, { force: true });
    } catch {
      // Its folder is gone or is no folder any more: the next start clears what is left.
    }
  }
  entry.ready = [];
}
