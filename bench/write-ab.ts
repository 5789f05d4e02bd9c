/**
 * P3's writes, two trees of the code side by side in one process: for judging a change of the write
 * path on a machine shared with other work, where rates measured one run after another move by more
 * than the change. Starts the service of another checkout (`before`, e.g. a `git worktree` of the
 * commit before the change, with its own or a linked node_modules) and of this tree (`after`), each
 * from its sources on its own copy of the shape's write set, and makes P3's sequential PUTs to one
 * and then the other, the order swapped every round, so both meet the same load. Prints one JSON line
 * per run: each side's latency p50 and mean, and the mean's rate.
 *   node --max-semi-space-size=8 --import tsx bench/write-ab.ts --before DIR [flat|realistic] [writes per side]
 * With `--before` pointing at this tree itself, the two sides run the same code: the spread between
 * them is the noise.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { SHAPES, prepareDataDir, type DocShape } from './lib/dataset.ts';
import { median, PROJECT_ROOT } from './lib/util.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--before');
if (at < 0 || args[at + 1] === undefined) throw new Error('usage: bench/write-ab.ts --before DIR [flat|realistic] [writes per side]');
const trees = { before: resolve(args[at + 1]), after: PROJECT_ROOT } as const;
const positional = args.filter((_, k) => k !== at && k !== at + 1);
const shape = SHAPES[(positional[0] ?? 'flat') as DocShape['name']];
const writes = Number(positional[1] ?? 300);
const VERSION = 'v1';

const work = mkdtempSync(join(tmpdir(), 'help-p3ab-'));
const set = shape.writeSet();
const { key } = await prepareDataDir(join(work, 'before'), VERSION, set.files);
cpSync(join(work, 'before'), join(work, 'after'), { recursive: true });
type Service = { url: string; ready: Promise<void>; searchable: Promise<void>; close(): Promise<void> };
const services = {} as Record<keyof typeof trees, Service>;
for (const side of ['before', 'after'] as const) {
  const source = (path: string) => pathToFileURL(join(trees[side], 'src', path)).href;
  const { loadConfig } = await import(source('config.ts'));
  const { startService } = await import(source('service.ts'));
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', HELP_SAMPLE_CONTENT: 'off' }, { port: 0, host: '127.0.0.1', dataDir: join(work, side), sampleContentDir: null });
  const service = (await startService(config, pino({ level: 'silent' }))) as Service;
  await service.ready;
  await service.searchable;
  services[side] = service;
}

const pairs = set.nodes.flatMap((n) => Object.entries(n.translations).map(([language, t]) => ({ slug: n.slug, language, t })));
let i = 0;
/** One PUT as P3 makes it (bench/run.ts), to `side`; its time to the answer's last byte. */
async function put(side: keyof typeof trees): Promise<number> {
  const p = pairs[(i * 7919) % pairs.length];
  const body = { title: p.t.title, summary: p.t.summary, bodyMd: `${p.t.bodyMd}\nRevision ${i}.\n` };
  i++;
  const started = performance.now();
  const res = await fetch(`${services[side].url}/versions/${VERSION}/topics/${p.slug}/translations/${p.language}`, { method: 'PUT', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${side}: PUT ${p.language}/${p.slug}: ${res.status} ${text.slice(0, 300)}`);
  return performance.now() - started;
}

const latencies = { before: [] as number[], after: [] as number[] };
try {
  for (let k = 0; k < 100; k++) await put(k % 2 === 0 ? 'before' : 'after');
  for (let k = 0; k < writes; k++) for (const side of k % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)) latencies[side].push(await put(side));
} finally {
  for (const side of ['before', 'after'] as const) await services[side]?.close();
  rmSync(work, { recursive: true, force: true });
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const round = (x: number) => Math.round(x * 100) / 100;
const summary = (values: number[]) => ({ p50: round(median(values)), mean: round(mean(values)), commitsPerSecond: round(1000 / mean(values)) });
process.stdout.write(`${JSON.stringify({ shape: shape.name, writes, before: summary(latencies.before), after: summary(latencies.after) })}\n`);
