/**
 * P3 in one process, for comparing two trees of the code and for tracing a write (`strace -p`), rather
 * than for the table: writes the shape's write set into a temporary data directory as the suite does
 * (`git fast-import`), starts the service from the sources on it, and makes sequential PUTs of
 * translations, as P3 does (same pages, same bodies), for `seconds` after a warm-up of 2 s. Prints
 * one JSON line: commits per second, latency p50 / p99 and the process's CPU per write; with
 * `--fast-import`, also P3's baseline (the same files with `git fast-import`, a checkpoint per commit,
 * `core.fsync=all`, `fastimport.unpackLimit=0`, on a copy of the repository).
 *   node --max-semi-space-size=8 --import tsx bench/write-inproc.ts [flat|realistic] [seconds] [--fast-import] [--pause S]
 * `--pause S` waits S seconds between the warm-up and the measured writes, printing the pid to stderr
 * (time to attach strace). Settings come from the environment as the service reads them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { SHAPES, prepareDataDir, type DocShape } from './lib/dataset.ts';
import { commitCount, copyRepository, fastImport, fi, type Chunk } from './lib/git.ts';
import { median, now, percentile, sleep } from './lib/util.ts';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at < 0 ? null : args[at + 1];
};
const positional = args.filter((a, k) => !a.startsWith('--') && !(k > 0 && args[k - 1] === '--pause'));
const shape = SHAPES[(positional[0] ?? 'flat') as DocShape['name']];
const seconds = Number(positional[1] ?? 8);
const pause = Number(option('--pause') ?? 0);
const VERSION = 'v1';

const work = mkdtempSync(join(tmpdir(), 'help-p3-'));
const dataDir = join(work, 'data');
const set = shape.writeSet();
const { key, gitdir } = await prepareDataDir(dataDir, VERSION, set.files);
const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', HELP_SAMPLE_CONTENT: 'off' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null });
const service = await startService(config, pino({ level: 'silent' }));
await service.ready;
// Every search index built, so the measured writes do not share the cores with the start's indexing.
await service.searchable;

const pairs = set.nodes.flatMap((n) => Object.entries(n.translations).map(([language, t]) => ({ slug: n.slug, language, t })));
const written: Array<{ path: string; content: string; message: string }> = [];
let i = 0;
/** One PUT as P3 makes it (bench/run.ts); `record` keeps the file written, for the baseline. */
async function put(record: boolean): Promise<number> {
  const p = pairs[(i * 7919) % pairs.length];
  const body = { title: p.t.title, summary: p.t.summary, bodyMd: `${p.t.bodyMd}\nRevision ${i}.\n` };
  i++;
  const started = now();
  const res = await fetch(`${service.url}/versions/${VERSION}/topics/${p.slug}/translations/${p.language}`, { method: 'PUT', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  const ms = now() - started;
  if (res.status !== 200) throw new Error(`PUT ${p.language}/${p.slug}: ${res.status} ${text.slice(0, 300)}`);
  if (record) {
    const { updatedAt } = (JSON.parse(text) as { translation: { updatedAt: string } }).translation;
    const front = [`title: ${JSON.stringify(body.title)}`, ...(body.summary ? [`summary: ${JSON.stringify(body.summary)}`] : []), `updatedAt: '${updatedAt}'`];
    written.push({ path: `${VERSION}/${p.language}/${p.slug}.md`, content: `---\n${front.join('\n')}\n---\n${body.bodyMd}`, message: `Update translation ${p.language}/${p.slug} in ${VERSION}` });
  }
  return ms;
}

let result: Record<string, unknown>;
try {
  for (const warmEnd = now() + 2000; now() < warmEnd; ) await put(false);
  if (pause > 0) {
    process.stderr.write(`pid ${process.pid}: measuring in ${pause} s\n`);
    await sleep(pause * 1000);
  }
  const copy = join(work, 'fast-import.git');
  if (flag('--fast-import')) copyRepository(gitdir, copy);
  const before = commitCount(gitdir);
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const started = now();
  for (const end = started + seconds * 1000; now() < end; ) latencies.push(await put(true));
  const elapsed = now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const commits = commitCount(gitdir) - before;
  if (commits !== latencies.length) throw new Error(`${latencies.length} writes acknowledged, ${commits} commits on main`);
  result = {
    shape: shape.name,
    writes: latencies.length,
    commitsPerSecond: Math.round((latencies.length / (elapsed / 1000)) * 10) / 10,
    p50: Math.round(median(latencies) * 100) / 100,
    p99: Math.round(percentile(latencies, 99) * 100) / 100,
    cpuMsPerWrite: Math.round(((cpu.user + cpu.system) / 1000 / latencies.length) * 100) / 100,
  };
  if (flag('--fast-import')) {
    const chunks: Chunk[] = [];
    written.forEach((w, k) => chunks.push(fi.commit(w.message, k === 0 ? { from: 'refs/heads/main^0' } : {}), ...fi.file(w.path, w.content), fi.endCommit, fi.checkpoint));
    chunks.push(fi.done);
    const run = await fastImport(copy, chunks, { durable: true, keepPacks: true });
    const rate = written.length / (run.ms / 1000);
    result.fastImport = Math.round(rate * 10) / 10;
    result.ratio = Math.round(((result.commitsPerSecond as number) / rate) * 100) / 100;
  }
} finally {
  await service.close();
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(result)}\n`);
