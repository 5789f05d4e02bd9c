import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_PREFIX_TERMS } from '../../src/index/search.ts';
import { createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

/** A word of `n` letters from a seeded sequence, starting with "a" (so every word shares that prefix). */
function aWord(seed: number): string {
  let x = seed * 2654435761;
  let w = 'a';
  for (let i = 0; i < 7; i++) {
    x = (x ^ (x >>> 13)) * 1274126177;
    w += String.fromCharCode(97 + (Math.abs(x) % 26));
  }
  return w;
}

/**
 * A version whose search index holds about 36,000 distinct terms starting with "a": the shape that
 * made a query of a hundred repeated one-letter words take 24 s.
 */
describe('Search queries cost what their distinct words cost, and one word cannot walk the whole index', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'big', { status: 'published', languages: ['en'] });
    const nodes = Array.from({ length: 1200 }, (_, i) => ({
      slug: `t${i}`,
      kind: 'topic',
      translations: { en: { title: `Topic ${i}`, bodyMd: `${Array.from({ length: 30 }, (_, j) => aWord(i * 30 + j)).join(' ')}\n` } },
    }));
    const res = await s.request('POST', '/versions/big/import', { body: { nodes }, timeout: 60_000 });
    assert.equal(res.status, 200, res.text.slice(0, 300));
  });
  after(() => s.close());

  const search = async (q: string) => {
    const started = performance.now();
    const res = await s.request('GET', `/versions/big/search?q=${encodeURIComponent(q)}&lang=en`, { key: null, timeout: 60_000 });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    return { body: res.body, ms: performance.now() - started };
  };

  test('a hundred repeated one-letter words answer as one word does, and about as fast', async () => {
    const one = await search('a');
    const many = await search(Array(100).fill('a').join(' '));
    assert.deepEqual(many.body.hits, one.body.hits);
    assert.equal(many.body.partial, one.body.partial);
    assert.ok(many.ms < 2000, `100 repeated words took ${Math.round(many.ms)} ms`);
  });

  test('a one-letter word that starts more terms than one word may expand is answered partially, and says so', async () => {
    const res = await search('a');
    assert.equal(res.body.partial, true);
    assert.equal(res.body.hits.length, 50);
    for (const hit of res.body.hits) assert.match(hit.snippet, /\ba[a-z]{7}\b/, 'every hit is a match');
    assert.ok(MAX_PREFIX_TERMS < 36_000);
  });

  test('a word that is a prefix of another word of the query adds no work and changes nothing', async () => {
    const word = aWord(42);
    const exact = await search(word);
    assert.equal(exact.body.partial, undefined, 'a long word is looked up whole');
    assert.deepEqual(exact.body.hits.map((h: { slug: string }) => h.slug), ['t1']);
    const withPrefixes = await search(`a ${word.slice(0, 3)} ${word} ${word.slice(0, 5)}`);
    // The same hits (the snippet may start at another word's match).
    assert.deepEqual(withPrefixes.body.hits.map((h: { slug: string }) => h.slug), ['t1']);
    assert.equal(withPrefixes.body.partial, undefined);
  });
});
