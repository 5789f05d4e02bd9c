import { PairTable, pairCode } from './pair-table.ts';
import { Room } from './room.ts';
import { SortedTerms } from './sorted-terms.ts';
import { TermTable } from './term-table.ts';
import { DocTerms } from './words.ts';

/**
 * An inverted index from terms to the documents holding them, for "every word, in document order"
 * matching: no scores, so a query is a few unions and one intersection over bitsets.
 *
 * Documents get ascending numbers as they are added and keep them; a document that changes or goes
 * is marked gone and, if it changed, added again under a new number. Gone numbers are dropped from
 * the postings when they outnumber the living ones, so the work stays linear in what changed.
 */
export class TermIndex {
  /** The terms, numbered. */
  private table = new TermTable();
  /**
   * Term number → postings (document numbers, ascending). Most terms are in one document, so those
   * hold the number itself: a million such terms then make a million array elements, not a million
   * objects too.
   */
  private postings: Array<Postings | number> = [];
  /** The same terms in order, for prefix lookups. */
  private prefixes = new SortedTerms((term) => this.table.idOf(term) >= 0);
  /**
   * Character pairs of unspaced scripts → a document number (≥ 0), or -(i + 1) for the postings
   * `multi[i]` of a pair in more than one document.
   */
  private pairs = new PairTable();
  private multi: Postings[] = [];
  /** Document number → key (undefined once gone). */
  private keyOf: Array<string | undefined> = [];
  private readonly numbers = new Map<string, number>();
  private gone = 0;
  private changes = 0;

  /** How many documents the index holds. */
  get size(): number {
    return this.numbers.size;
  }

  /** The keys of the documents in the index. */
  keys(): IterableIterator<string> {
    return this.numbers.keys();
  }

  /** An empty DocTerms for a document of this index: terms the index has are found by number as the text is read. */
  docTerms(): DocTerms {
    return new DocTerms(this.table);
  }

  add(key: string, terms: DocTerms): void {
    this.remove(key);
    this.changes++;
    const n = this.keyOf.length;
    this.keyOf.push(key);
    this.numbers.set(key, n);
    this.postKnown(terms, 0, terms.ids.length, n);
    this.postWords(terms, 0, terms.words.length, n);
    this.pairs.reserve(terms.pairCount);
    this.postPairs(terms.pairs, 0, terms.pairCount, n);
  }

  /**
   * add(), in slices with `pause()` between them, for a document too large to index in one turn of
   * the event loop. The terms go in under a new document number that searches skip (it has no key
   * yet); only at the end does the number get its key and the old one go, in one synchronous step,
   * so a search meanwhile finds the document as it was. Callers must not change this index otherwise
   * until it resolves (SearchIndex runs one update per version at a time).
   */
  async addInSlices(key: string, terms: DocTerms, pause: () => Promise<void>): Promise<void> {
    const n = this.keyOf.length;
    this.keyOf.push(undefined);
    // The posting loops are plain methods: as loops of this async function they took about 1.5 times as long.
    for (let from = 0; from < terms.ids.length; from += WORDS_PER_SLICE) {
      if (from > 0) await pause();
      this.postKnown(terms, from, Math.min(terms.ids.length, from + WORDS_PER_SLICE), n);
    }
    for (let from = 0; from < terms.words.length; from += WORDS_PER_SLICE) {
      if (from > 0) await pause();
      this.postWords(terms, from, Math.min(terms.words.length, from + WORDS_PER_SLICE), n);
    }
    this.pairs.reserve(terms.pairCount);
    for (const _ of this.pairs.touchPages(PAGES_PER_SLICE)) await pause();
    for (let from = 0; from < terms.pairCount; from += PAIRS_PER_SLICE) {
      if (from > 0) await pause();
      this.postPairs(terms.pairs, from, Math.min(terms.pairCount, from + PAIRS_PER_SLICE), n);
    }
    const old = this.numbers.get(key);
    this.changes++;
    this.keyOf[n] = key;
    this.numbers.set(key, n);
    if (old !== undefined) {
      this.keyOf[old] = undefined;
      if (++this.gone > Math.max(1024, this.numbers.size)) this.compact();
    }
  }

  remove(key: string): void {
    const n = this.numbers.get(key);
    if (n === undefined) return;
    this.numbers.delete(key);
    this.keyOf[n] = undefined;
    this.changes++;
    if (++this.gone > Math.max(1024, this.numbers.size)) this.compact();
  }

  /**
   * The documents that hold, for every prefix, a term starting with it: a bitset over document
   * numbers (see keyAt), gone documents included (callers skip numbers without a key).
   * Each prefix expands to at most `perPrefix` terms: a one-letter word on a large version would
   * otherwise walk most of the index. A prefix cut short finds a subset of its documents, so every
   * document found is still a match, but some may be missing: `partial` says so. The bits are
   * valid until the next call (any index's): room reused from search to search.
   */
  match(prefixes: readonly string[], perPrefix = Infinity): { bits: Uint32Array; partial: boolean } {
    let acc: Uint32Array | null = null;
    let partial = false;
    const words = (this.keyOf.length + 31) >>> 5;
    for (const prefix of prefixes) {
      const bits: Uint32Array = matchRooms[acc === null ? 0 : 1].cleared(words);
      let left = perPrefix;
      for (const term of this.prefixes.atPrefix(prefix)) {
        if (left-- === 0) {
          partial = true;
          break;
        }
        markIn(this.postings[this.table.idOf(term)], bits);
      }
      if (!partial) left = this.matchPairs(prefix, bits, left);
      if (left < 0) partial = true;
      if (acc === null) acc = bits;
      else for (let i = 0; i < acc.length; i++) acc[i] &= bits[i];
      // An empty intersection stays empty: the other prefixes need not be expanded.
      if (acc.every((w) => w === 0)) break;
    }
    return { bits: acc ?? new Uint32Array(0), partial };
  }

  /** The key of document number `n` (undefined: gone). */
  keyAt(n: number): string | undefined {
    return this.keyOf[n];
  }

  /** How many document numbers are in use (living or gone). */
  get capacity(): number {
    return this.keyOf.length;
  }

  /** Moves whenever a document number gains, loses or changes its key: what is derived from numbers is stale. */
  get stamp(): number {
    return this.changes;
  }

  /**
   * Marks the documents of the pairs starting with `prefix` (one or two BMP code units; longer
   * prefixes are no pair's), at most `left` pairs; returns what is left of `left` (-1: cut short).
   */
  private matchPairs(prefix: string, bits: Uint32Array, left: number): number {
    if (prefix.length === 0 || prefix.length > 2 || isSurrogate(prefix.charCodeAt(0)) || isSurrogate(prefix.charCodeAt(prefix.length - 1))) return left;
    if (prefix.length === 2) {
      const slot = this.pairs.find(pairCode(prefix.charCodeAt(0), prefix.charCodeAt(1)));
      if (slot < 0) return left;
      if (left === 0) return -1;
      this.markPair(slot, bits);
      return left - 1;
    }
    for (const slot of this.pairs.startingWith(prefix.charCodeAt(0))) {
      if (left-- === 0) return -1;
      this.markPair(slot, bits);
    }
    return left;
  }

  private markPair(slot: number, bits: Uint32Array): void {
    const v = this.pairs.valueAt(slot);
    markIn(v >= 0 ? v : this.multi[-v - 1], bits);
  }

  /** Posts `terms.ids[from..until)`: terms this index had when they were read. */
  private postKnown(terms: DocTerms, from: number, until: number, n: number): void {
    const ids = terms.ids;
    if (terms.table === this.table) for (let i = from; i < until; i++) this.postId(ids[i], n);
    // The index renumbered its terms since (it dropped many): find them again by their text.
    else for (let i = from; i < until; i++) this.post(terms.table.terms[ids[i]], terms.table.hashAt(ids[i]), n);
  }

  /** Posts `terms.words[from..until)`: terms this index did not have when they were read. */
  private postWords(terms: DocTerms, from: number, until: number, n: number): void {
    for (let i = from; i < until; i++) this.post(terms.words[i], terms.wordHashes[i], n);
  }

  private postPairs(codes: Uint32Array, from: number, until: number, n: number): void {
    for (let i = from; i < until; i++) this.postPair(codes[i], n);
  }

  /** Adds document `n` to the pair's postings (n is the highest number so far; a pair may come again). */
  private postPair(code: number, n: number): void {
    const slot = this.pairs.find(code);
    if (slot < 0) {
      this.pairs.insert(code, n);
      return;
    }
    const v = this.pairs.valueAt(slot);
    if (v >= 0) {
      if (v === n) return;
      this.multi.push(Postings.of(v, n));
      this.pairs.setValueAt(slot, -this.multi.length);
    } else {
      const p = this.multi[-v - 1];
      if (p.last !== n) p.push(n);
    }
  }

  /** Adds document `n` to the term's postings (`hash`: the term's; n is the highest number so far; a term may come again). */
  private post(term: string, hash: number, n: number): void {
    const id = this.table.idOf(term, hash);
    if (id >= 0) this.postId(id, n);
    else {
      this.postings[this.table.add(term, hash)] = n;
      this.prefixes.add(term);
    }
  }

  private postId(id: number, n: number): void {
    const p = this.postings[id];
    if (typeof p === 'number') {
      if (p !== n) this.postings[id] = Postings.of(p, n);
    } else if (p.last !== n) p.push(n);
  }

  /** Renumbers the living documents densely and drops gone numbers from the postings. */
  private compact(): void {
    this.changes++;
    const renumber = new Int32Array(this.keyOf.length).fill(-1);
    const keys: string[] = [];
    this.keyOf.forEach((key, n) => {
      if (key === undefined) return;
      renumber[n] = keys.length;
      this.numbers.set(key, keys.length);
      keys.push(key);
    });
    this.keyOf = keys;
    this.gone = 0;
    // Terms: a new table with the terms that still have documents.
    const oldTable = this.table;
    const oldPostings = this.postings;
    this.table = new TermTable(oldTable.size);
    this.postings = [];
    oldPostings.forEach((p, id) => {
      if (typeof p === 'number') {
        if (renumber[p] < 0) return;
        p = renumber[p];
      } else if (p.renumber(renumber) === 0) return;
      this.postings[this.table.add(oldTable.terms[id], oldTable.hashAt(id))] = p;
    });
    this.prefixes.prune();
    // Pairs: a new table with the pairs that still have documents.
    const old = this.pairs;
    const oldMulti = this.multi;
    this.pairs = new PairTable(old.size);
    this.multi = [];
    old.forEach((slot) => {
      const v = old.valueAt(slot);
      if (v >= 0) {
        if (renumber[v] >= 0) this.pairs.insert(old.codeAt(slot), renumber[v]);
        return;
      }
      const p = oldMulti[-v - 1];
      const left = p.renumber(renumber);
      if (left === 1) this.pairs.insert(old.codeAt(slot), p.first);
      else if (left > 1) {
        this.multi.push(p);
        this.pairs.insert(old.codeAt(slot), -this.multi.length);
      }
    });
  }

  /**
   * The index as bytes, without changing it, in slices with `pause()` between them (an index of a
   * million terms takes a while to write out): a JSON head (the living documents' keys, renumbered
   * densely, and the counts of terms and pairs), the terms in code-unit order joined by NUL, then as
   * 32-bit numbers the terms' posting lengths, the pair codes, the pairs' posting lengths, and all
   * postings. The caller keeps the index from changing until it resolves (SearchIndex holds the
   * version's update queue meanwhile); searches may run.
   */
  async save(pause: () => Promise<void> = async () => {}): Promise<Uint8Array> {
    const renumber = new Int32Array(this.keyOf.length).fill(-1);
    const keys: string[] = [];
    this.keyOf.forEach((key, n) => {
      if (key === undefined) return;
      renumber[n] = keys.length;
      keys.push(key);
    });
    const ids = new GrowingIds();
    const sorted = await this.prefixes.all(pause);
    const texts: Buffer[] = [];
    let batch: string[] = [];
    let termCount = 0;
    const lengths = new Uint32Array(sorted.length);
    for (let i = 0; i < sorted.length; i++) {
      if ((i & 16383) === 16383) {
        texts.push(Buffer.from(batch.join('\0'), 'utf8'));
        batch = [];
        await pause();
      }
      const taken = ids.take(this.postings[this.table.idOf(sorted[i])], renumber);
      if (taken > 0) {
        batch.push(sorted[i]);
        lengths[termCount++] = taken;
      }
    }
    texts.push(Buffer.from(batch.join('\0'), 'utf8'));
    const pairCodes = new Uint32Array(this.pairs.size);
    const pairLengths = new Uint32Array(this.pairs.size);
    let pairCount = 0;
    await this.pairs.forEachInSlices((slot) => {
      const v = this.pairs.valueAt(slot);
      const taken = ids.take(v >= 0 ? v : this.multi[-v - 1], renumber);
      if (taken > 0) {
        pairCodes[pairCount] = this.pairs.codeAt(slot);
        pairLengths[pairCount++] = taken;
      }
    }, pause);
    // The batches joined by NUL as well (an empty batch adds nothing).
    const nonEmpty = texts.filter((t) => t.length > 0);
    const text = Buffer.concat(nonEmpty.flatMap((t, i) => (i === 0 ? [t] : [NUL, t])));
    const head = Buffer.from(JSON.stringify({ format: FORMAT, keys, terms: termCount, pairs: pairCount }), 'utf8');
    const pad = (n: number) => (4 - (n % 4)) % 4;
    const numbers = [lengths.subarray(0, termCount), pairCodes.subarray(0, pairCount), pairLengths.subarray(0, pairCount), ids.used()];
    const out = new Uint8Array(12 + head.length + pad(head.length) + text.length + pad(text.length) + 4 * numbers.reduce((sum, a) => sum + a.length, 0));
    const view = new DataView(out.buffer);
    view.setUint32(0, MAGIC);
    view.setUint32(4, head.length);
    view.setUint32(8, text.length);
    let at = 12;
    out.set(head, at);
    at += head.length + pad(head.length);
    out.set(text, at);
    at += text.length + pad(text.length);
    for (const a of numbers) {
      new Uint32Array(out.buffer, at, a.length).set(a);
      at += 4 * a.length;
    }
    return out;
  }

  /** An index made by save(); null when the bytes are not one (another format, cut short). */
  static load(bytes: Uint8Array): TermIndex | null {
    try {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (bytes.length < 12 || view.getUint32(0) !== MAGIC) return null;
      const headLength = view.getUint32(4);
      const textLength = view.getUint32(8);
      const pad = (n: number) => (4 - (n % 4)) % 4;
      const head = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 12, headLength).toString('utf8')) as { format: number; keys: string[]; terms: number; pairs: number };
      if (head.format !== FORMAT) return null;
      let at = 12 + headLength + pad(headLength);
      const terms = textLength === 0 ? [] : Buffer.from(bytes.buffer, bytes.byteOffset + at, textLength).toString('utf8').split('\0');
      at += textLength + pad(textLength);
      if (terms.length !== head.terms || bytes.length < at + 4 * (terms.length + 2 * head.pairs)) return null;
      // Copies, aligned, that the index owns (the bytes may be a slice of a bigger buffer).
      // (A Buffer's slice() is a view, not a copy: copy by hand.)
      const copy = new Uint8Array(bytes.length - at);
      copy.set(bytes.subarray(at));
      const numbers = new Uint32Array(copy.buffer);
      const lengths = numbers.subarray(0, terms.length);
      const pairCodes = numbers.subarray(terms.length, terms.length + head.pairs);
      const pairLengths = numbers.subarray(terms.length + head.pairs, terms.length + 2 * head.pairs);
      const body = numbers.subarray(terms.length + 2 * head.pairs);
      let total = 0;
      for (const n of lengths) total += n;
      for (const n of pairLengths) total += n;
      if (body.length !== total) return null;
      const index = new TermIndex();
      index.keyOf = head.keys;
      head.keys.forEach((key, n) => index.numbers.set(key, n));
      index.table = TermTable.of(terms);
      let from = 0;
      for (let i = 0; i < terms.length; i++) {
        const length = lengths[i];
        index.postings[i] = length === 1 ? body[from] : Postings.over(body.subarray(from, from + length));
        from += length;
      }
      index.prefixes = SortedTerms.fromSorted(terms, (term) => index.table.idOf(term) >= 0);
      index.pairs = new PairTable(head.pairs);
      for (let i = 0; i < head.pairs; i++) {
        const length = pairLengths[i];
        if (length === 1) index.pairs.insert(pairCodes[i], body[from]);
        else {
          index.multi.push(Postings.over(body.subarray(from, from + length)));
          index.pairs.insert(pairCodes[i], -index.multi.length);
        }
        from += length;
      }
      return index;
    } catch {
      return null;
    }
  }
}

/** Postings renumbered into one growing array of numbers, as save() writes them. */
class GrowingIds {
  private ids = new Uint32Array(1024);
  private total = 0;

  /** Appends the living numbers of `p`, renumbered; returns how many. */
  take(p: Postings | number, renumber: Int32Array): number {
    if (typeof p === 'number') return this.one(renumber[p]);
    let taken = 0;
    p.forEach((n) => (taken += this.one(renumber[n])));
    return taken;
  }

  private one(to: number): number {
    if (to < 0) return 0;
    if (this.total === this.ids.length) {
      const grown = new Uint32Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.total++] = to;
    return 1;
  }

  used(): Uint32Array {
    return this.ids.subarray(0, this.total);
  }
}

/** Terms posted by addInSlices() between pauses (a pause yields only once its time slice is used up). */
const WORDS_PER_SLICE = 1024;
const PAIRS_PER_SLICE = 16384;
/** Memory pages of a grown pair table written between pauses (PairTable.touchPages): about 1 ms. */
const PAGES_PER_SLICE = 256;

const MAGIC = 0x48534958; // "HSIX"
const NUL = Buffer.from([0]);
/** 4: character pairs as numbers; 3: terms in code-unit order joined by NUL, lengths binary (1 kept them in insertion order, for a radix tree). */
const FORMAT = 4;

/**
 * A growable ascending list of document numbers. Most terms are in one or two documents, so the
 * numbers start out in a plain array (a typed array per term costs more to make than the term's whole
 * indexing); a loaded index holds them as views of one typed array.
 */
class Postings {
  private ids: number[] | Uint32Array = [];
  length = 0;

  static of(...ids: number[]): Postings {
    const p = new Postings();
    p.ids = ids;
    p.length = ids.length;
    return p;
  }

  static over(ids: Uint32Array): Postings {
    const p = new Postings();
    p.ids = ids;
    p.length = ids.length;
    return p;
  }

  get first(): number {
    return this.ids[0];
  }

  get last(): number {
    return this.ids[this.length - 1];
  }

  push(n: number): void {
    if (!Array.isArray(this.ids)) this.ids = Array.from(this.ids.subarray(0, this.length));
    this.ids.push(n);
    this.length++;
  }

  markIn(bits: Uint32Array): void {
    const ids = this.ids;
    for (let i = 0; i < this.length; i++) {
      const n = ids[i];
      bits[n >>> 5] |= 1 << (n & 31);
    }
  }

  /** Applies a renumbering (-1: gone); returns how many numbers are left. */
  renumber(to: Int32Array): number {
    const kept: number[] = [];
    for (let i = 0; i < this.length; i++) {
      const n = to[this.ids[i]];
      if (n >= 0) kept.push(n);
    }
    this.ids = kept;
    this.length = kept.length;
    return kept.length;
  }

  forEach(fn: (n: number) => void): void {
    for (let i = 0; i < this.length; i++) fn(this.ids[i]);
  }
}

const isSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdfff;

function markIn(p: Postings | number, bits: Uint32Array): void {
  if (typeof p === 'number') bits[p >>> 5] |= 1 << (p & 31);
  else p.markIn(bits);
}

/** match()'s two sets of bits (the intersection so far, and the prefix being marked), kept from one search to the next (room.ts). */
const matchRooms = [new Room((n) => new Uint32Array(n)), new Room((n) => new Uint32Array(n))] as const;
