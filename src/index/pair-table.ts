import { randomInt } from 'node:crypto';

/**
 * The character pairs of scripts written without spaces, as numbers: a pair of two UTF-16 code
 * units `a`, `b` is `a * 65536 + b`. Random Chinese text has nearly as many distinct pairs as
 * characters, and a million pairs held as strings in a Map cost a string and a map entry each (about
 * 1.5 µs to make, 100 bytes to keep, and a heap the garbage collector has to walk). Here they are an
 * open-addressing hash table over typed arrays: no object per pair, and saving or loading one is a
 * copy of numbers.
 *
 * Each entry holds a 32-bit value for its owner (TermIndex: a document number, or a reference to a
 * postings list). The entries with the same first code unit are chained, so the pairs starting with
 * one character (a one-character query) are found without a scan. Entries are never removed one by
 * one: the owner builds a new table when it drops many (see TermIndex.compact).
 */
export class PairTable {
  /** Pair codes; 0 marks an empty slot (no pair starts with U+0000). */
  private keys: Uint32Array;
  private values: Int32Array;
  /** The next slot whose pair has the same first unit, or -1. */
  private next: Int32Array;
  /**
   * First code unit → its first slot, or -1. Made with the first pair: 256 KB that the index of a
   * language written with spaces (most of them) never needs, in every version.
   */
  private heads: Int32Array | null = null;
  private bits: number;
  size = 0;
  /** Slots (from here on) of arrays grown but not yet written page by page (touchPages). */
  private untouched = 0;

  constructor(expected = 0) {
    this.bits = bitsFor(expected);
    this.keys = new Uint32Array(1 << this.bits);
    this.values = new Int32Array(1 << this.bits);
    this.next = new Int32Array(1 << this.bits);
  }

  /** The slot holding `code`, or -1. */
  find(code: number): number {
    const mask = this.keys.length - 1;
    for (let slot = hash(code, this.bits); ; slot = (slot + 1) & mask) {
      const k = this.keys[slot];
      if (k === code) return slot;
      if (k === 0) return -1;
    }
  }

  /** Adds a pair the table does not hold, with its value; returns its slot. */
  insert(code: number, value: number): number {
    if ((this.size + 1) * 2 > this.keys.length) this.grow(this.size + 1);
    return this.place(code, value);
  }

  /** Makes room for `more` pairs at once, so adding them never grows the table midway. */
  reserve(more: number): void {
    if ((this.size + more) * 2 > this.keys.length) this.grow(this.size + more);
  }

  /**
   * Writes to every memory page of arrays the last reserve() made, PAGE_SLOTS * `pages` slots a step:
   * the system maps a fresh array's pages at their first write, and pairs posted at random otherwise
   * take those faults all at once (about 6,000 for a million pairs, 20 ms in the first slice of posting).
   */
  *touchPages(pages: number): Generator<void, void, undefined> {
    const { keys, values, next } = this;
    // (Should the table grow between steps, these are no longer its arrays: stop.)
    for (let from = this.untouched; from < keys.length && this.keys === keys; from += PAGE_SLOTS * pages) {
      for (let i = from, end = Math.min(keys.length, from + PAGE_SLOTS * pages); i < end; i += PAGE_SLOTS) {
        keys[i] = keys[i];
        values[i] = values[i];
        next[i] = next[i];
      }
      this.untouched = from + PAGE_SLOTS * pages;
      yield;
    }
  }

  valueAt(slot: number): number {
    return this.values[slot];
  }

  setValueAt(slot: number, value: number): void {
    this.values[slot] = value;
  }

  codeAt(slot: number): number {
    return this.keys[slot];
  }

  /** The slots whose pairs start with code unit `unit`. */
  *startingWith(unit: number): Generator<number> {
    if (this.heads === null) return;
    for (let slot = this.heads[unit]; slot >= 0; slot = this.next[slot]) yield slot;
  }

  /** Calls `fn` with every occupied slot. */
  forEach(fn: (slot: number) => void): void {
    for (let slot = 0; slot < this.keys.length; slot++) if (this.keys[slot] !== 0) fn(slot);
  }

  /** forEach(), `chunk` slots at a time with `pause()` between (saving a large table must not hold the event loop). */
  async forEachInSlices(fn: (slot: number) => void, pause: () => Promise<void>, chunk = 1 << 16): Promise<void> {
    for (let from = 0; from < this.keys.length; from += chunk) {
      const until = Math.min(this.keys.length, from + chunk);
      for (let slot = from; slot < until; slot++) if (this.keys[slot] !== 0) fn(slot);
      if (until < this.keys.length) await pause();
    }
  }

  private place(code: number, value: number): number {
    const mask = this.keys.length - 1;
    let slot = hash(code, this.bits);
    while (this.keys[slot] !== 0) slot = (slot + 1) & mask;
    this.keys[slot] = code;
    this.values[slot] = value;
    const first = code >>> 16;
    const heads = (this.heads ??= new Int32Array(65536).fill(-1));
    this.next[slot] = heads[first];
    heads[first] = slot;
    this.size++;
    return slot;
  }

  private grow(needed: number): void {
    const { keys, values } = this;
    this.bits = bitsFor(needed);
    this.keys = new Uint32Array(1 << this.bits);
    this.values = new Int32Array(1 << this.bits);
    this.next = new Int32Array(1 << this.bits);
    this.untouched = 0;
    this.heads?.fill(-1);
    this.size = 0;
    for (let slot = 0; slot < keys.length; slot++) if (keys[slot] !== 0) this.place(keys[slot], values[slot]);
  }
}

/** Slots of 4 bytes in a memory page of 4 KB. */
const PAGE_SLOTS = 1024;

/** The code of the pair of code units `a`, `b`. */
export const pairCode = (a: number, b: number) => a * 65536 + b;

/** log2 of a table size that keeps `n` entries at most half full (at least 256 slots). */
function bitsFor(n: number): number {
  let bits = 8;
  while (1 << bits < n * 2) bits++;
  return bits;
}

/**
 * Multiply-shift hashing: the top `bits` bits of the code times MULTIPLIER, an odd number drawn for
 * each process. With a constant known to everyone (Fibonacci hashing's 2^32 / φ), a writer could pick
 * character pairs that land in a few neighbouring slots, and every insert then walked all of them:
 * 20,000 such pairs took 250 ms against 20 ms for random ones, growing with their square. Tables are
 * saved as codes, not slots (TermIndex.save), so a restart or an index worker reads them alike.
 */
const hash = (code: number, bits: number) => Math.imul(code, MULTIPLIER) >>> (32 - bits);
const MULTIPLIER = drawMultiplier();

/** A random odd multiplier with its top bit set and its bits neither too few nor too many (those spread codes badly). */
function drawMultiplier(): number {
  for (;;) {
    const m = randomInt(2 ** 31) * 2 + 1;
    let ones = 0;
    for (let v = m; v > 0; v = Math.floor(v / 2)) ones += v % 2;
    if (m >= 2 ** 31 && ones >= 12 && ones <= 20) return m | 0;
  }
}
