/**
 * R1, R2: read replicas (docs/replicas.md). A primary and a replica, each a child process with a
 * data directory of its own, the replica cloned from the primary at its start and following it.
 *
 * R1: replication lag over `--writes` writes (200): from a write acknowledged by the primary (its
 * answer, with the revision in X-Content-Revision) to the same revision served by the replica (a read
 * with X-Min-Revision, which the replica answers the moment it serves that revision). One write at a
 * time, the next once the last was read back: p50 and (R1b) p99. R1c: as many writes back to back,
 * each read sent as its write is acknowledged (the replica batches what came meanwhile).
 * R2: a replica's read throughput against the primary's in the same run: the same anonymous topic
 * reads (the answer cache's, as help pages are read) at `--connections`, the servers in turn, twice
 * each, the better run of each.
 *
 * `npx tsx bench/replicas.ts [--writes 200] [--duration 10]` runs it alone, on the sources (through
 * tsx); within `npm run bench -- --only R1` the built service runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KeyFile } from '../src/auth/key-file.ts';
import { createKey } from '../src/cli/keys.ts';
import { load } from './lib/load.ts';
import { settle, startService, type ServiceChild } from './lib/service.ts';
import { renderTable, type Row } from './lib/table.ts';
import { median, percentile, progress, round, sleep } from './lib/util.ts';

const TOPICS = 50;

export interface ReplicaOptions {
  writes: number;
  duration: number;
  warmup: number;
  connections: number;
  /** What node runs for each service (default: the build). */
  entry?: string[];
}

export async function replicaRows(work: string, o: ReplicaOptions): Promise<Row[]> {
  const primaryDir = mkdtempSync(join(work, 'replica-primary-'));
  const replicaDir = mkdtempSync(join(work, 'replica-'));
  const file = new KeyFile(primaryDir);
  const { key } = await createKey(file, { name: 'bench' });
  const { key: replicaKey } = await createKey(file, { name: 'replica', scopes: 'help:read' });
  let primary: ServiceChild | null = null;
  let replica: ServiceChild | null = null;
  try {
    primary = await startService({ dataDir: primaryDir, entry: o.entry });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${primary!.api}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      return res;
    };
    await call('POST', '/versions', { slug: 'v1', label: 'v1', languages: ['en', 'de'], status: 'published' });
    for (let i = 0; i < TOPICS; i++) await call('POST', '/versions/v1/nodes', { slug: `t${i}`, kind: 'topic', translations: { en: { title: `Topic ${i}`, bodyMd: `${'Some help text that a reader reads. '.repeat(40)}\n` } } });
    progress('  R1: starting a replica (it clones the primary)');
    // A read asking for a revision waits for it as long as the lag may take.
    replica = await startService({ dataDir: replicaDir, entry: o.entry, env: { HELP_REPLICA_OF: primary.api, HELP_REPLICA_KEY: replicaKey, HELP_REPLICA_MIN_REVISION_WAIT: '60' } });

    /** One write on the primary and, sent as it is acknowledged, a read of the replica at its revision: the lag (null: the read failed). */
    const writeAndReadBack = async (i: number): Promise<{ read: Promise<number | null> }> => {
      const slug = `t${i % TOPICS}`;
      const res = await call('PUT', `/versions/v1/topics/${slug}/translations/en`, { title: `Topic ${i % TOPICS}`, bodyMd: `Edit ${i}: ${'Some help text that a reader reads. '.repeat(40)}\n` });
      const acknowledged = performance.now();
      const revision = res.headers.get('x-content-revision')!;
      const read = fetch(`${replica!.api}/versions/v1/topics/${slug}?language=en`, { headers: { 'x-min-revision': revision } }).then(async (r) => {
        await r.arrayBuffer();
        return r.status === 200 ? performance.now() - acknowledged : null;
      });
      // Wrapped: an async function's promise of a promise would wait for the read too.
      return { read };
    };
    progress(`  R1: ${o.writes} writes on the primary, one at a time, each read back from the replica at its revision before the next`);
    const isolated: Array<number | null> = [];
    for (let i = 0; i < o.writes; i++) isolated.push(await (await writeAndReadBack(i)).read);
    progress(`  R1c: ${o.writes} writes back to back, each read back as it is acknowledged`);
    const burstReads: Array<Promise<number | null>> = [];
    const burstStarted = performance.now();
    for (let i = 0; i < o.writes; i++) burstReads.push((await writeAndReadBack(o.writes + i)).read);
    const burstWritesS = (performance.now() - burstStarted) / 1000;
    const burst = await Promise.all(burstReads);
    const lags = isolated.filter((v): v is number => v !== null);
    const burstLags = burst.filter((v): v is number => v !== null);
    const failed = isolated.length - lags.length + burst.length - burstLags.length;
    const p50 = median(lags);
    const p99 = percentile(lags, 99);

    progress(`  R2: anonymous topic reads at ${o.connections} connections, the primary, then the replica`);
    await sleep(1000);
    const paths = Array.from({ length: TOPICS }, (_, i) => `/help/v1/versions/v1/topics/t${i}?language=en`);
    const run = async (s: ServiceChild) => {
      await settle(s.origin);
      return load({ origin: s.origin, paths, connections: o.connections, duration: o.duration, warmup: o.warmup, pid: s.pid, settle: () => settle(s.origin) });
    };
    // In turns, twice, the better run of each: a machine that slows down meanwhile weighs on both.
    const best = (a: Awaited<ReturnType<typeof run>>, b: Awaited<ReturnType<typeof run>>) => (a.rps >= b.rps ? a : b);
    const firstPrimary = await run(primary);
    const firstReplica = await run(replica);
    const onPrimary = best(firstPrimary, await run(primary));
    const onReplica = best(firstReplica, await run(replica));
    const lagNote = `${lags.length} of ${o.writes} writes read back${failed > 0 ? ` (${failed} reads failed)` : ''}; min ${round(Math.min(...lags))} ms, max ${round(Math.max(...lags))} ms`;
    return [
      { id: 'R1', scenario: `replication lag, write acknowledged on the primary → served by a replica (${o.writes} writes), p50`, measured: round(p50), unit: 'ms', baseline: null, baselineLabel: '—', ratio: null, target: '≤ 1,000 ms', met: p50 <= 1000 && failed === 0, note: lagNote },
      { id: 'R1b', scenario: 'replication lag, p99', measured: round(p99), unit: 'ms', baseline: null, baselineLabel: '—', ratio: null, target: '— (reported)', met: null },
      {
        id: 'R1c',
        scenario: `replication lag under a burst: ${o.writes} writes back to back, p50`,
        measured: round(median(burstLags)),
        unit: 'ms',
        baseline: null,
        baselineLabel: '—',
        ratio: null,
        target: '— (reported)',
        met: null,
        note: `p99 ${round(percentile(burstLags, 99))} ms; ${round(o.writes / burstWritesS)} writes/s acknowledged; a catch-up brings every write made meanwhile`,
      },
      {
        id: 'R2',
        scenario: `replica: anonymous topic reads (${TOPICS} URLs, answer cache) at ${o.connections} connections`,
        measured: round(onReplica.rps),
        unit: 'req/s',
        baseline: round(onPrimary.rps),
        baselineLabel: 'the primary, same reads, same run',
        ratio: round(onReplica.rps / onPrimary.rps, 2),
        target: '≥ 0.9× baseline',
        met: onReplica.rps >= 0.9 * onPrimary.rps,
        note: `p99 ${onReplica.p99} ms (primary ${onPrimary.p99} ms); server CPU per answer ${round(onReplica.cpuPerRequestUs ?? NaN)} µs (primary ${round(onPrimary.cpuPerRequestUs ?? NaN)} µs)`,
      },
    ];
  } finally {
    await replica?.stop();
    await primary?.stop();
    rmSync(primaryDir, { recursive: true, force: true });
    rmSync(replicaDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { writes: { type: 'string', default: '200' }, duration: { type: 'string', default: '10' }, warmup: { type: 'string', default: '3' }, connections: { type: 'string', default: '50' } } });
  const work = mkdtempSync(join(tmpdir(), 'help-bench-replicas-'));
  try {
    const rows = await replicaRows(work, { writes: Number(values.writes), duration: Number(values.duration), warmup: Number(values.warmup), connections: Number(values.connections), entry: ['--import', 'tsx', 'src/main.ts'] });
    console.log(renderTable(rows));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
