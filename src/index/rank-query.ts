import { TIER, type RankIndex, type Unit } from './rank-index.ts';
import { words, type Word } from './words.ts';

/**
 * A query ranked over a RankIndex: each word expanded (rank-index.ts), the documents matching some
 * word counted and the best RERANK of them found (RankIndex.top(): the same as scoring every one,
 * without reading them all), then ordered by
 *   1. a query equal to the title (case and accents aside) first;
 *   2. then by how many of the query's words the document has: all words beat some words;
 *   3. then by score, with a bonus for the words standing together, as typed, in the title, a
 *      heading or the summary (judged for the best RERANK documents only: it reads their text).
 * The order is total and depends on nothing but the query and the index, so pages of it (offset)
 * neither repeat nor skip a hit. `fieldsOf(key)` must give the fields of the text the index holds
 * for `key`: what it gives is kept until the index changes (keptFields()).
 */

/** Documents whose fields are read for the phrase bonus. Fixed, whatever the page asked, so that every page sees the same order. */
const RERANK = 100;
/** Score factors of the typed words found together in the title, a heading, the summary, or as a whole heading (after the tier they earn). */
const TOGETHER = [1.6, 1.6, 2, 2];
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

  const { top: best, total } = index.top(units, Math.max(window, RERANK));
  const phrase = query.map((w) => w.text).join(' ');
  // The same with each word the index does not have replaced by its nearest match: the phrase the reader meant.
  const meant = query.map((w) => (w.unspaced || index.has(w.text) ? w.text : (nearestOf(units, w.text) ?? w.text))).join(' ');
  const twice = meant !== phrase;
  const has = (field: string) => field.includes(phrase) || (twice && field.includes(meant));
  // In the headings: 2 when a heading is the phrase and nothing else (a line of its own), 1 when one holds it, 0 when none does.
  const phraseLine = `\n${phrase}\n`;
  const meantLine = `\n${meant}\n`;
  const inHeadings = (headings: string) => Math.max(heading(headings, phrase, phraseLine), twice ? heading(headings, meant, meantLine) : 0);
  const kept = keptFields(index);
  const tiered = best.map(({ n, key: composite }, i) => {
    const key = index.keyAt(n)!;
    if (i >= RERANK) return { key, composite, i, n };
    let fields = kept[n];
    if (fields === undefined) {
      fields = fieldsOf(key);
      if (fields !== undefined) kept[n] = fields;
    }
    if (fields === undefined) return { key, composite, i, n };
    const tier = Math.floor(composite / TIER);
    let score = composite - tier * TIER;
    const title = fields.title;
    // The whole title typed: the page asked for by name. The words as typed, together, in the title,
    // a heading or the summary: the page the reader remembers them from.
    let rank = title === phrase || title === meant ? 2 : 0;
    if (units.length > 1) {
      let inField = has(title) ? 0 : -1;
      if (inField < 0) {
        const h = inHeadings(fields.headings);
        inField = h === 2 ? 3 : h === 1 ? 1 : has(fields.summary) ? 2 : -1;
      }
      if (inField >= 0) {
        rank += 1;
        score *= TOGETHER[inField];
      }
    } else if (rank === 0 && inHeadings(fields.headings) === 2) {
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

/**
 * The fields of each document number of an index that the phrase bonus read, kept while the index
 * does not change: a search reads those of its best RERANK documents, and looking each up by its
 * key (its translation, then the fields kept beside that) cost more than the rest of the bonus. A
 * document's number stands for the text it was indexed from, so any change of the index (which
 * comes with any change of a translation the index holds) drops them all. They are the objects the
 * callers keep beside the translations (search.ts), so this holds references, not copies.
 */
const fieldsKept = new WeakMap<RankIndex, { changeCount: number; at: Array<Fields | undefined> }>();

function keptFields(index: RankIndex): Array<Fields | undefined> {
  let kept = fieldsKept.get(index);
  if (kept === undefined || kept.changeCount !== index.changeCount) {
    // Filled to the index's size at once: an array written at scattered indexes past its end becomes a hash table.
    kept = { changeCount: index.changeCount, at: new Array<Fields | undefined>(index.capacity).fill(undefined) };
    fieldsKept.set(index, kept);
  }
  return kept.at;
}

/**
 * Whether `headings` (each on a line of its own, fieldsOf()) hold `phrase`: 2 as a whole heading, 1
 * within one, 0 not at all. A phrase holds no line break, so a whole heading is `line`, the phrase
 * between two of them: two searches of the text, not a look at each occurrence (a common word has many).
 */
function heading(headings: string, phrase: string, line: string): number {
  if (phrase === '' || !headings.includes(phrase)) return 0;
  return headings.includes(line) ? 2 : 1;
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
