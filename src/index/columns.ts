/**
 * Display columns of text, for cutting snippets to a width: a character of East Asian scripts
 * (wide or fullwidth) takes two, most others one.
 */

/** Display columns of a UTF-16 unit: 2 for East Asian wide and fullwidth characters and for astral ones (their high surrogate; the low one 0), else 1. */
function columnsOf(code: number): number {
  if (code < 0x1100) return 1;
  if (code >= 0xdc00 && code <= 0xdfff) return 0;
  return (code <= 0x115f || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xdbff) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) || (code >= 0xffe0 && code <= 0xffe6)) ? 2 : 1;
}

/**
 * Whether every unit of `text` takes one column (none is at or above U+1100): Latin, Greek,
 * Cyrillic, … text then has as many columns as units, and needs no count character by character.
 */
export const isNarrow = (text: string) => !MAY_BE_WIDE.test(text);
const MAY_BE_WIDE = /[\u1100-\uffff]/;

/** The index `columns` display columns before `from` (`narrow`: isNarrow(text)). */
export function columnsBack(text: string, from: number, columns: number, narrow: boolean): number {
  // (`columns` may be a fraction: the loop below then takes one unit more.)
  if (narrow) return Math.max(0, from - Math.ceil(columns));
  let i = from;
  for (let left = columns; i > 0 && left > 0; ) left -= columnsOf(text.charCodeAt(--i));
  return i;
}

/** The index after at most `columns` display columns from `from`, a surrogate pair kept whole (`narrow`: isNarrow(text)). */
export function columnsForward(text: string, from: number, columns: number, narrow: boolean): number {
  if (narrow) return Math.min(text.length, from + Math.floor(columns));
  let i = from;
  for (let left = columns; i < text.length; i++) {
    const c = columnsOf(text.charCodeAt(i));
    if (c > left) break;
    left -= c;
  }
  return i;
}

/** Display columns of `text` from `from` to `until`, counted up to just past `upTo`. */
export function columnsIn(text: string, from: number, until: number, upTo: number): number {
  let columns = 0;
  for (let i = from; i < until && columns <= upTo; i++) columns += columnsOf(text.charCodeAt(i));
  return columns;
}
