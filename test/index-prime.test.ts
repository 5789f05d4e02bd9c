import assert from 'node:assert/strict';
import { test } from 'node:test';
import { documentTerms } from '../src/index/document-terms.ts';
import { primeIndexing } from '../src/index/prime.ts';
import { TermIndex } from '../src/index/term-index.ts';
import { generateDocSet } from './helpers/generate.ts';

// The sample indexed before a start's large indexing (primeIndexing) is for the optimizer only: an
// index built after it must be the very index built without it. This file's process indexes nothing
// before its first build, so that build is unprimed.

test('an index built after the priming sample is byte for byte the index built before it', async () => {
  const set = generateDocSet({ nodes: 40, seed: 9, languages: ['en', 'de', 'ja'], bodyBytes: { min: 500, max: 4000 }, markdown: 'rich', label: 'Prime', status: 'published', isLatest: true });
  const documents = set.nodes.flatMap((node) => Object.entries(node.translations).map(([language, t]) => [`${language}/${node.slug}`, t] as const));
  const build = async () => {
    const index = new TermIndex();
    for (const [key, t] of documents) index.add(key, documentTerms(index, t).terms);
    return Buffer.from(await index.save());
  };
  const unprimed = await build();
  primeIndexing();
  primeIndexing();
  const primed = await build();
  assert.ok(unprimed.length > 10_000);
  assert.ok(primed.equals(unprimed), 'the same bytes');
});
