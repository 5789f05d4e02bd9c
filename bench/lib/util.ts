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

/** CPU seconds a process has used so far, all threads, user + system (/proc/<pid>/stat); NaN when unavailable. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ", field 3 (state) is fields[0]; utime and stime are fields 14 and 15.
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return Number.NaN;
  }
}

/** cpuSecondsOf(pid) and the CPU seconds of its children that have ended (cutime, cstime: a service's git processes). */
export function cpuSecondsWithChildrenOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / CLK_TCK;
  } catch {
    return Number.NaN;
  }
}

/** The ids of a process's children (each /proc/<pid>/stat whose parent it is); none when unavailable. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After "pid (comm) ", the state and then the parent's id.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // Ended meanwhile.
    }
  }
  return out;
}

/**
 * CPU seconds of a process, of its children that have ended and of every process under it that still
 * runs (a service's git gc, its git cat-file readers); NaN when unavailable.
 */
export function treeCpuSecondsOf(pid: number, depth = 3): number {
  let total = cpuSecondsWithChildrenOf(pid);
  if (depth > 0) for (const child of childrenOf(pid)) total += treeCpuSecondsOf(child, depth - 1) || 0;
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
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / CLK_TCK;
  } catch {
    return Number.NaN;
  }
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
