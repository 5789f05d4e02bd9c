import { Pieces } from './text-pieces.ts';
/**
 * The second half of a Markdown line's conversion to plain text, after links and HTML: the markers at
 * its start (heading, quote, list item and task box), table pipes, emphasis and code markers,
 * underscores of emphasis and backslash escapes, then white space collapsed. Each is a scan over
 * character codes that gives what the rules in plain-rules.ts give, applied one after the other.
 */

/** Whether a UTF-16 unit is white space as \s and trim() see it. */
export function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** isSpace() of a unit from U+0080 on, cheap for the scripts above U+3000 (CJK). */
export const isHighSpace = (c: number) => (c <= 0x3000 ? c >= 0xa0 && isSpace(c) : c === 0xfeff);

/** The index of the first unit at or after `i` before `end` that is not white space, or `end`. */
export function skipSpace(s: string, i: number, end: number): number {
  while (i < end && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** The unit at `i`, or -1 at or past `end` (so a look past the range never matches). */
const at = (s: string, i: number, end: number) => (i < end ? s.charCodeAt(i) : -1);

// What simpleText() does at each ASCII unit.
const TEXT = 0;
const SPACE = 1;
const BLANK = 2;
const PIPE = 3;
const DROP = 4;
const TILDE = 5;
const GT = 6;
const UNDERSCORE = 7;
const OTHER = 8;
const KIND = new Uint8Array(128);
for (const c of '\t\n\v\f\r') KIND[c.charCodeAt(0)] = BLANK;
KIND[0x20] = SPACE;
KIND[0x7c] = PIPE;
KIND[0x2a] = DROP;
KIND[0x60] = DROP;
KIND[0x7e] = TILDE;
KIND[0x3e] = GT;
KIND[0x5f] = UNDERSCORE;
for (const c of '<[\\') KIND[c.charCodeAt(0)] = OTHER;

/**
 * The plain text of s[from, end), the rest of a line after its start markers, when it holds only
 * text, white space, table pipes, emphasis and code markers (`*` and backtick runs, `~~`) and
 * underscores inside words: pipes become spaces, markers go, white space collapses; runs of text
 * with single spaces inside are copied whole. `null` when it holds anything else (a link, HTML, a
 * comment marker, an escape, an underscore that may be emphasis).
 */
export function simpleText(s: string, from: number, end: number): string | null {
  const out = new Pieces();
  let space = false;
  let run = from;
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    let kind = BLANK;
    if (c < 0x80) {
      kind = KIND[c];
      if (kind === TEXT) continue;
      if (kind === SPACE) {
        // A single space between two units of text stays in the run.
        if (i > run && i + 1 < end && isText(s.charCodeAt(i + 1))) continue;
      } else if (kind === TILDE) {
        if (i + 1 === end || s.charCodeAt(i + 1) !== 0x7e) continue;
      } else if (kind === GT) {
        // `>` is text, but not in a comment marker.
        if (s.charCodeAt(i - 1) === 0x2d && s.charCodeAt(i - 2) === 0x2d) return null;
        continue;
      } else if (kind === UNDERSCORE) {
        // snake_case stays; any other underscore may be emphasis.
        if (i > from && i + 1 < end && isAsciiAlnum(s.charCodeAt(i - 1)) && isAsciiAlnum(s.charCodeAt(i + 1))) continue;
        return null;
      } else if (kind === OTHER) return null;
    } else if (!isHighSpace(c)) continue;
    if (i > run) {
      if (space && !out.empty) out.add(' ');
      out.add(s.slice(run, i));
      space = false;
    }
    if (kind === TILDE) i++;
    else if (kind !== DROP) space = true;
    run = i + 1;
  }
  if (run === from) return s.slice(from, end);
  if (run < end) {
    if (space && !out.empty) out.add(' ');
    out.add(s.slice(run, end));
  }
  return out.text();
}

/** A unit that the marker scans keep as it is (so a single space before it stays in the run of text). */
const isText = (c: number) => (c < 0x80 ? KIND[c] === TEXT : !isHighSpace(c));

/**
 * The plain text of s[from, end), a line whose links and HTML are done: `special` says whether it
 * may hold an underscore or a backslash (when not, one scan does it).
 */
export function inlineText(s: string, from: number, end: number, special: boolean): string {
  const start = afterStartMarkers(s, from, end);
  const text = markersCollapsed(s, start, end);
  if (!special) return text;
  // The rules remove underscores and escapes before collapsing white space; doing it after gives the
  // same text, but for the white space an underscore that goes leaves.
  const kept = underscores(text);
  const plain = escapes(kept);
  return kept === text ? plain : collapse(plain, 0, plain.length);
}

/**
 * Where the text of s[from, end) starts after its heading marker (/^ {0,3}#{1,6}\s+/), then quote
 * markers (/^(\s*>)+\s?/), then list marker and task box (/^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/),
 * each taken from what the one before it left.
 */
export function afterStartMarkers(s: string, from: number, end: number): number {
  const first = from < end ? s.charCodeAt(from) : -1;
  if (first < 0x80 ? STARTS[first] === 0 : !isHighSpace(first)) return from;
  let p = from;
  let n = from;
  while (n < end && n - from < 4 && s.charCodeAt(n) === 0x20) n++;
  if (n - from <= 3 && at(s, n, end) === 0x23) {
    let h = n;
    while (h < end && s.charCodeAt(h) === 0x23) h++;
    if (h - n <= 6 && h < end && isSpace(s.charCodeAt(h))) p = skipSpace(s, h, end);
  }
  for (let q = p, quoted = false; ; ) {
    const r = skipSpace(s, q, end);
    if (at(s, r, end) === 0x3e) {
      q = r + 1;
      quoted = true;
      continue;
    }
    if (quoted) p = q < end && isSpace(s.charCodeAt(q)) ? q + 1 : q;
    break;
  }
  const q = skipSpace(s, p, end);
  const c = at(s, q, end);
  let m = -1;
  if (c === 0x2d || c === 0x2a || c === 0x2b) m = q + 1;
  else if (c >= 0x30 && c <= 0x39) {
    let d = q + 1;
    while (d < end && d - q < 10 && isDigit(s.charCodeAt(d))) d++;
    const next = at(s, d, end);
    if (d - q <= 9 && (next === 0x2e || next === 0x29)) m = d + 1;
  }
  if (m < 0 || m >= end || !isSpace(s.charCodeAt(m))) return p;
  const r = skipSpace(s, m, end);
  const box = at(s, r + 1, end);
  if (at(s, r, end) === 0x5b && (box === 0x20 || box === 0x78 || box === 0x58) && at(s, r + 2, end) === 0x5d && r + 3 < end && isSpace(s.charCodeAt(r + 3))) {
    return skipSpace(s, r + 3, end);
  }
  return r;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** What a heading, quote or list item may start with (white space, `#`, `>`, a list marker), by ASCII code. */
const STARTS = new Uint8Array(128);
for (const c of '\t\n\v\f\r #>-*+0123456789') STARTS[c.charCodeAt(0)] = 1;

/**
 * s[from, end) with table pipes as spaces, `*` and backtick runs and `~~` gone, white space collapsed
 * and trimmed. A long range of text of one byte a unit, with no runs of white space, is searched for
 * the markers by the engine; anything else is looked at unit by unit.
 */
function markersCollapsed(s: string, from: number, end: number): string {
  if (end - from < 48 || WIDE.test(s) || within(s.indexOf('\u00a0', from), end) || within(s.indexOf('  ', from), end - 1)) {
    return markersCollapsedLoop(s, from, end);
  }
  const out = new Pieces();
  let space = false;
  let run = from;
  for (let i = from; ; ) {
    MARKER.lastIndex = i;
    const q = MARKER.test(s) ? Math.min(MARKER.lastIndex - 1, end) : end;
    const c = q < end ? s.charCodeAt(q) : -1;
    if (c === 0x7e && at(s, q + 1, end) !== 0x7e) {
      // A lone tilde is text.
      i = q + 1;
      continue;
    }
    // The text before the marker: single spaces only, one of them perhaps at either end.
    let a = run;
    let b = q;
    if (a < b && s.charCodeAt(a) === 0x20) {
      a++;
      space = true;
    }
    const spaceAfter = b > a && s.charCodeAt(b - 1) === 0x20;
    if (spaceAfter) b--;
    if (b > a) {
      if (space && !out.empty) out.add(' ');
      out.add(s.slice(a, b));
      space = false;
    }
    if (spaceAfter) space = true;
    if (c === -1) return out.text();
    let next = q + 1;
    if (c === 0x7e) next++;
    else if (c === 0x2a || c === 0x60) while (next < end && s.charCodeAt(next) === c) next++;
    else space = true;
    i = run = next;
  }
}

/** Pipes, `*`, backticks, `~` and the white space below U+0100 other than the space and the no-break space. */
const MARKER = /[|*`~\t\v\f]/g;
const WIDE = /[^\x00-\xff]/;
const within = (i: number, end: number) => i >= 0 && i < end;

/** markersCollapsed(), a unit at a time; runs of text with single spaces inside are copied whole. */
function markersCollapsedLoop(s: string, from: number, end: number): string {
  const out = new Pieces();
  let space = false;
  let run = from;
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80 ? KIND[c] === TEXT || KIND[c] >= GT : !isHighSpace(c)) continue;
    // A single space between two units of text stays in the run.
    if (c === 0x20 && i > run && i + 1 < end && isText(s.charCodeAt(i + 1))) continue;
    const pair = c === 0x7e && at(s, i + 1, end) === 0x7e;
    if (c === 0x7e && !pair) continue;
    if (i > run) {
      if (space && !out.empty) out.add(' ');
      out.add(s.slice(run, i));
      space = false;
    }
    if (pair) i++;
    else if (c !== 0x2a && c !== 0x60) space = true;
    run = i + 1;
  }
  if (run < end) {
    if (space && !out.empty) out.add(' ');
    out.add(s.slice(run, end));
  }
  return out.text();
}

/**
 * `s` with the underscores of emphasis gone and those inside words kept, exactly as
 * s.replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1') does it. Taken run by run, that
 * expression removes a run at the start or after a character other than a letter or digit, keeps the
 * first underscore of a longer run after a letter or digit (it matches from that underscore on), and
 * of a single underscore after a letter or digit removes it only before anything but one.
 */
function underscores(s: string): string {
  let i = s.indexOf('_');
  if (i < 0) return s;
  const n = s.length;
  const out = new Pieces();
  let run = 0;
  for (; i >= 0; ) {
    let j = i + 1;
    while (j < n && s.charCodeAt(j) === 0x5f) j++;
    let kept = 1;
    if (i === 0 || !isLetterOrNumberBefore(s, i)) kept = 0;
    else if (j - i === 1 && (j === n || !isLetterOrNumberAt(s, j))) kept = 0;
    if (kept < j - i) {
      out.add(s.slice(run, i + kept));
      run = j;
    }
    i = s.indexOf('_', j);
  }
  return run === 0 ? s : out.text(s.slice(run));
}

const LETTER_OR_NUMBER = /^[\p{L}\p{N}]/u;

/** Whether the code point at `i` of `s` is a letter or a number (\p{L}, \p{N}). */
function isLetterOrNumberAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0x80) return isAsciiAlnum(c);
  const width = c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  return LETTER_OR_NUMBER.test(s.slice(i, i + width));
}

/** Whether the code point that ends before `i` of `s` is a letter or a number. */
function isLetterOrNumberBefore(s: string, i: number): boolean {
  const c = s.charCodeAt(i - 1);
  if (c < 0x80) return isAsciiAlnum(c);
  const width = (c & 0xfc00) === 0xdc00 && i >= 2 && (s.charCodeAt(i - 2) & 0xfc00) === 0xd800 ? 2 : 1;
  return LETTER_OR_NUMBER.test(s.slice(i - width, i));
}

const isAsciiAlnum = (c: number) => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);

/** `s` with backslash escapes of Markdown punctuation resolved, as s.replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, '$1'). */
function escapes(s: string): string {
  const out = new Pieces();
  let run = 0;
  for (let i = s.indexOf('\\'); i >= 0 && i + 1 < s.length; i = s.indexOf('\\', i + 1)) {
    const c = s.charCodeAt(i + 1);
    if (c >= 0x80 || ESCAPABLE[c] === 0) continue;
    out.add(s.slice(run, i));
    run = ++i;
  }
  return run === 0 ? s : out.text(s.slice(run));
}

const ESCAPABLE = new Uint8Array(128);
for (const c of '\\`*_{}[]()#+-.!|>') ESCAPABLE[c.charCodeAt(0)] = 1;

/** s[from, end) with white space collapsed to single spaces and trimmed, as .replace(/\s+/g, ' ').trim(). */
export function collapse(s: string, from: number, end: number): string {
  const out = new Pieces();
  let space = false;
  let run = from;
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80 ? c > 0x20 || (c !== 0x20 && (c < 0x09 || c > 0x0d)) : !isHighSpace(c)) continue;
    if (c === 0x20 && i > run && i + 1 < end && !isSpace(s.charCodeAt(i + 1))) continue;
    if (i > run) {
      if (space && !out.empty) out.add(' ');
      out.add(s.slice(run, i));
      space = false;
    }
    space = true;
    run = i + 1;
  }
  if (run < end) {
    if (space && !out.empty) out.add(' ');
    out.add(s.slice(run, end));
  }
  return out.text();
}
