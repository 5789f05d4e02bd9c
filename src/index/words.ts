/**
 * Words for search. Text is cut into words at anything that is not a letter, digit or mark, and
 * folded so matching ignores case and accents. Scripts written without spaces (Chinese, Japanese,
 * Thai, …) have no such cuts inside a sentence, so their runs are indexed as overlapping pairs of
 * characters (bigrams): a word of two or more characters is found wherever it occurs in a run, by
 * all of its pairs. A dictionary segmenter (Intl.Segmenter) would cost about 40× as much time on
 * every write and start, and still miss words inside compounds.
 */

import { pairCode } from './pair-table.ts';

/** Scripts without spaces between words, plus the katakana prolonged-sound mark (script Common). */
const UNSPACED = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30FC\uFF70`;
const TOKEN = new RegExp(String.raw`[${UNSPACED}][${UNSPACED}\p{M}]*|[[\p{L}\p{N}]--[${UNSPACED}]][[\p{L}\p{N}\p{M}]--[${UNSPACED}]]*`, 'gv');
const UNSPACED_START = new RegExp(`^[${UNSPACED}]`, 'v');
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
 * A document's terms: words as strings, and the character pairs of unspaced scripts as numbers
 * (pairCode) when both characters are in the Basic Multilingual Plane, which nearly all are. Either
 * may come more than once (TermIndex ignores repeats): a set of a document's 600,000 distinct words
 * would hold the event loop for tens of milliseconds each time it grows. See PairTable for why pairs
 * are not strings.
 */
export class DocTerms {
  readonly words: string[] = [];
  pairs = new Uint32Array(256);
  pairCount = 0;

  addPair(code: number): void {
    if (this.pairCount === this.pairs.length) {
      const grown = new Uint32Array(this.pairs.length * 2);
      grown.set(this.pairs);
      this.pairs = grown;
    }
    this.pairs[this.pairCount++] = code;
  }
}

/**
 * The terms a text is indexed under: its words, with each unspaced run replaced by its character
 * pairs and its last character (so a one-character query finds the run's end too).
 */
export function indexTerms(text: string, into: DocTerms): void {
  const found = tokens(text);
  if (!NON_ASCII.test(text)) {
    for (const token of found) into.words.push(token);
    return;
  }
  // Texts repeat their words: fold each distinct one once.
  for (const token of new Set(found)) {
    const w = foldToken(token);
    if (w === '') continue;
    if (!isUnspaced(w)) {
      into.words.push(w);
      continue;
    }
    // Code point by code point: a pair with a character outside the BMP is a string.
    let start = 0;
    let code = w.codePointAt(0)!;
    for (let i = code > 0xffff ? 2 : 1; i < w.length; ) {
      const nextCode = w.codePointAt(i)!;
      const size = nextCode > 0xffff ? 2 : 1;
      if (code <= 0xffff && nextCode <= 0xffff) into.addPair(pairCode(code, nextCode));
      else into.words.push(w.slice(start, i + size));
      start = i;
      code = nextCode;
      i += size;
    }
    into.words.push(w.slice(start));
  }
}

const NON_ASCII = /[^\x00-\x7f]/;

/** The words of `text`, lower case (the whole text at once: far cheaper than word by word). */
const tokens = (text: string): string[] => text.toLowerCase().match(TOKEN) ?? [];

/**
 * fold() for a word already in lower case: only letters that decompose into a base and an accent
 * (Latin, Greek, Cyrillic and a few symbols) need the Unicode normalizations.
 */
const foldToken = (token: string) => (MAY_DECOMPOSE.test(token) ? fold(token) : token);
const MAY_DECOMPOSE = /[\u00c0-\u04ff\u1e00-\u1fff\u2100-\u214f\uf900-\ufaff\ud800-\udfff]/;

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
