import { HASH_START, hashStep, PairCounts, WordCounts } from './word-counts.ts';
import { CLASS, infoOf, MARK, MAY_FOLD, NARROW_WORD, OTHER, UNSPACED, WORD } from './char-classes.ts';
import { fold, foldInPlace, type DocTerms } from './words.ts';

/**
 * A document as the ranking index takes it: its terms counted per field, each term's counts packed
 * into one 32-bit number (rank-index.ts files them).
 */

/** The fields of a document, best first; a term's count in each is packed into one 32-bit number. */
export const TITLE = 0;
export const HEADINGS = 1;
export const SUMMARY = 2;
export const BODY = 3;
export const FIELDS = 4;
export const SHIFT = [28, 22, 16, 0];
export const MAX_COUNT = [15, 63, 63, 65535];
const STEP = SHIFT.map((s) => 2 ** s);
/**
 * Distinct terms a document is ranked by, at most: a long reference page has a few thousand. Past it
 * (a megabyte of random ideographs, a dump of identifiers) new terms are not counted for ranking (the
 * document-order search still finds every word), so one document adds at most this many postings and
 * one write's posting stays short, whatever it holds.
 */
const MAX_DOC_TERMS = 20_000;

/** A document's terms, counted per field as its text is read (in pieces, for a long body). */
export class RankDoc {
  /** Term → its counts, packed; pairs of BMP characters are kept apart under their code (pairs, below) until terms() is asked. */
  private readonly words = new WordCounts();
  private readonly pairs = new PairCounts();
  readonly lengths = [0, 0, 0, 0];
  /** Whether any text added has a character termsInto() cannot account for (it then gives nothing). */
  private uncounted = false;
  /**
   * The last character of each run of a script without spaces, outside the headings (for termsInto():
   * the term index takes it as a word of its own), while the text is one termsInto() accounts for.
   */
  private runEnds: Set<number> | null = null;

  /**
   * Whether termsInto() will give nothing because of the text added so far: a letter or mark from
   * U+0100 on in a word of a script with spaces, a run of one without them that folding may change,
   * or a character outside the BMP.
   */
  get uncountedText(): boolean {
    return this.uncounted;
  }

  /** Distinct terms counted: at most MAX_DOC_TERMS. */
  get size(): number {
    return this.words.size + this.pairs.size;
  }

  /** The terms with their packed counts, side by side. */
  termList(): { terms: string[]; packed: number[] } {
    const terms: string[] = [];
    const packed: number[] = [];
    this.words.appendTo(terms, packed);
    this.pairs.appendTo(terms, packed);
    return { terms, packed };
  }

  /**
   * Adds the words of `text` to `field`: the words words() cuts, folded as it folds them, found by a
   * loop over character codes with the class table of char-classes.ts (the Unicode pattern took
   * four times as long), the text put in lower case at once and only words that may fold otherwise
   * folded on their own.
   */
  add(field: number, text: string): void {
    const lower = text.toLowerCase();
    const n = lower.length;
    const narrow = NARROW_WORD;
    for (let i = 0; i < n; ) {
      let c = lower.charCodeAt(i);
      if (c < 256) {
        if (narrow[c] === 0) {
          i++;
          continue;
        }
      } else {
        // (A surrogate, paired or not, is left to indexTerms(): the two loops step over a lone one differently.)
        if ((c & 0xf800) === 0xd800) this.uncounted = true;
        const cls = infoOf(lower.codePointAt(i)!) & CLASS;
        // (A mark that starts no word is skipped by indexTerms() too.)
        if (cls === OTHER || cls === MARK) {
          i += c >= 0xd800 && c < 0xdc00 ? 2 : 1;
          continue;
        }
        if (cls === UNSPACED) {
          const start = i;
          let folds = (infoOf(lower.codePointAt(i)!) & MAY_FOLD) !== 0;
          let astral = c >= 0xd800 && c < 0xdc00;
          for (i += astral ? 2 : 1; i < n; ) {
            const cp = lower.codePointAt(i)!;
            const info = infoOf(cp);
            const k = info & CLASS;
            if (k !== UNSPACED && k !== MARK) break;
            if ((info & MAY_FOLD) !== 0 || k === MARK) folds = true;
            if (cp > 0xffff) astral = true;
            i += cp > 0xffff ? 2 : 1;
          }
          if (folds || astral) this.uncounted = true;
          else if (field !== HEADINGS && !this.uncounted) (this.runEnds ??= new Set()).add(lower.charCodeAt(i - 1));
          const run = lower.slice(start, i);
          this.countRun(field, folds ? fold(run) : run);
          continue;
        }
        // A word of a script with spaces that starts from U+0100 on.
        this.uncounted = true;
      }
      // A word of a script with spaces: letters, digits and marks, until anything else or a character of a script without them.
      const start = i;
      let folds = false;
      let hash = HASH_START;
      for (; i < n; ) {
        c = lower.charCodeAt(i);
        if (c < 256) {
          if (narrow[c] === 0) break;
          if (c >= 0xc0) folds = true;
          hash = hashStep(hash, c);
          i++;
          continue;
        }
        const info = infoOf(lower.codePointAt(i)!);
        const k = info & CLASS;
        if (k !== WORD && k !== MARK) break;
        this.uncounted = true;
        folds = true;
        i += c >= 0xd800 && c < 0xdc00 ? 2 : 1;
      }
      if (folds) {
        const word = lower.slice(start, i);
        this.count(field, foldInPlace(word) ?? fold(word));
      }
      else {
        this.words.addRange(lower, start, i, hash, SHIFT[field], MAX_COUNT[field], STEP[field], this.size < MAX_DOC_TERMS);
        this.lengths[field]++;
      }
    }
  }

  /**
   * Adds to `into` the terms the term index takes for the title, summary and body counted here
   * (indexTerms() of them: the words the same cuts give, each once; in scripts without spaces the
   * character pairs and each run's last character) and returns true; false, adding nothing, where
   * this cannot stand in for indexTerms(): a text with a character it does not account for (see
   * uncountedText), or more distinct terms than are counted (MAX_DOC_TERMS). A term met only in the
   * headings is left out: indexTerms() reads them in the body.
   */
  termsInto(into: DocTerms): boolean {
    if (this.uncounted || this.size >= MAX_DOC_TERMS) return false;
    // Any count outside the headings' bits: the title, the summary or the body has the term.
    const outsideHeadings = ~(MAX_COUNT[HEADINGS] * STEP[HEADINGS]);
    const words: string[] = [];
    const packed: number[] = [];
    this.words.appendTo(words, packed);
    const ends = this.runEnds === null ? null : new Set(this.runEnds);
    for (let k = 0; k < words.length; k++) {
      if ((packed[k] & outsideHeadings) === 0) continue;
      into.addWord(words[k]);
      // A run of one character is that word already.
      if (ends !== null && words[k].length === 1) ends.delete(words[k].charCodeAt(0));
    }
    // (No run outside the headings: no pair to give either.)
    if (ends === null) return true;
    const codes: number[] = [];
    packed.length = 0;
    this.pairs.appendCodesTo(codes, packed);
    for (let k = 0; k < codes.length; k++) if ((packed[k] & outsideHeadings) !== 0) into.addPair(codes[k]);
    for (const c of ends) into.addWord(String.fromCharCode(c));
    return true;
  }

  /** Counts a run of a script without spaces (folded) as its character pairs, or as itself when it is one character. */
  private countRun(field: number, run: string): void {
    if (run.length === 1) {
      this.count(field, run);
      return;
    }
    // Pairs as numbers, as the term index keeps them: a megabyte of random ideographs is a million
    // distinct pairs, and a string made for each would cost more than all the rest of the indexing.
    for (let i = 0; i + 1 < run.length; i++) {
      const a = run.charCodeAt(i);
      const b = run.charCodeAt(i + 1);
      if ((a & 0xf800) === 0xd800 || (b & 0xf800) === 0xd800) {
        this.countPairWithSurrogates(field, run, i);
        continue;
      }
      this.pairs.add(a * 65536 + b, SHIFT[field], MAX_COUNT[field], STEP[field], this.size < MAX_DOC_TERMS);
      this.lengths[field]++;
    }
  }

  /** The pair of characters starting at unit `i` of `run` when either is outside the BMP (a surrogate pair); nothing for the low half of one. */
  private countPairWithSurrogates(field: number, run: string, i: number): void {
    const a = run.codePointAt(i)!;
    if ((run.charCodeAt(i) & 0xfc00) === 0xdc00) return;
    const next = i + (a > 0xffff ? 2 : 1);
    if (next >= run.length) return;
    const b = run.codePointAt(next)!;
    this.count(field, String.fromCodePoint(a, b));
  }

  private count(field: number, term: string): void {
    this.words.addWord(term, SHIFT[field], MAX_COUNT[field], STEP[field], this.size < MAX_DOC_TERMS);
    this.lengths[field]++;
  }
}

/** A query word (or a character pair of one in a script without spaces) and the terms it matches, each with the weight of that kind of match. */
