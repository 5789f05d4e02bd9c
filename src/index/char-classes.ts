/**
 * What each code point is when text is cut into words (see words.ts): the classes of the Unicode
 * pattern words are defined by, found once per block of 256 code points by running that pattern over
 * the block, and kept. Cutting a text is then a loop over its character codes with a table look-up
 * each, a fraction of the time of running the pattern over the text.
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
/** The bits of infoOf() that hold the class. */
export const CLASS = 3;
/** Added to the class of a code point that folding may change (MAY_DECOMPOSE). */
export const MAY_FOLD = 4;

/**
 * Where letters that decompose into a base and an accent are (Latin, Greek, Cyrillic and a few
 * symbols; compatibility ideographs; and, as surrogates, everything outside the BMP): only words
 * with one of these need the Unicode normalizations of folding.
 */
export const MAY_DECOMPOSE = /[\u00c0-\u04ff\u1e00-\u1fff\u2100-\u214f\uf900-\ufaff\ud800-\udfff]/;

const CLASSES = new RegExp(String.raw`([${UNSPACED_SCRIPTS}])|([[\p{L}\p{N}]--[${UNSPACED_SCRIPTS}]])|(\p{M})`, 'gv');

/**
 * infoOf() of the code points of the Basic Multilingual Plane, made a block at a time when first
 * asked: block (code point >> 8) → its number + 1 in `bmpInfo` (0: not made yet), 256 bytes each.
 * Two typed arrays: an array of 256-byte arrays took twice as long to read.
 */
const bmpBlocks = new Uint16Array(256);
let bmpInfo = new Uint8Array(256);
let bmpBlockCount = 0;
/** The same for code points outside the BMP (rare; at most 4,352 blocks). */
const astralBlocks = new Map<number, Uint8Array>();

/** Character below U+0100 → 1 for a letter or digit (WORD), else 0 (OTHER: there are no others there). */
export const NARROW_WORD = new Uint8Array(256).map((_, c) => ((infoOf(c) & CLASS) === WORD ? 1 : 0));

/** The class of code point `cp` (a lone surrogate is OTHER, as for the pattern), plus MAY_FOLD if folding may change it. */
export function infoOf(cp: number): number {
  if (cp > 0xffff) return astralInfo(cp);
  const block = bmpBlocks[cp >> 8];
  return block !== 0 ? bmpInfo[((block - 1) << 8) | (cp & 255)] : bmpInfoMade(cp);
}

function bmpInfoMade(cp: number): number {
  if (256 * (bmpBlockCount + 1) > bmpInfo.length) {
    const grown = new Uint8Array(bmpInfo.length * 2);
    grown.set(bmpInfo);
    bmpInfo = grown;
  }
  bmpInfo.set(infoOfBlock(cp >> 8), 256 * bmpBlockCount);
  bmpBlocks[cp >> 8] = ++bmpBlockCount;
  return infoOf(cp);
}

function astralInfo(cp: number): number {
  let info = astralBlocks.get(cp >> 8);
  if (info === undefined) astralBlocks.set(cp >> 8, (info = infoOfBlock(cp >> 8)));
  return info[cp & 255];
}

function infoOfBlock(block: number): Uint8Array {
  const classes = new Uint8Array(256);
  const first = block << 8;
  let text = '';
  for (let k = 0; k < 256; k++) text += String.fromCodePoint(first + k);
  // Surrogates alone stay alone here: a block holds only leading or only trailing ones.
  const width = first > 0xffff ? 2 : 1;
  for (const m of text.matchAll(CLASSES)) classes[m.index / width] = m[1] !== undefined ? UNSPACED : m[2] !== undefined ? WORD : MARK;
  for (let k = 0; k < 256; k++) if (MAY_DECOMPOSE.test(String.fromCodePoint(first + k))) classes[k] |= MAY_FOLD;
  return classes;
}
