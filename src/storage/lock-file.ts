import * as fs from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Takes the data directory's exclusive lock (`server.lock`, holding the owner's pid), so a second
 * server on the same directory refuses to start. A lock left by a process that no longer runs is taken over.
 */
export function acquireLock(dataDir: string): () => void {
  const path = join(dataDir, 'server.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(path, 'wx');
      fs.writeSync(fd, `${process.pid}\n`);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      return () => {
        if (fs.readFileSync(path, 'utf8').trim() === String(process.pid)) fs.rmSync(path, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new DataDirLockedError(`The data directory ${dataDir} is in use by another server (pid ${owner}); ${path} is its lock.`);
      }
      fs.rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not take the lock ${path}`);
}
