import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createNode, createVersion, startTestServer, type TestServer } from '../helpers/server.ts';
import { Random } from '../helpers/generate.ts';

/** `n` random CJK ideographs: nearly every character pair distinct, the worst case for the index. */
function randomCjk(n: number, seed: number): string {
  const r = new Random(seed);
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(0x4e00 + Math.floor(r.next() * 20000));
  return s;
}

/**
 * Text with tens of thousands of distinct terms used to take seconds to index (13.7 s for 200,000
 * random Chinese characters), during which every other request waited, and every start after it
 * took as long again.
 */
describe('Indexing cost is linear in the text, and a large write does not hold other requests', () => {
  const CHARS = 200_000;
  const body = randomCjk(CHARS, 7);
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { status: 'published', languages: ['zh', 'en'] });
    await createNode(s, 'v1', { slug: 'big', translations: { zh: { title: '大' } } });
    await createNode(s, 'v1', { slug: 'small', translations: { zh: { title: '小', bodyMd: '設定を変更します\n' } } });
  });
  after(() => s.close());

  test('200,000 random CJK characters: written in seconds, and /healthz answers throughout', async () => {
    const health = new URL('/healthz', s.url);
    let writing = true;
    const delays: number[] = [];
    const probe = (async () => {
      while (writing) {
        const started = performance.now();
        assert.equal((await fetch(health)).status, 200);
        delays.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const started = performance.now();
    const res = await s.request('PUT', '/versions/v1/topics/big/translations/zh', { body: { title: '大', bodyMd: body }, timeout: 60_000 });
    const ms = performance.now() - started;
    writing = false;
    await probe;
    assert.equal(res.status, 200, res.text.slice(0, 200));
    assert.ok(ms < 5000, `the write took ${Math.round(ms)} ms`);
    assert.ok(delays.length >= 3, 'health was probed during the write');
    const worst = Math.max(...delays);
    assert.ok(worst < 250, `a health check waited ${Math.round(worst)} ms behind the indexing`);
  });

  test('the text is searchable as soon as the write is acknowledged, across the slices it was indexed in', async () => {
    for (const at of [10, 32_767, 65_535, 100_000, CHARS - 2]) {
      const res = await s.request('GET', `/versions/v1/search?q=${encodeURIComponent(body.slice(at, at + 2))}&lang=zh`, { key: null });
      assert.ok(res.body.hits.some((h: { slug: string }) => h.slug === 'big'), `the pair at ${at} is found`);
    }
    const other = await s.request('GET', `/versions/v1/search?q=${encodeURIComponent('設定')}&lang=zh`, { key: null });
    assert.deepEqual(other.body.hits.map((h: { slug: string }) => h.slug), ['small']);
  });

  test('a restart with such content is not slow, and finds the same', async () => {
    const started = performance.now();
    s = await s.restart();
    const ms = performance.now() - started;
    assert.ok(ms < 5000, `the restart took ${Math.round(ms)} ms`);
    const res = await s.request('GET', `/versions/v1/search?q=${encodeURIComponent(body.slice(150_000, 150_002))}&lang=zh`, { key: null });
    assert.ok(res.body.hits.some((h: { slug: string }) => h.slug === 'big'));
  });
});
