import { boundedDistance } from './edit-distance.ts';
import { BODY, FIELDS, MAX_COUNT, SHIFT, SUMMARY, type RankDoc } from './rank-doc.ts';
import { lowerBound } from './sorted-terms.ts';
import { stemmerFor } from './stemmers.ts';
import { CLASS, infoOf, UNSPACED } from './char-classes.ts';
import { queryTerms } from './words.ts';

/**
 * The index behind search by relevance: for each term, the documents holding it with how often it
 * occurs in each field (title, headings, summary, body), and each document's field lengths: what a
 * BM25F-family score needs. Terms are the folded words of the text (the same words the term index
 * matches on) and, in scripts written without spaces, pairs of characters. Stems, prefixes and typos
 * are found at query time through the vocabulary (one stem map, one list per word length, one sorted
 * list), so each posting is stored once, under the word as written.
 *
 * Documents are numbered as they are added and keep their numbers; a document that goes is marked
 * gone, and the postings are rebuilt without the gone ones once those outnumber the living ones.
 */

/** Terms filed between two looks at the clock in addInSlices. */
const TERMS_PER_SLICE = 512;

export interface Unit {
  word: string;
  terms: Array<{ id: number; weight: number }>;
}

/** Weights of a match by kind: the word as typed beats its other forms, which beat a completion, which beats a typo. */
const EXACT = 1;
const STEM = 0.85;
const PREFIX = 0.6;
const TYPO = [1, 0.5, 0.3];
/** Field weights (BM25F): a word in the title says far more about a page than one in its body. */
const FIELD_WEIGHT = [4, 2.5, 2, 1];
/** Length normalisation per field: short fields barely (a title of four words is not worse than one of two). */
const B = [0.3, 0.4, 0.5, 0.75];
const K1 = 1.2;
/** Terms one query word may expand to by prefix, by typo, or by stem; the most frequent are kept. */
const MAX_EXPANSIONS = 48;
/** A prefix is expanded over at most this many terms of the sorted vocabulary; past it the search is partial. */
const MAX_PREFIX_SCAN = 20_000;

export class RankIndex {
  private keyOf: Array<string | undefined> = [];
  private readonly numbers = new Map<string, number>();
  private lens = new Uint32Array(FIELDS * 64);
  private readonly sums = [0, 0, 0, 0];
  private ids = new Map<string, number>();
  private terms: string[] = [];
  /** Term number → postings: document number and packed counts, in pairs. */
  private posts: Uint32Array[] = [];
  private counts: number[] = [];
  /** Term number → its stem (when another than itself). */
  private stemOf: Array<string | undefined> = [];
  private stems = new Map<string, number[]>();
  /** Term numbers of words (not character pairs) by first letter and length (startKey()), for typos: the first letter is as typed. */
  private byStart = new Map<number, number[]>();
  private sorted: string[] = [];
  private unsorted: string[] = [];
  private gone = 0;
  /** Term number → how many documents hold it in each field (gone ones until the next compaction): each field's rarity of the word. */
  private fieldDf = new Uint32Array(FIELDS * 256);
  /**
   * Document number → K1 times its length normalisation in each field (BM25), made when a search
   * needs them after the documents or their average lengths changed.
   */
  private norms: Float64Array | null = null;
  private readonly stem: ((word: string) => string) | null;

  constructor(readonly language: string) {
    this.stem = stemmerFor(language);
  }

  get size(): number {
    return this.numbers.size;
  }

  add(key: string, doc: RankDoc): void {
    const n = this.reserve(doc);
    const { terms, packed } = doc.termList();
    for (let i = 0; i < terms.length; i++) this.post(this.termId(terms[i]), n, packed[i]);
    this.swapIn(key, n);
  }

  /**
   * add(), with `pause()` between batches of terms, for a document whose terms would hold the event
   * loop (each new term is stemmed and filed). The postings go in under a document number without a
   * key, which searches skip; the number gets its key and the old one goes in one synchronous step at
   * the end. Callers must not change the index otherwise until it resolves (as TermIndex.addInSlices).
   */
  async addInSlices(key: string, doc: RankDoc, pause: () => Promise<void>): Promise<void> {
    const n = this.reserve(doc);
    const { terms, packed } = doc.termList();
    for (let i = 0; i < terms.length; i++) {
      this.post(this.termId(terms[i]), n, packed[i]);
      if ((i + 1) % TERMS_PER_SLICE === 0) await pause();
    }
    this.swapIn(key, n);
  }

  /** A new document number, without a key yet, with the document's field lengths. */
  private reserve(doc: RankDoc): number {
    const n = this.keyOf.length;
    this.keyOf.push(undefined);
    if (this.lens.length < (n + 1) * FIELDS) {
      const grown = new Uint32Array(this.lens.length * 2);
      grown.set(this.lens);
      this.lens = grown;
    }
    for (let f = 0; f < FIELDS; f++) this.lens[n * FIELDS + f] = doc.lengths[f];
    return n;
  }

  /** Gives number `n` the key `key`, in place of the key's old number if it had one. */
  private swapIn(key: string, n: number): void {
    this.remove(key);
    this.keyOf[n] = key;
    this.numbers.set(key, n);
    for (let f = 0; f < FIELDS; f++) this.sums[f] += this.lens[n * FIELDS + f];
    this.norms = null;
  }

  remove(key: string): void {
    const n = this.numbers.get(key);
    if (n === undefined) return;
    this.numbers.delete(key);
    this.keyOf[n] = undefined;
    for (let f = 0; f < FIELDS; f++) this.sums[f] -= this.lens[n * FIELDS + f];
    this.norms = null;
    if (++this.gone > Math.max(1024, this.numbers.size)) this.compact();
  }

  keyAt(n: number): string | undefined {
    return this.keyOf[n];
  }

  get capacity(): number {
    return this.keyOf.length;
  }

  private termId(term: string): number {
    let id = this.ids.get(term);
    if (id !== undefined) return id;
    id = this.terms.length;
    this.ids.set(term, id);
    this.terms.push(term);
    this.posts.push(EMPTY);
    this.counts.push(0);
    this.vocabularyAdd(id, term, undefined);
    return id;
  }

  private vocabularyAdd(id: number, term: string, knownStem: string | undefined): void {
    this.unsorted.push(term);
    if (isPair(term)) {
      this.stemOf.push(undefined);
      return;
    }
    const key = startKey(term.charCodeAt(0), term.length);
    const started = this.byStart.get(key);
    if (started === undefined) this.byStart.set(key, [id]);
    else started.push(id);
    const stem = knownStem ?? (this.stem === null ? term : this.stem(term));
    this.stemOf.push(stem === term ? undefined : stem);
    const same = this.stems.get(stem);
    if (same === undefined) this.stems.set(stem, [id]);
    else same.push(id);
  }

  private post(id: number, n: number, packed: number): void {
    let p = this.posts[id];
    const c = this.counts[id];
    if (2 * c + 2 > p.length) {
      const grown = new Uint32Array(Math.max(2, p.length * 2));
      grown.set(p);
      this.posts[id] = p = grown;
    }
    p[2 * c] = n;
    p[2 * c + 1] = packed;
    this.counts[id] = c + 1;
    this.countFields(id, packed);
  }

  /** Adds a posting's fields to its term's counts of documents per field (fieldDf). */
  private countFields(id: number, packed: number): void {
    if (this.fieldDf.length < (id + 1) * FIELDS) {
      const grown = new Uint32Array(Math.max(FIELDS * 256, this.fieldDf.length * 2));
      grown.set(this.fieldDf);
      this.fieldDf = grown;
    }
    for (let f = 0; f < FIELDS; f++) if (((packed >>> SHIFT[f]) & MAX_COUNT[f]) !== 0) this.fieldDf[id * FIELDS + f]++;
  }

  /** Drops the gone documents from the postings and the terms no document has any more. */
  private compact(): void {
    const old = { terms: this.terms, posts: this.posts, counts: this.counts, stemOf: this.stemOf };
    this.ids = new Map();
    this.terms = [];
    this.posts = [];
    this.counts = [];
    this.stemOf = [];
    this.stems = new Map();
    this.byStart = new Map();
    this.sorted = [];
    this.unsorted = [];
    this.fieldDf = new Uint32Array(FIELDS * 256);
    for (let t = 0; t < old.terms.length; t++) {
      const p = old.posts[t];
      let living = 0;
      for (let i = 0; i < old.counts[t]; i++) if (this.keyOf[p[2 * i]] !== undefined) living++;
      if (living === 0) continue;
      const kept = new Uint32Array(2 * living);
      let k = 0;
      for (let i = 0; i < old.counts[t]; i++) {
        if (this.keyOf[p[2 * i]] === undefined) continue;
        kept[k++] = p[2 * i];
        kept[k++] = p[2 * i + 1];
      }
      const id = this.terms.length;
      this.ids.set(old.terms[t], id);
      this.terms.push(old.terms[t]);
      this.posts.push(kept);
      this.counts.push(living);
      for (let i = 1; i < kept.length; i += 2) this.countFields(id, kept[i]);
      this.vocabularyAdd(id, old.terms[t], old.stemOf[t] ?? old.terms[t]);
    }
    this.gone = 0;
  }

  /** The vocabulary in order (for prefixes), brought up to date with the terms added since. */
  private sortedTerms(): string[] {
    if (this.unsorted.length > 0) {
      const added = this.unsorted.sort();
      this.unsorted = [];
      if (this.sorted.length === 0) this.sorted = added;
      else {
        const merged: string[] = new Array(this.sorted.length + added.length);
        let i = 0;
        let j = 0;
        let k = 0;
        while (i < this.sorted.length && j < added.length) merged[k++] = this.sorted[i] <= added[j] ? this.sorted[i++] : added[j++];
        while (i < this.sorted.length) merged[k++] = this.sorted[i++];
        while (j < added.length) merged[k++] = added[j++];
        this.sorted = merged;
      }
    }
    return this.sorted;
  }

  /** How many documents hold term `id` (gone ones included until the next compaction: an estimate). */
  private df(id: number): number {
    return this.counts[id];
  }

  /**
   * What a query word matches: itself, the other words of its stem, typos (a word of 5+ letters one
   * edit away, 9+ two), and, for the last word of a query being typed (`prefix`), the words it
   * starts. Character pairs of unspaced scripts match themselves only (a single character, the
   * pairs it starts). `partial`: a prefix matched more terms than were looked at.
   */
  expand(word: string, unspaced: boolean, prefix: boolean): { units: Unit[]; partial: boolean } {
    if (unspaced) {
      const chars = Array.from(word);
      if (chars.length === 1) {
        const { terms, partial } = this.completions(word, new Set());
        return { units: [{ word, terms }], partial };
      }
      const units: Unit[] = [];
      for (const pair of queryTerms({ text: word, unspaced })) {
        const id = this.ids.get(pair);
        units.push({ word: pair, terms: id === undefined ? [] : [{ id, weight: EXACT }] });
      }
      return { units, partial: false };
    }
    const terms: Unit['terms'] = [];
    const taken = new Set<number>();
    const take = (id: number, weight: number) => {
      if (taken.has(id) || this.counts[id] === 0) return;
      taken.add(id);
      terms.push({ id, weight });
    };
    const exact = this.ids.get(word);
    if (exact !== undefined) take(exact, EXACT);
    if (this.stem !== null) {
      const same = this.stems.get(this.stem(word)) ?? [];
      for (const id of this.mostFrequent(same, MAX_EXPANSIONS)) take(id, STEM);
    }
    let partial = false;
    if (prefix && word.length >= 2) {
      const more = this.completions(word, taken);
      partial = more.partial;
      for (const t of more.terms) take(t.id, t.weight);
    }
    const max = word.length >= 9 ? 2 : word.length >= 5 ? 1 : 0;
    if (max > 0) for (const t of this.typos(word, max, taken)) take(t.id, t.weight);
    return { units: [{ word, terms }], partial };
  }

  /** The words starting with `word` (not itself), the most frequent MAX_EXPANSIONS, weighted by how much of each is typed. */
  private completions(word: string, taken: Set<number>): { terms: Unit['terms']; partial: boolean } {
    const sorted = this.sortedTerms();
    const lo = lowerBound(sorted, word);
    const found: number[] = [];
    let partial = false;
    for (let i = lo; i < sorted.length && sorted[i].startsWith(word); i++) {
      if (i - lo >= MAX_PREFIX_SCAN) {
        partial = true;
        break;
      }
      const id = this.ids.get(sorted[i]);
      if (id !== undefined && sorted[i] !== word && !taken.has(id)) found.push(id);
    }
    return { terms: this.mostFrequent(found, MAX_EXPANSIONS).map((id) => ({ id, weight: PREFIX * (0.5 + (0.5 * word.length) / this.terms[id].length) })), partial };
  }

  /** Words within `max` edits of `word` (not itself), nearest first, then the most frequent. */
  private typos(word: string, max: number, taken: Set<number>): Unit['terms'] {
    const near: Array<{ id: number; d: number }> = [];
    const first = word.charCodeAt(0);
    for (let length = Math.max(1, word.length - max); length <= word.length + max; length++) {
      // The first letter is rarely the one mistyped; asking for it keeps "tasks" from matching "asks".
      for (const id of this.byStart.get(startKey(first, length)) ?? []) {
        if (taken.has(id) || this.counts[id] === 0) continue;
        const d = boundedDistance(word, this.terms[id], max);
        if (d > 0 && d <= max) near.push({ id, d });
      }
    }
    near.sort((a, b) => a.d - b.d || this.df(b.id) - this.df(a.id));
    return near.slice(0, MAX_EXPANSIONS).map(({ id, d }) => ({ id, weight: TYPO[d] }));
  }

  private mostFrequent(ids: number[], n: number): number[] {
    if (ids.length <= n) return ids;
    return [...ids].sort((a, b) => this.df(b) - this.df(a)).slice(0, n);
  }

  /** The counts (packed) of term `term` in document number `n`; 0 when the document does not hold it. Postings are in document order: a bisection. */
  countsIn(term: string, n: number): number {
    const id = this.ids.get(term);
    if (id === undefined) return 0;
    const p = this.posts[id];
    let lo = 0;
    let hi = this.counts[id];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (p[2 * mid] < n) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.counts[id] && p[2 * lo] === n ? p[2 * lo + 1] : 0;
  }

  /** Whether packed counts (countsIn) have the term in the body, or in the summary. */
  static inBody = (packed: number): boolean => (packed & MAX_COUNT[BODY]) !== 0;
  static inSummary = (packed: number): boolean => ((packed >>> SHIFT[SUMMARY]) & MAX_COUNT[SUMMARY]) !== 0;

  /** The term of number `id`. */
  termAt(id: number): string {
    return this.terms[id];
  }

  /**
   * The nearest term to `word` for a "did you mean": within one edit for words of 3–4 letters, two
   * for longer ones, starting with the same letter; the most frequent among the nearest. undefined
   * when none is.
   */
  nearest(word: string): string | undefined {
    if (word.length < 3) return undefined;
    const max = word.length >= 5 ? 2 : 1;
    const first = word.charCodeAt(0);
    let best: { id: number; d: number } | undefined;
    for (let length = Math.max(1, word.length - max); length <= word.length + max; length++) {
      // As for typos: the first letter as typed.
      for (const id of this.byStart.get(startKey(first, length)) ?? []) {
        if (this.counts[id] === 0) continue;
        const d = boundedDistance(word, this.terms[id], max);
        if (d > 0 && d <= max && (best === undefined || d < best.d || (d === best.d && this.df(id) > this.df(best.id)))) best = { id, d };
      }
    }
    return best === undefined ? undefined : this.terms[best.id];
  }

  /** Whether the vocabulary has `word`. */
  has(word: string): boolean {
    const id = this.ids.get(word);
    return id !== undefined && this.counts[id] > 0;
  }

  /**
   * Scores every document matching at least one unit: BM25F per matched term (the best-weighted
   * match per unit counts), summed over units. Calls `found(n, matchedUnits, score)` for each
   * living document matched. Linear in the postings of the terms the units expanded to.
   */
  score(units: Unit[], found: (n: number, matched: number, score: number) => void): void {
    const cap = this.keyOf.length;
    const scratch = Scratch.of(cap);
    const { total, unitBest, matched, touched, unitTouched } = scratch;
    let touchedCount = 0;
    const living = Math.max(1, this.numbers.size);
    const norms = this.normsNow(living);
    const fieldDf = this.fieldDf;
    // A field's weight times the word's rarity in it (and BM25's K1 + 1), times the weight of the kind of match.
    const weightOf = (f: number, id: number, weight: number) => {
      const df = fieldDf[id * FIELDS + f];
      return df === 0 ? 0 : FIELD_WEIGHT[f] * (K1 + 1) * weight * Math.log(1 + (living - df + 0.5) / (df + 0.5));
    };
    for (const unit of units) {
      let unitCount = 0;
      for (const { id, weight } of unit.terms) {
        const p = this.posts[id];
        const c = this.counts[id];
        // Rarity per field (as BM25F and MiniSearch count it): a word in every body but few titles still tells titles apart.
        const idf0 = weightOf(0, id, weight);
        const idf1 = weightOf(1, id, weight);
        const idf2 = weightOf(2, id, weight);
        const idf3 = weightOf(3, id, weight);
        for (let i = 0; i < c; i++) {
          const n = p[2 * i];
          const packed = p[2 * i + 1];
          const at = n * FIELDS;
          // The four fields written out: a loop over them took a third longer.
          const t0 = packed >>> 28;
          const t1 = (packed >>> 22) & 63;
          const t2 = (packed >>> 16) & 63;
          const t3 = packed & 65535;
          let s = 0;
          if (t0 !== 0) s += (idf0 * t0) / (t0 + norms[at]);
          if (t1 !== 0) s += (idf1 * t1) / (t1 + norms[at + 1]);
          if (t2 !== 0) s += (idf2 * t2) / (t2 + norms[at + 2]);
          if (t3 !== 0) s += (idf3 * t3) / (t3 + norms[at + 3]);
          if (unitBest[n] === 0) unitTouched[unitCount++] = n;
          if (s > unitBest[n]) unitBest[n] = s;
        }
      }
      for (let i = 0; i < unitCount; i++) {
        const n = unitTouched[i];
        if (matched[n] === 0) touched[touchedCount++] = n;
        matched[n]++;
        total[n] += unitBest[n];
        unitBest[n] = 0;
      }
    }
    for (let i = 0; i < touchedCount; i++) {
      const n = touched[i];
      if (this.keyOf[n] !== undefined) found(n, matched[n], total[n]);
      matched[n] = 0;
      total[n] = 0;
    }
  }

  /** K1 times each document's length normalisation per field, made anew after a change. */
  private normsNow(living: number): Float64Array {
    if (this.norms !== null && this.norms.length >= this.keyOf.length * FIELDS) return this.norms;
    const avg = this.sums.map((s) => Math.max(1, s / living));
    const norms = new Float64Array(this.keyOf.length * FIELDS);
    for (let n = 0; n < this.keyOf.length; n++) for (let f = 0; f < FIELDS; f++) norms[n * FIELDS + f] = K1 * (1 - B[f] + (B[f] * this.lens[n * FIELDS + f]) / avg[f]);
    return (this.norms = norms);
  }

  /** The index as bytes (load() takes them back): a JSON head of keys and terms, then the numbers. */
  save(): Uint8Array {
    const postLength = this.counts.reduce((a, c) => a + 2 * c, 0);
    const head = Buffer.from(
      JSON.stringify({ format: FORMAT, language: this.language, keys: this.keyOf.map((k) => k ?? null), terms: this.terms, stems: this.stemOf.map((s) => s ?? null), sums: this.sums, gone: this.gone }),
      'utf8',
    );
    const cap = this.keyOf.length;
    const terms = this.terms.length;
    const out = new Uint8Array(8 + head.length + 4 * (FIELDS * cap + terms + FIELDS * terms + postLength) + 4);
    const view = new DataView(out.buffer);
    view.setUint32(0, head.length);
    out.set(head, 4);
    let at = 4 + head.length;
    at += (4 - (at % 4)) % 4;
    const numbers = new Uint32Array(out.buffer, at, FIELDS * cap + terms + FIELDS * terms + postLength);
    numbers.set(this.lens.subarray(0, FIELDS * cap));
    let k = FIELDS * cap;
    for (let t = 0; t < terms; t++) numbers[k++] = this.counts[t];
    // The counts per field too: a restart then need not go over every posting to make them again.
    numbers.set(this.fieldDf.subarray(0, FIELDS * terms), k);
    k += FIELDS * terms;
    for (let t = 0; t < this.terms.length; t++) {
      numbers.set(this.posts[t].subarray(0, 2 * this.counts[t]), k);
      k += 2 * this.counts[t];
    }
    return out.subarray(0, at + 4 * k);
  }

  /** The index save() wrote, or null when `bytes` are not one. */
  static load(bytes: Uint8Array): RankIndex | null {
    try {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const headLength = view.getUint32(0);
      const head = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 4, headLength).toString('utf8')) as {
        format: number;
        language: string;
        keys: Array<string | null>;
        terms: string[];
        stems: Array<string | null>;
        sums: number[];
        gone: number;
      };
      if (head.format !== FORMAT) return null;
      let at = 4 + headLength;
      at += (4 - (at % 4)) % 4;
      const aligned = new Uint8Array(bytes.byteLength - at);
      aligned.set(bytes.subarray(at));
      const numbers = new Uint32Array(aligned.buffer, 0, aligned.byteLength >>> 2);
      const index = new RankIndex(head.language);
      const cap = head.keys.length;
      index.keyOf = head.keys.map((k) => k ?? undefined);
      for (const [n, key] of index.keyOf.entries()) if (key !== undefined) index.numbers.set(key, n);
      index.lens = new Uint32Array(Math.max(64, cap) * FIELDS);
      index.lens.set(numbers.subarray(0, FIELDS * cap));
      head.sums.forEach((s, f) => (index.sums[f] = s));
      index.gone = head.gone;
      let k = FIELDS * cap;
      const counts = numbers.subarray(k, k + head.terms.length);
      k += head.terms.length;
      index.fieldDf = new Uint32Array(Math.max(256, head.terms.length) * FIELDS);
      index.fieldDf.set(numbers.subarray(k, k + FIELDS * head.terms.length));
      k += FIELDS * head.terms.length;
      for (let t = 0; t < head.terms.length; t++) {
        const term = head.terms[t];
        index.ids.set(term, t);
        index.terms.push(term);
        index.counts.push(counts[t]);
        const posts = numbers.subarray(k, k + 2 * counts[t]);
        index.posts.push(posts);
        k += 2 * counts[t];
        index.vocabularyAdd(t, term, head.stems[t] ?? term);
      }
      if (k !== numbers.length) return null;
      return index;
    } catch {
      return null;
    }
  }
}

const FORMAT = 2;
const EMPTY = new Uint32Array(0);

/** The key of byStart for words starting with UTF-16 unit `first`, of `length` units. */
function startKey(first: number, length: number): number {
  return first * 0x10000 + Math.min(length, 0xffff);
}

/** Whether a term is a character pair of a script without spaces (or one such character). */
function isPair(term: string): boolean {
  return (infoOf(term.codePointAt(0) ?? 0) & CLASS) === UNSPACED;
}

/** Arrays over document numbers that a scoring pass needs, kept between passes (they are left zeroed). */
class Scratch {
  private static kept: Scratch | null = null;
  readonly total: Float64Array;
  readonly unitBest: Float64Array;
  readonly matched: Uint16Array;
  readonly touched: Int32Array;
  readonly unitTouched: Int32Array;

  private constructor(readonly size: number) {
    this.total = new Float64Array(size);
    this.unitBest = new Float64Array(size);
    this.matched = new Uint16Array(size);
    this.touched = new Int32Array(size);
    this.unitTouched = new Int32Array(size);
  }

  static of(size: number): Scratch {
    if (Scratch.kept === null || Scratch.kept.size < size) Scratch.kept = new Scratch(Math.max(size, 1024, (Scratch.kept?.size ?? 0) * 2));
    return Scratch.kept;
  }
}
