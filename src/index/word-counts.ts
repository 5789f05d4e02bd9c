/**
 * A document's words with their counts per field (packed as rank-index.ts packs them), in an
 * open-addressing table keyed by a hash of the characters: a word met again is found by comparing
 * its characters with the one kept, so only a word new to the document becomes a string. A Map keyed
 * by a string sliced out for every occurrence took three times as long as all the rest of indexing.
 */
export class WordCounts {
  private capacity = 1024;
  private hashes = new Int32Array(this.capacity);
  private packed = new Float64Array(this.capacity);
  private words: Array<string | undefined> = new Array(this.capacity);
  size = 0;

  /**
   * Counts the word `text[start, end)` (`hash`: wordHash() of it) in the field of `shift`, up to `max`
   * (`step` = 2 ** shift). A word new to the document is counted only when `room`.
   */
  addRange(text: string, start: number, end: number, hash: number, shift: number, max: number, step: number, room: boolean): void {
    const mask = this.capacity - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const word = this.words[slot];
      if (word === undefined) {
        if (!room) return;
        this.insert(slot, text.slice(start, end), hash, step);
        return;
      }
      if (this.hashes[slot] !== hash || word.length !== length || !sameAt(word, text, start)) continue;
      const packed = this.packed[slot];
      if (((packed >>> shift) & max) < max) this.packed[slot] = packed + step;
      return;
    }
  }

  /** Counts `word` (a string already) as addRange() counts a range. */
  addWord(word: string, shift: number, max: number, step: number, room: boolean): void {
    this.addRange(word, 0, word.length, wordHash(word, 0, word.length), shift, max, step, room);
  }

  /** Appends the words and their packed counts to `terms` and `packed`. */
  appendTo(terms: string[], packed: number[]): void {
    for (let slot = 0; slot < this.capacity; slot++) {
      const word = this.words[slot];
      if (word === undefined) continue;
      terms.push(word);
      packed.push(this.packed[slot]);
    }
  }

  private insert(slot: number, word: string, hash: number, packed: number): void {
    this.words[slot] = word;
    this.hashes[slot] = hash;
    this.packed[slot] = packed;
    if (++this.size * 2 > this.capacity) this.grow();
  }

  private grow(): void {
    const old = { words: this.words, hashes: this.hashes, packed: this.packed, capacity: this.capacity };
    this.capacity *= 2;
    this.hashes = new Int32Array(this.capacity);
    this.packed = new Float64Array(this.capacity);
    this.words = new Array(this.capacity);
    const mask = this.capacity - 1;
    for (let i = 0; i < old.capacity; i++) {
      const word = old.words[i];
      if (word === undefined) continue;
      let slot = old.hashes[i] & mask;
      while (this.words[slot] !== undefined) slot = (slot + 1) & mask;
      this.words[slot] = word;
      this.hashes[slot] = old.hashes[i];
      this.packed[slot] = old.packed[i];
    }
  }
}

/**
 * Character pairs of scripts without spaces (two BMP units, as one number: first * 65536 + second)
 * with their packed counts, in the same kind of table: a Map keyed by numbers above 2^31 stores each
 * as a heap number and took twice as long.
 */
export class PairCounts {
  private capacity = 1024;
  private codes = new Float64Array(this.capacity).fill(-1);
  private packed = new Float64Array(this.capacity);
  size = 0;

  /** Counts pair `code` as WordCounts.addRange counts a word. */
  add(code: number, shift: number, max: number, step: number, room: boolean): void {
    const mask = this.capacity - 1;
    for (let slot = pairSlot(code) & mask; ; slot = (slot + 1) & mask) {
      const held = this.codes[slot];
      if (held === -1) {
        if (!room) return;
        this.codes[slot] = code;
        this.packed[slot] = step;
        if (++this.size * 2 > this.capacity) this.grow();
        return;
      }
      if (held !== code) continue;
      const packed = this.packed[slot];
      if (((packed >>> shift) & max) < max) this.packed[slot] = packed + step;
      return;
    }
  }

  /** Appends the pairs' codes (pairCode()) and their packed counts to `codes` and `packed`. */
  appendCodesTo(codes: number[], packed: number[]): void {
    for (let slot = 0; slot < this.capacity; slot++) {
      if (this.codes[slot] === -1) continue;
      codes.push(this.codes[slot]);
      packed.push(this.packed[slot]);
    }
  }

  /** Appends the pairs, as strings, and their packed counts to `terms` and `packed`. */
  appendTo(terms: string[], packed: number[]): void {
    for (let slot = 0; slot < this.capacity; slot++) {
      const code = this.codes[slot];
      if (code === -1) continue;
      terms.push(String.fromCharCode(Math.floor(code / 65536), code % 65536));
      packed.push(this.packed[slot]);
    }
  }

  private grow(): void {
    const old = { codes: this.codes, packed: this.packed };
    this.capacity *= 2;
    this.codes = new Float64Array(this.capacity).fill(-1);
    this.packed = new Float64Array(this.capacity);
    const mask = this.capacity - 1;
    for (let i = 0; i < old.codes.length; i++) {
      const code = old.codes[i];
      if (code === -1) continue;
      let slot = pairSlot(code) & mask;
      while (this.codes[slot] !== -1) slot = (slot + 1) & mask;
      this.codes[slot] = code;
      this.packed[slot] = old.packed[i];
    }
  }
}

/** A pair's code spread over all 32 bits (codes of one script differ in few of them). */
function pairSlot(code: number): number {
  const h = Math.imul(code | 0, 0x9e3779b1);
  return h ^ (h >>> 15);
}

/** FNV-1a over the UTF-16 units of `text[start, end)`; the scan of a text computes the same as it goes (hashStep). */
export function wordHash(text: string, start: number, end: number): number {
  let h = HASH_START;
  for (let i = start; i < end; i++) h = hashStep(h, text.charCodeAt(i));
  return h;
}

export const HASH_START = 0x811c9dc5 | 0;
export const hashStep = (h: number, unit: number): number => Math.imul(h ^ unit, 0x01000193);

function sameAt(word: string, text: string, start: number): boolean {
  for (let k = 0; k < word.length; k++) if (word.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}
