/**
 * The many-versions shape (rows M1–M6): one version of 200 nodes in en and de, grown to N versions
 * (--versions, default 50 and 500), and what that many versions cost: memory and start time with and
 * without snapshots, the snapshots' bytes on disk, the bytes each edit adds to the repository,
 * whether a write to one draft moves the cached answers of other versions, and duplicating.
 *
 * How the versions are made. The source version (`v1`) is written with `git fast-import`, like the
 * other shapes' sets. Two copies are made through the API (`POST /versions/v1/duplicate`): `copy`
 * (published) and `draft` (a draft, which the writes of M4 and M5 go to). The versions beyond them
 * are that `copy` folder again under other names, added with fast-import as one commit of
 * `M 040000 <tree id> vN` lines: byte for byte the folder the service wrote for a duplicate (its
 * `version.json` with ids and stamps), so the N versions hold one identical tree, as N duplicates made
 * in the same millisecond would. Through the API, 500 duplicates would each be a durable commit
 * and an index build (minutes, and the growth itself would be what is measured); fast-import writes
 * them in well under a second. M6 then measures duplicating through the API on the grown service.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { dataDirIn, manyVersionsSource, prepareDataDir } from './lib/dataset.ts';
import { catFileVersion, copyRepository, countObjects, fastImport, fi, versionTrees, type Chunk } from './lib/git.ts';
import { request } from './lib/http.ts';
import { startService, type ServiceChild } from './lib/service.ts';
import { deltaRepack } from '../src/storage/delta-repack.ts';
import { TEMP_DIR } from '../src/storage/durable-fs.ts';
import type { Row } from './lib/table.ts';
import { dirBytes, MB, median, now, percentile, progress, round, sleep } from './lib/util.ts';

export interface ManyOptions {
  work: string;
  /** Version counts to grow to, ascending. */
  versions: number[];
  /** Environment of every service child (e.g. the answer cache off). */
  env: Record<string, string>;
  nodeArgs(name: string): string[];
  /** Which M rows to measure. */
  only: ReadonlySet<string>;
  /** Starts from snapshots measured per count (the median is the figure). */
  restarts: number;
  answerCache: boolean;
}

const API = '/help/v1';
/** Sequential edits whose growth of the repository is measured (M4). */
const EDITS = 50;
/** How long M4 waits for the service's repack after the edits. */
const REPACK_WAIT_MS = 60_000;
/** Versions whose cached answers are checked after a write to the draft (M5), and URLs per version. */
const OTHER_VERSIONS = 20;
/** Duplicates made through the API per count (M6). */
const DUPLICATES = 10;

/** The answer cache's lookups by result, the heap in use and the snapshots written, from /metrics. */
async function serverMetrics(origin: string): Promise<{ lookups: Record<string, number>; heapUsed: number; snapshots: number; repacks: number }> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const lookups: Record<string, number> = {};
  for (const m of text.matchAll(/^help_answer_cache_lookups_total\{result="(\w+)"\} (\S+)$/gm)) lookups[m[1]] = Number(m[2]);
  const heapUsed = Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
  const count = (operation: string) => Number(new RegExp(`^help_storage_duration_seconds_count\\{operation="${operation}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { lookups, heapUsed, snapshots: count('snapshot'), repacks: count('repack') };
}

/**
 * Waits until the server has written no snapshot for `quietMs` (at most `timeoutMs`): how many it wrote
 * since it started, and when the count last moved.
 */
async function snapshotsSettled(origin: string, quietMs = 3000, timeoutMs = 600_000): Promise<{ written: number; lastAt: number }> {
  const started = now();
  let last = -1;
  let since = now();
  while (now() - started < timeoutMs) {
    const { snapshots } = await serverMetrics(origin);
    if (snapshots !== last) {
      last = snapshots;
      since = now();
    } else if (now() - since >= quietMs) break;
    await sleep(250);
  }
  return { written: last, lastAt: since };
}

/** The server's RSS at rest: the median of 10 samples over a second, after `waitMs`. */
async function rssAtRest(svc: ServiceChild, waitMs = 2000): Promise<number> {
  await sleep(waitMs);
  const samples: number[] = [];
  for (let i = 0; i < 10; i++, await sleep(100)) samples.push(svc.rss());
  return median(samples);
}

/** Waits until the repository's objects stop changing for `quietMs` (the service merges small packs in the background). */
async function objectsSettled(gitdir: string, quietMs = 1500): Promise<number> {
  let last = -1;
  let since = now();
  for (;;) {
    const { bytes } = dirBytes(join(gitdir, 'objects'));
    if (bytes !== last) {
      last = bytes;
      since = now();
    } else if (now() - since >= quietMs) return bytes;
    await sleep(250);
  }
}

async function ok(method: string, url: string, opts: { key?: string; body?: unknown } = {}) {
  const res = await request(method, url, { key: opts.key, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

const fmtMB = (bytes: number) => `${round(bytes / MB)} MB`;

/** Measures the M rows into `rows` and `details` (what was measured stays there when a later step fails). */
export async function manyVersionsRows(o: ManyOptions, rows: Row[], details: Record<string, unknown>): Promise<void> {
  const wants = (id: string) => o.only.has(id);
  const start = (dataDir: string, name: string) => startService({ dataDir, env: o.env, nodeArgs: o.nodeArgs(name) });
  let svc: ServiceChild | null = null;
  try {
    // ------------------------------------------------ the source version, alone
    const source = manyVersionsSource();
    const sourceBytes = source.stats.contentBytes;
    const pairs = source.nodes.flatMap((n) => Object.entries(n.translations).map(([language, t]) => ({ slug: n.slug, language, t })));
    const dataDir = dataDirIn(o.work, 'many');
    const { key, gitdir } = await prepareDataDir(dataDir, 'v1', source.files);
    const snapshotsDir = join(dataDir, 'snapshots');
    progress(`many-versions: the source version, ${source.stats.nodes} nodes × 2 languages, ${source.files.length} files, ${round(sourceBytes / MB)} MB`);

    // An empty service's memory, and the source version's: the baseline of M6.
    const emptyDir = dataDirIn(o.work, 'many-empty');
    fs.mkdirSync(emptyDir, { recursive: true });
    svc = await start(emptyDir, 'many-empty');
    // What any start costs (the runtime, the code, an empty repository): the floor of M2.
    const emptyStartMs = svc.readyMs;
    const rssEmpty = await rssAtRest(svc);
    await svc.stop();
    svc = await start(dataDir, 'many-source');
    await snapshotsSettled(svc.origin);
    const rssOne = await rssAtRest(svc);
    await svc.stop();
    const oneSnapshot = dirBytes(snapshotsDir).bytes;
    // The copies' template and the draft, through the API.
    svc = await start(dataDir, 'many-source');
    await ok('POST', `${svc.origin}${API}/versions/v1/duplicate`, { key, body: { slug: 'copy', status: 'published' } });
    await ok('POST', `${svc.origin}${API}/versions/v1/duplicate`, { key, body: { slug: 'draft' } });
    await svc.stop();
    svc = null;
    const template = versionTrees(gitdir).get('copy');
    if (!template) throw new Error('the duplicate "copy" is not in the repository');
    details.source = { nodes: source.stats.nodes, files: source.files.length, contentBytes: sourceBytes, emptyStartMs: round(emptyStartMs), rssEmptyMB: round(rssEmpty / MB), rssOneVersionMB: round(rssOne / MB), oneSnapshotBytes: oneSnapshot };
    progress(`many-versions: empty service ${fmtMB(rssEmpty)}, with the source version ${fmtMB(rssOne)}; its snapshot ${round(oneSnapshot / 1024)} KB`);

    let next = 2;
    for (const n of o.versions) {
      const shape = `many-versions ×${n}`;
      const d: Record<string, unknown> = {};
      details[String(n)] = d;
      const push = (row: Omit<Row, 'shape'>) => rows.push({ ...row, shape });

      // ------------------------------------------------ grow to n versions
      let trees = versionTrees(gitdir);
      const adds: string[] = [];
      while (trees.size + adds.length < n) {
        const slug = `v${next++}`;
        if (!trees.has(slug)) adds.push(slug);
      }
      if (adds.length > 0) {
        const t = now();
        const chunks: Chunk[] = [fi.commit(`Add ${adds.length} copies of version copy`, { from: 'refs/heads/main^0' }), ...adds.map((slug) => `M 040000 ${template} ${slug}\n`), fi.endCommit, fi.done];
        await fastImport(gitdir, chunks);
        progress(`${shape}: ${adds.length} versions added with fast-import in ${round(now() - t)} ms`);
      }
      trees = versionTrees(gitdir);
      const count = trees.size;
      const distinctTrees = new Set(trees.values()).size;
      const published = [...trees.keys()].filter((s) => /^v\d+$/.test(s) && s !== 'v1');

      // ------------------------------------------------ start from git (no snapshots)
      fs.rmSync(snapshotsDir, { recursive: true, force: true });
      const reads = await catFileVersion(gitdir, null);
      progress(`${shape}: git cat-file read every blob of the ${count} versions in ${round(reads.ms)} ms (${fmtMB(reads.bytes)})`);
      svc = await start(dataDir, `many-${n}-git`);
      const gitStartMs = svc.readyMs;
      const gitSearchableMs = await svc.searchableMs();
      progress(`${shape}: start from git ${round(gitStartMs)} ms, every version searchable at ${round(gitSearchableMs)} ms; waiting for the snapshots to be written`);
      const settleStarted = now();
      const { written, lastAt } = await snapshotsSettled(svc.origin);
      const snapshotWriteMs = lastAt - settleStarted;
      const rssGit = await rssAtRest(svc);
      const stopStarted = now();
      await svc.stop();
      const stopMs = now() - stopStarted;
      svc = null;
      const snaps = dirBytes(snapshotsDir);
      const repo = dirBytes(gitdir);
      // Built from git log in the background after that start; the stop waited for it.
      const historyBytes = fs.statSync(join(dataDir, 'history.jsonl'), { throwIfNoEntry: false })?.size ?? 0;
      progress(`${shape}: RSS after the start from git ${fmtMB(rssGit)}; snapshots ${fmtMB(snaps.bytes)} in ${snaps.files} files; repository ${fmtMB(repo.bytes)}`);

      // ------------------------------------------------ start from snapshots
      const starts: number[] = [];
      for (let i = 0; i < Math.max(1, o.restarts); i++) {
        if (svc) await (svc as ServiceChild).stop();
        svc = await start(dataDir, `many-${n}-snapshots-${i + 1}`);
        starts.push(svc.readyMs);
        progress(`${shape}: start from snapshots ${round(svc.readyMs)} ms`);
      }
      const running = svc!;
      const rssSnap = await rssAtRest(running, 3000);
      const snapStartMs = median(starts);
      Object.assign(d, {
        versions: count,
        distinctTrees,
        catFile: { ms: round(reads.ms), blobs: reads.blobs, bytes: reads.bytes },
        startFromGitMs: round(gitStartMs),
        snapshotsWritten: written,
        snapshotWriteMs: round(snapshotWriteMs),
        stopMs: round(stopMs),
        rssFromGitMB: round(rssGit / MB),
        startsFromSnapshotsMs: starts.map((s) => round(s)),
        rssFromSnapshotsMB: round(rssSnap / MB),
        snapshots: snaps,
        historyBytes,
        repositoryBytes: repo.bytes,
      });

      if (wants('M1')) {
        push({ id: 'M1', scenario: `server RSS after a start from snapshots, ${count} versions`, measured: rssSnap / MB, unit: 'MB', baseline: rssGit / MB, baselineLabel: 'after a start from git', ratio: rssSnap / rssGit, target: '≤ 1.0× baseline', met: rssSnap <= rssGit, note: `at rest (3 s after ready); from git: after the snapshots it wrote (${written} in ${round(snapshotWriteMs / 1000, 1)} s); the source version alone: ${fmtMB(rssOne)}, an empty service ${fmtMB(rssEmpty)}` });
        push({ id: 'M1b', scenario: `server RSS after a start from git (snapshots deleted), ${count} versions`, measured: rssGit / MB, unit: 'MB', baseline: (count * sourceBytes) / MB, baselineLabel: 'content bytes, all versions', ratio: rssGit / (count * sourceBytes), target: '— (M1 compares with it)', met: null });
      }
      if (wants('M2')) {
        push({ id: 'M2', scenario: `start with snapshots (spawn → /healthz 200), ${count} versions, median of ${starts.length}`, measured: snapStartMs, unit: 'ms', baseline: reads.ms, baselineLabel: 'git ls-tree + cat-file --batch, every version', ratio: snapStartMs / reads.ms, target: '≤ 1,500 ms (issue: at 500 versions)', met: snapStartMs <= 1500, note: `starts: ${starts.map((s) => round(s)).join(', ')} ms; from git (M2b) ${round(gitStartMs)} ms; an empty service starts in ${round(emptyStartMs)} ms (the runtime and the code: the floor)` });
        push({ id: 'M2b', scenario: `start without snapshots (from git), ${count} versions`, measured: gitStartMs, unit: 'ms', baseline: reads.ms, baselineLabel: `cat-file, ${reads.blobs.toLocaleString('en-US')} blobs`, ratio: gitStartMs / reads.ms, target: '≤ 3,000 ms (issue: at 500 versions)', met: gitStartMs <= 3000, note: `every version searchable ${round(gitSearchableMs)} ms after spawn; the stop after it (snapshots already written) took ${round(stopMs)} ms` });
      }
      if (wants('M3')) {
        const allowed = distinctTrees * oneSnapshot + count * 4096;
        push({ id: 'M3', scenario: `snapshots/ on disk, ${count} versions (${distinctTrees} distinct trees)`, measured: snaps.bytes / MB, unit: 'MB', baseline: repo.bytes / MB, baselineLabel: 'content.git', ratio: snaps.bytes / repo.bytes, target: `shared by tree id: ≤ one snapshot per distinct tree + 4 KB per version (${round(allowed / MB, 1)} MB)`, met: snaps.bytes <= allowed, note: `${snaps.files} files; one version's snapshot: ${round(oneSnapshot / MB, 2)} MB; history.jsonl ${round(historyBytes / MB, 2)} MB (copies stored as references to their source)` });
      }

      // ------------------------------------------------ M5: a write to the draft and the other versions' cached answers
      if (wants('M5')) {
        const others = published.slice(0, OTHER_VERSIONS);
        const topics = [pairs[0].slug, pairs[Math.floor(pairs.length / 2)].slug];
        const urls = others.flatMap((v) => [`${API}/versions/${v}/tree?language=en`, `${API}/versions/${v}/topics/${topics[0]}?language=en`, `${API}/versions/${v}/topics/${topics[1]}?language=de`]);
        for (let pass = 0; pass < 2; pass++) for (const url of urls) await ok('GET', `${running.origin}${url}`);
        const before = await serverMetrics(running.origin);
        const p = pairs[1];
        await ok('PUT', `${running.origin}${API}/versions/draft/topics/${p.slug}/translations/${p.language}`, { key, body: { title: p.t.title, summary: p.t.summary, bodyMd: `${p.t.bodyMd}\nChanged in the draft.\n` } });
        for (const url of urls) await ok('GET', `${running.origin}${url}`);
        const after = await serverMetrics(running.origin);
        const delta = (r: string) => (after.lookups[r] ?? 0) - (before.lookups[r] ?? 0);
        const misses = delta('miss');
        d.invalidation = { versions: others.length, urls: urls.length, hits: delta('hit'), misses };
        push({
          id: 'M5',
          scenario: `cached answers of ${others.length} other versions missed after one write to a draft (${urls.length} URLs)`,
          measured: misses,
          unit: `of ${urls.length}`,
          count: true,
          baseline: null,
          baselineLabel: '',
          ratio: null,
          target: o.answerCache ? '0 (per-version invalidation)' : '— (answer cache off)',
          met: o.answerCache ? misses === 0 : null,
          note: `answer-cache lookups during the re-reads (/metrics): ${delta('hit')} hits, ${misses} misses`,
        });
      }

      // ------------------------------------------------ M4: bytes each edit adds to the repository
      if (wants('M4')) {
        const objectsBefore = await objectsSettled(gitdir);
        const countBefore = countObjects(gitdir);
        const repacksBefore = (await serverMetrics(running.origin)).repacks;
        const copyBefore = join(o.work, `m4-${n}-before.git`);
        copyRepository(gitdir, copyBefore);
        const edited: string[] = [];
        const latencies: number[] = [];
        for (let i = 0; i < EDITS; i++) {
          const p = pairs[(i * 7919 + 3) % pairs.length];
          const res = await ok('PUT', `${running.origin}${API}/versions/draft/topics/${p.slug}/translations/${p.language}`, { key, body: { title: p.t.title, summary: p.t.summary, bodyMd: `${p.t.bodyMd}\nRevision ${n}.${i}.\n` } });
          latencies.push(res.ms);
          edited.push(`main:draft/${p.language}/${p.slug}.md`);
        }
        // As the commits wrote them (whole objects), before the service's upkeep (it waits for writes to pause for a second).
        const objectsWritten = dirBytes(join(gitdir, 'objects')).bytes;
        // The service's upkeep: a repack with deltas once the new bytes pass its share of the repository, pack merges otherwise.
        const waitStarted = now();
        let repacks = repacksBefore;
        while (repacks === repacksBefore && now() - waitStarted < REPACK_WAIT_MS) {
          await sleep(250);
          repacks = (await serverMetrics(running.origin)).repacks;
        }
        const objectsAfter = await objectsSettled(gitdir);
        const settledMs = now() - waitStarted;
        const countAfter = countObjects(gitdir);
        // The same repack (the service's code) of the history before the edits: its older objects get the
        // deltas the service's repack gave them after the edits, so the difference is what the edits added.
        fs.mkdirSync(join(copyBefore, TEMP_DIR), { recursive: true });
        await deltaRepack(copyBefore, join(copyBefore, TEMP_DIR));
        const repackedBefore = dirBytes(join(copyBefore, 'objects')).bytes;
        // The baseline: git's own packing of the same history (deltas against the previous versions), on copies.
        const copyAfter = join(o.work, `m4-${n}-after.git`);
        copyRepository(gitdir, copyAfter);
        const gitPerEdit = (repackedBytes(copyAfter) - repackedBytes(copyBefore)) / EDITS;
        fs.rmSync(copyBefore, { recursive: true, force: true });
        fs.rmSync(copyAfter, { recursive: true, force: true });
        // The edited files as stored (compressed, whole): what any history must add per edit at least.
        const disk = diskSizes(gitdir, edited);
        const perEdit = (objectsAfter - repackedBefore) / EDITS;
        const blob = disk.reduce((a, b) => a + b, 0) / disk.length;
        const kib = (k: string) => (countAfter[k] ?? 0) - (countBefore[k] ?? 0);
        const repacked = repacks > repacksBefore;
        d.edits = { edits: EDITS, objectsBytes: { before: objectsBefore, beforeRepacked: repackedBefore, written: objectsWritten, after: objectsAfter }, repacked, settledMs: round(settledMs), countObjects: { before: countBefore, after: countAfter }, gitRepackPerEdit: round(gitPerEdit), meanBlobOnDisk: round(blob), latencyMs: { p50: round(median(latencies), 2), p99: round(percentile(latencies, 99), 2) } };
        push({
          id: 'M4',
          scenario: `bytes added to the repository per edit (PUT one translation), ${count} versions, after the service's upkeep`,
          measured: perEdit / 1024,
          unit: 'KB',
          baseline: gitPerEdit / 1024,
          baselineLabel: 'git repack -adf of the same history',
          ratio: perEdit / gitPerEdit,
          target: '≤ 2 KB per edit',
          met: perEdit <= 2048,
          note: `${EDITS} edits of the draft (a line added to a translation; the edited files are ${round(blob / 1024, 2)} KB compressed whole, on average): objects/ once the service's upkeep settled (${repacked ? `it repacked with deltas, ${round(settledMs / 1000, 1)} s after the last edit` : `no repack within ${REPACK_WAIT_MS / 1000} s`}) against a copy taken before the edits and repacked by the same code. As each commit wrote them, before the upkeep: ${round((objectsWritten - objectsBefore) / EDITS / 1024, 2)} KB per edit. git count-objects: size-pack +${kib('size-pack')} KiB, loose +${kib('size')} KiB against the copy before its repack; p50 ${round(median(latencies), 1)} ms per edit`,
        });
      }

      // ------------------------------------------------ M6: duplicating through the API
      if (wants('M6')) {
        // One duplicate first, not measured: the first of a server's run pays for code and structures every later one reuses.
        await ok('POST', `${running.origin}${API}/versions/v1/duplicate`, { key, body: { slug: `dup-${n}-0` } });
        const rssBefore = await rssAtRest(running, 1000);
        const heapBefore = (await serverMetrics(running.origin)).heapUsed;
        const times: number[] = [];
        for (let k = 1; k <= DUPLICATES; k++) {
          const res = await ok('POST', `${running.origin}${API}/versions/v1/duplicate`, { key, body: { slug: `dup-${n}-${k}` } });
          times.push(res.ms);
        }
        const rssAfter = await rssAtRest(running, 2000);
        const heapAfter = (await serverMetrics(running.origin)).heapUsed;
        const growth = (rssAfter - rssBefore) / DUPLICATES;
        const own = rssOne - rssEmpty;
        d.duplicates = { count: DUPLICATES, ms: times.map((t) => round(t, 1)), rssBeforeMB: round(rssBefore / MB), rssAfterMB: round(rssAfter / MB), heapUsedGrowthMB: round((heapAfter - heapBefore) / MB, 1) };
        push({ id: 'M6', scenario: `server RSS growth per duplicate (POST …/duplicate), ${count} versions`, measured: growth / MB, unit: 'MB', baseline: own / MB, baselineLabel: "the source version's own RSS", ratio: growth / own, target: '≤ 0.1× baseline (shares the source\'s index)', met: growth <= 0.1 * own, note: `${DUPLICATES} duplicates after a first one: RSS ${fmtMB(rssBefore)} → ${fmtMB(rssAfter)}, heap in use ${round((heapAfter - heapBefore) / MB, 1)} MB more (/metrics; garbage included)` });
        push({ id: 'M6b', scenario: `time to duplicate a version (request to answer), ${count} versions`, measured: median(times), unit: 'ms', baseline: null, baselineLabel: '', ratio: null, target: '—', met: null, note: `median of ${DUPLICATES}; max ${round(Math.max(...times), 1)} ms` });
        // Deleted again, so the next count holds exactly its number of versions.
        for (let k = 0; k <= DUPLICATES; k++) await ok('DELETE', `${running.origin}${API}/versions/dup-${n}-${k}`, { key });
      }
      await running.stop();
      svc = null;
      // ------------------------------------------------ M3b: snapshots after the writes above and the stop that saved them
      if (wants('M3')) {
        const treesNow = versionTrees(gitdir);
        const distinctNow = new Set(treesNow.values()).size;
        const after = dirBytes(snapshotsDir);
        const allowed = distinctNow * oneSnapshot + treesNow.size * 4096;
        const steps = ['M4', 'M5', 'M6'].filter(wants).join(', ') || 'none';
        d.snapshotsAfterWrites = { ...after, distinctTrees: distinctNow };
        push({ id: 'M3b', scenario: `snapshots/ on disk after the writes (${steps}) and a stop, ${treesNow.size} versions (${distinctNow} distinct trees)`, measured: after.bytes / MB, unit: 'MB', baseline: dirBytes(gitdir).bytes / MB, baselineLabel: 'content.git', ratio: after.bytes / dirBytes(gitdir).bytes, target: `the same bound: none left that no version needs (${round(allowed / MB, 1)} MB)`, met: after.bytes <= allowed, note: `${after.files} files (snapshots by tree, and each written version's pointer)` });
      }
    }
  } finally {
    await svc?.stop().catch(() => undefined);
  }
}

/** Bytes of a repository's packs after `git repack -a -d -f` (every delta computed afresh, as `git gc --aggressive` would). */
function repackedBytes(gitdir: string): number {
  execFileSync('git', ['--git-dir', gitdir, 'repack', '-a', '-d', '-f', '-q'], { stdio: 'ignore' });
  return dirBytes(join(gitdir, 'objects', 'pack')).bytes;
}

/** The on-disk (compressed) size of each object named, from `git cat-file --batch-check`. */
function diskSizes(gitdir: string, names: string[]): number[] {
  const out = execFileSync('git', ['--git-dir', gitdir, 'cat-file', '--batch-check=%(objectsize:disk)'], { input: `${names.join('\n')}\n`, encoding: 'utf8' });
  return out.trim().split('\n').map(Number).filter((v) => Number.isFinite(v));
}
