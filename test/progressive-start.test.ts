import assert from 'node:assert/strict';
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { startService, type RunningService, type ServiceOptions } from '../src/service.ts';
import { generateDocSet } from './helpers/generate.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const VERSIONS = Array.from({ length: 9 }, (_, i) => `r${i + 1}`);

/**
 * A start without snapshots (the first start after an upgrade, or with snapshots/ deleted): versions
 * come in a few at a time, and the service answers meanwhile.
 */
describe('A start without snapshots serves each version as soon as it is loaded', () => {
  let s: TestServer;
  let dataDir: string;
  let service: RunningService | null = null;

  before(async () => {
    s = await startTestServer();
    dataDir = s.dataDir;
    for (const [i, slug] of VERSIONS.entries()) {
      const set = generateDocSet({ nodes: 250, seed: 100 + i, languages: ['en', 'de'], bodyBytes: { min: 2000, max: 12_000 }, label: slug, status: 'published' });
      const res = await s.request('POST', `/versions/${slug}/import-files`, { body: { files: set.files }, timeout: 60_000 });
      assert.equal(res.status, 200, res.text);
    }
    await s.service.close();
    rmSync(join(dataDir, 'snapshots'), { recursive: true, force: true });
  });
  after(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('/healthz lists the versions still loading; a loaded one answers, one not loaded yet is 503 with Retry-After; writes wait', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null });
    service = await startService(config, pino({ level: 'silent' }));
    const origin = new URL(service.url).origin;
    const seen = { partly: 0, servedWhileLoading: false, loadingAnswer: null as null | { status: number; retryAfter: string | null; code: string } };
    let done = false;
    const ready = service.ready.then(() => (done = true));
    while (!done) {
      // The lists of versions are for callers with a key; without one /healthz gives counts only.
      const health = await fetch(`${origin}/healthz`, { headers: { authorization: `Bearer ${s.key}` } });
      const body = (await health.json()) as { ok: boolean; versions: { loaded: number; loading: number }; loading: string[] };
      if (body.ok) break;
      assert.equal(health.status, 503);
      if (body.versions.loading > 0 && body.versions.loaded > 0) {
        seen.partly++;
        const loading = body.loading[body.loading.length - 1];
        const loaded = VERSIONS.find((v) => !body.loading.includes(v))!;
        const [a, b, listed, posted]: Response[] = await Promise.all([
          fetch(`${service.url}/versions/${loaded}/tree`),
          fetch(`${service.url}/versions/${loading}/tree`),
          fetch(`${service.url}/versions`),
          fetch(`${service.url}/versions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"slug":"x"}' }),
        ]);
        if (a.status === 200) seen.servedWhileLoading = true;
        if (b.status === 503) seen.loadingAnswer ??= { status: b.status, retryAfter: b.headers.get('retry-after'), code: ((await b.json()) as { error: { code: string } }).error.code };
        if (!done) {
          assert.equal(listed.status, 503, 'the list of versions waits for all of them');
          assert.ok(Number(listed.headers.get('retry-after')) > 0);
          assert.equal(posted.status, 503, 'writes wait for the load');
        }
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    await ready;
    assert.ok(seen.partly > 0, 'the load was seen half done');
    assert.ok(seen.servedWhileLoading, 'a loaded version was served while others loaded');
    assert.deepEqual(seen.loadingAnswer && { ...seen.loadingAnswer, retryAfter: Number(seen.loadingAnswer.retryAfter) > 0 }, { status: 503, retryAfter: true, code: 'version_loading' });
    const health = (await (await fetch(`${origin}/healthz`, { headers: { authorization: `Bearer ${s.key}` } })).json()) as { ok: boolean; versions: { loaded: number; loading: number; broken: number }; loading: string[] };
    assert.deepEqual({ ok: health.ok, loaded: health.versions.loaded, broken: health.versions.broken, loading: health.loading }, { ok: true, loaded: VERSIONS.length, broken: 0, loading: [] });
    const list = await fetch(`${service.url}/versions`);
    assert.equal(((await list.json()) as unknown[]).length, VERSIONS.length);
  });
});

/**
 * After a start without snapshots a version is served as soon as it is read; its search indexes are
 * built after that. Here they are built on an index worker that waits for a gate file, so the test
 * decides when they are done.
 */
describe('A version served before its search index is built', () => {
  let dataDir: string;
  let gate: string;
  let worker: URL;
  let probe: { language: string; word: string; slug: string };
  let key: string;
  let service: RunningService | null = null;

  const startGated = async (options: ServiceOptions = {}) => {
    const config = loadConfig({ LOG_LEVEL: 'silent', HELP_INDEX_WORKERS: '1', HELP_INDEX_WORKERS_MIN_MCHARS: '0' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null });
    service = await startService(config, pino({ level: 'silent' }), { indexWorker: worker, ...options });
    await service.ready;
    return service;
  };
  const health = async (s: RunningService) => (await (await fetch(`${new URL(s.url).origin}/healthz`, { headers: { authorization: `Bearer ${key}` } })).json()) as { ok: boolean; versions: { indexing: number }; indexing: string[] };
  const search = (s: RunningService, path = `/versions/v1/search?q=${encodeURIComponent(probe.word)}&lang=${probe.language}`) => fetch(`${s.url}${path}`);
  const slugsOf = async (res: Response) => ((await res.json()) as { hits: Array<{ slug: string }> }).hits.map((h) => h.slug);
  /** No snapshots, the gate closed: the next start reads v1 from git and its index waits for the gate. */
  const fromGit = () => {
    rmSync(join(dataDir, 'snapshots'), { recursive: true, force: true });
    rmSync(gate, { force: true });
  };
  /** Starts with the gate closed: v1's index must come from its snapshot (nothing waits for the worker), and finds the probe. */
  const startsWithIndex = async (message: string) => {
    rmSync(gate, { force: true });
    const s = await startGated();
    assert.deepEqual((await health(s)).indexing, [], message);
    assert.deepEqual(await slugsOf(await search(s)), [probe.slug]);
    await s.close();
    service = null;
  };

  before(async () => {
    const s = await startTestServer();
    dataDir = s.dataDir;
    key = s.key;
    const set = generateDocSet({ nodes: 80, seed: 7, languages: ['en', 'de'], bodyBytes: { min: 1000, max: 6000 }, label: 'v1', status: 'published', isLatest: true });
    probe = set.probes[0];
    const res = await s.request('POST', '/versions/v1/import-files', { body: { files: set.files }, timeout: 60_000 });
    assert.equal(res.status, 200, res.text);
    await s.service.close();
    gate = join(dataDir, 'gate');
    const script = join(dataDir, 'gated-worker.mjs');
    const real = new URL('../src/index/index-worker.ts', import.meta.url).href;
    // Messages sent before the real worker listens are queued for it.
    writeFileSync(script, `import { existsSync } from 'node:fs';\nwhile (!existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 10));\nawait import(${JSON.stringify(real)});\n`);
    worker = pathToFileURL(script);
  });
  after(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('/healthz names it under indexing; its reads are answered, and its search waits for the index and finds what it holds', async () => {
    fromGit();
    const s = await startGated();
    const before = await health(s);
    assert.deepEqual({ ok: before.ok, indexing: before.indexing, count: before.versions.indexing }, { ok: true, indexing: ['v1'], count: 1 });
    const tree = await fetch(`${s.url}/versions/v1/tree`);
    assert.equal(tree.status, 200, 'a version being indexed is read');
    const asked = search(s);
    const portalAsked = fetch(`${new URL(s.url).origin}/support/v1/search?q=${encodeURIComponent(probe.word)}&lang=${probe.language}`);
    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(gate, '');
    const answer = await asked;
    assert.equal(answer.status, 200);
    assert.deepEqual(await slugsOf(answer), [probe.slug], 'the answer comes from the whole index');
    const page = await portalAsked;
    assert.equal(page.status, 200);
    // Results open through the search report's counter, which sends the reader on to the page.
    assert.match(await page.text(), new RegExp(`/support/v1/_open\\?q=[^"]*&amp;to=${probe.slug}\\b`));
    await s.searchable;
    const afterwards = await health(s);
    assert.deepEqual({ indexing: afterwards.indexing, count: afterwards.versions.indexing }, { indexing: [], count: 0 });
    await s.close();
    service = null;
  });

  test('a search that would wait more than 2 s answers 503 version_loading with Retry-After; a stop meanwhile keeps the index for the next start', async () => {
    fromGit();
    const s = await startGated();
    const [api, portal] = await Promise.all([search(s), fetch(`${new URL(s.url).origin}/support/v1/search?q=${encodeURIComponent(probe.word)}&lang=${probe.language}`)]);
    assert.equal(api.status, 503);
    assert.equal(api.headers.get('retry-after'), '1');
    const body = (await api.json()) as { error: { code: string; message: string; version: string } };
    assert.deepEqual({ code: body.error.code, version: body.error.version }, { code: 'version_loading', version: 'v1' });
    assert.match(body.error.message, /still being indexed for search/);
    assert.equal(portal.status, 503);
    assert.equal(portal.headers.get('retry-after'), '1');
    // A bad request is told so at once, not after the wait.
    const started = performance.now();
    const wrong = await search(s, `/versions/v1/search?q=x&lang=fr`);
    assert.equal(wrong.status, 400);
    assert.ok(performance.now() - started < 1500, 'refused without waiting for the index');
    // The stop waits for the index (the gate opens once the stop has begun) and writes it in the snapshot.
    const closed = s.close();
    writeFileSync(gate, '');
    await closed;
    service = null;
    await startsWithIndex('the index came from the snapshot');
  });

  test('a stop that cannot wait for the index keeps the version without it; the next start serves it at once, indexes it after, and writes the snapshot again with the index', async () => {
    fromGit();
    const first = await startGated({ snapshotIndexWaitMs: 100 });
    await first.close();
    service = null;
    const snapshotFile = () => readdirSync(join(dataDir, 'snapshots')).find((f) => f.endsWith('.snapshot'))!;
    const withoutIndex = statSync(join(dataDir, 'snapshots', snapshotFile())).size;

    const second = await startGated({ snapshotQuietMs: 50 });
    assert.deepEqual((await health(second)).indexing, ['v1'], 'served from the snapshot, its index still to build');
    assert.equal((await fetch(`${second.url}/versions/v1/tree`)).status, 200);
    writeFileSync(gate, '');
    await second.searchable;
    const deadline = Date.now() + 10_000;
    while (statSync(join(dataDir, 'snapshots', snapshotFile())).size <= withoutIndex && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    assert.ok(statSync(join(dataDir, 'snapshots', snapshotFile())).size > withoutIndex, 'the snapshot was written again, with the index');
    await second.close();
    service = null;
    await startsWithIndex('the index came from the rewritten snapshot');
  });

  test('a copy made while its source is still being indexed is answered at once and searched once the index is built; writes to other versions are not held', async () => {
    fromGit();
    const s = await startGated();
    const post = (path: string, body: unknown) => fetch(`${s.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const inTime = <T,>(p: Promise<T>) => Promise.race([p, new Promise<'late'>((r) => setTimeout(() => r('late'), 1500))]);
    const copied = await inTime(post('/versions/v1/duplicate', { slug: 'copy', status: 'published' }));
    assert.notEqual(copied, 'late', 'the duplicate does not wait for the source\'s index');
    assert.equal((copied as Response).status, 200);
    const other = await inTime(post('/versions', { slug: 'other', label: 'Other', languages: ['en'] }));
    assert.notEqual(other, 'late', 'another version is created meanwhile');
    assert.equal((other as Response).status, 200);
    assert.deepEqual((await health(s)).indexing.sort(), ['copy', 'v1']);
    const asked = search(s, `/versions/copy/search?q=${encodeURIComponent(probe.word)}&lang=${probe.language}`);
    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(gate, '');
    const answer = await asked;
    assert.equal(answer.status, 200);
    assert.deepEqual(await slugsOf(answer), [probe.slug], 'the copy is searched with the whole index, not an empty one');
    await s.searchable;
    assert.deepEqual((await health(s)).indexing, []);
    await s.close();
    service = null;
  });
});
