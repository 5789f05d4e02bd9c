/**
 * What each code point is when text is cut into words (see words.ts): the classes of the Unicode
 * pattern words are defined by, found once per block of 256 code points by running that pattern over
 * the block, and kept. Cutting a text is then a loop over its character codes with a table look-up
 * each, about a fifth of the time of running the pattern over the text.
 */

/** Scripts without spaces between words, plus the katakana prolonged-sound mark (script Common). */
export const UNSPACED_SCRIPTS = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30FC\uFF70`;

/** Neither letter, digit nor mark: cuts words. */
export const OTHER = 0;
/** A letter or digit of a script written with spaces. */
export const WORD = 1;
/** A combining mark of no script without spaces: it continues the word before it, starts none. */
export const MARK = 2;
/** A character of a script without spaces (its marks included). */
export const UNSPACED = 3;

const CLASSES = new RegExp(String.raw`([${UNSPACED_SCRIPTS}])|([[\p{L}\p{N}]--[${UNSPACED_SCRIPTS}]])|(\p{M})`, 'gv');

/** Block (code point >> 8) → the class of each of its code points; made when first asked. */
const blocks: Array<Uint8Array | undefined> = [];

/** ASCII character → 1 for a letter or digit, else 0. */
export const ASCII_WORD = new Uint8Array(128).map((_, c) => (/[a-z0-9]/i.test(String.fromCharCode(c)) ? 1 : 0));

/** Character below U+0100 → 1 for a letter or digit (WORD), else 0 (OTHER: there are no others there). */
export const NARROW_WORD = new Uint8Array(256).map((_, c) => (classOf(c) === WORD ? 1 : 0));

/** The class of code point `cp` (a lone surrogate is OTHER, as for the pattern). */
export function classOf(cp: number): number {
  return (blocks[cp >> 8] ?? classesOfBlock(cp >> 8))[cp & 255];
}

function classesOfBlock(block: number): Uint8Array {
  const classes = new Uint8Array(256);
  const first = block << 8;
  let text = '';
  for (let k = 0; k < 256; k++) text += String.fromCodePoint(first + k);
  // Surrogates alone stay alone here: a block holds only leading or only trailing ones.
  const width = first > 0xffff ? 2 : 1;
  for (const m of text.matchAll(CLASSES)) classes[m.index / width] = m[1] !== undefined ? UNSPACED : m[2] !== undefined ? WORD : MARK;
  blocks[block] = classes;
  return classes;
}
