import { hashRange } from './token-keys.ts';

/**
 * The terms of a TermIndex, each with a number (its place in `terms`), found from a string or
 * straight from a range of a text with its hash (token-keys.ts), which the tokenizer has: a word a
 * document shares with documents indexed before costs neither a string nor a Map look-up (which
 * hashes the new string again), and its postings are an array element.
 *
 * Open addressing over typed arrays, split in SHARDS tables by hash, so growing one rehashes a
 * sixteenth of the terms (a Map of a million terms held the event loop for about 60 ms when it grew).
 * The hash is weak and the same in every process, so text made to collide could crowd a table: a
 * term that finds no free slot within MAX_PROBES goes to a Map (whose hashing is seeded) instead.
 * Terms are never removed one by one: the owner builds a new table when it drops many.
 */
export class TermTable {
  /** Term number → term. */
  readonly terms: string[];
  /** Term number → the hash of the term (token-keys.ts). */
  private hashes: Int32Array;
  /** Per shard: term number + 1 per slot (0: empty), 32 - log2 of the slot count, slots taken. */
  private readonly slots: Int32Array[] = [];
  private readonly shifts = new Int32Array(SHARDS);
  private readonly taken = new Int32Array(SHARDS);
  private crowded: Map<string, number> | null = null;

  /**
   * `expected`: how many terms it will hold, so that adding them never grows a shard midway.
   * `terms`: for TermTable.of only, which then places them (a copy handed over, not pushed one by one).
   */
  constructor(expected = 0, terms: string[] = []) {
    this.terms = terms;
    let size = MIN_SLOTS;
    while (size * SHARDS < expected * 2.5) size *= 2;
    for (let s = 0; s < SHARDS; s++) {
      this.slots.push(new Int32Array(size));
      this.shifts[s] = 32 - Math.log2(size);
    }
    this.hashes = new Int32Array(Math.max(64, expected));
  }

  /**
   * A table of `terms`, numbered in their order, as add() would make it term by term, but filled in
   * the order of the terms' slots: a table of 600,000 terms is 8 MB of slots, and placing the terms
   * at random cost a cache miss each (175 ms for a restart's largest index, against about 60 ms).
   */
  static of(terms: readonly string[]): TermTable {
    const table = new TermTable(terms.length, terms.slice());
    const n = terms.length;
    const homes = new Uint32Array(n);
    const counts = new Int32Array(BUCKETS + 1);
    for (let i = 0; i < n; i++) {
      const hash = hashOf(terms[i]);
      table.hashes[i] = hash;
      // The shard, then the slot within it, are the top bits of the mixed hash: ordering by them orders by memory.
      homes[i] = Math.imul(hash, 0x9e3779b1) >>> (32 - BUCKET_BITS);
      counts[homes[i] + 1]++;
    }
    for (let b = 0; b < BUCKETS; b++) counts[b + 1] += counts[b];
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[counts[homes[i]]++] = i;
    for (let k = 0; k < n; k++) {
      const id = order[k];
      const shard = Math.imul(table.hashes[id], 0x9e3779b1) >>> SHARD_SHIFT;
      if ((table.taken[shard] + 1) * 2 > table.slots[shard].length) table.grow(shard);
      table.place(id);
    }
    return table;
  }

  get size(): number {
    return this.terms.length;
  }

  /** The number of the term `text.slice(start, end)`, whose hash is `hash` (hashRange()), or -1. */
  find(text: string, start: number, end: number, hash: number): number {
    const mixed = Math.imul(hash, 0x9e3779b1);
    const slots = this.slots[mixed >>> SHARD_SHIFT];
    const mask = slots.length - 1;
    const length = end - start;
    let slot = (mixed << SHARD_BITS) >>> this.shifts[mixed >>> SHARD_SHIFT];
    for (let probes = 0; probes < MAX_PROBES; probes++, slot = (slot + 1) & mask) {
      const at = slots[slot];
      if (at === 0) break;
      if (this.hashes[at - 1] === hash) {
        const term = this.terms[at - 1];
        if (term.length === length && sameAt(term, text, start)) return at - 1;
      }
    }
    return this.crowded === null ? -1 : (this.crowded.get(text.slice(start, end)) ?? -1);
  }

  /** The number of `term` (`hash`: its hash, hashRange()), or -1. */
  idOf(term: string, hash = hashOf(term)): number {
    const mixed = Math.imul(hash, 0x9e3779b1);
    const slots = this.slots[mixed >>> SHARD_SHIFT];
    const mask = slots.length - 1;
    let slot = (mixed << SHARD_BITS) >>> this.shifts[mixed >>> SHARD_SHIFT];
    for (let probes = 0; probes < MAX_PROBES; probes++, slot = (slot + 1) & mask) {
      const at = slots[slot];
      if (at === 0) break;
      if (this.hashes[at - 1] === hash && this.terms[at - 1] === term) return at - 1;
    }
    return this.crowded === null ? -1 : (this.crowded.get(term) ?? -1);
  }

  /** The hash of term number `id`. */
  hashAt(id: number): number {
    return this.hashes[id];
  }

  /** Adds a term the table does not hold (`hash`: its hash); returns its number. */
  add(term: string, hash = hashOf(term)): number {
    const id = this.terms.length;
    this.terms.push(term);
    if (id === this.hashes.length) {
      const grown = new Int32Array(Math.max(64, id * 2));
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[id] = hash;
    const shard = Math.imul(hash, 0x9e3779b1) >>> SHARD_SHIFT;
    if ((this.taken[shard] + 1) * 2 > this.slots[shard].length) this.grow(shard);
    this.place(id);
    return id;
  }

  /** Puts term `id` in a free slot of its shard, or among the crowded if there is none near. */
  private place(id: number): void {
    const mixed = Math.imul(this.hashes[id], 0x9e3779b1);
    const shard = mixed >>> SHARD_SHIFT;
    const slots = this.slots[shard];
    const mask = slots.length - 1;
    let slot = (mixed << SHARD_BITS) >>> this.shifts[shard];
    for (let probes = 0; probes < MAX_PROBES; probes++, slot = (slot + 1) & mask) {
      if (slots[slot] === 0) {
        slots[slot] = id + 1;
        this.taken[shard]++;
        return;
      }
    }
    (this.crowded ??= new Map()).set(this.terms[id], id);
  }

  private grow(shard: number): void {
    const old = this.slots[shard];
    this.slots[shard] = new Int32Array(old.length * 2);
    this.shifts[shard]--;
    this.taken[shard] = 0;
    for (const at of old) if (at !== 0) this.place(at - 1);
  }
}

const hashOf = (term: string) => hashRange(term, 0, term.length);

/** Buckets of TermTable.of's ordering by home slot: the top 16 bits of the mixed hash. */
const BUCKET_BITS = 16;
const BUCKETS = 1 << BUCKET_BITS;
const SHARD_BITS = 4;
const SHARDS = 1 << SHARD_BITS;
const SHARD_SHIFT = 32 - SHARD_BITS;
const MIN_SLOTS = 16;
/** Slots looked at for one term at most: at most half are taken, so a few unless made to collide. */
const MAX_PROBES = 32;

function sameAt(term: string, text: string, start: number): boolean {
  for (let k = 0; k < term.length; k++) if (term.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}
