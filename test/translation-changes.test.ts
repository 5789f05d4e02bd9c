import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { changedPaths, readFileSet } from '../src/content/file-set.ts';
import { ProblemList } from '../src/content/problems.ts';
import { renderTranslationStamps } from '../src/content/stamps-file.ts';
import { alignBases } from '../src/content/translation-base.ts';
import { changedTranslationSlugs } from '../src/domain/translation-changes.ts';
import { deleteTranslation, putTranslation, withTranslations } from '../src/domain/translations.ts';
import type { VersionState } from '../src/domain/types.ts';
import { derivedId } from '../src/store/load.ts';
import { changedNodeTables } from '../src/store/history-changes.ts';
import { writtenTranslations } from '../src/store/written-scans.ts';
import { generateDocSet, Random } from './helpers/generate.ts';

// A write works out what it changed from the slugs its new translations map was noted to be made
// with (translation-changes.ts), not from a pass over every node. Whatever states are compared —
// one write apart, many apart, backwards, or states of unrelated histories — the slugs, the files
// to commit, the stamps files, the history's node tables and the link scans to make ahead must be
// what comparing every entry gives.

const LANGUAGES = ['en', 'de', 'fr'];

function initial(seed: number): VersionState {
  const set = generateDocSet({ nodes: 60, seed, languages: LANGUAGES, bodyBytes: { min: 50, max: 200 } });
  const files = new Map(set.files.map((f) => [f.path, f.content]));
  const state = readFileSet(files, { slug: 'v1', fallbackStamp: '2026-01-01T00:00:00.000Z', idFor: (s) => derivedId('v1', s) }, new ProblemList());
  assert.ok(state);
  return state;
}

/** A random write of one or two translations, as the API makes them (bases aligned as the writer does). */
function write(r: Random, state: VersionState, step: number): VersionState {
  const slugs = [...state.nodes.keys()];
  let next = state;
  for (let k = r.int(1, 2); k > 0; k--) {
    const slug = r.pick(slugs);
    const language = r.pick(LANGUAGES);
    const now = `2026-02-01T00:00:${String(step % 60).padStart(2, '0')}.${String(step).padStart(3, '0').slice(-3)}Z`;
    if (language !== 'en' && next.translations.get(slug)?.has(language) && r.chance(0.3)) next = deleteTranslation(next, slug, language, null).state;
    else if (r.chance(0.05)) next = withTranslations(next, slug, next.translations.get(slug) ?? null);
    else next = putTranslation(next, slug, language, { title: `Title ${step}`, summary: `Summary ${step}`, bodyMd: `Body ${step}.\n` }, null, now).state;
  }
  return alignBases(state, next);
}

/** The slugs whose entries differ, comparing every entry. */
function compared(a: VersionState, b: VersionState): Set<string> {
  const out = new Set<string>();
  for (const slug of new Set([...a.translations.keys(), ...b.translations.keys()])) if (a.translations.get(slug) !== b.translations.get(slug)) out.add(slug);
  return out;
}

/** A state with the same translations in a map no note leads to: what compares every entry. */
const unnoted = (s: VersionState): VersionState => ({ ...s, translations: new Map(s.translations) });

describe('what a write changed, from the slugs it noted', () => {
  for (const seed of [1, 2]) {
    test(`equals a comparison of every entry, between any two states of a history (seed ${seed})`, () => {
      const r = new Random(seed);
      const states = [initial(seed)];
      for (let step = 1; step <= 150; step++) states.push(write(r, states.at(-1)!, step));
      // Another history from the same start: states of the two are compared too.
      const other = [states[0]];
      for (let step = 1; step <= 20; step++) other.push(write(r, other.at(-1)!, 1000 + step));
      const all = [...states, ...other];
      for (let k = 0; k < 400; k++) {
        const a = r.pick(all);
        const b = k % 4 === 0 ? states[states.indexOf(a) + 1] ?? r.pick(all) : r.pick(all);
        assert.deepEqual(new Set(changedTranslationSlugs(a.translations, b.translations)), compared(a, b), `pair ${k}`);
        assert.deepEqual(new Set(changedPaths(a, b)), new Set(changedPaths(unnoted(a), unnoted(b))), `paths of pair ${k}`);
        assert.deepEqual(new Set(writtenTranslations(a, b)), new Set(writtenTranslations(unnoted(a), unnoted(b))), `written of pair ${k}`);
        const tables = changedNodeTables(a, b);
        // With a nodes map of its own, every node is compared.
        const whole = changedNodeTables(a, { ...b, nodes: new Map(b.nodes) });
        assert.deepEqual([...tables.after], [...whole.after], `history's nodes after, pair ${k}`);
        assert.deepEqual([...tables.before], [...whole.before], `history's nodes before, pair ${k}`);
      }
    });
  }

  test('a stamps file patched from the last one rendered is the one rendered anew, whatever state came before', () => {
    const r = new Random(5);
    const states = [initial(5)];
    for (let step = 1; step <= 80; step++) states.push(write(r, states.at(-1)!, step));
    // In order, then in random order (each render patches the last rendered for the same nodes map).
    for (const s of [...states, ...Array.from({ length: 80 }, () => r.pick(states))]) {
      // A nodes map of its own has nothing rendered to patch: rendered whole.
      for (const language of LANGUAGES) assert.equal(renderTranslationStamps(s, language), renderTranslationStamps({ ...s, nodes: new Map(s.nodes) }, language), language);
    }
  });

  test('a state does not keep the translations of the states before it alive', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const r = new Random(13);
    const first = initial(13);
    const collected = new Set<number>();
    const registry = new FinalizationRegistry<number>((k) => collected.add(k));
    let state = first;
    for (let step = 1; step <= 60; step++) {
      state = write(r, state, step);
      if (step <= 40) registry.register(state.translations, step);
    }
    const kept = state;
    state = first; // only the first and the last states are held now
    for (let i = 0; i < 20 && collected.size < 40; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(collected.size, 40, `the maps of the 40 states between were collected (${collected.size} were)`);
    // What changed between the two held ones is still right (compared whole where the notes end).
    assert.deepEqual(new Set(changedTranslationSlugs(state.translations, kept.translations)), compared(state, kept));
  });

  test('bases are aligned as a comparison of every entry aligns them', () => {
    const r = new Random(9);
    let state = initial(9);
    for (let step = 1; step <= 60; step++) {
      const slug = r.pick([...state.nodes.keys()]);
      const written = putTranslation(state, slug, r.pick(LANGUAGES), { title: `T${step}`, summary: '', bodyMd: `B${step}\n` }, null, `2026-03-01T00:00:${String(step % 60).padStart(2, '0')}.000Z`).state;
      const aligned = alignBases(state, written);
      const alignedWhole = alignBases(unnoted(state), unnoted(written));
      assert.deepEqual(aligned.translations.get(slug), alignedWhole.translations.get(slug));
      state = aligned;
    }
  });

  test("a write's own new state aligned in place gives what a copy gives, and the state before stays as it was", () => {
    const r = new Random(11);
    let state = initial(11);
    let alignedSome = 0;
    for (let step = 1; step <= 80; step++) {
      const slug = r.pick([...state.nodes.keys()]);
      const language = r.pick(LANGUAGES);
      const written = putTranslation(state, slug, language, { title: `T${step}`, summary: '', bodyMd: `B${step}\n` }, null, `2026-03-02T00:00:${String(step % 60).padStart(2, '0')}.000Z`).state;
      const entriesBefore = [...state.translations].map(([s, byLanguage]) => [s, byLanguage, [...byLanguage]] as const);
      // The copy first: it leaves `written` as it is for the write in place.
      const copied = alignBases(state, written);
      const inPlace = alignBases(state, written, { fresh: true });
      if (copied !== written) alignedSome++;
      assert.deepEqual(new Map(inPlace.translations), new Map(copied.translations), `step ${step}: ${language}/${slug}`);
      // Nothing of the state before changed: its map, each node's map and each translation.
      assert.equal(state.translations.size, entriesBefore.length);
      for (const [s, byLanguage, entries] of entriesBefore) {
        assert.equal(state.translations.get(s), byLanguage);
        assert.deepEqual([...byLanguage], entries);
      }
      assert.deepEqual(new Set(changedTranslationSlugs(state.translations, inPlace.translations)), compared(state, inPlace));
      state = inPlace;
    }
    // Writes of other languages than the primary get a base: the case aligned in place.
    assert.ok(alignedSome >= 20, `${alignedSome} of 80 writes were aligned`);
  });
});
