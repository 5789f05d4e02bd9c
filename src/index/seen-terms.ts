import { EXACT, keyHash, nextBefore, nextLast } from './token-keys.ts';

/**
 * What a document being indexed already has: its distinct tokens and character pairs, so that each
 * is folded and posted once however often the document repeats it (most words of a page come again
 * and again; a run of Japanese repeats the pairs of the words it is made of, nine times each in a
 * typical page). A string per occurrence and a map look-up per occurrence were most of the time of
 * indexing.
 *
 * Tokens are known by their keys (token-keys.ts), which the caller computes as it reads them, and
 * compared with the text in place where the keys do not identify them: a repeat costs no string.
 * Both sets are open-addressing tables over typed arrays, of at most 2^MAX_BITS slots; a full one
 * starts over, so a token or pair seen again after that is handed out again (TermIndex ignores
 * repeats). A set of a huge document's 600,000 distinct words would hold the event loop each time it
 * grew, and its memory until the document is indexed.
 */
export class SeenTerms {
  /** Token slots: the token's number + 1, or 0 for an empty slot. */
  private slots = new Int32Array(1 << MIN_BITS);
  private bits = MIN_BITS;
  /**
   * Token number → its keys (`lengths` with WIDE added if it has a unit from U+0100 on), its hash, and
   * where its code units are in `units`.
   */
  private lasts = new Int32Array(1 << (MIN_BITS - 1));
  private befores = new Int32Array(1 << (MIN_BITS - 1));
  private lengths = new Int32Array(1 << (MIN_BITS - 1));
  private hashes = new Int32Array(1 << (MIN_BITS - 1));
  private froms = new Int32Array(1 << (MIN_BITS - 1));
  private tokenCount = 0;
  /** The tokens' code units, one after the other: comparing with these is several times faster than with strings of any kind. */
  private units = new Uint16Array(MIN_UNITS);
  private unitCount = 0;
  /** Pair codes (never 0); 0 marks an empty slot. */
  private pairSlots = new Uint32Array(1 << MIN_BITS);
  private pairBits = MIN_BITS;
  private pairCount = 0;

  /** The set the last document gave back (see giveBack), or a new one. */
  static take(): SeenTerms {
    const taken = spare?.deref();
    spare = null;
    return taken ?? new SeenTerms();
  }

  /**
   * Empties the set for the next document: making one costs more than indexing a small document. A
   * small one is kept, weakly (an idle service keeps none).
   */
  giveBack(): void {
    if (this.bits > SPARE_BITS || this.pairBits > SPARE_BITS || this.units.length > SPARE_UNITS) return;
    this.forgetTokens();
    if (this.pairCount > 0) this.pairSlots.fill(0);
    this.pairCount = 0;
    spare = new WeakRef(this);
  }

  /** Whether this set did not hold the token `text.slice(start, end)` (it does now). */
  add(text: string, start: number, end: number): boolean {
    let last = 0;
    let before = 0;
    let wide = 0;
    for (let k = start; k < end; k++) {
      const unit = text.charCodeAt(k);
      wide |= unit;
      before = nextBefore(before, last);
      last = nextLast(last, unit);
    }
    const length = (end - start) | (wide > 0xff ? WIDE : 0);
    const hash = keyHash(last, before, end - start, text.charCodeAt(start));
    const exact = length <= EXACT;
    const mask = this.slots.length - 1;
    let slot = Math.imul(hash, 0x9e3779b1) >>> (32 - this.bits);
    for (let at = this.slots[slot], probes = 0; at !== 0; slot = (slot + 1) & mask, at = this.slots[slot]) {
      const n = at - 1;
      if (this.lasts[n] === last && this.befores[n] === before && this.lengths[n] === length && (exact || sameUnits(this.units, this.froms[n], text, start, end - start))) return false;
      // Text made to collide would make every token walk the whole table: past MAX_PROBES, a token is new each time.
      if (++probes === MAX_PROBES) return true;
    }
    this.insert(text, start, end, last, before, length, hash, slot);
    return true;
  }

  /**
   * add() for the tokens `text.slice(starts[k], ends[k])`, k < count, all of units below U+0100, with
   * keys `lasts[k]` and `befores[k]`; writes the k of those it did not hold to `fresh` and returns how
   * many. One call for many tokens, with the tables in locals: most tokens are held, and for them this
   * is the whole work.
   */
  addNarrowTokens(text: string, starts: Int32Array, ends: Int32Array, lasts: Int32Array, befores: Int32Array, count: number, fresh: Int32Array): number {
    let { slots, lasts: heldLasts, befores: heldBefores, lengths, froms, units } = this;
    let mask = slots.length - 1;
    let shift = 32 - this.bits;
    let added = 0;
    next: for (let k = 0; k < count; k++) {
      const start = starts[k];
      const length = ends[k] - start;
      const last = lasts[k];
      const before = befores[k];
      const hash = keyHash(last, before, length, text.charCodeAt(start));
      let slot = Math.imul(hash, 0x9e3779b1) >>> shift;
      for (let at = slots[slot], probes = 0; at !== 0; slot = (slot + 1) & mask, at = slots[slot]) {
        const n = at - 1;
        if (heldLasts[n] === last && heldBefores[n] === before && lengths[n] === length && (length <= EXACT || sameUnits(units, froms[n], text, start, length))) continue next;
        if (++probes === MAX_PROBES) {
          slot = -1;
          break;
        }
      }
      fresh[added++] = k;
      if (slot < 0) continue;
      this.insert(text, start, ends[k], last, before, length, hash, slot);
      ({ slots, lasts: heldLasts, befores: heldBefores, lengths, froms, units } = this);
      mask = slots.length - 1;
      shift = 32 - this.bits;
    }
    return added;
  }

  /** Keeps a token found missing at the empty slot `slot`. */
  private insert(text: string, start: number, end: number, last: number, before: number, length: number, hash: number, slot: number): void {
    const count = end - start;
    // A token too long to keep is new each time it comes.
    if (count > MAX_UNITS / 2) return;
    const full = this.tokenCount === this.hashes.length;
    if (full || this.unitCount + count > this.units.length) {
      if (full && this.bits < MAX_BITS) this.growTokens();
      if (this.unitCount + count > this.units.length) this.growUnits(this.unitCount + count);
      if (this.tokenCount === this.hashes.length || this.unitCount + count > this.units.length) {
        this.forgetTokens();
        this.growUnits(count);
      }
      slot = this.freeTokenSlot(hash);
    }
    const n = this.tokenCount++;
    this.lasts[n] = last;
    this.befores[n] = before;
    this.lengths[n] = length;
    this.hashes[n] = hash;
    this.froms[n] = this.unitCount;
    for (let k = start; k < end; k++) this.units[this.unitCount++] = text.charCodeAt(k);
    this.slots[slot] = n + 1;
  }

  /** Whether the set did not hold pair `code` (it does now). */
  addPair(code: number): boolean {
    const mask = this.pairSlots.length - 1;
    let slot = Math.imul(code, 0x9e3779b1) >>> (32 - this.pairBits);
    for (let held = this.pairSlots[slot], probes = 0; held !== 0; slot = (slot + 1) & mask, held = this.pairSlots[slot]) {
      if (held === code) return false;
      if (++probes === MAX_PROBES) return true;
    }
    if ((this.pairCount + 1) * 2 > this.pairSlots.length) {
      if (this.pairBits === MAX_BITS) {
        this.pairSlots.fill(0);
        this.pairCount = 0;
      } else this.growPairs();
      slot = this.freePairSlot(code);
    }
    this.pairSlots[slot] = code;
    this.pairCount++;
    return true;
  }

  private freeTokenSlot(hash: number): number {
    const mask = this.slots.length - 1;
    let slot = Math.imul(hash, 0x9e3779b1) >>> (32 - this.bits);
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    return slot;
  }

  private growTokens(): void {
    this.bits++;
    this.slots = new Int32Array(1 << this.bits);
    const capacity = 1 << (this.bits - 1);
    const grown = (a: Int32Array) => {
      const b = new Int32Array(capacity);
      b.set(a);
      return b;
    };
    this.lasts = grown(this.lasts);
    this.befores = grown(this.befores);
    this.lengths = grown(this.lengths);
    this.hashes = grown(this.hashes);
    this.froms = grown(this.froms);
    for (let n = 0; n < this.tokenCount; n++) this.slots[this.freeTokenSlot(this.hashes[n])] = n + 1;
  }

  /** Makes room for `needed` code units, up to MAX_UNITS. */
  private growUnits(needed: number): void {
    let size = this.units.length;
    while (size < needed && size < MAX_UNITS) size *= 2;
    if (size === this.units.length) return;
    const units = new Uint16Array(size);
    units.set(this.units.subarray(0, this.unitCount));
    this.units = units;
  }

  private forgetTokens(): void {
    this.slots.fill(0);
    this.tokenCount = 0;
    this.unitCount = 0;
  }

  private freePairSlot(code: number): number {
    const mask = this.pairSlots.length - 1;
    let slot = Math.imul(code, 0x9e3779b1) >>> (32 - this.pairBits);
    while (this.pairSlots[slot] !== 0) slot = (slot + 1) & mask;
    return slot;
  }

  private growPairs(): void {
    const old = this.pairSlots;
    this.pairBits++;
    this.pairSlots = new Uint32Array(1 << this.pairBits);
    for (const code of old) if (code !== 0) this.pairSlots[this.freePairSlot(code)] = code;
  }
}

/** Added to a token's length (in `lengths`) when it has a unit from U+0100 on: its keys do not identify it. */
const WIDE = 1 << 30;
const MIN_BITS = 9;
/** Slots looked at for one token or pair at most (at most half the slots are taken: a few, unless made to collide). */
const MAX_PROBES = 32;
const MIN_UNITS = 4096;
/** At most 2^14 slots (8,192 tokens and 8,192 pairs) and 2^16 code units of tokens: 384 KB. */
const MAX_BITS = 14;
const MAX_UNITS = 1 << 16;
/** The largest set kept for the next document: 2^SPARE_BITS slots and SPARE_UNITS code units (56 KB). */
const SPARE_BITS = 11;
const SPARE_UNITS = 1 << 14;
let spare: WeakRef<SeenTerms> | null = null;

function sameUnits(units: Uint16Array, from: number, text: string, start: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (units[from + k] !== text.charCodeAt(start + k)) return false;
  return true;
}
