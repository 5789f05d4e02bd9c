import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { KeyFile } from '../src/auth/key-file.ts';
import { createKey } from '../src/cli/keys.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { startService, type RunningService } from '../src/service.ts';
import { metric } from './helpers/metrics.ts';
import { createNode, createVersion, startTestServer, type ListedNode, type TestServer } from './helpers/server.ts';

describe('Caching of public reads: ETag, If-None-Match, Cache-Control', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_CACHE_MAX_AGE: '120' } });
    await createVersion(s, 'v1', { status: 'published' });
    await createNode(s, 'v1', { slug: 'a', translations: { en: { title: 'A', bodyMd: 'Alpha\n' } } });
  });
  after(() => s.close());

  test('an anonymous read carries an ETag and public Cache-Control; If-None-Match gets 304', async () => {
    const first = await s.request('GET', '/versions/v1/topics/a', { key: null });
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^W\/".+"$/);
    assert.equal(first.headers.get('cache-control'), 'public, max-age=120');
    assert.match(first.headers.get('vary') ?? '', /Authorization/);
    const again = await s.request('GET', '/versions/v1/topics/a', { key: null, headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const same = await s.request('GET', '/versions/v1/topics/a', { key: null });
    assert.deepEqual(same.body, first.body);
    assert.equal(same.headers.get('etag'), etag);
  });

  test('a write changes the ETag and the answer', async () => {
    const before = await s.request('GET', '/versions/v1/topics/a', { key: null });
    await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'A2', bodyMd: 'Beta\n' } });
    const after = await s.request('GET', '/versions/v1/topics/a', { key: null, headers: { 'if-none-match': before.headers.get('etag')! } });
    assert.equal(after.status, 200);
    assert.equal(after.body.title, 'A2');
    assert.notEqual(after.headers.get('etag'), before.headers.get('etag'));
  });

  test('different URLs and different callers get different validators; credentials are private', async () => {
    const de = await s.request('GET', '/versions/v1/topics/a?language=de', { key: null });
    const en = await s.request('GET', '/versions/v1/topics/a', { key: null });
    assert.notEqual(de.headers.get('etag'), en.headers.get('etag'));
    const withKey = await s.request('GET', '/versions/v1/topics/a');
    assert.equal(withKey.headers.get('cache-control'), 'private, no-cache');
    assert.notEqual(withKey.headers.get('etag'), en.headers.get('etag'));
  });

  test('tree, nodes, one translation, search, versions and the PDF bundle are cached the same way', async () => {
    for (const path of ['/versions', '/versions/v1/tree', '/versions/v1/nodes', '/versions/v1/topics/a/translations/en', '/versions/v1/search?q=beta', '/versions/v1/pdf-bundle']) {
      const res = await s.request('GET', path, { key: null });
      assert.equal(res.status, 200, path);
      const etag = res.headers.get('etag');
      assert.ok(etag, path);
      assert.equal((await s.request('GET', path, { key: null, headers: { 'if-none-match': etag } })).status, 304, path);
    }
  });

  test('errors are not cached, and a version published later is seen at once', async () => {
    assert.equal((await s.request('GET', '/versions/v2/tree', { key: null })).status, 404);
    await createVersion(s, 'v2', { status: 'published' });
    assert.equal((await s.request('GET', '/versions/v2/tree', { key: null })).status, 200);
  });
});

/** One answer exactly as it came over the wire: status, header lines in order, body bytes. */
interface RawAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer;
}

function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const pairs: Array<[string, string]> = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i].toLowerCase(), res.rawHeaders[i + 1]]);
        resolve({ status: res.statusCode ?? 0, headers: pairs, body: Buffer.concat(parts) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The answer without its Date header (the only line two identical answers may differ in). */
const withoutDate = (a: RawAnswer) => ({ ...a, headers: a.headers.filter(([k]) => k !== 'date') });

describe('The answer cache before the router: hits are the same answers, cheaper', () => {
  let dataDir: string;
  let service: RunningService;
  let base: string;
  let key: string;
  let start: () => Promise<void>;
  const lines: Array<Record<string, any>> = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    key = (await createKey(new KeyFile(dataDir), { name: 'writer' })).key;
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    start = async () => {
      const config = loadConfig({ LOG_LEVEL: 'info' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null });
      service = await startService(config, pino({ level: 'info' }, sink));
      await service.ready;
      base = service.url;
    };
    await start();
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => assert.equal((await raw(base, 'POST', path, auth, JSON.stringify(body))).status, 200, path);
    await post('/versions', { slug: 'pub', label: 'Published', languages: ['en', 'de'], status: 'published' });
    await post('/versions', { slug: 'draft', label: 'Draft', languages: ['en'] });
    await post('/versions/pub/nodes', { slug: 'a', kind: 'topic', translations: { en: { title: 'A', bodyMd: 'Alpha body\n' } } });
    await post('/versions/draft/nodes', { slug: 'd', kind: 'topic', translations: { en: { title: 'Secret', bodyMd: 'Not yet public\n' } } });
  });
  after(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The request log line of the answer with this request id. */
  const lineOf = (requestId: string) => lines.find((l) => l.msg === 'request' && l.requestId === requestId);

  test('a hit is byte for byte the miss that filled it, headers included, for GET, HEAD and 304', async () => {
    const path = '/versions/pub/topics/a?language=de';
    const ask = (id: string, method = 'GET', extra: Record<string, string> = {}) => raw(base, method, path, { 'x-request-id': id, ...extra });
    const miss = await ask('same-id');
    // An answer is kept the second time its URL is asked for (the first could be a one-off).
    const kept = await ask('same-id');
    const hit = await ask('same-id');
    assert.equal(miss.status, 200);
    assert.deepEqual(withoutDate(kept), withoutDate(miss));
    assert.deepEqual(withoutDate(hit), withoutDate(miss));
    assert.deepEqual(
      miss.headers.map(([k]) => k).filter((k) => !['date', 'connection', 'keep-alive'].includes(k)),
      ['x-request-id', 'x-content-type-options', 'x-content-revision', 'etag', 'vary', 'cache-control', 'content-type', 'content-length'],
    );
    assert.equal(JSON.parse(hit.body.toString('utf8')).language, 'en');
    // The log tells a hit from a miss; both keep their line.
    const [first, second, third] = lines.filter((l) => l.requestId === 'same-id');
    assert.equal(first.cached, undefined);
    assert.equal(second.cached, undefined);
    assert.equal(third.cached, true);
    assert.equal(third.status, 200);
    assert.equal(third.path, '/help/v1/versions/pub/topics/a');

    const head = await ask('same-id', 'HEAD');
    assert.equal(head.body.length, 0);
    assert.deepEqual(withoutDate(head).headers, withoutDate(miss).headers);
    // A HEAD that misses (a URL asked for the first time) has the GET's headers too, and no body.
    const headMiss = await raw(base, 'HEAD', `${path}&first=time`, { 'x-request-id': 'head-miss' });
    const getMiss = await raw(base, 'GET', `${path}&first=time`, { 'x-request-id': 'head-miss' });
    assert.equal(headMiss.status, 200);
    assert.equal(headMiss.body.length, 0);
    assert.equal(getMiss.body.length, Number(getMiss.headers.find(([k]) => k === 'content-length')![1]));
    assert.deepEqual(withoutDate(headMiss).headers, withoutDate(getMiss).headers);

    const etag = miss.headers.find(([k]) => k === 'etag')![1];
    const notModified = await ask('same-id', 'GET', { 'if-none-match': `"other", ${etag}` });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.body.length, 0);
    assert.deepEqual(
      notModified.headers.filter(([k]) => ['x-request-id', 'etag', 'vary', 'cache-control'].includes(k)),
      miss.headers.filter(([k]) => ['x-request-id', 'etag', 'vary', 'cache-control'].includes(k)),
    );
    // Without a request id of the caller's, each answer gets its own.
    const ids = new Set([(await raw(base, 'GET', path)).headers, (await raw(base, 'GET', path)).headers].map((h) => h.find(([k]) => k === 'x-request-id')![1]));
    assert.equal(ids.size, 2);
  });

  test('a write moves every cached answer on: new body, new ETag, the old ETag no longer 304', async () => {
    const path = '/versions/pub/topics/a';
    const before = await raw(base, 'GET', path);
    const etag = before.headers.find(([k]) => k === 'etag')![1];
    assert.equal((await raw(base, 'GET', path, { 'if-none-match': etag })).status, 304);
    const put = await raw(base, 'PUT', `${path}/translations/en`, { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, JSON.stringify({ title: 'A2', bodyMd: 'Changed\n' }));
    assert.equal(put.status, 200);
    const after = await raw(base, 'GET', path, { 'if-none-match': etag });
    assert.equal(after.status, 200);
    assert.equal(JSON.parse(after.body.toString('utf8')).title, 'A2');
    assert.notEqual(after.headers.find(([k]) => k === 'etag')![1], etag);
  });

  test('callers with a key, drafts and bodies never come from (or go into) the anonymous cache', async () => {
    const auth = { authorization: `Bearer ${key}` };
    // A draft read with a key first: anonymous callers still get 404.
    assert.equal((await raw(base, 'GET', '/versions/draft/topics/d', auth)).status, 200);
    assert.equal((await raw(base, 'GET', '/versions/draft/topics/d')).status, 404);
    assert.equal((await raw(base, 'GET', '/versions/draft/topics/d')).status, 404);
    // Bodies in the list are for callers who may read drafts, whichever asked first.
    const withKey = await raw(base, 'GET', '/versions/pub/nodes?include=bodies', auth);
    assert.equal(JSON.parse(withKey.body.toString('utf8')).nodes[0].translations.en.bodyMd, 'Changed\n');
    for (let i = 0; i < 2; i++) {
      const anon = await raw(base, 'GET', '/versions/pub/nodes?include=bodies');
      assert.equal(JSON.parse(anon.body.toString('utf8')).nodes[0].translations.en.bodyMd, undefined);
      assert.equal(anon.headers.find(([k]) => k === 'cache-control')![1], 'public, max-age=60');
    }
    const again = await raw(base, 'GET', '/versions/pub/nodes?include=bodies', { ...auth, 'x-request-id': 'keyed' });
    assert.equal(again.headers.find(([k]) => k === 'cache-control')![1], 'private, no-cache');
    assert.equal(JSON.parse(again.body.toString('utf8')).nodes[0].translations.en.bodyMd, 'Changed\n');
    assert.equal(lineOf('keyed')?.actor, 'writer');
    assert.equal(lineOf('keyed')?.cached, undefined);
  });

  test('a wrong key or a body that is not JSON is refused even when the URL is cached', async () => {
    const path = '/versions/pub/topics/a';
    assert.equal((await raw(base, 'GET', path)).status, 200);
    assert.equal((await raw(base, 'GET', path)).status, 200);
    const wrong = await raw(base, 'GET', path, { authorization: 'Bearer nope' });
    assert.equal(wrong.status, 401);
    assert.equal(JSON.parse(wrong.body.toString('utf8')).error.code, 'unauthorized');
    const text = await raw(base, 'GET', path, { 'content-type': 'text/plain', 'content-length': '5' }, 'hello');
    assert.equal(text.status, 415);
  });

  test('a validator from before a restart does not match what changed meanwhile', async () => {
    // Generations count from the start again after a restart; behind a proxy the Host stays the same.
    const host = { host: 'help.example.com' };
    const path = '/versions/pub/topics/a';
    await service.close();
    await start();
    const before = await raw(base, 'GET', path, host);
    const put = await raw(base, 'PUT', `${path}/translations/en`, { ...host, authorization: `Bearer ${key}`, 'content-type': 'application/json' }, JSON.stringify({ title: 'A3', bodyMd: 'Gamma\n' }));
    assert.equal(put.status, 200);
    await service.close();
    await start();
    const after = await raw(base, 'GET', path, { ...host, 'if-none-match': before.headers.find(([k]) => k === 'etag')![1] });
    assert.equal(after.status, 200);
    assert.equal(JSON.parse(after.body.toString('utf8')).title, 'A3');
  });
});

describe('HELP_ANSWER_CACHE_MB=0: no answer cache, the same answers and validators', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_ANSWER_CACHE_MB: '0' } });
    await createVersion(s, 'v1', { status: 'published' });
    await createNode(s, 'v1', { slug: 'a', translations: { en: { title: 'A', bodyMd: 'Alpha\n' }, de: { title: 'A auf Deutsch', bodyMd: 'Alpha auf Deutsch\n' } } });
  });
  after(() => s.close());

  /** The answer cache's lookups so far, by result, from /metrics. */
  async function lookups(): Promise<Record<string, number>> {
    const text = await (await fetch(new URL('/metrics', s.url))).text();
    const counts: Record<string, number> = {};
    for (const m of text.matchAll(/^help_answer_cache_lookups_total\{result="(\w+)"\} (\S+)$/gm)) counts[m[1]] = Number(m[2]);
    return counts;
  }

  test('the setting takes whole megabytes from 0; other values stop the start', () => {
    assert.equal(loadConfig({}).answerCacheBytes, 64 * 1024 * 1024);
    assert.equal(loadConfig({ HELP_ANSWER_CACHE_MB: '0' }).answerCacheBytes, 0);
    assert.equal(loadConfig({ HELP_ANSWER_CACHE_MB: '8' }).answerCacheBytes, 8 * 1024 * 1024);
    for (const bad of ['off', '-1', '1.5']) assert.throws(() => loadConfig({ HELP_ANSWER_CACHE_MB: bad }), (err: Error) => err instanceof ConfigError && /HELP_ANSWER_CACHE_MB/.test(err.message));
  });

  test('every read is built anew and correct, with its ETag; If-None-Match still gets 304; nothing is a hit', async () => {
    const before = await lookups();
    const paths = ['/versions/v1/topics/a', '/versions/v1/topics/a?language=de', '/versions/v1/tree', '/versions/v1/search?q=alpha', '/versions'];
    for (const path of paths) {
      const first = await s.request('GET', path, { key: null });
      const again = await s.request('GET', path, { key: null });
      assert.equal(first.status, 200, path);
      assert.deepEqual(again.body, first.body, path);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^W\/".+"$/, path);
      assert.equal(again.headers.get('etag'), etag, `${path}: the same validator for the same answer`);
      assert.equal(first.headers.get('cache-control'), 'public, max-age=60', path);
      const revalidated = await s.request('GET', path, { key: null, headers: { 'if-none-match': etag! } });
      assert.equal(revalidated.status, 304, path);
      assert.equal(revalidated.text, '', path);
    }
    assert.equal((await s.request('GET', '/versions/v1/topics/a?language=de', { key: null })).body.title, 'A auf Deutsch');
    const withKey = await s.request('GET', '/versions/v1/topics/a');
    assert.equal(withKey.status, 200);
    assert.equal(withKey.headers.get('cache-control'), 'private, no-cache');
    const after = await lookups();
    assert.equal(after.hit ?? 0, 0, 'no lookup is a hit');
    assert.equal((after.miss ?? 0) - (before.miss ?? 0), paths.length * 2 + 2, 'every read without a matching validator is built');
    assert.equal((after.not_modified ?? 0) - (before.not_modified ?? 0), paths.length);
  });

  test('a write shows at once: new body, new ETag, the old ETag no longer 304', async () => {
    const before = await s.request('GET', '/versions/v1/topics/a', { key: null });
    const etag = before.headers.get('etag')!;
    assert.equal((await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'A2', bodyMd: 'Beta\n' } })).status, 200);
    const after = await s.request('GET', '/versions/v1/topics/a', { key: null, headers: { 'if-none-match': etag } });
    assert.equal(after.status, 200);
    assert.equal(after.body.title, 'A2');
    assert.notEqual(after.headers.get('etag'), etag);
    assert.equal((await lookups()).hit ?? 0, 0);
  });
});

describe('URLs asked for once do not push hot pages out of the answer cache', () => {
  let s: TestServer;
  before(async () => {
    // 1 MB of cache holds about 30 of these answers of 20 KB.
    s = await startTestServer({ env: { HELP_ANSWER_CACHE_MB: '1' } });
    await createVersion(s, 'v1', { status: 'published' });
    await createNode(s, 'v1', { slug: 'hot', translations: { en: { title: 'Hot', bodyMd: 'Read all the time. '.repeat(1000) } } });
  });
  after(() => s.close());

  /** Answer-cache hits so far, from /metrics. */
  const hits = () => metric(s.url, 'help_answer_cache_lookups_total', { result: 'hit' });

  test('a hot page stays cached through 100 one-off URLs, each of which is built and answered', async () => {
    const read = async (path: string) => {
      const before = await hits();
      const res = await s.request('GET', path, { key: null });
      assert.equal(res.body.title, 'Hot');
      return (await hits()) > before;
    };
    assert.deepEqual([await read('/versions/v1/topics/hot'), await read('/versions/v1/topics/hot'), await read('/versions/v1/topics/hot')], [false, false, true], 'kept on its second request');
    for (let i = 0; i < 100; i++) assert.equal(await read(`/versions/v1/topics/hot?utm=${i}`), false);
    assert.equal(await read('/versions/v1/topics/hot?utm=99'), false, 'asked for twice: built, and kept now');
    assert.equal(await read('/versions/v1/topics/hot'), true, 'the hot page is still a hit');
  });
});

describe('A list of every body of a version: encoded a slice at a time and streamed', () => {
  let s: TestServer;
  // 40 small bodies and 3 of 700 K characters: more text than one turn encodes, in more pieces than are written at once.
  const bodies = new Map<string, string>();
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'big', { status: 'draft' });
    for (let i = 0; i < 43; i++) {
      const slug = `t${i}`;
      const bodyMd = i < 40 ? `Body ${i} "quoted" Änderung 設定 😀\n` : `${`Zeile ${i} ü 設定 👩🏽‍💻\n`.repeat(700_000 / 20)}end\n`;
      bodies.set(slug, bodyMd);
      await createNode(s, 'big', { slug, translations: { en: { title: `T${i}`, bodyMd } } });
    }
  });
  after(() => s.close());

  // That other work runs between the slices is tested on JsonEncoder itself (test/encoded-json.test.ts).
  test('every body comes whole, with the right length; HEAD has the same headers', async () => {
    const res = await s.request('GET', '/versions/big/nodes?include=bodies');
    assert.equal(res.status, 200);
    assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text));
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const listed = new Map(res.body.nodes.map((n: ListedNode) => [n.slug, n.translations.en.bodyMd]));
    assert.deepEqual(listed, bodies);
    assert.deepEqual(res.body, JSON.parse(res.text));

    const head = await s.request('HEAD', '/versions/big/nodes?include=bodies');
    assert.equal(head.text, '');
    assert.equal(head.headers.get('content-length'), res.headers.get('content-length'));
    assert.equal(head.headers.get('etag'), res.headers.get('etag'));
  });
});

describe('Cached answers are invalidated per version', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    for (const v of ['one', 'two']) {
      await createVersion(s, v, { status: 'published' });
      await createNode(s, v, { slug: 'a', translations: { en: { title: `A of ${v}` } } });
    }
    await createVersion(s, 'draft');
  });
  after(() => s.close());

  const etagOf = async (path: string) => (await s.request('GET', path, { key: null })).headers.get('etag')!;

  test('a write to one version leaves the cached answers of the others current; the list of versions moves on', async () => {
    const paths = ['/versions/one/tree', '/versions/one/topics/a', '/versions/one/nodes', '/versions/one/search?q=A', '/versions/one/pdf-bundle'];
    const before = await Promise.all(paths.map(etagOf));
    const list = await etagOf('/versions');
    await createNode(s, 'draft', { slug: 'new', translations: { en: { title: 'New' } } });
    await s.request('PUT', '/versions/two/topics/a/translations/en', { body: { title: 'Changed' } });
    for (const [i, path] of paths.entries()) {
      const res = await s.request('GET', path, { key: null, headers: { 'if-none-match': before[i] } });
      assert.equal(res.status, 304, `${path} is still current`);
    }
    const listed = await s.request('GET', '/versions', { key: null, headers: { 'if-none-match': list } });
    assert.equal(listed.status, 200, 'the list of versions reads every version');
    const two = await s.request('GET', '/versions/two/topics/a', { key: null });
    assert.equal(two.body.title, 'Changed');
  });

  test('a write to the version itself, and a change of which version is latest, move its answers on', async () => {
    const tree = await etagOf('/versions/one/tree');
    const latest = await etagOf('/versions/latest/pdf-bundle').catch(() => null);
    await s.request('PATCH', '/versions/one', { body: { isLatest: true } });
    assert.equal((await s.request('GET', '/versions/one/tree', { key: null, headers: { 'if-none-match': tree } })).status, 200);
    const bundle = await s.request('GET', '/versions/latest/pdf-bundle', { key: null, headers: latest ? { 'if-none-match': latest } : {} });
    assert.equal(bundle.status, 200);
    assert.equal(bundle.body.version.slug, 'one');
    await s.request('PATCH', '/versions/two', { body: { isLatest: true } });
    assert.equal((await s.request('GET', '/versions/latest/pdf-bundle', { key: null })).body.version.slug, 'two', '"latest" follows at once');
  });

  test('a deleted version is gone from the cache too', async () => {
    assert.equal((await s.request('GET', '/versions/draft/tree')).status, 200);
    await s.request('DELETE', '/versions/draft');
    assert.equal((await s.request('GET', '/versions/draft/tree')).status, 404);
  });
});

describe('GET /versions in pages (limit, cursor, Link)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    for (let i = 0; i < 7; i++) await createVersion(s, `p${i}`, { status: 'published' });
  });
  after(() => s.close());

  /** Follows the Link headers from the first page; answers every page's slugs. */
  async function pages(first: string, key: string | null = null): Promise<string[][]> {
    const out: string[][] = [];
    let path: string | null = first;
    while (path !== null && out.length < 20) {
      const res = await s.request('GET', path.replace('/help/v1', ''), { key });
      assert.equal(res.status, 200, res.text);
      out.push(res.body.map((v: { slug: string }) => v.slug));
      const link = res.headers.get('link');
      path = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : null;
    }
    return out;
  }

  test('pages of `limit` versions, newest first, follow each other through the Link header to the end', async () => {
    const all = (await s.request('GET', '/versions', { key: null })).body.map((v: { slug: string }) => v.slug);
    const paged = await pages('/versions?limit=3');
    assert.deepEqual(paged.map((p) => p.length), [3, 3, 1]);
    assert.deepEqual(paged.flat(), all);
    const last = await s.request('GET', '/versions?limit=7', { key: null });
    assert.equal(last.headers.get('link'), null, 'no next page after the last');
  });

  test('a version created or deleted between two pages shifts nothing', async () => {
    const first = await s.request('GET', '/versions?limit=3', { key: null });
    const next = /^<([^>]+)>/.exec(first.headers.get('link')!)![1].replace('/help/v1', '');
    await createVersion(s, 'newest', { status: 'published' });
    await s.request('DELETE', `/versions/${first.body[2].slug}`);
    const second = await s.request('GET', next, { key: null });
    const all = (await s.request('GET', '/versions', { key: null })).body.map((v: { slug: string }) => v.slug);
    const expected = all.slice(all.indexOf(first.body[1].slug) + 1, all.indexOf(first.body[1].slug) + 4);
    assert.deepEqual(second.body.map((v: { slug: string }) => v.slug), expected);
  });

  test('the Link header keeps the other parameters, and is cached with the answer', async () => {
    const key = s.key;
    const a = await s.request('GET', '/versions?limit=2&includeWorkingCopies=true', { key });
    const b = await s.request('GET', '/versions?limit=2&includeWorkingCopies=true', { key });
    assert.match(a.headers.get('link')!, /includeWorkingCopies=true/);
    assert.equal(b.headers.get('link'), a.headers.get('link'));
    const anon = await s.request('GET', '/versions?limit=2', { key: null });
    const anonAgain = await s.request('GET', '/versions?limit=2', { key: null });
    assert.equal(anonAgain.headers.get('link'), anon.headers.get('link'));
    const page = await s.request('GET', '/versions?limit=2', { key: null, headers: { origin: 'https://embed.example' } });
    assert.match(page.headers.get('access-control-expose-headers')!, /\bLink\b/, 'scripts on other origins can read the Link header');
  });

  test('a bad limit or cursor is a 400 naming the parameter', async () => {
    for (const [query, field] of [['limit=0', 'query/limit'], ['limit=1001', 'query/limit'], ['cursor=not*a*cursor', 'query/cursor'], ['cursor=bm9wZQ', 'query/cursor']]) {
      const res = await s.request('GET', `/versions?${query}`, { key: null });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.field, field);
    }
  });
});
