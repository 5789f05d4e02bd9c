import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../src/config.ts';
import type { NodeRec, Translation, VersionState } from '../src/domain/types.ts';
import { IndexWorkers } from '../src/index/index-workers.ts';
import { SearchIndex } from '../src/index/search.ts';
import { startService, type RunningService } from '../src/service.ts';
import { generateDocSet } from './helpers/generate.ts';
import { commitWithGit } from './helpers/git.ts';

// A version loaded without its snapshot is indexed for search on worker threads. Whatever thread built
// an index, and whether the workers could run at all, a search must answer exactly what it answers
// when the main thread builds every index.

const LANGUAGES = ['en', 'de', 'ja'];
/** Text a version must have to be built on the workers here (the default, 32 M characters, is too large for a test). */
const TEST_MIN_CHARS = 2_000_000;
/** Words of the large document: the first, one in the middle, the last. */
const LARGE_WORDS = ['quillfirst', 'quillmiddle', 'quilllast'];

/** The set: English and German complete, Japanese for half of the nodes, and one document of 4 MB (enough text for the workers). */
function contentFiles(): { files: Record<string, string>; queries: Array<[language: string, q: string]> } {
  const set = generateDocSet({ nodes: 120, seed: 5, languages: LANGUAGES, translationRates: { ja: 0.5 }, bodyBytes: { min: 2000, max: 12_000 }, markdown: 'rich', label: 'Workers', status: 'published', isLatest: true });
  const files: Record<string, string> = {};
  for (const f of set.files) files[`v1/${f.path}`] = f.content;
  const large = set.files.find((f) => f.path.startsWith('en/') && f.path.endsWith('.md'))!;
  const lines = Array.from({ length: 100_000 }, (_, i) => `Line ${i} holds term${i} and unit${i % 997}${i === 50_000 ? ` ${LARGE_WORDS[1]}` : ''}.`);
  files[`v1/${large.path}`] = `${large.content}\n${LARGE_WORDS[0]}\n${lines.join('\n')}\n${LARGE_WORDS[2]}\n`;
  const queries: Array<[string, string]> = [];
  for (const language of LANGUAGES) {
    const mine = set.files.filter((f) => f.path.startsWith(`${language}/`));
    for (const f of mine.filter((_, i) => i % 6 === 0)) {
      const title = /^title: "(.*)"$/m.exec(f.content)![1];
      const reference = /(zelkora\w+|「(.+?)」)/.exec(f.content);
      queries.push([language, title], [language, title.slice(0, 2)]);
      if (reference) queries.push([language, reference[2] ?? reference[1]]);
    }
  }
  queries.push(...set.probes.map((p): [string, string] => [p.language, p.word]));
  queries.push(...LARGE_WORDS.map((w): [string, string] => ['en', w]), ['en', 'term99999'], ['en', 'unit5'], ['ja', '管理'], ['ja', '設'], ['de', 'Übersicht']);
  return { files, queries };
}

interface Started {
  service: RunningService;
  logs: Array<Record<string, any>>;
}

/** Starts the service on `dataDir` without its snapshots, and waits until every version is loaded and searchable (its indexes built). */
async function startWithoutSnapshots(dataDir: string, workers: number, indexWorker?: URL): Promise<Started> {
  rmSync(join(dataDir, 'snapshots'), { recursive: true, force: true });
  return start(dataDir, workers, indexWorker);
}

async function start(dataDir: string, workers: number, indexWorker?: URL): Promise<Started> {
  const logs: Array<Record<string, any>> = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const config = loadConfig({ HELP_INDEX_WORKERS: String(workers), HELP_INDEX_WORKERS_MIN_MCHARS: String(TEST_MIN_CHARS / 1_000_000) }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null });
  const service = await startService(config, log, { snapshotQuietMs: 60_000, indexWorker });
  await service.searchable;
  return { service, logs };
}

async function answers(service: RunningService, queries: Array<[string, string]>): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const [language, q] of queries) {
    const res = await fetch(`${service.url}/versions/v1/search?${new URLSearchParams({ q, lang: language })}`);
    assert.equal(res.status, 200);
    out.push(await res.json());
  }
  return out;
}

const workerBuilds = (logs: Array<Record<string, any>>) => logs.filter((l) => l.msg === 'search index built on a worker thread');
const workerFailures = (logs: Array<Record<string, any>>) => logs.filter((l) => l.msg === 'an index worker failed; search indexes are built on the main thread until workers are tried again');

describe('A start without snapshots indexes on worker threads', () => {
  let dataDir: string;
  let queries: Array<[string, string]>;
  /** The answers when the main thread builds every index. */
  let expected: unknown[];
  let running: RunningService | null = null;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'help-workers-'));
    const first = await startService(loadConfig({ LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null }), pino({ level: 'silent' }));
    await first.ready;
    await first.close();
    const content = contentFiles();
    queries = content.queries;
    commitWithGit(join(dataDir, 'content.git'), content.files, 'a version written by hand');
    const main = await startWithoutSnapshots(dataDir, 0);
    try {
      expected = await answers(main.service, queries);
      assert.deepEqual(workerBuilds(main.logs), [], 'HELP_INDEX_WORKERS=0 builds on the main thread');
    } finally {
      await main.service.close();
    }
  });
  after(async () => {
    await running?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the answers are those of indexes built on the main thread: hits and snippets, in every language, for the large document too', async () => {
    const hits = (expected as Array<{ hits: unknown[] }>).map((a) => a.hits.length);
    assert.ok(hits.filter((n) => n > 0).length > queries.length / 2, 'most queries find something');
    const large = expected.slice(queries.findIndex(([, q]) => q === LARGE_WORDS[0]), queries.findIndex(([, q]) => q === LARGE_WORDS[2]) + 1) as Array<{ hits: Array<{ snippet: string }> }>;
    assert.deepEqual(large.map((a, i) => a.hits.length === 1 && a.hits[0].snippet.includes(LARGE_WORDS[i])), [true, true, true], 'the large document is found by its first, middle and last words');

    const { service, logs } = await startWithoutSnapshots(dataDir, 2);
    running = service;
    assert.deepEqual(
      workerBuilds(logs).map((l) => l.documents).sort((a, b) => a - b),
      [58, 120, 120],
      'each language was indexed on a worker',
    );
    assert.deepEqual(await answers(service, queries), expected);
    assert.deepEqual(workerFailures(logs), []);
    await service.close();
    running = null;

    // The snapshots written at the stop hold the indexes the workers built: a start from them answers the same.
    const again = await start(dataDir, 2);
    running = again.service;
    assert.ok(again.logs.some((l) => l.msg === 'version restored from its snapshot'));
    assert.deepEqual(workerBuilds(again.logs), []);
    assert.deepEqual(await answers(again.service, queries), expected);
    await again.service.close();
    running = null;
  });

  test('git stops in the middle of the files: the rest are read through isomorphic-git, and each language is built once, on the workers', async () => {
    // A git that passes everything on, except that a read of the files (cat-file --buffer) ends after 300 KB.
    const bin = join(dataDir, 'bin');
    mkdirSync(bin, { recursive: true });
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\ncase " $* " in\n  *" --buffer "*) "${realGit}" "$@" | head -c 300000; exit 1 ;;\nesac\nexec "${realGit}" "$@"\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const { service, logs } = await startWithoutSnapshots(dataDir, 2);
      running = service;
      assert.deepEqual(
        workerBuilds(logs).map((l) => l.documents).sort((a, b) => a - b),
        [58, 120, 120],
        'each document once',
      );
      assert.deepEqual(await answers(service, queries), expected);
      await service.close();
      running = null;
    } finally {
      process.env.PATH = path;
    }
  });

  test('a worker that cannot start: the main thread indexes, the reason is logged once, the answers are the same', async () => {
    const { service, logs } = await startWithoutSnapshots(dataDir, 2, pathToFileURL(join(dataDir, 'no-such-worker.mjs')));
    running = service;
    assert.deepEqual(await answers(service, queries), expected);
    const failures = workerFailures(logs);
    assert.equal(failures.length, 1, 'logged once');
    assert.match(failures[0].err.message, /no-such-worker\.mjs/);
    assert.deepEqual(workerBuilds(logs), []);
    await service.close();
    running = null;
  });

  test('a worker that dies while it builds: the main thread indexes, the reason is logged once, the answers are the same', async () => {
    const script = join(dataDir, 'dying-worker.mjs');
    writeFileSync(script, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => { throw new Error('the worker broke'); });\n");
    const { service, logs } = await startWithoutSnapshots(dataDir, 2, pathToFileURL(script));
    running = service;
    assert.deepEqual(await answers(service, queries), expected);
    const failures = workerFailures(logs);
    assert.equal(failures.length, 1, 'logged once');
    assert.equal(failures[0].err.message, 'the worker broke');
    await service.close();
    running = null;
  });
});

describe('Indexes built on a worker, and updates meanwhile', () => {
  const STAMP = '2026-01-01T00:00:00.000Z';
  const filler = Array.from({ length: 300_000 }, (_, i) => `filler word${i}`).join('\n');
  const stateOf = (texts: Record<string, string>): VersionState => {
    const slugs = Object.keys(texts);
    const nodes = new Map<string, NodeRec>(slugs.map((slug) => [slug, { id: slug, slug, kind: 'topic', parentSlug: null, icon: null, sortOrder: 0, updatedAt: STAMP, children: [] }]));
    const translations = new Map(slugs.map((slug) => [slug, new Map<string, Translation>([['en', { title: slug, summary: '', bodyMd: texts[slug], updatedAt: STAMP }]])]));
    return {
      slug: 'v1',
      meta: { label: 'V1', status: 'published', languages: ['en'], sortOrder: null, isLatest: false, hidden: false, workingCopyOf: null, createdAt: STAMP, updatedAt: STAMP },
      nodes,
      roots: slugs,
      translations,
    };
  };

  /** A SearchIndex whose builds go to one worker, and the worker builds it logged. */
  const withWorker = () => {
    const builds: string[] = [];
    const log = pino({ level: 'debug' }, { write: (line: string) => void builds.push(JSON.parse(line).msg) });
    const workers = new IndexWorkers(1, TEST_MIN_CHARS, log);
    return { index: new SearchIndex(() => {}, workers), workers, builds };
  };

  test('an update while the version is built is searchable once the version is idle, and what it removed is gone', async () => {
    const before = stateOf({ big: filler, old: 'an elderberry here', kept: 'a fig here' });
    // The same translations for big and kept (the same objects), a new text for old, and a new node.
    const changed: VersionState = {
      ...before,
      nodes: new Map([...before.nodes, ['added', { ...before.nodes.get('kept')!, id: 'added', slug: 'added' }]]),
      roots: [...before.roots, 'added'],
      translations: new Map([...before.translations, ['old', new Map([['en', { title: 'old', summary: '', bodyMd: 'a gooseberry now', updatedAt: STAMP }]])], ['added', new Map([['en', { title: 'added', summary: '', bodyMd: 'a huckleberry', updatedAt: STAMP }]])]]),
    };
    const { index, workers, builds } = withWorker();
    try {
      const first = index.update('v1', before);
      const second = index.update('v1', changed);
      assert.ok(index.isBusy('v1'), 'the version is busy while its index is built');
      await index.idle();
      await Promise.all([first, second]);
      assert.deepEqual(builds, ['search index built on a worker thread']);
      const slugs = (q: string) => index.search(changed, 'en', q).hits.map((h) => h.slug);
      assert.deepEqual(slugs('gooseberry'), ['old']);
      assert.deepEqual(slugs('huckleberry'), ['added']);
      assert.deepEqual(slugs('elderberry'), [], 'the text the update replaced is gone');
      assert.deepEqual(slugs('fig'), ['kept']);
      assert.deepEqual(slugs('word299999'), ['big']);
    } finally {
      workers.close();
    }
  });

  test('after a worker failed, builds stay on the main thread for a while; then workers are tried again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'help-worker-'));
    const script = join(dir, 'later-worker.ts');
    const logs: Array<Record<string, any>> = [];
    const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    // The wait after a failure: long enough that a main-thread build fits in it on a loaded machine.
    const WAIT_MS = 8000;
    const workers = new IndexWorkers(1, TEST_MIN_CHARS, log, pathToFileURL(script), WAIT_MS);
    const index = new SearchIndex(() => {}, workers);
    const found = (state: VersionState, q: string) => index.search(state, 'en', q).hits.map((h) => h.slug);
    try {
      // No worker's module yet: the worker cannot start, the main thread builds.
      const first = stateOf({ big: `${filler}\nfirstword`, small: 'a fig here' });
      await index.update('v1', first);
      await index.idle();
      assert.equal(workerFailures(logs).length, 1);
      assert.deepEqual(found(first, 'firstword'), ['big']);
      // The module is there now, but the wait is not over: the main thread builds, and nothing more is logged.
      writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
      writeFileSync(script, `import ${JSON.stringify(new URL('../src/index/index-worker.ts', import.meta.url).href)};\n`);
      const second: VersionState = { ...stateOf({ big: `${filler}\nsecondword`, small: 'a fig here' }), slug: 'v2' };
      await index.update('v2', second);
      await index.idle();
      const failedAt: number = workerFailures(logs)[0].time;
      assert.ok(Date.now() - failedAt < WAIT_MS, 'the second build ran within the wait');
      assert.equal(workerFailures(logs).length, 1);
      assert.deepEqual(workerBuilds(logs), []);
      assert.deepEqual(found(second, 'secondword'), ['big']);
      // After it, workers are tried again.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, failedAt + WAIT_MS - Date.now()) + 50));
      const third: VersionState = { ...stateOf({ big: `${filler}\nthirdword`, small: 'a fig here' }), slug: 'v3' };
      await index.update('v3', third);
      await index.idle();
      assert.equal(workerBuilds(logs).length, 1, 'built on a worker');
      assert.deepEqual(found(third, 'thirdword'), ['big']);
    } finally {
      workers.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a version with the same translations as one being built waits for it and shares its indexes', async () => {
    const first = stateOf({ big: filler, small: 'a fig here' });
    const copy: VersionState = { ...first, slug: 'v2' };
    const { index, workers, builds } = withWorker();
    try {
      await Promise.all([index.update('v1', first), index.update('v2', copy)]);
      assert.deepEqual(builds, ['search index built on a worker thread'], 'built once');
      for (const state of [first, copy]) assert.deepEqual(index.search(state, 'en', 'word299999').hits.map((h) => h.slug), ['big']);
      // Copy on write: a change to one of them leaves the other as it was.
      const changed: VersionState = { ...copy, translations: new Map([...copy.translations, ['small', new Map([['en', { title: 'small', summary: '', bodyMd: 'a gooseberry', updatedAt: STAMP }]])]]) };
      await index.update('v2', changed);
      assert.deepEqual(index.search(changed, 'en', 'gooseberry').hits.map((h) => h.slug), ['small']);
      assert.deepEqual(index.search(first, 'en', 'gooseberry').hits, []);
      assert.deepEqual(index.search(first, 'en', 'fig').hits.map((h) => h.slug), ['small']);
    } finally {
      workers.close();
    }
  });
});

test('HELP_INDEX_WORKERS: one worker per core Node.js may use unless set, 0 turns them off, anything but a whole number stops the start', () => {
  assert.equal(loadConfig({}).indexWorkers, Math.min(availableParallelism(), 64));
  assert.equal(loadConfig({ HELP_INDEX_WORKERS: '0' }).indexWorkers, 0);
  assert.equal(loadConfig({ HELP_INDEX_WORKERS: '3' }).indexWorkers, 3);
  for (const bad of ['off', '-1', '1.5', '65']) assert.throws(() => loadConfig({ HELP_INDEX_WORKERS: bad }), (err: Error) => err instanceof ConfigError && /HELP_INDEX_WORKERS/.test(err.message), bad);
});

test('HELP_INDEX_WORKERS_MIN_MCHARS: versions of more than 32 M characters go to the workers unless set; anything but a whole number stops the start', () => {
  assert.equal(loadConfig({}).indexWorkersMinChars, 32_000_000);
  assert.equal(loadConfig({ HELP_INDEX_WORKERS_MIN_MCHARS: '0' }).indexWorkersMinChars, 0);
  assert.equal(loadConfig({ HELP_INDEX_WORKERS_MIN_MCHARS: '4' }).indexWorkersMinChars, 4_000_000);
  for (const bad of ['big', '-1', '2.5']) assert.throws(() => loadConfig({ HELP_INDEX_WORKERS_MIN_MCHARS: bad }), (err: Error) => err instanceof ConfigError && /HELP_INDEX_WORKERS_MIN_MCHARS/.test(err.message), bad);
});
