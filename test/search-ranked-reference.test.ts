import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { headingsOf } from '../src/content/headings.ts';
import { readFileSet } from '../src/content/file-set.ts';
import { ProblemList } from '../src/content/problems.ts';
import type { Translation } from '../src/domain/types.ts';
import { documentTerms } from '../src/index/document-terms.ts';
import { passage, queryTermsOf, topicHeadings } from '../src/index/passages.ts';
import { RankIndex, TIER, type Unit } from '../src/index/rank-index.ts';
import { fieldsOf, rankQuery, type Fields } from '../src/index/rank-query.ts';
import { TermIndex } from '../src/index/term-index.ts';
import { words } from '../src/index/words.ts';
import { derivedId } from '../src/store/load.ts';
import { generateDocSet, Random } from './helpers/generate.ts';

// A search by relevance saves work wherever the answer allows: the best documents are read early from
// kept impacts (RankIndex.top()), and what a snippet derives from a page's text alone is kept beside
// the page. None of it may change an answer. Here the full answer of the fast path (the pages, their
// order and scores, totals, snippets, highlights and headings) is compared, for a few hundred varied
// queries over a generated set, with a plain computation: every posting scored (scoreAll()), the
// phrase bonus judged as written in the ranking's description over the exhaustive best 100, and each
// snippet cut from a fresh copy of its page, by a copy of the index loaded from its bytes.

const RERANK = 100;
const TOGETHER = [1.6, 1.6, 2, 2];
const MAX_UNITS = 64;

interface Answer {
  total: number;
  hits: Array<{ key: string; score: number; snippet: string; highlights: Array<[number, number]>; heading: unknown }>;
}

/** The answer as the service computes it (SearchIndex.ranked()): pruned top k, kept fields and snippet pieces. */
function fast(index: RankIndex, docs: Map<string, Translation>, q: string, offset: number, limit: number): Answer {
  const kept = new WeakMap<Translation, Fields>();
  const answer = rankQuery(index, q, offset + limit, (key) => {
    const t = docs.get(key);
    if (t === undefined) return undefined;
    let f = kept.get(t);
    if (f === undefined) kept.set(t, (f = fieldsOf(t.title, t.summary, topicHeadings(t).map((h) => h.text))));
    return f;
  });
  const terms = queryTermsOf(answer.matched);
  const hits = answer.top.slice(offset, offset + limit).map(({ key, n, score }) => {
    const holds = { body: (term: string) => RankIndex.inBody(index.countsIn(term, n)), summary: (term: string) => RankIndex.inSummary(index.countsIn(term, n)) };
    return { key, score, ...passage(docs.get(key)!, terms, holds) };
  });
  return { total: answer.total, hits };
}

/** The same answer the plain way (`index`: loaded from the bytes of the searched one): every posting scored, every field folded anew, snippets from fresh copies. */
function reference(index: RankIndex, docs: Map<string, Translation>, q: string, offset: number, limit: number): Answer {
  const seen = new Set<string>();
  const query = words(q).filter((w) => !seen.has(w.text) && seen.add(w.text) !== undefined).slice(0, 32);
  const typing = /[\p{L}\p{N}\p{M}]$/u.test(q);
  const units: Unit[] = [];
  query.forEach((w, i) => units.push(...index.expand(w.text, w.unspaced, typing && i === query.length - 1).units.slice(0, MAX_UNITS - units.length)));
  const matched = new Map<string, number>();
  units.forEach((u, i) => u.terms.forEach((t) => matched.has(index.termAt(t.id)) || matched.set(index.termAt(t.id), i)));
  if (units.every((u) => u.terms.length === 0)) return { total: 0, hits: [] };
  const all = [...index.scoreAll(units)].map(([n, key]) => ({ n, key })).sort((a, b) => b.key - a.key || a.n - b.n);
  const phrase = query.map((w) => w.text).join(' ');
  const meant = query
    .map((w) => {
      if (w.unspaced || index.has(w.text)) return w.text;
      const unit = units.find((u) => u.word === w.text);
      return unit && unit.terms.length > 0 ? index.termAt(unit.terms[0].id) : w.text;
    })
    .join(' ');
  const forms = meant === phrase ? [phrase] : [phrase, meant];
  const folded = (text: string) => words(text).map((w) => w.text).join(' ');
  const reranked = all.slice(0, Math.max(offset + limit, RERANK)).map(({ n, key }, i) => {
    if (i >= RERANK) return { n, composite: key, i };
    const t = docs.get(index.keyAt(n)!)!;
    const title = folded(t.title);
    const headings = headingsOf(t.bodyMd).map((h) => folded(h.text));
    const summary = folded(t.summary);
    const tier = Math.floor(key / TIER);
    let score = key - tier * TIER;
    let rank = forms.includes(title) ? 2 : 0;
    const wholeHeading = headings.some((h) => forms.includes(h));
    if (units.length > 1) {
      const place = forms.some((f) => title.includes(f)) ? 0 : wholeHeading ? 3 : headings.some((h) => forms.some((f) => f !== '' && h.includes(f))) ? 1 : forms.some((f) => summary.includes(f)) ? 2 : -1;
      if (place >= 0) {
        rank += 1;
        score *= TOGETHER[place];
      }
    } else if (rank === 0 && wholeHeading) {
      rank += 1;
      score *= TOGETHER[3];
    }
    return { n, composite: (tier + rank * (MAX_UNITS + 1)) * TIER + Math.min(score, TIER - 1), i };
  });
  const order = [...reranked.slice(0, RERANK).sort((a, b) => b.composite - a.composite || a.i - b.i), ...reranked.slice(RERANK)];
  const terms = queryTermsOf(matched);
  const hits = order.slice(offset, offset + limit).map(({ n, composite }) => {
    const key = index.keyAt(n)!;
    const holds = { body: (term: string) => RankIndex.inBody(index.countsIn(term, n)), summary: (term: string) => RankIndex.inSummary(index.countsIn(term, n)) };
    return { key, score: shown(composite), ...passage({ ...docs.get(key)! }, terms, holds) };
  });
  return { total: all.length, hits };
}

function shown(composite: number): number {
  const tier = Math.floor(composite / TIER);
  const score = composite - tier * TIER;
  return Math.round((tier + score / (score + 10)) * 10_000) / 10_000;
}

/** Queries of every kind readers type: titles and headings whole (phrases), words of summaries, typos, half-typed words, one word, many words, words no page has, Japanese. */
function queriesFor(r: Random, docs: Translation[], count: number): string[] {
  const out: string[] = [];
  const pick = <T>(list: T[]) => list[r.int(0, list.length - 1)];
  while (out.length < count) {
    const t = pick(docs);
    const headings = headingsOf(t.bodyMd).map((h) => h.text);
    const source = r.chance(0.3) ? t.title : r.chance(0.5) && headings.length > 0 ? pick(headings) : t.summary;
    let ws = source.split(/\s+/).filter((w) => w !== '');
    if (ws.length === 0) continue;
    const kind = r.int(0, 6);
    const from = r.int(0, Math.max(0, ws.length - 1));
    if (kind === 0) ws = [ws[from]];
    else if (kind === 1) ws = ws.slice(from, from + r.int(4, 9));
    else if (kind !== 6) ws = ws.slice(from, from + r.int(2, 3));
    const last = ws.length - 1;
    if (kind === 2 && ws[last].length > 4) ws[last] = ws[last].slice(0, r.int(2, ws[last].length - 1));
    if (kind === 3) {
      const long = ws.findIndex((w) => /^\p{L}{5,}$/u.test(w));
      if (long >= 0) ws[long] = ws[long].slice(0, 2) + ws[long][3] + ws[long][2] + ws[long].slice(4);
    }
    if (kind === 4) ws.push(r.chance(0.5) ? 'zzqxv' : 'the');
    if (kind === 5 && Array.from(ws[0]).length > 3) ws = [Array.from(ws[0]).slice(0, r.int(1, 3)).join('')];
    out.push(ws.join(' ') + (r.chance(0.15) ? '.' : ''));
  }
  return out;
}

/** `plain`: a copy of `index` loaded from its bytes, with nothing kept from searches. */
function assertSame(index: RankIndex, plain: RankIndex, docs: Map<string, Translation>, q: string): void {
  for (const [offset, limit] of [[0, 10], [7, 5], [0, 50]]) {
    const expected = reference(plain, docs, q, offset, limit);
    // Twice: the second answer is the one from everything kept by the first.
    for (let pass = 0; pass < 2; pass++) assert.deepEqual(fast(index, docs, q, offset, limit), expected, `"${q}" (offset ${offset}, limit ${limit}, pass ${pass + 1})`);
  }
}

describe('ranked search: the fast answer is the plain one', () => {
  const set = generateDocSet({ nodes: 240, seed: 11, languages: ['en', 'de', 'ja'], bodyBytes: { min: 300, max: 6000 } });
  const files = new Map(set.files.map((f) => [f.path, f.content]));
  const state = readFileSet(files, { slug: 'v1', fallbackStamp: '1970-01-01T00:00:00.000Z', idFor: (s) => derivedId('v1', s) }, new ProblemList());
  assert.ok(state !== null);

  for (const language of ['en', 'de', 'ja']) {
    test(`hits, scores, totals, snippets and headings of varied queries (${language}), before and after pages change`, () => {
      const index = new RankIndex(language);
      const docs = new Map<string, Translation>();
      const terms = new TermIndex();
      for (const [slug, ts] of state.translations) {
        const t = ts.get(language);
        if (t === undefined) continue;
        docs.set(slug, t);
        index.add(slug, documentTerms(terms, t).rank);
      }
      const r = new Random(language.charCodeAt(0));
      const queries = queriesFor(r, [...docs.values()], 120);
      let plain = RankIndex.load(index.save())!;
      for (const q of queries) assertSame(index, plain, docs, q);

      // Pages replaced (their title now another page's) and removed: nothing kept from before may answer.
      const slugs = [...docs.keys()];
      for (let i = 0; i < 30; i++) {
        const slug = slugs[r.int(0, slugs.length - 1)];
        const other = docs.get(slugs[r.int(0, slugs.length - 1)])!;
        const t = { ...docs.get(slug)!, title: other.title, summary: `${other.summary} ${docs.get(slug)!.summary}` };
        docs.set(slug, t);
        index.add(slug, documentTerms(terms, t).rank);
      }
      for (let i = 0; i < 15; i++) {
        const slug = slugs[r.int(0, slugs.length - 1)];
        docs.delete(slug);
        index.remove(slug);
      }
      plain = RankIndex.load(index.save())!;
      for (const q of queries.slice(0, 60)) assertSame(index, plain, docs, q);
    });
  }
});
