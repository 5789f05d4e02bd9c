import { boundedDistance } from './edit-distance.ts';
import { DENSE, keepImpacts, keptImpacts, nextIndexNumber, type Impacts } from './impacts.ts';
import { TopK } from './top-k.ts';
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
 *
 * A search does not score every posting of its terms: each term's gains per document, in order, are
 * made once per change of the index and kept (impacts.ts), and top() reads the best of them until no
 * document left can enter the best k (the threshold algorithm), with the same answer as scoring all.
 * Nothing of that is saved: snapshots hold the postings, and the gains are made again after a start.
 */

/** Query words whose expansions are kept (expand()); past it they start again from none. */
const MAX_EXPANDED = 4096;
/** Terms numbered between two looks at the clock in stage() (and 16 times as many postings filed in fileStaged()). */
const TERMS_PER_SLICE = 512;

export interface Unit {
  word: string;
  terms: Array<{ id: number; weight: number }>;
}

/** Documents staged for RankIndex.fileStaged(): each one's number, and its terms' numbers with their packed counts. */
export type Staged = Array<{ key: string; n: number; ids: Int32Array; packed: number[] }>;

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
  /** Names this index's kept impacts (impacts.ts). */
  private readonly number = nextIndexNumber();
  /** Bumped by every change of postings, documents or lengths: impacts made before are stale. */
  private generation = 0;

  constructor(readonly language: string) {
    this.stem = stemmerFor(language);
  }

  get size(): number {
    return this.numbers.size;
  }

  /** A number that changes with every change of the index (documents, postings, lengths): what is derived from its state holds while it stays. */
  get changeCount(): number {
    return this.generation;
  }

  add(key: string, doc: RankDoc): void {
    const n = this.reserve(doc);
    const { terms, packed } = doc.termList();
    for (let i = 0; i < terms.length; i++) this.post(this.termId(terms[i]), n, packed[i]);
    this.swapIn(key, n);
  }

  /**
   * add() for many documents, in two steps with `pause()` between slices: stage() numbers each
   * document's terms as add() would, and fileStaged() lays out the postings of all of them at once,
   * each term's new ones beside its old ones in one piece of a shared array, instead of growing every
   * term's list posting by posting (an import of 2,000 pages files some 350,000 postings). The
   * documents get their keys, and their old numbers go, in one synchronous step at the end; until
   * then searches find them as they were. Callers must not change the index otherwise until
   * fileStaged() resolves (as TermIndex.addInSlices).
   */
  async stage(staged: Staged, key: string, doc: RankDoc, pause: () => Promise<void>): Promise<void> {
    const n = this.reserve(doc);
    const { terms, packed } = doc.termList();
    const ids = new Int32Array(terms.length);
    for (let from = 0; from < terms.length; from += TERMS_PER_SLICE) {
      if (from > 0) await pause();
      this.numberTerms(terms, from, Math.min(terms.length, from + TERMS_PER_SLICE), ids);
    }
    staged.push({ key, n, ids, packed });
  }

  /** Numbers terms[from, until) into `ids` (a plain method: as a loop of the async stage() it ran slower). */
  private numberTerms(terms: string[], from: number, until: number, ids: Int32Array): void {
    for (let i = from; i < until; i++) ids[i] = this.termId(terms[i]);
  }

  /** The second step of stage(): files the staged documents' postings, then gives them their keys. */
  async fileStaged(staged: Staged, pause: () => Promise<void>): Promise<void> {
    if (staged.length === 0) return;
    const added = new Uint32Array(this.terms.length);
    for (const { ids } of staged) for (let i = 0; i < ids.length; i++) added[ids[i]]++;
    // Terms without postings yet (all of them, for a new version) get theirs in one shared array; a
    // term that has some grows its own, doubling as post() does, so a large write to a version that
    // is indexed already copies no more than adding its pages one by one would.
    let total = 0;
    for (let id = 0; id < added.length; id++) if (added[id] > 0 && this.counts[id] === 0) total += 2 * added[id];
    const shared = new Uint32Array(total);
    let at = 0;
    for (let id = 0; id < added.length; id++) {
      if (added[id] === 0) continue;
      const c = this.counts[id];
      const need = 2 * (c + added[id]);
      if (c === 0) {
        this.posts[id] = shared.subarray(at, (at += need));
      } else if (this.posts[id].length < need) {
        const grown = new Uint32Array(Math.max(need, 2 * this.posts[id].length));
        grown.set(this.posts[id].subarray(0, 2 * c));
        this.posts[id] = grown;
      }
    }
    this.generation++;
    let filed = 0;
    for (const doc of staged) {
      this.postStaged(doc);
      filed += doc.ids.length;
      if (filed >= TERMS_PER_SLICE * 16) {
        filed = 0;
        await pause();
      }
    }
    // Every staged number has its key before an old one goes: going may compact the postings, which keeps only numbers with a key.
    const old: number[] = [];
    for (const { key, n } of staged) {
      const before = this.giveKey(key, n);
      if (before !== undefined) old.push(before);
    }
    this.norms = null;
    this.generation++;
    for (const n of old) this.retire(n);
  }

  /** Appends a staged document's postings, in the room fileStaged() made for them (documents are staged in the order of their numbers). */
  private postStaged({ n, ids, packed }: Staged[number]): void {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      const c = this.counts[id];
      this.posts[id][2 * c] = n;
      this.posts[id][2 * c + 1] = packed[i];
      this.counts[id] = c + 1;
      this.countFields(id, packed[i]);
    }
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
    this.generation++;
    return n;
  }

  /**
   * Gives number `n` the key `key`, in place of the key's old number if it had one. The new number
   * has its key before the old one goes: going may compact the postings, which keeps only numbers
   * with a key.
   */
  private swapIn(key: string, n: number): void {
    const old = this.giveKey(key, n);
    this.norms = null;
    this.generation++;
    if (old !== undefined) this.retire(old);
  }

  /** Gives number `n` the key `key` and counts its field lengths; the key's old number, if it had one, is the caller's to retire. */
  private giveKey(key: string, n: number): number | undefined {
    const old = this.numbers.get(key);
    this.keyOf[n] = key;
    this.numbers.set(key, n);
    for (let f = 0; f < FIELDS; f++) this.sums[f] += this.lens[n * FIELDS + f];
    return old;
  }

  remove(key: string): void {
    const n = this.numbers.get(key);
    if (n === undefined) return;
    this.numbers.delete(key);
    this.retire(n);
  }

  /** Marks number `n` gone (its key has left `numbers`), and compacts once gone ones outnumber the living. */
  private retire(n: number): void {
    this.keyOf[n] = undefined;
    for (let f = 0; f < FIELDS; f++) this.sums[f] -= this.lens[n * FIELDS + f];
    this.norms = null;
    this.generation++;
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
    this.generation++;
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
    this.generation++;
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
    // The same words are asked again and again, and their forms, completions and typos depend on
    // the vocabulary alone: kept until the index changes (any change may add or take a term).
    if (this.expanded.generation !== this.generation || this.expanded.byWord.size >= MAX_EXPANDED) this.expanded = { generation: this.generation, byWord: new Map() };
    const key = `${unspaced ? 'u' : 's'}${prefix ? 'p' : 'w'}${word}`;
    const kept = this.expanded.byWord.get(key);
    if (kept !== undefined) return kept;
    const made = this.expandNow(word, unspaced, prefix);
    this.expanded.byWord.set(key, made);
    return made;
  }

  /** The query words expand() expanded since the index last changed, with what they expanded to (callers do not change it). */
  private expanded: { generation: number; byWord: Map<string, { units: Unit[]; partial: boolean }> } = { generation: -1, byWord: new Map() };

  private expandNow(word: string, unspaced: boolean, prefix: boolean): { units: Unit[]; partial: boolean } {
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
   * The best `k` documents for `units`, by key: TIER for each unit a document matches, plus its
   * score (BM25F per matched term, the best-weighted match per unit counting, summed over units,
   * below TIER); ties go to the lower document number. `total`: how many living documents match at
   * least one unit, counted in full (an OR of the terms' sets of bits).
   *
   * The threshold algorithm (Fagin's TA) over each term's documents in order of impact (impacts.ts):
   * the unit whose next document gains most reads it, and a document read the first time gets its
   * whole key at once (its gain from each term is a lookup: one step for a common term, a bisection
   * of the postings for a rare one). A document not read yet can gain
   * from each unit at most TIER plus the gain of the unit's next document (nothing from a unit read
   * to the end), so once that sum is below the k-th best key found, no document left can enter the
   * best k: a search reads the best few hundred documents of each unit, not every posting. The
   * answer is the exhaustive one (scoreAll()), document for document and key for key.
   */
  top(units: Unit[], k: number): { top: Array<{ n: number; key: number }>; total: number } {
    const cap = this.keyOf.length;
    const norms = this.normsNow(Math.max(1, this.numbers.size));
    // The terms of all units side by side, unit u's from first[u] to first[u + 1].
    const first = new Int32Array(units.length + 1);
    const impacts: Impacts[] = [];
    const weightList: number[] = [];
    for (let u = 0; u < units.length; u++) {
      first[u] = impacts.length;
      for (const t of units[u].terms) {
        impacts.push(this.impactsOf(t.id, norms));
        weightList.push(t.weight);
      }
    }
    const weights = Float64Array.from(weightList);
    first[units.length] = impacts.length;
    const orders = impacts.map((i) => i.order);
    const sorted = impacts.map((i) => i.sorted);
    // Each term's gains: over every document for a dense term, else per posting (found by bisecting the postings).
    const dense = impacts.map((i) => i.dense?.gain ?? null);
    const sparsePosts = units.flatMap((u) => u.terms.map((t) => this.posts[t.id]));
    const sparseValues = impacts.map((i) => i.values);
    const total = this.countMatches(impacts, cap);
    if (total === 0) return { top: [], total };
    const heap = Scratch.of(cap).heap(k);
    // Documents read, and the living ones, as bits: a few KB that stay in the nearest cache (an
    // array of a number per document, read at random, missed it on most reads).
    const words = (cap + 31) >>> 5;
    const seen = Scratch.of(cap).seen(words);
    const live = this.livingBits(words);
    readBestFirst(units.length, k, first, weights, orders, sorted, dense, sparsePosts, sparseValues, seen, live, Scratch.of(cap).batch, heap);
    seen.fill(0);
    return { top: heap.drain(), total };
  }

  /** How many living documents hold a term of `terms`: the OR of their sets of bits, living ones only. */
  private countMatches(terms: Impacts[], cap: number): number {
    // (A rare term's documents are set one by one, a common one's a word of 32 at a time.)
    const words = (cap + 31) >>> 5;
    const any = Scratch.of(cap).bits(words);
    for (const t of terms) {
      if (t.dense !== null) for (let i = 0; i < words; i++) any[i] |= t.dense.bits[i];
      else for (let i = 0; i < t.order.length; i++) any[t.order[i] >>> 5] |= 1 << (t.order[i] & 31);
    }
    const living = this.livingBits(words);
    let count = 0;
    for (let i = 0; i < words; i++) {
      count += popCount(any[i] & living[i]);
      any[i] = 0;
    }
    return count;
  }

  private living: { generation: number; bits: Uint32Array } | null = null;

  /** The living documents as a set of bits, made again after a change. */
  private livingBits(words: number): Uint32Array {
    if (this.living !== null && this.living.generation === this.generation && this.living.bits.length === words) return this.living.bits;
    const bits = new Uint32Array(words);
    for (let n = 0; n < this.keyOf.length; n++) if (this.keyOf[n] !== undefined) bits[n >>> 5] |= 1 << (n & 31);
    this.living = { generation: this.generation, bits };
    return bits;
  }

  /**
   * Every living document matching at least one unit with its key, as top() ranks them, the plain
   * way: each posting scored, no bound. What top() must agree with (the tests compare them).
   */
  scoreAll(units: Unit[]): Map<number, number> {
    const norms = this.normsNow(Math.max(1, this.numbers.size));
    const out = new Map<number, { matched: number; score: number }>();
    for (const unit of units) {
      const best = new Map<number, number>();
      for (const { id, weight } of unit.terms) {
        const p = this.posts[id];
        const rarity = this.rarity(id);
        for (let i = 0; i < this.counts[id]; i++) {
          const s = weight * impact(rarity, p[2 * i + 1], p[2 * i], norms);
          const n = p[2 * i];
          if (!best.has(n) || s > best.get(n)!) best.set(n, s);
        }
      }
      for (const [n, s] of best) {
        const o = out.get(n) ?? { matched: 0, score: 0 };
        o.matched++;
        o.score += s;
        out.set(n, o);
      }
    }
    const keys = new Map<number, number>();
    for (const [n, o] of out) if (this.keyOf[n] !== undefined) keys.set(n, o.matched * TIER + Math.min(o.score, MAX_SCORE));
    return keys;
  }

  /** The impacts of term `id` (impacts.ts), made now when none are kept for this generation of the index. */
  private impactsOf(id: number, norms: Float64Array): Impacts {
    const found = keptImpacts(this.number, id, this.generation);
    if (found !== undefined) return found;
    const cap = this.keyOf.length;
    const p = this.posts[id];
    const c = this.counts[id];
    const rarity = this.rarity(id);
    const values = new Float32Array(c);
    for (let i = 0; i < c; i++) values[i] = impact(rarity, p[2 * i + 1], p[2 * i], norms);
    let dense: Impacts['dense'] = null;
    if (c * DENSE >= cap) {
      dense = { gain: new Float32Array(cap).fill(-Infinity), bits: new Uint32Array((cap + 31) >>> 5) };
      for (let i = 0; i < c; i++) {
        const n = p[2 * i];
        dense.gain[n] = values[i];
        dense.bits[n >>> 5] |= 1 << (n & 31);
      }
    }
    const { order, sorted } = byGain(p, values, cap);
    // A dense term's gains are looked up in `dense`: its values per posting would only take room.
    const made = { generation: this.generation, values: dense === null ? values : null, order, sorted, dense };
    keepImpacts(this.number, id, made);
    return made;
  }

  /**
   * Per field, the field's weight times term `id`'s rarity in it (BM25F, as MiniSearch counts it: a
   * word in every body but few titles still tells titles apart), times BM25's K1 + 1.
   */
  private rarity(id: number): Float64Array {
    const living = Math.max(1, this.numbers.size);
    const out = new Float64Array(FIELDS);
    for (let f = 0; f < FIELDS; f++) {
      const df = this.fieldDf[id * FIELDS + f];
      out[f] = FIELD_WEIGHT[f] * (K1 + 1) * Math.log(1 + (living - df + 0.5) / (df + 0.5));
    }
    return out;
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
/** Documents read before their keys are made (top()). */
const BATCH = 32;
/** A key's worth of one unit matched: more than any score (scores stay far below it). */
export const TIER = 1e4;
const MAX_SCORE = TIER - 1;
const EMPTY = new Uint32Array(0);

/**
 * What a term whose rarity per field is `rarity` (RankIndex.rarity()) adds to document `n`'s score,
 * its counts per field being `packed`: per field, the rarity times BM25's saturation of the count; in
 * single precision, as impacts.ts keeps it.
 */
function impact(rarity: Float64Array, packed: number, n: number, norms: Float64Array): number {
  const at = n * FIELDS;
  const t0 = packed >>> 28;
  const t1 = (packed >>> 22) & 63;
  const t2 = (packed >>> 16) & 63;
  const t3 = packed & 65535;
  // The four fields written out (SHIFT and MAX_COUNT of rank-doc.ts): a loop over them took a third longer.
  let s = 0;
  if (t0 !== 0) s += (rarity[0] * t0) / (t0 + norms[at]);
  if (t1 !== 0) s += (rarity[1] * t1) / (t1 + norms[at + 1]);
  if (t2 !== 0) s += (rarity[2] * t2) / (t2 + norms[at + 2]);
  if (t3 !== 0) s += (rarity[3] * t3) / (t3 + norms[at + 3]);
  return Math.fround(s);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** Document numbers below this fit beside a gain's 32 bits in the 53 of a double (byGain()). */
const PACKED_NUMBERS = 2 ** 21;

/**
 * The documents of postings `p` (gains `values`), the greatest gain first, ties by number, and their
 * gains in that order: each gain's bits made to sort as integers, largest first, with the number
 * below them, so a numeric sort without a comparator (several times faster) gives the order.
 */
function byGain(p: Uint32Array, values: Float32Array, cap: number): { order: Int32Array; sorted: Float32Array } {
  const c = values.length;
  const order = new Int32Array(c);
  const sorted = new Float32Array(c);
  if (cap > PACKED_NUMBERS) {
    const at = Int32Array.from({ length: c }, (_, i) => i).sort((a, b) => values[b] - values[a] || p[2 * a] - p[2 * b]);
    for (let i = 0; i < c; i++) {
      order[i] = p[2 * at[i]];
      sorted[i] = values[at[i]];
    }
    return { order, sorted };
  }
  const keys = new Float64Array(c);
  for (let i = 0; i < c; i++) {
    f32[0] = values[i];
    const b = u32[0];
    // Ascending as integers when the float ascends (negative ones flipped), then turned around.
    const up = b & 0x80000000 ? ~b >>> 0 : (b | 0x80000000) >>> 0;
    keys[i] = (0xffffffff - up) * PACKED_NUMBERS + p[2 * i];
  }
  keys.sort();
  for (let i = 0; i < c; i++) {
    order[i] = keys[i] % PACKED_NUMBERS;
    const up = 0xffffffff - Math.floor(keys[i] / PACKED_NUMBERS);
    u32[0] = up & 0x80000000 ? up & 0x7fffffff : ~up >>> 0;
    sorted[i] = f32[0];
  }
  return { order, sorted };
}

/**
 * top()'s reading, best first, into `heap`. A function of its own, every table a parameter and the
 * weights in a Float64Array: written inside top() with `advance` a closure over its locals, the
 * loop reached them through the closure's context, and took 3–14 % longer on the bench's queries.
 */
function readBestFirst(
  units: number,
  k: number,
  first: Int32Array,
  weights: Float64Array,
  orders: Int32Array[],
  sorted: Float32Array[],
  dense: Array<Float32Array | null>,
  posts: Uint32Array[],
  values: Array<Float32Array | null>,
  seen: Uint32Array,
  live: Uint32Array,
  batch: Int32Array,
  heap: TopK,
): void {
  // Per term: how many of its documents were read.
  const at = new Int32Array(first[units]);
  // Per unit: the term whose next document gains most (-1 once all are read), and that gain.
  const nextTerm = new Int32Array(units);
  const nextGain = new Float64Array(units);
  for (let u = 0; u < units; u++) advance(u, first, weights, orders, sorted, at, nextTerm, nextGain);
  // Documents are read BATCH at a time, their keys made together: each key is lookups at random
  // places of the gains, and made side by side the processor waits for several of them at once.
  // The batch stops at the bound of the floor known when it started (the floor only rises, so that
  // reads a few documents more than needed at most, and the answer is the same).
  let floor = -Infinity;
  let done = false;
  while (!done) {
    let size = 0;
    while (size < BATCH) {
      // The unit with the most to gain next is read: the bound falls fastest.
      let u = -1;
      let bound = 0;
      for (let v = 0; v < units; v++) {
        if (nextTerm[v] < 0) continue;
        bound += TIER + nextGain[v];
        if (u < 0 || nextGain[v] > nextGain[u]) u = v;
      }
      // A document not read yet gains at most each unit's next gain: below the k-th best key, none can enter.
      if (u < 0 || bound * (1 + 1e-6) + 1e-9 < floor) {
        done = true;
        break;
      }
      const t = nextTerm[u];
      const n = orders[t][at[t]++];
      const word = n >>> 5;
      const bit = 1 << (n & 31);
      if ((seen[word] & bit) === 0) {
        seen[word] |= bit;
        if ((live[word] & bit) !== 0) batch[size++] = n;
      }
      advance(u, first, weights, orders, sorted, at, nextTerm, nextGain);
    }
    for (let i = 0; i < size; i++) heap.offer(batch[i], keyOf(batch[i], first, weights, dense, posts, values));
    if (heap.size >= k) floor = heap.floor;
  }
}

/** Unit u's term whose next document gains most, and that gain, into nextTerm[u] and nextGain[u] (-1 and -Infinity once all are read). */
function advance(u: number, first: Int32Array, weights: Float64Array, orders: Int32Array[], sorted: Float32Array[], at: Int32Array, nextTerm: Int32Array, nextGain: Float64Array): void {
  let next = -1;
  let gain = -Infinity;
  for (let t = first[u]; t < first[u + 1]; t++) {
    if (at[t] >= orders[t].length) continue;
    const g = weights[t] * sorted[t][at[t]];
    if (next < 0 || g > gain) {
      next = t;
      gain = g;
    }
  }
  nextTerm[u] = next;
  nextGain[u] = gain;
}

/**
 * The key of document `n` (RankIndex.top()): TIER for each unit it matches plus the sum of its best
 * gain in each, below TIER. Unit u's terms are first[u] to first[u + 1] of `weights` and of the
 * tables of gains: `dense` (one step) for a term in many documents, else its postings `posts` and
 * their gains `values`, bisected. Written out with plain arrays: a lookup function per term, called
 * for every document read, took a fifth longer.
 */
function keyOf(n: number, first: Int32Array, weights: Float64Array, dense: Array<Float32Array | null>, posts: Uint32Array[], values: Array<Float32Array | null>): number {
  let matched = 0;
  let score = 0;
  for (let u = 0; u + 1 < first.length; u++) {
    let best = -Infinity;
    for (let t = first[u]; t < first[u + 1]; t++) {
      const d = dense[t];
      let gain: number;
      if (d !== null) gain = d[n];
      else {
        const p = posts[t];
        const v = values[t]!;
        let lo = 0;
        let hi = v.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (p[2 * mid] < n) lo = mid + 1;
          else hi = mid;
        }
        gain = lo < v.length && p[2 * lo] === n ? v[lo] : -Infinity;
      }
      const g = weights[t] * gain;
      if (g > best) best = g;
    }
    if (best !== -Infinity) {
      matched++;
      score += best;
    }
  }
  return matched * TIER + Math.min(score, MAX_SCORE);
}

/** The key of byStart for words starting with UTF-16 unit `first`, of `length` units. */
function startKey(first: number, length: number): number {
  return first * 0x10000 + Math.min(length, 0xffff);
}

/** Whether a term is a character pair of a script without spaces (or one such character). */
function isPair(term: string): boolean {
  return (infoOf(term.codePointAt(0) ?? 0) & CLASS) === UNSPACED;
}

/** Sets of bits over document numbers that a search needs, top()'s batch and its heap, kept between searches (each left empty after use). */
class Scratch {
  private static kept: Scratch | null = null;
  /** countMatches()'s documents matched. */
  private readonly matched: Uint32Array;
  /** top()'s documents read. */
  private readonly read: Uint32Array;
  readonly batch = new Int32Array(BATCH);
  private best: TopK | null = null;

  private constructor(readonly size: number) {
    this.matched = new Uint32Array((size + 31) >>> 5);
    this.read = new Uint32Array((size + 31) >>> 5);
  }

  static of(size: number): Scratch {
    if (Scratch.kept === null || Scratch.kept.size < size) Scratch.kept = new Scratch(Math.max(size, 1024, (Scratch.kept?.size ?? 0) * 2));
    return Scratch.kept;
  }

  /** An empty heap of the best `k`, the same from search to search (the caller drains it): its two arrays are allocated outside V8's heap. */
  heap(k: number): TopK {
    if (this.best === null || this.best.k !== k) this.best = new TopK(k);
    this.best.size = 0;
    return this.best;
  }

  /** `n` words of bits, all 0, for top()'s documents read (the caller leaves them 0). */
  seen(n: number): Uint32Array {
    return this.read.subarray(0, n);
  }

  /** `n` words of bits, all 0, for the documents countMatches() counts (the caller leaves them 0). */
  bits(n: number): Uint32Array {
    return this.matched.subarray(0, n);
  }
}

/** The number of bits set in a 32-bit word. */
function popCount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
