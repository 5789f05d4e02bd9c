/**
 * Words for search. Text is cut into words at anything that is not a letter, digit or mark, and
 * folded so matching ignores case and accents. Scripts written without spaces (Chinese, Japanese,
 * Thai, …) have no such cuts inside a sentence, so their runs are indexed as overlapping pairs of
 * characters (bigrams): a word of two or more characters is found wherever it occurs in a run, by
 * all of its pairs. A dictionary segmenter (Intl.Segmenter) would cost about 40× as much time on
 * every write and start, and still miss words inside compounds.
 */

import { CLASS, infoOf, MARK, MAY_DECOMPOSE, MAY_FOLD, NARROW_WORD, OTHER, UNSPACED, UNSPACED_SCRIPTS, WORD } from './char-classes.ts';
import { pairCode } from './pair-table.ts';
import { SeenTerms } from './seen-terms.ts';
import { hashRange, keyHash } from './token-keys.ts';
import { TermTable } from './term-table.ts';

const TOKEN = new RegExp(String.raw`[${UNSPACED_SCRIPTS}][${UNSPACED_SCRIPTS}\p{M}]*|[[\p{L}\p{N}]--[${UNSPACED_SCRIPTS}]][[\p{L}\p{N}\p{M}]--[${UNSPACED_SCRIPTS}]]*`, 'gv');
const UNSPACED_START = new RegExp(`^[${UNSPACED_SCRIPTS}]`, 'v');
const ASCII = /^[\x00-\x7f]*$/;
/** No script without spaces starts below Thai. */
const FIRST_UNSPACED = 0x0e00;

/** Lower case, without accents: `Éclair` → `eclair`. */
// Only the combining marks of Latin, Greek and Cyrillic accents go: the voicing marks of Japanese
// kana (バ vs ハ) make different words.
export function fold(term: string): string {
  if (ASCII.test(term)) return term.toLowerCase();
  return term.normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC').toLowerCase();
}

/** A word of a query or a text: folded, and whether it is a run of a script without spaces. */
export interface Word {
  text: string;
  unspaced: boolean;
}

/** The folded words of `text`, in order (runs of unspaced scripts are one word each). */
export function words(text: string): Word[] {
  const out: Word[] = [];
  for (const token of tokens(text)) {
    const w = foldToken(token);
    if (w !== '') out.push({ text: w, unspaced: isUnspaced(w) });
  }
  return out;
}

/**
 * A document's terms: words, by their number in `table` (the terms of the index it is for) if it
 * has them, else as strings; and the character pairs of unspaced scripts as numbers (pairCode) when
 * both characters are in the Basic Multilingual Plane, which nearly all are. Any may come more than
 * once (TermIndex ignores repeats), but rarely: a token the document had before adds nothing (see
 * SeenTerms for why that is not a set of all its words). See PairTable for why pairs are not strings.
 */
export class DocTerms {
  /** Words the index has: their numbers in `table`. */
  readonly ids: number[] = [];
  /** Words it had not when they were read. */
  readonly words: string[] = [];
  /** The hash (hashRange()) of each of `words`. */
  readonly wordHashes: number[] = [];
  pairs = new Uint32Array(0);
  pairCount = 0;
  private seenTerms: SeenTerms | null = null;

  /** `table`: the terms of the index the document is for (TermIndex.docTerms()); by default none. */
  constructor(readonly table = new TermTable()) {}

  /** Adds a word (folded). */
  addWord(word: string): void {
    const hash = hashRange(word, 0, word.length);
    const id = this.table.idOf(word, hash);
    if (id >= 0) this.ids.push(id);
    else {
      this.words.push(word);
      this.wordHashes.push(hash);
    }
  }

  /** Adds the word `text.slice(start, end)` (folded already; `hash`: hashRange() of it). */
  addWordAt(text: string, start: number, end: number, hash: number): void {
    const id = this.table.find(text, start, end, hash);
    if (id >= 0) this.ids.push(id);
    else {
      this.words.push(text.slice(start, end));
      this.wordHashes.push(hash);
    }
  }

  /** What indexTerms() has seen of this document so far. */
  get seen(): SeenTerms {
    return (this.seenTerms ??= SeenTerms.take());
  }

  /** Lets go of what indexTerms() kept to skip repeats, for the next document: call it once the text is all in. */
  done(): void {
    this.seenTerms?.giveBack();
    this.seenTerms = null;
  }

  addPair(code: number): void {
    if (!this.seen.addPair(code)) return;
    if (this.pairCount === this.pairs.length) {
      const grown = new Uint32Array(Math.max(256, this.pairs.length * 2));
      grown.set(this.pairs);
      this.pairs = grown;
    }
    this.pairs[this.pairCount++] = code;
  }
}

/**
 * The terms a text is indexed under: its words, with each unspaced run replaced by its character
 * pairs and its last character (so a one-character query finds the run's end too). The words are
 * those of tokens(), cut by a loop over character codes (see char-classes.ts); a token the document
 * had already adds nothing, one its index has adds a number, and only one neither has becomes a
 * string. Only a token with a letter that folding may change is folded.
 */
export function indexTerms(text: string, into: DocTerms): void {
  // The whole text at once: far cheaper than word by word, and Greek's final sigma depends on what follows the word.
  const lower = text.toLowerCase();
  const end = lower.length;
  const seen = into.seen;
  for (let i = narrowWords(lower, 0, seen, into); i < end; i = narrowWords(lower, i, seen, into)) i = otherToken(lower, i, seen, into);
}

/**
 * Adds the words of `lower` from `from` on while its characters are below U+0100 (ASCII and
 * Latin-1: all of most texts in languages written in Latin script); returns where it stopped: the
 * end, a character from U+0100 on, or the start of a word that goes on with one (otherToken() takes
 * it).
 *
 * Without a branch per character: where words start and end is written down for every character
 * and the counts move only at a start or end. A loop that branched at the ends of words, which come
 * every few characters and cannot be predicted, took twice as long.
 */
function narrowWords(lower: string, from: number, seen: SeenTerms, into: DocTerms): number {
  const end = lower.length;
  // Locals: module bindings are loaded anew at every use.
  const wordChar = NARROW_WORD;
  const starts = STARTS;
  const ends = ENDS;
  const lasts = LASTS;
  const befores = BEFORES;
  const fresh = FRESH;
  // 1 inside a word; its keys so far (token-keys.ts: nextBefore, nextLast, and 0 outside words).
  let inWord = 0;
  let last = 0;
  let before = 0;
  for (let i = from; ; ) {
    const stop = Math.min(end, i + BLOCK);
    // Words started (a word still going on at the last block's stop is starts[0]) and ended in this block.
    let started = inWord;
    let ended = 0;
    let j = i;
    for (; j < stop; j++) {
      const c = lower.charCodeAt(j);
      if (c >= 0x100) break;
      const w = wordChar[c];
      starts[started] = j;
      started += w & (inWord ^ 1);
      ends[ended] = j;
      lasts[ended] = last;
      befores[ended] = before;
      ended += inWord & (w ^ 1);
      before = ((before << 8) | (last >>> 24)) & -w;
      last = ((last << 8) ^ c) & -w;
      inWord = w;
    }
    const count = seen.addNarrowTokens(lower, starts, ends, lasts, befores, ended, fresh);
    for (let f = 0; f < count; f++) {
      const k = fresh[f];
      addFreshNarrow(lower, starts[k], ends[k], keyHash(lasts[k], befores[k], ends[k] - starts[k], lower.charCodeAt(starts[k])), into);
    }
    if (j === stop && stop < end) {
      starts[0] = starts[ended];
      i = stop;
      continue;
    }
    if (inWord === 0) return j;
    if (j < end) return starts[ended];
    if (seen.add(lower, starts[ended], end)) addFreshNarrow(lower, starts[ended], end, keyHash(last, before, end - starts[ended], lower.charCodeAt(starts[ended])), into);
    return end;
  }
}

/**
 * A token new to the document, `lower.slice(start, end)`, of characters below U+0100 (`hash`:
 * hashRange() of it). One with a letter from U+00C0 on is folded letter by letter, as foldInPlace()
 * does: each of those letters is a base and one accent, which folding drops, and nothing composes.
 */
function addFreshNarrow(lower: string, start: number, end: number, hash: number, into: DocTerms): void {
  let folded = '';
  let from = start;
  for (let k = start; k < end; k++) {
    const c = lower.charCodeAt(k);
    if (c < 0xc0) continue;
    const f = latinFold(c);
    if (f === null) {
      addToken(lower.slice(start, end), into);
      return;
    }
    folded += lower.slice(from, k) + f;
    from = k + 1;
  }
  if (from === start) into.addWordAt(lower, start, end, hash);
  else into.addWord(folded + lower.slice(from, end));
}

/** Characters narrowWords() reads before it adds the words it found. */
const BLOCK = 1024;
const STARTS = new Int32Array(BLOCK + 1);
const ENDS = new Int32Array(BLOCK + 1);
const LASTS = new Int32Array(BLOCK + 1);
const BEFORES = new Int32Array(BLOCK + 1);
const FRESH = new Int32Array(BLOCK + 1);

/**
 * Adds the token that starts at `start`, where narrowWords() stopped (a character from U+0100 on, or
 * a word that goes on with one), or skips the character there if it starts none; returns where the
 * next one may start.
 */
function otherToken(lower: string, start: number, seen: SeenTerms, into: DocTerms): number {
  const end = lower.length;
  let c = lower.charCodeAt(start);
  let kind = WORD;
  if (c >= 0x80) {
    const cp = c >= 0xd800 && c <= 0xdbff ? lower.codePointAt(start)! : c;
    kind = infoOf(cp) & CLASS;
    if (kind === OTHER || kind === MARK) return start + (cp > 0xffff ? 2 : 1);
  }
  // Characters of its kind, and marks; `info` collects MAY_FOLD (without it, the token is its own folded form).
  let info = 0;
  let i = start;
  for (; i < end; i++) {
    c = lower.charCodeAt(i);
    if (c < 0x80) {
      if (kind !== WORD || NARROW_WORD[c] === 0) break;
    } else {
      const cp = c >= 0xd800 && c <= 0xdbff ? lower.codePointAt(i)! : c;
      const k = infoOf(cp);
      if ((k & CLASS) !== kind && (k & CLASS) !== MARK) break;
      info |= k;
      if (cp > 0xffff) i++;
    }
  }
  const plain = (info & MAY_FOLD) === 0;
  // A run of Chinese or Japanese is rarely seen twice; its pairs and last character often are.
  if (kind === UNSPACED && plain && lower.charCodeAt(start) >= FIRST_UNSPACED) addRun(lower, start, i, seen, into);
  else if (seen.add(lower, start, i)) {
    if (plain) into.addWordAt(lower, start, i, hashRange(lower, start, i));
    else addToken(lower.slice(start, i), into);
  }
  return i;
}

/** The terms of an unspaced run `lower.slice(start, end)` of BMP characters that folding leaves as they are. */
function addRun(lower: string, start: number, end: number, seen: SeenTerms, into: DocTerms): void {
  for (let k = start + 1; k < end; k++) into.addPair(pairCode(lower.charCodeAt(k - 1), lower.charCodeAt(k)));
  if (seen.add(lower, end - 1, end)) into.addWordAt(lower, end - 1, end, hashRange(lower, end - 1, end));
}

/** A token with a character outside ASCII: folded, and if unspaced, cut into its pairs and last character. */
function addToken(token: string, into: DocTerms): void {
  const w = foldToken(token);
  if (w === '') return;
  if (!isUnspaced(w)) {
    into.addWord(w);
    return;
  }
  // Code point by code point: a pair with a character outside the BMP is a string.
  let start = 0;
  let code = w.codePointAt(0)!;
  for (let i = code > 0xffff ? 2 : 1; i < w.length; ) {
    const nextCode = w.codePointAt(i)!;
    const size = nextCode > 0xffff ? 2 : 1;
    if (code <= 0xffff && nextCode <= 0xffff) into.addPair(pairCode(code, nextCode));
    else into.addWord(w.slice(start, i + size));
    start = i;
    code = nextCode;
    i += size;
  }
  into.addWord(w.slice(start));
}

/** The words of `text`, lower case (the whole text at once: far cheaper than word by word). */
const tokens = (text: string): string[] => text.toLowerCase().match(TOKEN) ?? [];

/** fold() for a word already in lower case: only letters that decompose (MAY_DECOMPOSE) need the Unicode normalizations. */
const foldToken = (token: string) => (MAY_DECOMPOSE.test(token) ? fold(token) : token);

const isUnspaced = (w: string) => w.charCodeAt(0) >= FIRST_UNSPACED && UNSPACED_START.test(w);

/**
 * What one query word must find, as prefixes of indexed terms, every one of them: the word itself,
 * or for an unspaced run each of its character pairs (a one-character run: any term starting with it).
 */
export function queryTerms(word: Word): string[] {
  if (!word.unspaced) return [word.text];
  const chars = Array.from(word.text);
  if (chars.length === 1) return chars;
  const pairs: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) pairs.push(chars[i] + chars[i + 1]);
  return pairs;
}

/**
 * fold(text) when it can be had character by character, each folding to one (Latin letters, CJK,
 * kana, Hangul, fullwidth forms, punctuation): far cheaper than the Unicode normalizations, for the
 * lines a snippet looks at. null for text with anything else (Greek's final sigma, combining marks,
 * characters that compose with their neighbours): fold() then.
 */
export function foldInPlace(text: string): string | null {
  if (ASCII.test(text)) return text.toLowerCase();
  const lower = text.toLowerCase();
  if (lower.length !== text.length) return null;
  let out = '';
  let from = 0;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if (c < 0xc0) continue;
    if (c <= 0x24f) {
      const f = latinFold(c);
      if (f === null) return null;
      if (f === lower[i]) continue;
      out += lower.slice(from, i) + f;
      from = i + 1;
    } else if (!FOLDS_AS_ITSELF(c)) return null;
  }
  return from === 0 ? lower : out + lower.slice(from);
}

/** Characters without case, decomposition or composition with a neighbour: fold() leaves them as they are. */
const FOLDS_AS_ITSELF = (c: number) =>
  (c >= 0x2010 && c <= 0x205e) || (c >= 0x3000 && c <= 0x30ff && c !== 0x3099 && c !== 0x309a) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xff00 && c <= 0xffef);

/** fold() of each lower-case Latin letter from U+00C0 to U+024F (null: it does not fold to one character). */
let latinFolds: Array<string | null> | null = null;

function latinFold(c: number): string | null {
  if (latinFolds === null) {
    latinFolds = [];
    for (let code = 0xc0; code <= 0x24f; code++) {
      const f = fold(String.fromCharCode(code));
      latinFolds.push(f.length === 1 ? f : null);
    }
  }
  return latinFolds[c - 0xc0];
}

/**
 * A text folded as the index folds words, with where each folded character came from when folding
 * changed lengths (`source`, index in the folded text → index in the text; null: the same places):
 * one unit per unit nearly always (foldInPlace), the map made only where not.
 */
export function foldKeepingPlaces(text: string): { folded: string; source: number[] | null } {
  const folded = foldInPlace(text);
  return folded !== null ? { folded, source: null } : foldWithMap(text);
}

/** The folded text with, for each of its characters, the index of the character it came from. */
export function foldWithMap(text: string): { folded: string; source: number[] } {
  let folded = '';
  const source: number[] = [];
  let i = 0;
  for (const ch of text) {
    const f = fold(ch);
    for (let k = 0; k < f.length; k++) source.push(i);
    folded += f;
    i += ch.length;
  }
  source.push(i);
  return { folded, source };
}
