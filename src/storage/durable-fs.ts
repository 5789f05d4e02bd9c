import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';

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

/**
 * Large files are flushed in slices of this size: one flush of tens of MB would hold up the small
 * fsyncs of every write waiting behind it on the disk.
 */
const FLUSH_SLICE = 4 << 20;

/** Writes `data` to a new temp file and fsyncs it; the file is not visible anywhere until published. */
export async function stageFile(tempDir: string, data: string | Uint8Array): Promise<string> {
  const temp = join(tempDir, `${process.pid}-${randomBytes(6).toString('hex')}`);
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
 * before its index) get that order.
 */
export async function publishFiles(dir: string, files: ReadonlyArray<{ temp: string; name: string }>): Promise<void> {
  for (const f of files) await fs.promises.rename(f.temp, join(dir, f.name));
  await fsyncDir(dir);
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
