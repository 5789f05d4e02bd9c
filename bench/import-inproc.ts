/**
 * P4 in one process, for profiling an import (`node --cpu-prof`) rather than for the table: starts
 * the service from the sources on a temporary data directory, posts import sets 1–3 of the shape
 * (`rounds` times each, into new versions) to import-files, and prints each request's time and the
 * process's CPU time meanwhile (index workers included), with their medians, as one JSON line; on
 * Linux also the main thread's own CPU time and its time kept waiting for a core by other processes
 * (/proc schedstat), and the request's time less that wait (`unqueued`): about what it takes on a
 * machine where nothing else runs, a steadier figure to compare two versions of the code on a busy one.
 *   node --max-semi-space-size=8 --import tsx bench/import-inproc.ts [flat|realistic] [rounds]
 * Settings come from the environment as the service reads them (HELP_INDEX_WORKERS, …).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { KeyFile } from '../src/auth/key-file.ts';
import { createKey } from '../src/cli/keys.ts';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { SHAPES, type DocShape } from './lib/dataset.ts';
import { median } from './lib/util.ts';

const shape = SHAPES[(process.argv[2] ?? 'flat') as DocShape['name']];
const rounds = Number(process.argv[3] ?? 1);
const dataDir = mkdtempSync(join(tmpdir(), 'help-p4-'));
const key = (await createKey(new KeyFile(dataDir), { name: 'writer' })).key;
const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null });
const service = await startService(config, pino({ level: 'silent' }));
await service.ready;
const sets = [1, 2, 3].map((k) => JSON.stringify({ files: shape.importSet(k).files }));
const times: number[] = [];
const cpu: number[] = [];
const mainCpu: number[] = [];
const unqueued: number[] = [];
/** The main thread's time on a core and waiting for one, in ms (null where /proc has no schedstat). */
const mainThread = (): { run: number; queued: number } | null => {
  try {
    const [run, queued] = readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { run: run / 1e6, queued: queued / 1e6 };
  } catch {
    return null;
  }
};
try {
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sets.length; k++) {
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      const threadBefore = mainThread();
      const res = await fetch(`${service.url}/versions/imp${r}x${k}/import-files`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: sets[k] });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`import-files: ${res.status} ${text.slice(0, 300)}`);
      times.push(performance.now() - started);
      const threadAfter = mainThread();
      if (threadBefore !== null && threadAfter !== null) {
        mainCpu.push(threadAfter.run - threadBefore.run);
        unqueued.push(times.at(-1)! - (threadAfter.queued - threadBefore.queued));
      }
      const used = process.cpuUsage(cpuBefore);
      cpu.push((used.user + used.system) / 1000);
    }
  }
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ shape: shape.name, ms: times.map((t) => Math.round(t)), median: Math.round(median(times)), cpuMs: cpu.map((t) => Math.round(t)), cpuMedian: Math.round(median(cpu)), ...(mainCpu.length > 0 ? { mainCpuMedian: Math.round(median(mainCpu)), unqueued: unqueued.map((t) => Math.round(t)), unqueuedMedian: Math.round(median(unqueued)) } : {}) })}\n`);
