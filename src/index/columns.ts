/**
 * Display columns of text, for cutting snippets to a width: a character of East Asian scripts
 * (wide or fullwidth) takes two, most others one.
 */

/**
 * Display columns of the UTF-16 unit at `i`: 2 for East Asian wide and fullwidth characters and for
 * astral ones (their high surrogate; the low one after it 0), else 1. A low surrogate on its own
 * takes one, so that no run of units counts as nothing.
 */
function columnsAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 0x1100) return 1;
  if (code >= 0xdc00 && code <= 0xdfff) {
    const before = i > 0 ? text.charCodeAt(i - 1) : 0;
    return before >= 0xd800 && before <= 0xdbff ? 0 : 1;
  }
  return (code <= 0x115f || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xdbff) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) || (code >= 0xffe0 && code <= 0xffe6)) ? 2 : 1;
}

/**
 * Whether every unit of `text` from `from` to `until` (clamped to the text) takes one column (none is
 * at or above U+1100): Latin, Greek, Cyrillic, … text then has as many columns as units, and needs no
 * count character by character.
 */
export function isNarrowIn(text: string, from: number, until: number): boolean {
  for (let i = Math.max(0, from), end = Math.min(text.length, until); i < end; i++) if (text.charCodeAt(i) >= 0x1100) return false;
  return true;
}

/** The index `columns` display columns before `from` (`narrow`: isNarrow(text)). */
export function columnsBack(text: string, from: number, columns: number, narrow: boolean): number {
  // (`columns` may be a fraction: the loop below then takes one unit more.)
  if (narrow) return Math.max(0, from - Math.ceil(columns));
  let i = from;
  for (let left = columns; i > 0 && left > 0; ) left -= columnsAt(text, --i);
  return i;
}

/** The index after at most `columns` display columns from `from`, a surrogate pair kept whole (`narrow`: isNarrow(text)). */
export function columnsForward(text: string, from: number, columns: number, narrow: boolean): number {
  if (narrow) return Math.min(text.length, from + Math.floor(columns));
  let i = from;
  for (let left = columns; i < text.length; i++) {
    const c = columnsAt(text, i);
    if (c > left) break;
    left -= c;
  }
  return i;
}
