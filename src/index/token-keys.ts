/**
 * What a token is known by in SeenTerms and TermTable: two packs of its last code units, each unit
 * shifted in 8 bits at a time (`last`: the last four, `before`: the four before those), its length,
 * and a hash of those and its first unit. A token of at most EXACT units below U+0100 — most words
 * of most languages — is its packs and length, so a token seen again is known without comparing
 * characters (the comparison took a third of the time of cutting English text); longer or wider ones
 * are compared. Per character the packs are two shifts, an xor and an or: a shorter chain of work
 * than a multiplicative hash, and the loop that cuts text computes them without branches.
 */

/** The longest token of units below U+0100 that its packs and length identify. */
export const EXACT = 8;

/** `before` once a unit is added: the unit that leaves `last`. */
export const nextBefore = (before: number, last: number) => (before << 8) | (last >>> 24);
/** `last` once `unit` is added. */
export const nextLast = (last: number, unit: number) => (last << 8) ^ unit;

/** The hash of a token by its packs, length and first unit (weak on its own: the tables mix it again). */
export const keyHash = (last: number, before: number, length: number, first: number) => Math.imul(last ^ Math.imul(before ^ (length << 20) ^ first, 0x85ebca6b), 0x27d4eb2d);

/** keyHash() of `text.slice(start, end)`. */
export function hashRange(text: string, start: number, end: number): number {
  let last = 0;
  let before = 0;
  for (let k = start; k < end; k++) {
    before = nextBefore(before, last);
    last = nextLast(last, text.charCodeAt(k));
  }
  return keyHash(last, before, end - start, text.charCodeAt(start));
}
