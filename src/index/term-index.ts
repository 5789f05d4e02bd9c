import { SortedTerms } from './sorted-terms.ts';

/**
 * An inverted index from terms to the documents holding them, for "every word, in document order"
 * matching: no scores, so a query is a few unions and one intersection over bitsets.
 *
 * Documents get ascending numbers as they are added and keep them; a document that changes or goes
 * is marked gone and, if it changed, added again under a new number. Gone numbers are dropped from
 * the postings when they outnumber the living ones, so the work stays linear in what changed.
 */
export class TermIndex {
  /**
   * Term → postings (document numbers, ascending). Most terms are in one document, so those hold the
   * number itself: a million such terms then make a million map entries, not a million objects too.
   */
  private readonly postings = new Map<string, Postings | number>();
  /** The same terms in order, for prefix lookups. */
  private prefixes = new SortedTerms((term) => this.postings.has(term));
  /** Document number → key (undefined once gone). */
  private keyOf: Array<string | undefined> = [];
  private readonly numbers = new Map<string, number>();
  private gone = 0;
  private changes = 0;

  /** The keys of the documents in the index. */
  keys(): IterableIterator<string> {
    return this.numbers.keys();
  }

  add(key: string, terms: Iterable<string>): void {
    this.remove(key);
    this.changes++;
    const n = this.keyOf.length;
    this.keyOf.push(key);
    this.numbers.set(key, n);
    for (const term of terms) {
      this.post(term, n);
    }
  }

  /**
   * add(), in slices with `pause()` between them, for a document too large to index in one turn of
   * the event loop. The terms go in under a new document number that searches skip (it has no key
   * yet); only at the end does the number get its key and the old one go, in one synchronous step,
   * so a search meanwhile finds the document as it was. Callers must not change this index otherwise
   * until it resolves (SearchIndex runs one update per version at a time).
   */
  async addInSlices(key: string, terms: Iterable<string>, pause: () => Promise<void>): Promise<void> {
    const n = this.keyOf.length;
    this.keyOf.push(undefined);
    let i = 0;
    for (const term of terms) {
      this.post(term, n);
      if ((++i & 4095) === 0) await pause();
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
   * document found is still a match, but some may be missing: `partial` says so.
   */
  match(prefixes: readonly string[], perPrefix = Infinity): { bits: Uint32Array; partial: boolean } {
    let acc: Uint32Array | null = null;
    let partial = false;
    for (const prefix of prefixes) {
      const bits: Uint32Array = new Uint32Array((this.keyOf.length + 31) >>> 5);
      let left = perPrefix;
      for (const term of this.prefixes.atPrefix(prefix)) {
        if (left-- === 0) {
          partial = true;
          break;
        }
        markIn(this.postings.get(term)!, bits);
      }
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

  /** Adds document `n` to the term's postings (n is the highest number so far). */
  private post(term: string, n: number): void {
    const p = this.postings.get(term);
    if (p === undefined) {
      this.postings.set(term, n);
      this.prefixes.add(term);
    } else if (typeof p === 'number') {
      if (p !== n) this.postings.set(term, Postings.of(p, n));
    } else p.push(n);
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
    for (const [term, p] of this.postings) {
      if (typeof p === 'number') {
        if (renumber[p] >= 0) this.postings.set(term, renumber[p]);
        else this.postings.delete(term);
      } else if (p.renumber(renumber) === 0) this.postings.delete(term);
    }
    this.prefixes.prune();
  }

  /**
   * The index as bytes, without changing it, in slices with `pause()` between them (an index of a
   * million terms takes over a second to write out): a JSON head (the living documents' keys, renumbered
   * densely, and the term count), the terms in code-unit order joined by NUL, their posting lengths as
   * 32-bit numbers, then the postings. The caller keeps the index from changing until it resolves
   * (SearchIndex holds the version's update queue meanwhile); searches may run.
   */
  async save(pause: () => Promise<void> = async () => {}): Promise<Uint8Array> {
    const renumber = new Int32Array(this.keyOf.length).fill(-1);
    const keys: string[] = [];
    this.keyOf.forEach((key, n) => {
      if (key === undefined) return;
      renumber[n] = keys.length;
      keys.push(key);
    });
    const sorted = await this.prefixes.all(pause);
    const texts: Buffer[] = [];
    let batch: string[] = [];
    let termCount = 0;
    const lengths = new Uint32Array(sorted.length);
    let ids = new Uint32Array(Math.max(1024, sorted.length));
    let total = 0;
    for (let i = 0; i < sorted.length; i++) {
      if ((i & 16383) === 16383) {
        texts.push(Buffer.from(batch.join('\0'), 'utf8'));
        batch = [];
        await pause();
      }
      const p = this.postings.get(sorted[i])!;
      const before = total;
      const take = (n: number) => {
        const to = renumber[n];
        if (to < 0) return;
        if (total === ids.length) {
          const grown = new Uint32Array(ids.length * 2);
          grown.set(ids);
          ids = grown;
        }
        ids[total++] = to;
      };
      if (typeof p === 'number') take(p);
      else p.forEach(take);
      if (total > before) {
        batch.push(sorted[i]);
        lengths[termCount++] = total - before;
      }
    }
    texts.push(Buffer.from(batch.join('\0'), 'utf8'));
    // The batches joined by NUL as well (an empty batch adds nothing).
    const nonEmpty = texts.filter((t) => t.length > 0);
    const text = Buffer.concat(nonEmpty.flatMap((t, i) => (i === 0 ? [t] : [NUL, t])));
    const terms = { length: termCount };
    const head = Buffer.from(JSON.stringify({ format: FORMAT, keys, terms: terms.length }), 'utf8');
    const pad = (n: number) => (4 - (n % 4)) % 4;
    const out = new Uint8Array(12 + head.length + pad(head.length) + text.length + pad(text.length) + 4 * (terms.length + total));
    const view = new DataView(out.buffer);
    view.setUint32(0, MAGIC);
    view.setUint32(4, head.length);
    view.setUint32(8, text.length);
    let at = 12;
    out.set(head, at);
    at += head.length + pad(head.length);
    out.set(text, at);
    at += text.length + pad(text.length);
    new Uint32Array(out.buffer, at, terms.length).set(lengths.subarray(0, termCount));
    at += 4 * terms.length;
    new Uint32Array(out.buffer, at, total).set(ids.subarray(0, total));
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
      const head = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 12, headLength).toString('utf8')) as { format: number; keys: string[]; terms: number };
      if (head.format !== FORMAT) return null;
      let at = 12 + headLength + pad(headLength);
      const terms = textLength === 0 ? [] : Buffer.from(bytes.buffer, bytes.byteOffset + at, textLength).toString('utf8').split('\0');
      at += textLength + pad(textLength);
      if (terms.length !== head.terms || bytes.length < at + 4 * terms.length) return null;
      // Copies, aligned, that the index owns (the bytes may be a slice of a bigger buffer).
      // (A Buffer's slice() is a view, not a copy: copy by hand.)
      const copy = new Uint8Array(bytes.length - at);
      copy.set(bytes.subarray(at));
      const numbers = new Uint32Array(copy.buffer);
      const lengths = numbers.subarray(0, terms.length);
      const body = numbers.subarray(terms.length);
      let total = 0;
      for (const n of lengths) total += n;
      if (body.length !== total) return null;
      const index = new TermIndex();
      index.keyOf = head.keys;
      head.keys.forEach((key, n) => index.numbers.set(key, n));
      let from = 0;
      terms.forEach((term, i) => {
        const length = lengths[i];
        index.postings.set(term, length === 1 ? body[from] : Postings.over(body.subarray(from, from + length)));
        from += length;
      });
      index.prefixes = SortedTerms.fromSorted(terms, (term) => index.postings.has(term));
      return index;
    } catch {
      return null;
    }
  }
}

const MAGIC = 0x48534958; // "HSIX"
const NUL = Buffer.from([0]);
/** 3: terms in code-unit order joined by NUL, lengths binary (1 kept them in insertion order, for a radix tree). */
const FORMAT = 3;

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

function markIn(p: Postings | number, bits: Uint32Array): void {
  if (typeof p === 'number') bits[p >>> 5] |= 1 << (p & 31);
  else p.markIn(bits);
}
