import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import * as os from 'node:os';
import { fileURLToPath } from 'node:url';

/** The project folder (bench/lib/../..). */
export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const now = () => performance.now();

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const MB = 1024 * 1024;

/** A free TCP port on 127.0.0.1 (the kernel picks it; it is released before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in bytes, from /proc/<pid>/status (VmRSS); NaN when unavailable. */
export function rssOf(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The fields of /proc/<pid>/stat after "pid (comm) " (fields[0] is the state, [1] the parent's id, [11]–[14] utime, stime, cutime, cstime); null when unavailable. */
function statFields(pid: number | 'self'): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime (+ cutime + cstime, the children that have ended) of parsed stat fields, in seconds. */
const cpuOfFields = (f: string[] | null, withChildren: boolean): number =>
  f === null ? Number.NaN : (Number(f[11]) + Number(f[12]) + (withChildren ? Number(f[13]) + Number(f[14]) : 0)) / CLK_TCK;

/** CPU seconds a process has used so far, all threads, user + system (/proc/<pid>/stat); NaN when unavailable. */
export function cpuSecondsOf(pid: number): number {
  return cpuOfFields(statFields(pid), false);
}

/** cpuSecondsOf(pid) and the CPU seconds of its children that have ended (cutime, cstime: a service's git processes). */
export function cpuSecondsWithChildrenOf(pid: number): number {
  return cpuOfFields(statFields(pid), true);
}

/**
 * CPU seconds of a process, of its children that have ended and of every process under it that still
 * runs (a service's git gc, its git cat-file readers), from one pass over /proc; NaN when unavailable.
 */
export function treeCpuSecondsOf(pid: number): number {
  const own = cpuSecondsWithChildrenOf(pid);
  if (Number.isNaN(own)) return own;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return own;
  }
  const childrenOf = new Map<number, Array<{ pid: number; cpu: number }>>();
  for (const entry of entries) {
    const f = statFields(Number(entry));
    if (f === null) continue; // ended meanwhile
    const parent = Number(f[1]);
    const list = childrenOf.get(parent) ?? [];
    list.push({ pid: Number(entry), cpu: cpuOfFields(f, true) });
    childrenOf.set(parent, list);
  }
  let total = own;
  const below = [pid];
  while (below.length > 0) {
    for (const child of childrenOf.get(below.pop()!) ?? []) {
      total += child.cpu;
      below.push(child.pid);
    }
  }
  return total;
}

/**
 * Waits until a process and those under it have used no CPU for `quietMs` (its background work after
 * a burst of requests done), at most `maxMs`; at once where /proc cannot say.
 */
export async function untilQuiet(pid: number, quietMs: number, maxMs: number): Promise<void> {
  let last = treeCpuSecondsOf(pid);
  if (Number.isNaN(last)) return;
  const end = now() + maxMs;
  let quietSince = now();
  while (now() < end && now() - quietSince < quietMs) {
    await sleep(50);
    const cpu = treeCpuSecondsOf(pid);
    if (cpu > last) quietSince = now();
    last = cpu;
  }
}

/** Machine-wide CPU seconds spent busy (all cores: user, nice, system, irq, softirq, steal), from /proc/stat. */
export function machineBusySeconds(): number {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + (steal || 0)) / CLK_TCK;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds of this process and of its children that have ended (/proc/self/stat: utime, stime, cutime, cstime). */
export function suiteCpuSeconds(): number {
  return cpuOfFields(statFields('self'), true);
}

/** Samples a process's RSS every `intervalMs` until stopped, each sample with the value of `progress()` at that moment. */
export function sampleRss(pid: number, intervalMs = 5, progress: () => number = () => 0) {
  const samples: Array<{ rss: number; at: number }> = [];
  const take = () => {
    const rss = rssOf(pid);
    if (!Number.isNaN(rss)) samples.push({ rss, at: progress() });
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

export function hasCommand(cmd: string, args: string[] = ['--version']): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

export function gitVersion(): string | null {
  try {
    return execFileSync('git', ['--version'], { encoding: 'utf8' }).trim().replace(/^git version /, '');
  } catch {
    return null;
  }
}

export interface Machine {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  git: string | null;
  autocannon: string;
}

export function machineInfo(): Machine {
  const cpus = os.cpus();
  let autocannon = 'unknown';
  try {
    autocannon = (JSON.parse(fs.readFileSync(`${PROJECT_ROOT}node_modules/autocannon/package.json`, 'utf8')) as { version: string }).version;
  } catch {
    /* not installed */
  }
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    git: gitVersion(),
    autocannon,
  };
}

/** Writes a progress line to stderr (the table goes to stdout). */
export function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

export const round = (v: number, digits = 1) => (Number.isFinite(v) ? Math.round(v * 10 ** digits) / 10 ** digits : v);

/** Bytes of the files below a folder (0 when it does not exist), and how many files. */
export function dirBytes(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  const walk = (d: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = `${d}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (e.isFile()) {
        try {
          bytes += fs.statSync(path).size;
          files++;
        } catch {
          // removed meanwhile (a pack merged away)
        }
      }
    }
  };
  walk(dir);
  return { bytes, files };
}

/**
 * What creating an empty file costs on this disk now, in µs (median of `count` exclusive creates in a
 * new folder `dir`, left in place: removing them would make the next creates dearer). On ext4 without a
 * journal a create looks for a free inode and skips every inode freed in the last minute or more, so the cost follows
 * what the machine deleted lately: from tens of µs to about a millisecond.
 */
export function fileCreateMicros(dir: string, count = 50): number {
  fs.mkdirSync(dir, { recursive: true });
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = now();
    fs.closeSync(fs.openSync(`${dir}/${i}`, 'wx'));
    times.push((now() - started) * 1000);
  }
  return median(times);
}
