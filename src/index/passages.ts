import { headingsOf, type Heading } from '../content/headings.ts';
import { plainLines } from '../content/plain-text.ts';
import type { Translation } from '../domain/types.ts';
import { AHEAD_CHARS, bodyText, keptBodyText } from './body-text.ts';
import { CLASS, infoOf, MARK, NARROW_WORD, UNSPACED_SCRIPTS, WORD } from './char-classes.ts';
import type { HitHeading } from './rank-types.ts';
import { Room } from './room.ts';
import { foldKeepingPlaces } from './words.ts';

/**
 * The snippet of a ranked hit: the passage of the body where the most distinct words of the query
 * stand closest together (not merely the first occurrence), the words marked, and the heading of the
 * section it is in; the summary when it holds as many of the words.
 */

/** A passage's width in characters; half of it in scripts without spaces, whose characters are twice as wide. */
const PASSAGE_CHARS = 160;
/** How much of a body a snippet looks at: the rest of a huge body is not read for every search. */
const MAX_SCAN = 128 * 1024;

const UNSPACED_START = new RegExp(`^[${UNSPACED_SCRIPTS}]`, 'v');

/**
 * What a snippet derives from a translation's text alone, kept beside it (an edit makes a new
 * translation, and what was kept goes with the old one): one lookup per hit shown instead of one per
 * piece. Each piece is made the first time a search needs it. The folded body is about the size of
 * the body's text, the rest small (docs/operations.md, memory).
 */
interface Kept {
  /** The text bodyFor() gives, once it is the whole (or MAX_SCAN of the) kept plain text. */
  body?: { text: string; more: boolean };
  foldedBody?: Folded & { text: string };
  foldedSummary?: Folded;
  headings?: Heading[];
  headingPositions?: { text: string; at: Int32Array };
  matches?: KeptMatches;
}

const kept = new WeakMap<Translation, Kept>();

function keptOf(t: Translation): Kept {
  let k = kept.get(t);
  if (k === undefined) kept.set(t, (k = {}));
  return k;
}

/** The headings of a translation's body, kept beside it (an edit makes a new translation). */
export function topicHeadings(t: Translation): Heading[] {
  return keptHeadings(keptOf(t), t);
}

function keptHeadings(k: Kept, t: Translation): Heading[] {
  return (k.headings ??= headingsOf(t.bodyMd));
}

export interface Passage {
  snippet: string;
  highlights: Array<[number, number]>;
  heading: HitHeading | null;
}

interface Match {
  start: number;
  end: number;
  unit: number;
}

/**
 * The passage of `t` to show for a query whose terms are `terms` (queryTermsOf()); `holds` says
 * which of them the index has in its body and summary: only those are looked for.
 */
export function passage(t: Translation, terms: Terms, holds: { body: (term: string) => boolean; summary: (term: string) => boolean }): Passage {
  const k = keptOf(t);
  const body = bodyFor(t, k);
  // The first MAX_SCAN characters of a long body not converted yet are converted anew for each search: their matches are not kept.
  const keep = k.body === body ? bodyMatches(k, body.text) : null;
  const inBody = bestWindow(matchesIn(body.text, terms, holds.body, () => foldedBody(k, body.text), keep));
  const inSummary = bestWindow(matchesIn(t.summary, terms, holds.summary, () => (k.foldedSummary ??= foldKeepingPlaces(t.summary)), null));
  if (inBody !== null && (inSummary === null || inBody.distinct > inSummary.distinct)) {
    return { ...cut(body.text, inBody.matches, inBody.at, body.more), heading: headingAt(t, k, body.text, inBody.at) };
  }
  if (inSummary !== null || body.text === '') return { ...cut(t.summary, inSummary?.matches ?? [], inSummary?.at ?? 0, false), heading: null };
  return { ...cut(body.text, [], 0, body.more), heading: null };
}

/** The plain text of the body, or of its first MAX_SCAN characters when it is longer and its text is not kept (converting it all would hold other requests). */
function bodyFor(t: Translation, k: Kept): { text: string; more: boolean } {
  if (k.body !== undefined) return k.body;
  const kept = keptBodyText(t);
  if (kept !== undefined || t.bodyMd.length <= AHEAD_CHARS) {
    const text = kept ?? bodyText(t);
    // The plain text of a translation never changes: once whole, what is cut from it is kept.
    return (k.body = text.length > MAX_SCAN ? { text: text.slice(0, MAX_SCAN), more: true } : { text, more: false });
  }
  const end = t.bodyMd.indexOf('\n', MAX_SCAN);
  return { text: plainLines(t.bodyMd, 0, end < 0 ? t.bodyMd.length : end).join('\n'), more: end >= 0 };
}

/** The terms of a query (term → query word), sorted for matchesIn: words of spaced scripts, and character pairs of the others. */
export interface Terms {
  matched: Map<string, number>;
  spaced: string[];
  pairs: string[];
}

/** The terms of the query in the form matchesIn() takes, made once per search for all its hits. */
export function queryTermsOf(matched: Map<string, number>): Terms {
  const spaced: string[] = [];
  const pairs: string[] = [];
  for (const term of matched.keys()) (UNSPACED_START.test(term) ? pairs : spaced).push(term);
  return { matched, spaced, pairs };
}

/** Matches looked at in one text, at most: a body that is one word repeated must not cost a snippet more than this. */
const MAX_MATCHES = 4096;

/** Where the matches of a text are, in order of their start (the longer first at the same start): three numbers each, start, end and query word. */
interface Matches {
  at: Int32Array;
  count: number;
}

/**
 * Where the terms of the query that `holds` keeps occur in `text`: words of spaced scripts where
 * they are whole words, pairs anywhere (overlapping), MAX_MATCHES at most over all terms, in the
 * order of the terms. Each term's matches come from one indexOf() scan over the folded text (a
 * pattern of all the terms at once, tried at every position, took three times as long), in order,
 * so they are merged, not sorted. `keep`: where each term's matches in this text are kept between
 * searches (a body's), or null; `holds` is asked of a term only when they are not kept.
 */
function matchesIn(text: string, terms: Terms, holds: (term: string) => boolean, folding: () => Folded, keep: KeptMatches | null): Matches {
  if (text === '' || terms.matched.size === 0) return { at: EMPTY, count: 0 };
  const lists: Int32Array[] = [];
  const units: number[] = [];
  let found = 0;
  const add = (term: string, whole: boolean) => {
    if (found >= MAX_MATCHES) return;
    const list = keep === null ? (holds(term) ? termMatches(folding(), term, whole) : EMPTY) : keep.of(term, whole, holds, folding);
    if (list.length === 0) return;
    const taken = Math.min(list.length >>> 1, MAX_MATCHES - found);
    lists.push(taken === list.length >>> 1 ? list : list.subarray(0, 2 * taken));
    units.push(terms.matched.get(term)!);
    found += taken;
  };
  for (const term of terms.spaced) add(term, true);
  for (const term of terms.pairs) add(term, false);
  return merged(lists, units, found);
}

/** The matches of `term` in a folded text, as start and end in the text before folding, MAX_MATCHES at most (no search takes more of one term). */
function termMatches({ folded, source }: Folded, term: string, whole: boolean): Int32Array {
  let at = folded.indexOf(term);
  if (at < 0) return EMPTY;
  const list: number[] = [];
  for (; at >= 0 && list.length < 2 * MAX_MATCHES; at = folded.indexOf(term, at + 1)) {
    if (whole && (isWordAt(folded, at - 1) || isWordAt(folded, at + term.length))) continue;
    list.push(source === null ? at : source[at], source === null ? at + term.length : source[at + term.length]);
  }
  return list.length === 0 ? EMPTY : Int32Array.from(list);
}

/**
 * Each term's matches in one body's text, kept between searches: finding them is a scan of the whole
 * body per term, the most of a snippet's cost, and the words people search for recur. Kept in one
 * store over all bodies within a budget (MATCHES_BYTES by default; matchStore), under a number of the body's text and
 * the term; a kept body text never changes, so they never go stale.
 */
class KeptMatches {
  private static serial = 0;
  readonly id = ++KeptMatches.serial;

  constructor(readonly text: string) {}

  /** The matches of `term` if `holds(term)` (none otherwise: what the index says of a page's text does not change either). */
  of(term: string, whole: boolean, holds: (term: string) => boolean, folding: () => Folded): Int32Array {
    const key = `${this.id}\u0000${term}`;
    let list = matchStore.get(key);
    if (list === undefined) matchStore.set(key, (list = holds(term) ? termMatches(folding(), term, whole) : EMPTY));
    return list;
  }
}

/**
 * Bytes of matches kept over all bodies: the terms of the 116 queries of the bench's ranked rows in
 * the 10 hits of each (10,000 pages, three languages) take about 1.1 MB; this keeps about fifteen
 * times as many.
 */
export const MATCHES_BYTES = 16 * 1024 * 1024;
/** What an entry costs beyond its numbers: its key and its place in a map. */
const ENTRY_BYTES = 120;

/**
 * Matches kept in two generations, each of at most half of the budget: new ones go into the
 * current one, one found in the previous one moves to the current one, and when the current one is
 * full it becomes the previous one (the old previous one dropped). What was not asked for during a
 * whole generation goes: about least recently used first, at two map lookups (an LRU, with its
 * bookkeeping on every hit, took about twice as long in a profile of the bench's queries).
 */
const matchStore = {
  current: new Map<string, Int32Array>(),
  previous: new Map<string, Int32Array>(),
  bytes: 0,
  max: MATCHES_BYTES,
  get(key: string): Int32Array | undefined {
    const found = this.current.get(key);
    if (found !== undefined) return found;
    const old = this.previous.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  },
  set(key: string, list: Int32Array): void {
    if (this.max === 0) return;
    this.current.set(key, list);
    this.bytes += ENTRY_BYTES + 2 * key.length + list.byteLength;
    if (this.bytes > this.max / 2) {
      this.previous = this.current;
      this.current = new Map();
      this.bytes = 0;
    }
  },
};

const EMPTY = new Int32Array(0);

/** Bytes of matches kept now (about: both generations). */
export const keptMatchesBytes = (): number => matchStore.bytes + (matchStore.previous.size > 0 ? matchStore.max / 2 : 0);

/** Keeps at most `bytes` of matches from now on (0: none, each snippet scans its body), dropping what is kept. */
export function keepMatchesWithin(bytes: number): void {
  matchStore.max = bytes;
  matchStore.current = new Map();
  matchStore.previous = new Map();
  matchStore.bytes = 0;
}

/**
 * Lists of matches (start and end, each list in order) as one, each match with its list's query
 * word: in order of start, the longer first at the same start, the earlier list first when both are
 * the same. In room that the next call reuses (room.ts): bestWindow() reads it first.
 */
function merged(lists: Int32Array[], units: number[], count: number): Matches {
  const at = mergedRoom.take(3 * count);
  const next = new Int32Array(lists.length);
  for (let k = 0; k < 3 * count; k += 3) {
    let best = -1;
    for (let l = 0; l < lists.length; l++) {
      const i = next[l];
      const list = lists[l];
      if (i >= list.length) continue;
      if (best < 0) {
        best = l;
        continue;
      }
      const b = lists[best];
      const j = next[best];
      if (list[i] < b[j] || (list[i] === b[j] && list[i + 1] > b[j + 1])) best = l;
    }
    const list = lists[best];
    const i = next[best];
    at[k] = list[i];
    at[k + 1] = list[i + 1];
    at[k + 2] = units[best];
    next[best] = i + 2;
  }
  return { at, count };
}

/** Whether the character at `i` is a letter, digit or mark (false outside the text). */
function isWordAt(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return false;
  const c = text.charCodeAt(i);
  if (c < 256) return NARROW_WORD[c] === 1;
  const info = infoOf(text.codePointAt(i)!) & CLASS;
  return info === WORD || info === MARK;
}

type Folded = ReturnType<typeof foldKeepingPlaces>;


/** Where the matches in the body's plain text `text` are kept. */
function bodyMatches(k: Kept, text: string): KeptMatches {
  const m = k.matches;
  if (m !== undefined && m.text === text) return m;
  return (k.matches = new KeptMatches(text));
}

/** The folded plain text of a body, kept: hits shown again cost no folding. */
function foldedBody(k: Kept, text: string): Folded & { text: string } {
  const f = k.foldedBody;
  if (f !== undefined && f.text === text) return f;
  return (k.foldedBody = { text, ...foldKeepingPlaces(text) });
}

/**
 * The window of PASSAGE_CHARS with the most distinct query words, then the most matches, then the
 * earliest: two pointers over the matches, so linear in them. null when there is no match.
 */
function bestWindow(found: Matches): { at: number; distinct: number; matches: Match[] } | null {
  const { at: m, count } = found;
  if (count === 0) return null;
  // All 0 again when the loop ends: each match is counted in once and out once.
  const units = UNIT_COUNTS;
  let distinct = 0;
  let best = { from: 0, until: 0, distinct: 0, count: 0 };
  for (let from = 0, until = 0; from < count; from++) {
    while (until < count && m[3 * until + 1] - m[3 * from] <= PASSAGE_CHARS) {
      if (units[m[3 * until + 2]]++ === 0) distinct++;
      until++;
    }
    if (distinct > best.distinct || (distinct === best.distinct && until - from > best.count)) best = { from, until, distinct, count: until - from };
    if (--units[m[3 * from + 2]] === 0) distinct--;
  }
  const matches: Match[] = [];
  for (let i = best.from; i < best.until; i++) matches.push({ start: m[3 * i], end: m[3 * i + 1], unit: m[3 * i + 2] });
  return { at: m[3 * best.from], distinct: best.distinct, matches };
}

/** More than the units of a query (rank-query.ts keeps 64): the query word a match stands for is below it. */
const UNITS = 256;
/** bestWindow()'s matches per query word, and merged()'s matches, kept from one snippet to the next (room.ts). */
const UNIT_COUNTS = new Int32Array(UNITS);
const mergedRoom = new Room((n) => new Int32Array(n));

/**
 * About PASSAGE_CHARS of `text` holding the window's matches from `at` on, with a little before it,
 * cut at spaces where it can be, … where the text goes on; the matches' ranges moved to the snippet.
 */
function cut(text: string, matches: Match[], at: number, more: boolean): Omit<Passage, 'heading'> {
  const wide = UNSPACED_START.test(text.slice(at, at + 1));
  const chars = wide ? PASSAGE_CHARS / 2 : PASSAGE_CHARS;
  const lastEnd = matches.length > 0 ? matches[matches.length - 1].end : at;
  const spare = Math.max(0, chars - (lastEnd - at));
  let start = Math.max(0, at - Math.min(Math.floor(spare / 3), 60));
  let end = Math.min(text.length, Math.max(lastEnd, start + chars));
  if (start > 0 && !wide) {
    const space = text.lastIndexOf(' ', at - 1);
    const newline = text.lastIndexOf('\n', at - 1);
    const boundary = Math.max(space, newline);
    start = boundary >= start ? boundary + 1 : start;
  }
  if (end < text.length && !wide) {
    const space = text.slice(lastEnd, end).search(/\s\S*$/);
    if (space > 0) end = lastEnd + space;
  }
  const before = start > 0 ? '…' : '';
  const shown = text.slice(start, end).replaceAll('\n', ' ');
  const highlights: Array<[number, number]> = [];
  for (const m of matches) {
    if (m.start < start || m.end > end) continue;
    const s = m.start - start + before.length;
    const e = m.end - start + before.length;
    const last = highlights[highlights.length - 1];
    if (last !== undefined && s <= last[1]) last[1] = Math.max(last[1], e);
    else highlights.push([s, e]);
  }
  return { snippet: `${before}${shown}${end < text.length || more ? '…' : ''}`, highlights };
}

/** Lines longer than any heading are not looked up. */
const MAX_HEADING_CHARS = 1000;
/** The heading of the section holding index `at` of the body's plain text (null: before the first heading). */
function headingAt(t: Translation, k: Kept, text: string, at: number): HitHeading | null {
  const headings = keptHeadings(k, t);
  if (headings.length === 0) return null;
  let kept = k.headingPositions;
  if (kept === undefined || kept.text !== text) {
    // Each heading is a line of the plain text of its own: one walk over the lines finds them in
    // order (a heading the text does not show as a line, its Markdown being unusual, is skipped).
    const positions = new Int32Array(headings.length).fill(-1);
    const waiting = new Map<string, number[]>();
    for (let i = headings.length - 1; i >= 0; i--) {
      const list = waiting.get(headings[i].plain);
      if (list === undefined) waiting.set(headings[i].plain, [i]);
      else list.push(i);
    }
    let last = -1;
    for (let s = 0; s <= text.length; ) {
      let e = text.indexOf('\n', s);
      if (e < 0) e = text.length;
      const list = e - s <= MAX_HEADING_CHARS ? waiting.get(text.slice(s, e)) : undefined;
      while (list !== undefined && list.length > 0 && list[list.length - 1] < last) list.pop();
      if (list !== undefined && list.length > 0) {
        last = list.pop()!;
        positions[last] = s;
      }
      s = e + 1;
    }
    k.headingPositions = kept = { text, at: positions };
  }
  let found: Heading | null = null;
  for (let i = 0; i < headings.length; i++) {
    if (kept.at[i] < 0) continue;
    if (kept.at[i] > at) break;
    found = headings[i];
  }
  return found === null ? null : { text: found.text, anchor: found.anchor };
}
