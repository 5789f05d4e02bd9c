import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { plainText } from '../src/content/plain-text.ts';
import type { NodeRec, Translation, VersionState } from '../src/domain/types.ts';
import { MAX_HITS, SearchIndex } from '../src/index/search.ts';
import { fold } from '../src/index/words.ts';

/** The version's saved index as a snapshot file holds it: its pieces one after the other. */
async function savedBytes(index: SearchIndex, slug: string): Promise<Buffer | null> {
  const pieces = await index.savePieces(slug);
  return pieces && Buffer.concat(pieces);
}

// The search index against a model that follows the documented rule literally: a node is a hit when
// every word of the query is the start of a word of its title, summary or plain-text body (after
// folding), hits in document order, at most 50. The index answers from postings and bitsets, patches
// node by node and renumbers its documents as they change, and can be saved and restored; whatever
// it went through, its answers must be the model's.

const VOCABULARY = ['zebra', 'zeal', 'Zürich', 'giraffe', 'gin', 'café', 'cafe', 'install', 'installer', 'naïve', 'Émile', 'snake_case', '42', 'x1'];

const STAMP = '2026-01-01T00:00:00.000Z';

function stateOf(order: string[], texts: Map<string, Translation>): VersionState {
  const nodes = new Map<string, NodeRec>();
  for (const slug of order) nodes.set(slug, { id: slug, slug, kind: 'topic', parentSlug: null, icon: null, sortOrder: 0, updatedAt: STAMP, children: [] });
  const translations = new Map([...texts].filter(([slug]) => nodes.has(slug)).map(([slug, t]) => [slug, new Map([['en', t]])]));
  return {
    slug: 'v1',
    meta: { label: 'V1', status: 'published', languages: ['en'], sortOrder: null, isLatest: true, hidden: false, workingCopyOf: null, createdAt: STAMP, updatedAt: STAMP },
    nodes,
    roots: order,
    translations,
  };
}

/** The documented rule, with nothing precomputed. */
function model(state: VersionState, q: string): string[] {
  const queryWords = q.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean).map(fold);
  if (queryWords.length === 0) return [];
  const hits: string[] = [];
  for (const slug of state.roots) {
    const t = state.translations.get(slug)?.get('en');
    if (!t) continue;
    const textWords = `${t.title} ${t.summary} ${plainText(t.bodyMd)}`.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean).map(fold);
    if (queryWords.every((w) => textWords.some((tw) => tw.startsWith(w)))) hits.push(slug);
  }
  return hits.slice(0, MAX_HITS);
}

/** When the body holds a word of the query, the snippet shows it. */
function assertSnippetShowsMatch(state: VersionState, hit: { slug: string; snippet: string }, q: string): void {
  const bodyWords = plainText(state.translations.get(hit.slug)!.get('en')!.bodyMd).split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean).map(fold);
  const inBody = q.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean).map(fold).filter((w) => bodyWords.some((bw) => bw.startsWith(w)));
  if (inBody.length === 0) return;
  const shown = hit.snippet.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean).map(fold);
  assert.ok(inBody.some((w) => shown.some((sw) => sw.startsWith(w))), `the snippet ${JSON.stringify(hit.snippet)} shows one of ${inBody.join(', ')}`);
}

const textArb = fc.array(fc.constantFrom(...VOCABULARY, '**bold**', '[link](https://example.com/zebra)', '\n- item', '\n# Heading', '`code`'), { maxLength: 12 }).map((w) => w.join(' '));
const translationArb = fc.record({ title: textArb, summary: textArb, bodyMd: textArb, updatedAt: fc.constant(STAMP) });
const slugArb = fc.constantFrom(...Array.from({ length: 70 }, (_, i) => `n${i}`));
const opArb = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), slug: slugArb, t: translationArb }),
  fc.record({ kind: fc.constant('delete' as const), slug: slugArb }),
  fc.record({ kind: fc.constant('reverse' as const) }),
  fc.record({ kind: fc.constant('restart' as const) }),
);
const queryArb = fc.array(fc.constantFrom(...VOCABULARY, 'ze', 'z', 'ca', 'ins', 'eb', 'ZEBRA', 'cafe', 'nai', 'emi', 'snake', 'case'), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));

type Op = { kind: 'put'; slug: string; t: Translation } | { kind: 'delete'; slug: string } | { kind: 'reverse' } | { kind: 'restart' };

/**
 * Applies the operations to a fresh index (a restart saves it and restores it into a new one) and,
 * after each, checks every query's hits against `expected`; `more` checks each answer further.
 */
async function replay(ops: readonly Op[], queries: readonly string[], expected: (state: VersionState, q: string) => string[], more?: (state: VersionState, hits: Array<{ slug: string; snippet: string }>, q: string) => void): Promise<void> {
  let order: string[] = [];
  const texts = new Map<string, Translation>();
  let index = new SearchIndex();
  for (const op of ops) {
    if (op.kind === 'put') {
      if (!order.includes(op.slug)) order = [...order, op.slug];
      texts.set(op.slug, { ...op.t });
    } else if (op.kind === 'delete') {
      order = order.filter((s) => s !== op.slug);
      texts.delete(op.slug);
    } else if (op.kind === 'reverse') {
      order = [...order].reverse();
    }
    const state = stateOf(order, texts);
    if (op.kind === 'restart') {
      // Nothing is saved before the version was first indexed.
      const saved = await savedBytes(index, 'v1');
      index = new SearchIndex();
      if (saved !== null) assert.ok(index.restore('v1', state, saved), 'a saved index is taken back');
    }
    index.update('v1', state);
    for (const q of queries) {
      const { hits } = index.search(state, 'en', q);
      assert.deepEqual(hits.map((h) => h.slug), expected(state, q), `query "${q}"`);
      more?.(state, hits, q);
    }
  }
}

describe('search index', () => {
  test('answers as the documented rule does, through writes, reorders, deletions and save/restore', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), fc.array(queryArb, { minLength: 1, maxLength: 8 }), (ops, queries) =>
        replay(ops, queries, model, (state, hits, q) => {
          for (const hit of hits) assertSnippetShowsMatch(state, hit, q);
        }),
      ),
      { numRuns: 150 },
    );
  });

  test('text without spaces (CJK, astral characters included) answers by character pairs, through writes, deletions and save/restore', async () => {
    // Few characters, so pairs repeat across documents; U+20000 and U+20001 are outside the BMP.
    const ALPHABET = ['日', '本', '語', '中', '文', '𠀀', '𠀁', 'カ', 'タ'];
    const run = fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 8 }).map((c) => c.join(''));
    const cjkText = fc.array(run, { maxLength: 6 }).map((runs) => runs.join(' '));
    const cjkOp = fc.oneof(
      fc.record({ kind: fc.constant('put' as const), slug: slugArb, t: fc.record({ title: run, summary: fc.constant(''), bodyMd: cjkText, updatedAt: fc.constant(STAMP) }) }),
      fc.record({ kind: fc.constant('delete' as const), slug: slugArb }),
      fc.record({ kind: fc.constant('restart' as const) }),
    );
    const cjkQuery = fc.array(fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 3 }).map((c) => c.join('')), { minLength: 1, maxLength: 2 }).map((w) => w.join(' '));
    /** The rule for unspaced scripts: a one-character word is found where the character occurs; a longer one where each of its pairs does. */
    const cjkModel = (state: VersionState, q: string): string[] => {
      const hits: string[] = [];
      for (const slug of state.roots) {
        const t = state.translations.get(slug)?.get('en');
        if (!t) continue;
        const runs = `${t.title} ${t.bodyMd}`.split(' ').filter(Boolean).map((r) => Array.from(r));
        const chars = new Set(runs.flat());
        const pairs = new Set(runs.flatMap((r) => r.slice(1).map((c, i) => r[i] + c)));
        const found = (word: string[]) => (word.length === 1 ? chars.has(word[0]) : word.slice(1).every((c, i) => pairs.has(word[i] + c)));
        if (q.split(' ').every((w) => found(Array.from(w)))) hits.push(slug);
      }
      return hits.slice(0, MAX_HITS);
    };
    await fc.assert(
      fc.asyncProperty(fc.array(cjkOp, { maxLength: 60 }), fc.array(cjkQuery, { minLength: 1, maxLength: 6 }), (ops, queries) => replay(ops, queries, cjkModel)),
      { numRuns: 150 },
    );
  });

  test('keeps answering correctly after many rewrites of the same nodes (documents renumbered)', () => {
    const index = new SearchIndex();
    const order = Array.from({ length: 40 }, (_, i) => `n${i}`);
    const texts = new Map<string, Translation>();
    let state = stateOf(order, texts);
    for (let round = 0; round < 120; round++) {
      for (const slug of order) texts.set(slug, { title: `round${round}`, summary: '', bodyMd: slug === 'n7' ? 'okapi' : 'zebra', updatedAt: STAMP });
      state = stateOf(order, texts);
      index.update('v1', state);
    }
    assert.deepEqual(index.search(state, 'en', 'round119 okapi').hits.map((h) => h.slug), ['n7']);
    assert.deepEqual(index.search(state, 'en', 'round118').hits, []);
    assert.equal(index.search(state, 'en', 'zebra').hits.length, 39);
  });

  test('pairs stay right after many rewrites of the same nodes (documents renumbered, pairs dropped and kept)', async () => {
    const index = new SearchIndex();
    const order = Array.from({ length: 40 }, (_, i) => `n${i}`);
    const texts = new Map<string, Translation>();
    let state = stateOf(order, texts);
    for (let round = 0; round < 60; round++) {
      // Every node shares 日本; n7 alone has 語中; each round has a pair of its own (U+4E00 + round).
      for (const slug of order) texts.set(slug, { title: '日本', summary: '', bodyMd: `${slug === 'n7' ? '文語中' : '文'}${String.fromCharCode(0x4e00 + round)}カ`, updatedAt: STAMP });
      state = stateOf(order, texts);
      index.update('v1', state);
    }
    const slugs = (q: string, s = state, i = index) => i.search(s, 'en', q).hits.map((h) => h.slug);
    assert.deepEqual(slugs('語中'), ['n7']);
    assert.equal(slugs('日本').length, 40);
    assert.deepEqual(slugs(`文${String.fromCharCode(0x4e00 + 58)}`), [], 'a pair of an earlier round is gone');
    assert.equal(slugs(`文${String.fromCharCode(0x4e00 + 59)}`).length, 39, 'every node but n7, where 中 comes before it');
    assert.deepEqual(slugs('中'), ['n7']);
    const restored = new SearchIndex();
    assert.ok(restored.restore('v1', state, (await savedBytes(index, 'v1'))!));
    assert.deepEqual(slugs('語中', state, restored), ['n7']);
    assert.deepEqual(slugs(`文${String.fromCharCode(0x4e00 + 58)}`, state, restored), []);
    assert.equal(slugs('日', state, restored).length, 40);
  });

  test('a saved index that does not fit is refused, so the caller rebuilds', async () => {
    const texts = new Map<string, Translation>([['a', { title: 'Alpha', summary: '', bodyMd: 'zebra', updatedAt: STAMP }]]);
    const state = stateOf(['a'], texts);
    const index = new SearchIndex();
    index.update('v1', state);
    const saved = (await savedBytes(index, 'v1'))!;
    assert.equal(new SearchIndex().restore('v1', stateOf([], new Map()), saved), false, 'documents the state does not have');
    assert.equal(new SearchIndex().restore('v1', state, saved.subarray(0, saved.length - 3)), false, 'cut short');
    const flipped = Uint8Array.from(saved);
    flipped[6] ^= 0xff;
    assert.equal(new SearchIndex().restore('v1', state, flipped), false, 'damaged');
    assert.equal(new SearchIndex().restore('v1', state, new Uint8Array(0)), false, 'empty');
    const restored = new SearchIndex();
    assert.equal(restored.restore('v1', state, saved), true);
    assert.deepEqual(restored.search(state, 'en', 'zeb').hits.map((h) => h.slug), ['a']);
  });
});

describe('a duplicated version shares its source\'s index until one of them changes', () => {
  const t = (title: string, bodyMd: string): Translation => ({ title, summary: '', bodyMd, updatedAt: STAMP });
  const hits = (index: SearchIndex, state: VersionState, q: string) => index.search(state, 'en', q).hits.map((h) => h.slug);

  test('the copy answers at once; an edit of the copy (or of the source) never shows in the other', async () => {
    const index = new SearchIndex();
    const source = stateOf(['a', 'b', 'c'], new Map([['a', t('Zebra', 'stripes')], ['b', t('Giraffe', 'neck')], ['c', t('Cafe', 'zeal')]]));
    await index.update('v1', source);
    // POST /versions/v1/duplicate: the same translations under another slug.
    const copy: VersionState = { ...source, slug: 'v2' };
    assert.equal(index.update('v2', copy), undefined, 'nothing to index: the copy adopts the source\'s index at once');
    assert.deepEqual(hits(index, copy, 'zebra'), ['a']);
    assert.deepEqual(hits(index, copy, 'ze'), ['a', 'c']);

    const edited: VersionState = { ...copy, translations: new Map(copy.translations).set('a', new Map([['en', t('Antelope', 'horns')]])) };
    await index.update('v2', edited);
    assert.deepEqual(hits(index, edited, 'antelope'), ['a'], 'the copy finds its edit');
    assert.deepEqual(hits(index, edited, 'zebra'), [], 'and no longer the text it replaced');
    assert.deepEqual(hits(index, source, 'zebra'), ['a'], 'the source is untouched');
    assert.deepEqual(hits(index, source, 'antelope'), []);

    const sourceEdited: VersionState = { ...source, translations: new Map(source.translations).set('b', new Map([['en', t('Okapi', 'forest')]])) };
    await index.update('v1', sourceEdited);
    assert.deepEqual(hits(index, sourceEdited, 'okapi'), ['b']);
    assert.deepEqual(hits(index, edited, 'okapi'), [], 'an edit of the source does not reach the copy');
    assert.deepEqual(hits(index, edited, 'giraffe'), ['b']);
  });

  test('deleting the source leaves the copy searchable', async () => {
    const index = new SearchIndex();
    const source = stateOf(['a'], new Map([['a', t('Zebra', 'stripes')]]));
    await index.update('v1', source);
    const copy: VersionState = { ...source, slug: 'v2' };
    await index.update('v2', copy);
    await index.update('v1', null);
    assert.deepEqual(hits(index, copy, 'stripes'), ['a']);
  });

  test('versions with equal text but their own translations are indexed on their own', async () => {
    const index = new SearchIndex();
    const one = stateOf(['a'], new Map([['a', t('Zebra', 'stripes')]]));
    await index.update('v1', one);
    const other: VersionState = { ...stateOf(['a'], new Map([['a', t('Zebra', 'stripes')]])), slug: 'v2' };
    await index.update('v2', other);
    await index.update('v1', { ...one, translations: new Map([['a', new Map([['en', t('Gnu', 'horns')]])]]) });
    assert.deepEqual(hits(index, other, 'zebra'), ['a']);
  });
});
