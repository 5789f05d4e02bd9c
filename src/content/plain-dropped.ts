import { isSpace, skipSpace } from './plain-inline.ts';

/**
 * The Markdown lines that have no plain text at all, told apart in one pass each: the regular
 * expression of each kind is given with the function that does what it does.
 */

/**
 * Whether the line s[from, end) is dropped whole: a code fence (the code itself stays), a link
 * definition, a table rule or a thematic break. `first` is where its first unit that is not white
 * space is; each starts with one of a few markers.
 */
export function droppedWhole(s: string, from: number, end: number, first: number): boolean {
  switch (s.charCodeAt(first)) {
    case 0x60: // `
    case 0x7e: // ~
      return isFence(s, from, end, first);
    case 0x5b: // [
      return isLinkDefinition(s, end, first);
    case 0x7c: // |
    case 0x3a: // :
      return isTableRule(s, end, first);
    case 0x2d: // -
      return isTableRule(s, end, first) || isThematicBreak(s, from, end, first);
    case 0x2a: // *
    case 0x5f: // _
      return isThematicBreak(s, from, end, first);
    default:
      return false;
  }
}

const at = (s: string, i: number, end: number) => (i < end ? s.charCodeAt(i) : -1);

/** Whether only 0–3 spaces (not other white space) come before `first`. */
function indentedBySpaces(s: string, from: number, first: number): boolean {
  if (first - from > 3) return false;
  for (let k = from; k < first; k++) if (s.charCodeAt(k) !== 0x20) return false;
  return true;
}

/** /^ {0,3}(```|~~~)/ */
function isFence(s: string, from: number, end: number, first: number): boolean {
  const c = s.charCodeAt(first);
  return indentedBySpaces(s, from, first) && at(s, first + 1, end) === c && at(s, first + 2, end) === c;
}

/** /^\s*\[[^\]\n]{1,200}\]:\s+\S/ */
function isLinkDefinition(s: string, end: number, first: number): boolean {
  let j = first + 1;
  while (j < end && j - first <= 201 && s.charCodeAt(j) !== 0x5d) j++;
  const label = j - first - 1;
  if (at(s, j, end) !== 0x5d || label < 1 || label > 200 || at(s, j + 1, end) !== 0x3a) return false;
  const k = j + 2;
  return k < end && isSpace(s.charCodeAt(k)) && skipSpace(s, k, end) < end;
}

/**
 * /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{0,200}:?\s*){0,100}\|?\s*$/, in one pass: as a regular expression
 * it backtracks through every way of splitting the white space between cells, which grows
 * exponentially with the number of cells when the line ends in something else.
 */
function isTableRule(s: string, end: number, first: number): boolean {
  let i = first;
  if (s.charCodeAt(i) === 0x7c) i = skipSpace(s, i + 1, end);
  if (at(s, i, end) === 0x3a) i++;
  const dashes = i;
  while (i < end && s.charCodeAt(i) === 0x2d) i++;
  if (i - dashes < 3) return false;
  if (at(s, i, end) === 0x3a) i++;
  i = skipSpace(s, i, end);
  let pipes = 0;
  let blank = true;
  while (i < end) {
    if (s.charCodeAt(i) !== 0x7c) return false;
    pipes++;
    const cell = skipSpace(s, i + 1, end);
    let j = cell;
    if (at(s, j, end) === 0x3a) j++;
    const run = j;
    while (j < end && s.charCodeAt(j) === 0x2d) j++;
    if (j - run > 200) return false;
    if (at(s, j, end) === 0x3a) j++;
    blank = j === cell;
    i = skipSpace(s, j, end);
  }
  // Up to 100 cells, and one more pipe at the end with only white space after it.
  return pipes <= 100 || (pipes === 101 && blank);
}

/** /^ {0,3}([-*_])(\s*\1){2,}\s*$/ */
function isThematicBreak(s: string, from: number, end: number, first: number): boolean {
  if (!indentedBySpaces(s, from, first)) return false;
  const marker = s.charCodeAt(first);
  let count = 0;
  for (let k = first + 1; k < end; k++) {
    const c = s.charCodeAt(k);
    if (c === marker) count++;
    else if (!isSpace(c)) return false;
  }
  return count >= 2;
}
