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

/** The fields of Linux's /proc/<pid>/stat after the command name, or null where they cannot be read. */
function statOf(pid: number | 'self'): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may hold spaces: the fields are counted after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** When the process `pid` started, in clock ticks since boot (the 22nd field), or null where that cannot be read. */
const startTimeOf = (pid: number | 'self'): string | null => statOf(pid)?.[19] ?? null;

/** Whether `pid` is a zombie: it has exited (after a kill -9) and only waits for its parent to collect it. */
const isZombie = (pid: number): boolean => statOf(pid)?.[0] === 'Z';

/** Lock files this process holds (a process may run more than one server, each on its own data directory). */
const held = new Set<string>();

/**
 * Whether the server that wrote the lock `text` ("pid starttime") still runs. Not when the pid is
 * this process's own but the lock is not one it took (a container restarted after a hard kill gives
 * its server the same pid, often 1), nor when a process of that pid started at another time than the
 * lock says (the pid was given to another program since), nor when it has exited and waits to be
 * collected (a zombie, after a kill -9, under a parent slow to collect it).
 */
function ownerRuns(path: string, text: string): { pid: number; runs: boolean } {
  const [pidText, started] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  if (pid === process.pid) return { pid, runs: held.has(path) };
  if (!Number.isInteger(pid) || pid <= 0) return { pid, runs: false };
  if (!isAlive(pid) || isZombie(pid)) return { pid, runs: false };
  const now = started === undefined ? null : startTimeOf(pid);
  return { pid, runs: now === null || now === started };
}

/**
 * Takes the data directory's exclusive lock (`server.lock`, holding the owner's pid and when it
 * started), so a second server on the same directory refuses to start. A lock left by a process that
 * no longer runs is taken over.
 */
export function acquireLock(dataDir: string): () => void {
  const path = join(dataDir, 'server.lock');
  const mine = `${process.pid} ${startTimeOf('self') ?? ''}`.trim();
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(path, 'wx');
      fs.writeSync(fd, `${mine}\n`);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      held.add(path);
      return () => {
        held.delete(path);
        if (fs.readFileSync(path, 'utf8').trim() === mine) fs.rmSync(path, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (fs.statSync(path).isDirectory()) throw new DataDirLockedError(`${path} is a folder, where the server keeps its lock file: remove it (no server of this data directory runs while it is there).`);
      const owner = ownerRuns(path, fs.readFileSync(path, 'utf8'));
      if (owner.runs) throw new DataDirLockedError(`The data directory ${dataDir} is in use by another server (pid ${owner.pid}); ${path} is its lock.`);
      fs.rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not take the lock ${path}`);
}
