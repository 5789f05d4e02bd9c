import type { RankIndex, Unit } from './rank-index.ts';
import { words, type Word } from './words.ts';

/**
 * A query ranked over a RankIndex: each word expanded (rank-index.ts), every document matching some
 * word scored, then ordered by
 *   1. a query equal to the title (case and accents aside) first;
 *   2. then by how many of the query's words the document has: all words beat some words;
 *   3. then by score, with a bonus for the words standing together, as typed, in the title, a
 *      heading or the summary (judged for the best RERANK documents only: it reads their text).
 * The order is total and depends on nothing but the query and the index, so pages of it (offset)
 * neither repeat nor skip a hit.
 */

/** Documents whose fields are read for the phrase bonus. Fixed, whatever the page asked, so that every page sees the same order. */
const RERANK = 100;
/** Score factors of the typed words found together in the title, a heading, the summary, or as a whole heading (after the tier they earn). */
const TOGETHER = [1.6, 1.6, 2, 2];
/** A tier is worth more than any score: scores stay far below it. */
const TIER = 1e4;
const MAX_SCORE = TIER - 1;
/** Query words looked at: a query of 200 characters has at most about a hundred. */
const MAX_WORDS = 32;
/** Units scored (words, and character pairs of scripts without spaces): 200 characters of Japanese make 199 pairs. */
const MAX_UNITS = 64;

export interface RankedDocument {
  key: string;
  /** Its number in the index (RankIndex.countsIn). */
  n: number;
  score: number;
}

/** The text of a document the phrase bonus reads: title, summary and headings, as foldedWords() makes them. */
export interface Fields {
  title: string;
  summary: string;
  /** The headings, each on a line of its own, with a line break before the first and after the last: one search finds a phrase in any of them. */
  headings: string;
}

/** Fields of a document from its title, summary and headings. */
export function fieldsOf(title: string, summary: string, headings: readonly string[]): Fields {
  return { title: foldedWords(title), summary: foldedWords(summary), headings: `\n${headings.map(foldedWords).join('\n')}\n` };
}

export interface RankAnswer {
  /** The best `window` documents, best first. */
  top: RankedDocument[];
  total: number;
  partial: boolean;
  /** The terms the query matched, each with the query word it stands for: what a snippet highlights. */
  matched: Map<string, number>;
  /** The query's words, folded. */
  words: Word[];
}

export function rankQuery(index: RankIndex, q: string, window: number, fieldsOf: (key: string) => Fields | undefined): RankAnswer {
  const query = distinct(words(q)).slice(0, MAX_WORDS);
  const typing = /[\p{L}\p{N}\p{M}]$/u.test(q);
  const units: Unit[] = [];
  let partial = false;
  for (const [i, w] of query.entries()) {
    const expanded = index.expand(w.text, w.unspaced, typing && i === query.length - 1);
    units.push(...expanded.units.slice(0, MAX_UNITS - units.length));
    partial ||= expanded.partial;
  }
  const matched = new Map<string, number>();
  units.forEach((u, i) => {
    for (const t of u.terms) if (!matched.has(index.termAt(t.id))) matched.set(index.termAt(t.id), i);
  });
  if (units.every((u) => u.terms.length === 0)) return { top: [], total: 0, partial, matched, words: query };

  const heap = new TopK(Math.max(window, RERANK));
  let total = 0;
  index.score(units, (n, count, score) => {
    total++;
    heap.offer(n, count * TIER + Math.min(score, MAX_SCORE));
  });
  const best = heap.sorted();
  const phrase = query.map((w) => w.text).join(' ');
  // The same with each word the index does not have replaced by its nearest match: the phrase the reader meant.
  const meant = query.map((w) => (w.unspaced || index.has(w.text) ? w.text : (nearestOf(units, w.text) ?? w.text))).join(' ');
  // A heading that is the phrase and nothing else: a line of its own.
  const wholePhrase = `\n${phrase}\n`;
  const wholeMeant = `\n${meant}\n`;
  const tiered = best.map(({ n, key: composite }, i) => {
    const key = index.keyAt(n)!;
    if (i >= RERANK) return { key, composite, i, n };
    const fields = fieldsOf(key);
    if (fields === undefined) return { key, composite, i, n };
    const tier = Math.floor(composite / TIER);
    let score = composite - tier * TIER;
    const title = fields.title;
    // The whole title typed: the page asked for by name. The words as typed, together, in the title,
    // a heading or the summary: the page the reader remembers them from.
    let rank = title === phrase || title === meant ? 2 : 0;
    const wholeHeading = fields.headings.includes(wholePhrase) || fields.headings.includes(wholeMeant);
    if (units.length > 1) {
      const has = (field: string) => field.includes(phrase) || field.includes(meant);
      const inField = has(title) ? 0 : wholeHeading ? 3 : has(fields.headings) ? 1 : has(fields.summary) ? 2 : -1;
      if (inField >= 0) {
        rank += 1;
        score *= TOGETHER[inField];
      }
    } else if (wholeHeading && rank === 0) {
      // One word that is a section's whole heading: that section is about it.
      rank += 1;
      score *= TOGETHER[3];
    }
    return { key, composite: (tier + rank * (MAX_UNITS + 1)) * TIER + Math.min(score, MAX_SCORE), i, n };
  });
  const head = tiered.slice(0, RERANK).sort((a, b) => b.composite - a.composite || a.i - b.i);
  const top = [...head, ...tiered.slice(RERANK)].map(({ key, composite, n }) => ({ key, n, score: shown(composite) }));
  return { top, total, partial, matched, words: query };

  function nearestOf(all: Unit[], word: string): string | undefined {
    const unit = all.find((u) => u.word === word);
    return unit && unit.terms.length > 0 ? index.termAt(unit.terms[0].id) : undefined;
  }
}

/** A composite as callers see it: the tier, plus the score squeezed below 1 so the order stays the same; four decimals. */
function shown(composite: number): number {
  const tier = Math.floor(composite / TIER);
  const score = composite - tier * TIER;
  return Math.round((tier + score / (score + 10)) * 10_000) / 10_000;
}

/** The words of a text, folded, joined by single spaces (what a typed phrase is compared with). */
export function foldedWords(text: string): string {
  return words(text)
    .map((w) => w.text)
    .join(' ');
}

function distinct(query: Word[]): Word[] {
  const seen = new Set<string>();
  return query.filter((w) => !seen.has(w.text) && seen.add(w.text) !== undefined);
}

/** The k best (highest key; ties: the lower document number) of the documents offered, in a binary heap of the worst on top. */
class TopK {
  private readonly ns: Int32Array;
  private readonly keys: Float64Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.ns = new Int32Array(k);
    this.keys = new Float64Array(k);
  }

  /** Whether a is worse than b. */
  private worse(i: number, j: number): boolean {
    return this.keys[i] < this.keys[j] || (this.keys[i] === this.keys[j] && this.ns[i] > this.ns[j]);
  }

  offer(n: number, key: number): void {
    if (this.size < this.k) {
      this.ns[this.size] = n;
      this.keys[this.size] = key;
      this.up(this.size++);
      return;
    }
    if (key < this.keys[0] || (key === this.keys[0] && n > this.ns[0])) return;
    this.ns[0] = n;
    this.keys[0] = key;
    this.down(0);
  }

  sorted(): Array<{ n: number; key: number }> {
    const out: Array<{ n: number; key: number }> = [];
    for (let i = 0; i < this.size; i++) out.push({ n: this.ns[i], key: this.keys[i] });
    return out.sort((a, b) => b.key - a.key || a.n - b.n);
  }

  private swap(i: number, j: number): void {
    const n = this.ns[i];
    this.ns[i] = this.ns[j];
    this.ns[j] = n;
    const key = this.keys[i];
    this.keys[i] = this.keys[j];
    this.keys[j] = key;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < this.size && this.worse(l, w)) w = l;
      if (r < this.size && this.worse(r, w)) w = r;
      if (w === i) return;
      this.swap(i, w);
      i = w;
    }
  }
}
