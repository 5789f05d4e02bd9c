import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { NodeRec, Translation, TranslationsOf, VersionState } from '../src/domain/types.ts';
import { SearchIndex } from '../src/index/search.ts';

// A write has the search index cut the terms of what it changes while its commit is made durable
// (SearchIndex.prepare) and hands them to update() once it is. Nothing of a preparation may show
// before that update, and an index fed preparations (fresh, stale or for another state) must answer
// exactly as one updated without them.

const STAMP = '2026-01-01T00:00:00.000Z';
const WORDS = ['zebra', 'zeal', 'giraffe', 'gin', 'café', 'install', 'installer', 'naïve', 'Émile', '東京', '京都', 'x1'];
const SLUGS = ['a', 'b', 'c', 'd', 'e'];

/** A translation of these words; a long one repeats them over many lines of Markdown (a body converted in several steps). */
function translation(words: string[], long = false): Translation {
  const text = words.slice(3).join(' ');
  const body = long ? Array.from({ length: 120 }, (_, i) => [`- ${text} item${i}`, `| ${text} | **${i}** |`, `\`code ${i}\` and [a link](b) ${text}`][i % 3]).join('\n') : text;
  return { title: words[0] ?? 'Untitled', summary: words.slice(1, 2).join(' '), bodyMd: `# ${words.slice(2, 3).join(' ')}\n\n${body}\n`, updatedAt: STAMP } as Translation;
}

/** A state of version v1 in English and German: each language's texts by slug (a missing slug has no translation there). */
function stateOf(texts: { en: Map<string, Translation>; de: Map<string, Translation> }, from?: VersionState): VersionState {
  const nodes = new Map<string, NodeRec>();
  for (const slug of SLUGS) nodes.set(slug, { id: slug, slug, kind: 'topic', parentSlug: null, icon: null, sortOrder: 0, updatedAt: STAMP, children: [] });
  const translations = new Map<string, TranslationsOf>();
  for (const slug of SLUGS) {
    const byLanguage = new Map<string, Translation>();
    for (const language of ['en', 'de'] as const) {
      const t = texts[language].get(slug);
      if (t) byLanguage.set(language, t);
    }
    // Unchanged nodes keep their map, as the service's copy-on-write states do.
    const old = from?.translations.get(slug);
    const same = old !== undefined && old.size === byLanguage.size && [...byLanguage].every(([l, t]) => old.get(l) === t);
    translations.set(slug, same ? old : byLanguage);
  }
  return {
    slug: 'v1',
    meta: { label: 'V1', status: 'published', languages: ['en', 'de'], sortOrder: null, isLatest: true, hidden: false, workingCopyOf: null, createdAt: STAMP, updatedAt: STAMP },
    nodes,
    roots: SLUGS,
    translations,
  };
}

/** Every answer the index gives for the state: hits of each word (and pairs of words) in both languages, plain and ranked. */
function answers(index: SearchIndex, state: VersionState): unknown {
  const out: unknown[] = [];
  for (const language of ['en', 'de']) {
    for (const q of [...WORDS, 'zebra gin', 'inst', '東']) {
      out.push(index.search(state, language, q).hits.map((h) => h.slug));
      out.push(index.ranked(state, language, q, { offset: 0, limit: 10 }).hits.map((h) => [h.slug, h.score.toFixed(6)]));
    }
  }
  return out;
}

/** Lets other work run, as a write's preparation does between its steps. */
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

const edit = fc.record({
  slug: fc.constantFrom(...SLUGS),
  language: fc.constantFrom('en' as const, 'de' as const),
  words: fc.option(fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }), { nil: null }),
  long: fc.boolean(),
  /** How the change reaches the index: prepared for it, prepared for a state that never comes, or not prepared. */
  how: fc.constantFrom('prepared', 'stale', 'none'),
});

describe('Search index: terms prepared while a write is made durable', () => {
  test('an index fed preparations answers as one updated without them, and a preparation alone changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 25 }), async (edits) => {
        const texts = { en: new Map<string, Translation>(), de: new Map<string, Translation>() };
        for (const slug of SLUGS) texts.en.set(slug, translation([slug, 'zebra']));
        let state = stateOf(texts);
        const plain = new SearchIndex();
        const fed = new SearchIndex();
        plain.update('v1', state);
        fed.update('v1', state);
        for (const e of edits) {
          if (e.words === null) texts[e.language].delete(e.slug);
          else texts[e.language].set(e.slug, translation(e.words, e.long));
          const next = stateOf(texts, state);
          const before = answers(fed, state);
          const prepared = e.how === 'stale' ? await fed.prepare('v1', stateOf({ en: new Map([['a', translation(['gin', 'giraffe'])]]), de: new Map() }, state)) : e.how === 'prepared' ? await fed.prepare('v1', next, pause) : undefined;
          assert.deepEqual(answers(fed, state), before, 'a preparation shows nothing');
          plain.update('v1', next);
          fed.update('v1', next, prepared);
          state = next;
          assert.deepEqual(answers(fed, state), answers(plain, state));
        }
      }),
      { numRuns: 60 },
    );
  });

  test('terms prepared before the index renumbers its terms are posted as the terms they are', async () => {
    const texts = { en: new Map<string, Translation>(), de: new Map<string, Translation>() };
    for (const slug of SLUGS) texts.en.set(slug, translation([slug, 'zebra', 'gin']));
    let state = stateOf(texts);
    const plain = new SearchIndex();
    const fed = new SearchIndex();
    plain.update('v1', state);
    fed.update('v1', state);
    // Each edit leaves a document number gone; past 1,024 the index compacts, its term table with it.
    for (let i = 0; i < 1100; i++) {
      texts.en.set('a', translation([`word${i}`, WORDS[i % WORDS.length], `other${i % 7}`]));
      const next = stateOf(texts, state);
      const prepared = await fed.prepare('v1', next);
      plain.update('v1', next);
      fed.update('v1', next, prepared);
      state = next;
      if (i >= 1000) assert.deepEqual(answers(fed, state), answers(plain, state), `after edit ${i}`);
    }
    assert.deepEqual(fed.search(state, 'en', 'word1099').hits.map((h) => h.slug), ['a']);
    assert.deepEqual(fed.search(state, 'en', 'word1098').hits, []);
  });
});
