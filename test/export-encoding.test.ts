import assert from 'node:assert/strict';
import * as http from 'node:http';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { crc32, gunzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../src/config.ts';
import { ExportCache } from '../src/http/export-cache.ts';
import { crc32Combine, gzipSegments, IncrementalGzip } from '../src/http/gzip-segments.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as sent (compressed when the answer says so). */
  body: Buffer;
}

/** A GET (or HEAD) that keeps the answer's bytes as they came, without decompressing them. */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .request(url, { method, headers, agent: false }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
        res.on('error', reject);
      })
      .on('error', reject)
      .end();
  });
}

const GZIP = { 'accept-encoding': 'gzip, deflate, br' };

describe('Export: gzip for clients that accept it, a plain stream for the others', () => {
  let s: TestServer;
  let auth: Record<string, string>;

  before(async () => {
    s = await startTestServer();
    auth = { authorization: `Bearer ${s.key}` };
    await createVersion(s, 'pub', { status: 'published' });
    await createVersion(s, 'other', { status: 'published' });
    await createVersion(s, 'draft');
    for (let i = 0; i < 40; i++) {
      await createNode(s, 'pub', { slug: `t${i}`, translations: { en: { title: `Topic ${i}`, bodyMd: `${'Some words about the topic. '.repeat(200)}${i}\n` }, de: { title: `Thema ${i}`, bodyMd: `Text ${i} äöü\n` } } });
    }
    await createNode(s, 'draft', { slug: 'secret', translations: { en: { title: 'Secret', bodyMd: 'Not yet\n' } } });
  });
  after(() => s.close());

  for (const query of ['', '?format=files']) {
    test(`the gzip answer decompresses to exactly the plain one${query ? ' (files)' : ''}`, async () => {
      const plain = await get(`${s.url}/versions/pub/export${query}`);
      const gz = await get(`${s.url}/versions/pub/export${query}`, GZIP);
      assert.equal(plain.status, 200);
      assert.equal(gz.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(gz.headers['content-encoding'], 'gzip');
      for (const a of [plain, gz]) {
        assert.equal(a.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(a.headers.vary, 'Authorization, Accept-Encoding');
        assert.equal(a.headers['cache-control'], 'public, max-age=60');
      }
      const inflated = gunzipSync(gz.body);
      assert.ok(inflated.equals(plain.body), 'same bytes');
      assert.ok(gz.body.length * 3 < plain.body.length, `compressed: ${gz.body.length} of ${plain.body.length} bytes`);
      JSON.parse(plain.body.toString('utf8'));
      // Once built, the compressed export is sent whole from memory, with its length.
      const again = await get(`${s.url}/versions/pub/export${query}`, GZIP);
      assert.ok(again.body.equals(gz.body));
      assert.equal(Number(again.headers['content-length']), gz.body.length);
    });
  }

  test('a client that refuses gzip (q=0) gets the plain stream', async () => {
    const res = await get(`${s.url}/versions/pub/export`, { 'accept-encoding': 'gzip;q=0, identity' });
    assert.equal(res.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(res.body.toString('utf8')).nodes.length, 40);
  });

  test('concurrent first requests all get the same complete bytes', async () => {
    await putTranslation(s, 'pub', 't0', 'en', { title: 'Topic 0, changed', bodyMd: 'Changed.\n' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => get(`${s.url}/versions/pub/export`, GZIP)));
    const plain = await get(`${s.url}/versions/pub/export`);
    for (const a of answers) {
      assert.equal(a.status, 200);
      assert.ok(a.body.equals(answers[0].body));
    }
    assert.ok(gunzipSync(answers[0].body).equals(plain.body));
    assert.equal(JSON.parse(plain.body.toString('utf8')).nodes[0].translations.en.title, 'Topic 0, changed');
  });

  test('ETag and 304 for either encoding; a write to the version moves them on, a write elsewhere does not', async () => {
    const first = await get(`${s.url}/versions/pub/export`, GZIP);
    const etag = first.headers.etag!;
    assert.match(etag, /^W\/".+"$/);
    assert.equal((await get(`${s.url}/versions/pub/export`)).headers.etag, etag);
    for (const headers of [GZIP, {}]) {
      const res = await get(`${s.url}/versions/pub/export`, { ...headers, 'if-none-match': etag });
      assert.equal(res.status, 304);
      assert.equal(res.body.length, 0);
    }
    assert.notEqual((await get(`${s.url}/versions/pub/export?format=files`)).headers.etag, etag);
    await createNode(s, 'other', { slug: 'elsewhere' });
    assert.equal((await get(`${s.url}/versions/pub/export`, { ...GZIP, 'if-none-match': etag })).status, 304);
    await putTranslation(s, 'pub', 't1', 'de', { title: 'Thema 1, neu', bodyMd: 'Neu.\n' });
    const changed = await get(`${s.url}/versions/pub/export`, { ...GZIP, 'if-none-match': etag });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.etag, etag);
    assert.equal(JSON.parse(gunzipSync(changed.body).toString('utf8')).nodes[1].translations.de.title, 'Thema 1, neu');
  });

  test('HEAD answers the headers without the body', async () => {
    const res = await get(`${s.url}/versions/pub/export`, GZIP, 'HEAD');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.equal(res.body.length, 0);
  });

  test('drafts: exported with a key (private), still 404 without one', async () => {
    const keyed = await get(`${s.url}/versions/draft/export`, { ...GZIP, ...auth });
    assert.equal(keyed.status, 200);
    assert.equal(keyed.headers['cache-control'], 'private, no-cache');
    assert.equal(JSON.parse(gunzipSync(keyed.body).toString('utf8')).nodes[0].slug, 'secret');
    for (const headers of [GZIP, {}]) {
      const anon = await get(`${s.url}/versions/draft/export`, headers);
      assert.equal(anon.status, 404);
      assert.equal(anon.headers['content-encoding'], undefined);
      assert.equal(JSON.parse(anon.body.toString('utf8')).error.code, 'not_found');
    }
  });
});

describe('HELP_EXPORT_CACHE_MB', () => {
  test('a value that is not a whole number of megabytes stops the start, naming the setting', () => {
    for (const bad of ['lots', '-1', '1.5']) assert.throws(() => loadConfig({ HELP_EXPORT_CACHE_MB: bad }), (err: Error) => err instanceof ConfigError && /HELP_EXPORT_CACHE_MB/.test(err.message));
    assert.equal(loadConfig({}).exportCacheBytes, 256 * 1024 * 1024);
  });

  test('0 keeps no export in memory, and the answers are the same', async () => {
    const s = await startTestServer({ env: { HELP_EXPORT_CACHE_MB: '0' } });
    try {
      await createVersion(s, 'v', { status: 'published' });
      await createNode(s, 'v', { slug: 'a' });
      const plain = await get(`${s.url}/versions/v/export`);
      const answers = [await get(`${s.url}/versions/v/export`, GZIP), await get(`${s.url}/versions/v/export`, GZIP)];
      for (const a of answers) {
        assert.equal(a.headers['content-encoding'], 'gzip');
        assert.ok(gunzipSync(a.body).equals(plain.body));
        // Sent as it is compressed, so without a length.
        assert.equal(a.headers['content-length'], undefined);
      }
    } finally {
      await s.close();
    }
  });
});

describe('ExportCache: one compression per change, bounded by bytes', () => {
  const text = (n: number) => Array.from({ length: n }, (_, i) => `{"n":${i},"words":"${'lorem ipsum '.repeat(50)}"}`);
  const read = async (body: Buffer | Readable) => (Buffer.isBuffer(body) ? body : Buffer.concat(await body.toArray()));

  test('requests while it compresses share the compression; then the bytes are kept', async () => {
    const cache = new ExportCache(10 * 1024 * 1024);
    let built = 0;
    const pieces = () => {
      built++;
      return { pieces: text(2000) };
    };
    const bodies = Array.from({ length: 5 }, () => cache.gzip('v1|json', 's1', pieces));
    const bytes = await Promise.all(bodies.map(read));
    assert.equal(built, 1);
    for (const b of bytes) assert.ok(b.equals(bytes[0]));
    assert.equal(gunzipSync(bytes[0]).toString('utf8'), text(2000).join(''));
    const kept = cache.gzip('v1|json', 's1', pieces);
    assert.ok(Buffer.isBuffer(kept));
    assert.equal(built, 1);
    // A new stamp (the version changed) compresses again.
    await read(cache.gzip('v1|json', 's2', pieces));
    assert.equal(built, 2);
  });

  test('an export larger than the cache is sent but not kept', async () => {
    const cache = new ExportCache(1024);
    let built = 0;
    const pieces = () => {
      built++;
      return { pieces: text(2000) };
    };
    const first = await read(cache.gzip('v1|json', 's1', pieces));
    assert.ok(first.length > 1024);
    const second = cache.gzip('v1|json', 's1', pieces);
    assert.ok(!Buffer.isBuffer(second));
    assert.ok((await read(second)).equals(first));
    assert.equal(built, 2);
  });
});

describe('gzipSegments: segments compressed apart make one gzip stream', () => {
  const collect = async (pieces: string[], segmentChars: number, parallel: number) => {
    const parts: Buffer[] = [];
    for await (const chunk of gzipSegments(pieces, { level: 5, segmentChars, parallel })) parts.push(chunk);
    return Buffer.concat(parts);
  };

  test('decodes with the system gzip and with zlib to exactly the text, whatever the segment size', async () => {
    const pieces = Array.from({ length: 500 }, (_, i) => `{"i":${i},"t":"Grüße, 日本語 😀 ${'x'.repeat(i % 37)}"},`);
    const text = pieces.join('');
    for (const [segmentChars, parallel] of [[1, 1], [100, 2], [4096, 3], [1 << 20, 2]]) {
      const gz = await collect(pieces, segmentChars, parallel);
      assert.equal(gunzipSync(gz).toString('utf8'), text, `${segmentChars}/${parallel}`);
      assert.equal(execFileSync('gzip', ['-dc'], { input: gz }).toString('utf8'), text, `${segmentChars}/${parallel}`);
      execFileSync('gzip', ['-t'], { input: gz });
    }
  });

  test('an empty text is a valid empty gzip stream', async () => {
    const gz = await collect([], 10, 2);
    assert.equal(gunzipSync(gz).length, 0);
    assert.equal(execFileSync('gzip', ['-dc'], { input: gz }).length, 0);
  });
});


describe('Exports after a change recompress only the segments that changed', () => {
  const unitsOf = (texts: Array<[string, string]>, sig: (id: string, text: string) => unknown) =>
    texts.map(([id, text], i) => ({ id, signature: [i === 0, sig(id, text)], text: () => `${i === 0 ? '' : ','}${text}` }));
  const plain = (texts: Array<[string, string]>) => `[${texts.map(([, t]) => t).join(',')}]`;
  const run = async (gzip: IncrementalGzip, texts: Array<[string, string]>) => {
    const chunks: Buffer[] = [];
    // A unit's signature is its text here: what the export's signatures stand for.
    for await (const c of gzip.gzip('[', unitsOf(texts, (_id, text) => text), ']')) chunks.push(c);
    return Buffer.concat(chunks);
  };
  const doc = (n: number, from = 0) => Array.from({ length: n }, (_, i): [string, string] => [`node-${i + from}`, JSON.stringify({ n: i + from, body: `${'word '.repeat(200)}${i + from}` })]);

  test('CRC-32 of two parts combines to the CRC-32 of the whole', () => {
    for (const [a, b] of [['', 'x'], ['abc', ''], ['hello ', 'world'], ['x'.repeat(100_000), 'y'.repeat(77_777)]]) {
      const whole = crc32(Buffer.from(a + b));
      assert.equal(crc32Combine(crc32(Buffer.from(a)), crc32(Buffer.from(b)), Buffer.byteLength(b)), whole, `${a.length}+${b.length}`);
    }
  });

  test('a change, an insertion and a deletion each recompress a segment or two; the stream is always exact', async () => {
    const gzip = new IncrementalGzip({ level: 5, parallel: 2 }, 8);
    let texts = doc(400);
    assert.equal(gunzipSync(await run(gzip, texts)).toString('utf8'), plain(texts));
    const all = gzip.lastRun.segments;
    assert.equal(gzip.lastRun.compressed, all);
    assert.ok(all > 10, 'many segments');

    texts = texts.map(([id, t]) => [id, id === 'node-200' ? JSON.stringify({ changed: true }) : t]);
    assert.equal(gunzipSync(await run(gzip, texts)).toString('utf8'), plain(texts));
    assert.equal(gzip.lastRun.compressed, 1, 'one changed unit: one segment');

    texts = [...texts.slice(0, 100), ['inserted', '"new"'], ...texts.slice(100)];
    assert.equal(gunzipSync(await run(gzip, texts)).toString('utf8'), plain(texts));
    assert.ok(gzip.lastRun.compressed <= 2, `an insertion: ${gzip.lastRun.compressed}`);

    texts = texts.filter(([id]) => id !== 'node-300');
    assert.equal(gunzipSync(await run(gzip, texts)).toString('utf8'), plain(texts));
    assert.ok(gzip.lastRun.compressed <= 2, `a deletion: ${gzip.lastRun.compressed}`);

    texts = [['node-0', '"first changed"'], ...texts.slice(1)];
    assert.equal(gunzipSync(await run(gzip, texts)).toString('utf8'), plain(texts));
    assert.equal(execFileSync('gzip', ['-dc'], { input: await run(gzip, texts) }).toString('utf8'), plain(texts), 'the system gzip agrees');
  });

  test('through the API: the export after a write decompresses to exactly the plain export', async () => {
    const s = await startTestServer();
    try {
      await createVersion(s, 'big', { status: 'published' });
      for (let i = 0; i < 60; i++) await createNode(s, 'big', { slug: `t${i}`, translations: { en: { title: `Topic ${i}`, bodyMd: `${'text '.repeat(400)}${i}\n` } } });
      const fetchBoth = async () => {
        const gz = await get(`${s.url}/versions/big/export`, { 'accept-encoding': 'gzip' });
        const identity = await get(`${s.url}/versions/big/export`, { 'accept-encoding': 'identity' });
        return { gz: gunzipSync(gz.body).toString('utf8'), identity: identity.body.toString('utf8') };
      };
      let both = await fetchBoth();
      assert.equal(both.gz, both.identity);
      for (const [slug, title] of [['t30', 'Changed middle'], ['t0', 'Changed first'], ['t59', 'Changed last']]) {
        await s.request('PUT', `/versions/big/topics/${slug}/translations/en`, { body: { title, bodyMd: 'Short now.\n' } });
        both = await fetchBoth();
        assert.equal(both.gz, both.identity, `after changing ${slug}`);
        assert.equal(JSON.parse(both.gz).nodes.find((n: { slug: string }) => n.slug === slug).translations.en.title, title);
      }
      await s.request('DELETE', '/versions/big/nodes/t10');
      await s.request('POST', '/versions/big/reorder', { body: { items: [{ slug: 't40', parentSlug: null, sortOrder: -1 }] } });
      both = await fetchBoth();
      assert.equal(both.gz, both.identity, 'after a deletion and a move');
    } finally {
      await s.close();
    }
  });
});
