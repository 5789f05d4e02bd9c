import { droppedWhole } from './plain-dropped.ts';
import { afterStartMarkers, collapse, inlineText, isHighSpace, isSpace, skipSpace } from './plain-inline.ts';
import { plainByRules } from './plain-rules.ts';
import { structure } from './plain-structure.ts';

/**
 * Markdown → plain text, for the search index and snippets: the words a reader sees, without
 * syntax noise (markers, link targets, HTML tags, table rules). Code stays: readers search for it.
 * Most lines (prose, headings, list items, table rows, emphasis and code) take one scan that makes
 * their text as it goes; lines with links, HTML, escapes or underscores of emphasis take a scan or
 * two more (plain-structure.ts, plain-inline.ts), and a rare few the regular expressions of
 * plain-rules.ts. All of it is linear in the size of the text whatever a writer puts in it.
 */

/**
 * The plain text of markdown[from, until): the plain text of its lines that have any, joined with
 * spaces. For a line (a snippet's), it is plainLines() of it without the array.
 */
export function plainText(markdown: string, from = 0, until = markdown.length): string {
  const start = Math.max(from, 0);
  const last = Math.min(until, markdown.length);
  if (last - start > SMALL) return plainLines(markdown, start, last).join(' ');
  let out = '';
  const text = start === 0 && last === markdown.length ? markdown : markdown.slice(start, last);
  for (let s = 0, cr = text.indexOf('\r'); s < text.length; ) {
    let e = text.indexOf('\n', s);
    if (e < 0) e = text.length;
    for (let p = s; ; ) {
      if (cr >= 0 && cr < p) cr = text.indexOf('\r', p);
      const q = cr >= 0 && cr < e ? cr : e;
      const plain = lineText(text, p, q);
      if (plain !== '') out = out === '' ? plain : `${out} ${plain}`;
      if (q === e) break;
      p = q + 1;
    }
    s = e + 1;
  }
  return out;
}

/**
 * Up to this many characters, each line is looked at on its own and plainText() joins them as it
 * goes; past it, plainLines() has the engine find what makes lines more than prose for many lines at
 * once, which costs a few searches more to start.
 */
const SMALL = 1024;

/**
 * The plain text of each Markdown line that has any, white space collapsed: joined with spaces they
 * make plainText(). Lines, so a caller that needs only the start of a body or the lines around a
 * match need not convert all of it.
 */
export function plainLines(markdown: string, from = 0, until = markdown.length): string[] {
  const out: string[] = [];
  const start = Math.max(from, 0);
  const last = Math.min(until, markdown.length);
  if (start >= last) return out;
  // The searches for a line's end and for CRs must not run past `until`: they go over this piece alone.
  const text = start === 0 && last === markdown.length ? markdown : markdown.slice(start, last);
  const n = text.length;
  if (n <= SMALL) {
    for (let s = 0, cr = text.indexOf('\r'); s < n; s++) {
      let e = text.indexOf('\n', s);
      if (e < 0) e = n;
      for (let p = s; ; p = cr + 1) {
        if (cr >= 0 && cr < p) cr = text.indexOf('\r', p);
        const q = cr >= 0 && cr < e ? cr : e;
        const plain = lineText(text, p, q);
        if (plain !== '') out.push(plain);
        if (q === e) break;
      }
      s = e;
    }
    return out;
  }
  // Where the next unit is that makes its line more than prose (the engine finds each for many lines
  // at once): the lines before it are prose, unless they start or end with what lineText() looks at.
  const wide = WIDE.test(text);
  const marks = wide ? MARKS_WIDE : MARKS;
  const odd = wide ? '>' : '\u00a0';
  let mark = -1;
  let double = -1;
  let oddAt = -1;
  let held = -1;
  for (let s = 0, cr = text.indexOf('\r'); s < n; s++) {
    let e = text.indexOf('\n', s);
    if (e < 0) e = n;
    if (e === s) continue;
    if (cr >= 0 && cr < s) cr = text.indexOf('\r', s);
    const c = text.charCodeAt(s);
    if (cr >= 0 && cr < e) {
      // A lone CR ends a line too (old Mac files); CRLF leaves an empty line after the CR.
      for (let p = s; ; p = cr + 1, cr = text.indexOf('\r', p)) {
        const q = cr >= 0 && cr < e ? cr : e;
        const plain = lineText(text, p, q);
        if (plain !== '') out.push(plain);
        if (q === e) break;
      }
    } else if (c < 0x80 && MAY_START[c] === HOLDS_ITSELF) {
      const plain = lineText(text, s, e, true);
      if (plain !== '') out.push(plain);
    } else {
      const first = isSpace(c) ? skipSpace(text, s, e) : s;
      if (first === e) {
        s = e;
        continue;
      }
      if (held < first) {
        if (mark < first) mark = searchFrom(marks, text, first);
        if (double < first) double = searchFrom(DOUBLE_SPACE, text, first);
        if (oddAt < first) oddAt = found(text.indexOf(odd, first), n);
        held = Math.min(mark, double, oddAt);
      }
      if (held >= e && text.charCodeAt(e - 1) !== 0x20) {
        if (first === s && (c < 0x80 ? MAY_START[c] === 0 : true)) out.push(text.slice(s, e));
        else if (!droppedWhole(text, s, e, first)) {
          // A heading, quote or list item of prose (or indented prose): its marker goes, the rest stays.
          const rest = afterStartMarkers(text, s, e);
          if (rest < e) out.push(text.slice(rest === s ? first : rest, e));
        }
      } else {
        const plain = lineText(text, s, e, held < e);
        if (plain !== '') out.push(plain);
      }
    }
    s = e;
  }
  return out;
}

/**
 * The plain text of the line s[from, end) (no LF or CR). A line that starts with white space or a
 * marker first loses what a heading, quote or list item starts with (or is dropped whole). A short
 * rest takes simpleText(), a loop over its units; a long line is first searched by the engine for
 * what it holds (several times faster than such a loop), and prose is then done.
 */
function lineText(s: string, from: number, end: number, holds = false): string {
  if (from === end) return '';
  const c = s.charCodeAt(from);
  const starts = c < 0x80 ? MAY_START[c] !== 0 : isHighSpace(c);
  if (end - from >= LONG && c !== 0x7c) {
    const line = s.slice(from, end);
    if (!holds && !HOLDS.test(line) && line.charCodeAt(line.length - 1) !== 0x20) {
      if (!starts) return line;
      if (!isSpace(c)) return droppedWhole(line, 0, line.length, 0) ? '' : line.slice(afterStartMarkers(line, 0, line.length));
    }
    return convert(line);
  }
  let rest = from;
  if (starts) {
    const first = skipSpace(s, from, end);
    if (first === end || droppedWhole(s, from, end, first)) return '';
    rest = afterStartMarkers(s, from, end);
  }
  return simpleText(s, rest, end) ?? convert(s.slice(from, end));
}

/** From this many units on, lineText() looks at a line with the engine's searches first. */
const LONG = 48;

/**
 * What makes a line more than prose, when it does not start with a marker: links, HTML, markers,
 * escapes and underscores, white space other than single spaces. As one class and two short
 * alternatives, the engine scans for it fast in text of either width.
 */
const HOLDS = /[<[|*`~_\\\t\v\f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]|  |-->/;
/**
 * What HOLDS finds, and CR, as searched for through a whole text in pieces the engine scans for
 * fastest (which depend on whether the text has units past U+00FF): markers and such, double spaces,
 * and the no-break space (the only other white space below U+0100) or `>` (for `-->`).
 */
const MARKS = /[<>[|*`~_\\\t\v\f\r]/g;
const MARKS_WIDE = /[<[|*`~_\\\t\v\f\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/g;
const DOUBLE_SPACE = /  /g;
const WIDE = /[^\x00-\xff]/;

/** Where `pattern` (global) next matches in `text` from `from` (anywhere in the match), or text.length. */
function searchFrom(pattern: RegExp, text: string, from: number): number {
  pattern.lastIndex = from;
  return pattern.test(text) ? pattern.lastIndex - 1 : text.length;
}

const found = (i: number, none: number) => (i < 0 ? none : i);

/**
 * White space and what may start a heading, quote, list item, table rule, fence, link definition or
 * thematic break (1); of those, what makes its line more than prose wherever it is (HOLDS_ITSELF).
 */
const MAY_START = new Uint8Array(128);
for (const c of '\t\v\f -+:#>0123456789`~[|*_') MAY_START[c.charCodeAt(0)] = 1;
const HOLDS_ITSELF = 2;
for (const c of '`~[|*_<\\') MAY_START[c.charCodeAt(0)] = HOLDS_ITSELF;

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
 * comment marker, an escape, an underscore that may be emphasis): then the line takes convert().
 */
function simpleText(s: string, from: number, end: number): string | null {
  let out = '';
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
        if (i > from && i + 1 < end && isAlnum(s.charCodeAt(i - 1)) && isAlnum(s.charCodeAt(i + 1))) continue;
        return null;
      } else if (kind === OTHER) return null;
    } else if (!isHighSpace(c)) continue;
    if (i > run) {
      if (space && out !== '') out += ' ';
      out += s.slice(run, i);
      space = false;
    }
    if (kind === TILDE) i++;
    else if (kind !== DROP) space = true;
    run = i + 1;
  }
  if (run === from) return s.slice(from, end);
  if (run < end) {
    if (space && out !== '') out += ' ';
    out += s.slice(run, end);
  }
  return out;
}

const isText = (c: number) => (c < 0x80 ? KIND[c] === TEXT : !isHighSpace(c));
const isAlnum = (c: number) => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);

/** Pipes, markers and white space other than the space. */
const MARKERS = /[|*`~\t\v\f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/** The plain text of a line that simpleText() leaves: one with links, HTML, escapes or underscores. */
function convert(line: string): string {
  const n = line.length;
  const first = skipSpace(line, 0, n);
  if (first === n || droppedWhole(line, 0, n, first)) return '';
  const special = line.includes('_') || line.includes('\\');
  if (line.includes('<') || line.includes('[') || line.includes('-->')) {
    const done = structure(line, 0, n);
    if (done === null) {
      const plain = plainByRules(line);
      return collapse(plain, 0, plain.length);
    }
    if (done !== undefined) return inlineText(done, 0, done.length, special, true);
  }
  const marked = line.charCodeAt(0) === 0x20 || line.charCodeAt(n - 1) === 0x20 || line.includes('  ') || MARKERS.test(line);
  return inlineText(line, 0, n, special, marked);
}
