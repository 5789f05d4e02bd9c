import { droppedWhole } from './plain-dropped.ts';
import { afterStartMarkers, collapse, inlineText, isHighSpace, isSpace, simpleText, skipSpace } from './plain-inline.ts';
import { plainByRules } from './plain-rules.ts';
import { structure } from './plain-structure.ts';

/**
 * Markdown → plain text, for the search index and snippets: the words a reader sees, without
 * syntax noise (markers, link targets, HTML tags, table rules). Code stays: readers search for it.
 * Prose stays as it is and a heading or list item of prose loses its marker, once the engine's
 * searches (several times faster here than a loop over the units) have found that the line holds
 * nothing else. Short lines with table pipes, emphasis and code markers take one loop that makes
 * their text as it goes (plain-inline.ts); lines with links or HTML a scan that jumps from one to the
 * next (plain-structure.ts) before it; a rare few the regular expressions of plain-rules.ts, which
 * define what all the others do. All of it is linear in the size of the text whatever it holds.
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
  const n = text.length;
  for (let s = 0, cr = found(text.indexOf('\r'), n); s < n; ) {
    let e = text.indexOf('\n', s);
    if (e < 0) e = n;
    for (let p = s; ; ) {
      if (cr < p) cr = found(text.indexOf('\r', p), n);
      const q = cr < e ? cr : e;
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
    for (let s = 0, cr = found(text.indexOf('\r'), n); s < n; s++) {
      let e = text.indexOf('\n', s);
      if (e < 0) e = n;
      for (let p = s; ; p = cr + 1) {
        if (cr < p) cr = found(text.indexOf('\r', p), n);
        const q = cr < e ? cr : e;
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
  let mark = searchFrom(marks, text, 0);
  let double = searchFrom(DOUBLE_SPACE, text, 0);
  let oddAt = found(text.indexOf(odd), n);
  let held = Math.min(mark, double, oddAt);
  for (let s = 0, cr = found(text.indexOf('\r'), n); s < n; s++) {
    let e = text.indexOf('\n', s);
    if (e < 0) e = n;
    if (e === s) continue;
    if (cr < s) cr = found(text.indexOf('\r', s), n);
    const c = text.charCodeAt(s);
    if (cr < e) {
      // A lone CR ends a line too (old Mac files); CRLF leaves an empty line after the CR.
      for (let p = s; ; p = cr + 1, cr = found(text.indexOf('\r', p), n)) {
        const q = cr < e ? cr : e;
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
        if (first === s && (c >= 0x80 || MAY_START[c] === 0)) out.push(text.slice(s, e));
        else {
          // A heading, quote or list item of prose (or indented prose): its marker goes, the rest stays.
          const item = first === s ? simpleItem(text, s, e) : s;
          if (item > s) out.push(text.slice(item, e));
          else if (!droppedWhole(text, s, e, first)) {
            const rest = afterStartMarkers(text, s, e);
            if (rest < e) out.push(text.slice(rest === s ? first : rest, e));
          }
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
    const n = line.length;
    // White space at the start goes whatever follows: what follows is what may make the line more than prose.
    const first = starts ? skipSpace(line, 0, n) : 0;
    if (first === n) return '';
    HELD.lastIndex = first;
    if (!holds && !HELD.test(line) && line.charCodeAt(n - 1) !== 0x20) {
      if (!starts) return line;
      if (droppedWhole(line, 0, n, first)) return '';
      const rest = afterStartMarkers(line, 0, n);
      return line.slice(rest === 0 ? first : rest);
    }
    return convert(line);
  }
  let rest = from;
  if (starts) {
    rest = simpleItem(s, from, end);
    if (rest === from) {
      const first = skipSpace(s, from, end);
      if (first === end || droppedWhole(s, from, end, first)) return '';
      rest = afterStartMarkers(s, from, end);
    }
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
const HELD = /[<[|*`~_\\\t\v\f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]|  |-->/g;
/**
 * What HELD finds, and CR, as searched for through a whole text in pieces the engine scans for
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

/**
 * Where the text of the line text[s, e) starts when it is a list item or heading of the common forms
 * (`- `, `* `, `+ `, `1. `, `1) `, `## ` and then what is neither white space nor a marker that the
 * rules would take next), which are not dropped whole; else `s`.
 */
function simpleItem(text: string, s: number, e: number): number {
  const c = text.charCodeAt(s);
  let rest = s;
  if (c === 0x2d || c === 0x2a || c === 0x2b) rest = s + 2;
  else if (c >= 0x30 && c <= 0x39) {
    const d = text.charCodeAt(s + 1);
    if (d === 0x2e || d === 0x29) rest = s + 3;
  } else if (c === 0x23) {
    rest = s + 1;
    while (rest < e && rest - s < 7 && text.charCodeAt(rest) === 0x23) rest++;
    if (rest - s > 6) return s;
    rest++;
  }
  if (rest === s || rest >= e || text.charCodeAt(rest - 1) !== 0x20) return s;
  const next = text.charCodeAt(rest);
  return (next < 0x80 ? ITEM_STOP[next] === 1 : isHighSpace(next)) ? s : rest;
}

/** What may follow a simpleItem() marker only in lines it leaves to afterStartMarkers(). */
const ITEM_STOP = new Uint8Array(128);
for (const c of '\t\n\v\f\r -+*:#>[0123456789') ITEM_STOP[c.charCodeAt(0)] = 1;

/** `i`, or `none` for -1: a loop that compared a position staying -1 ran 100 times slower once optimized. */
const found = (i: number, none: number) => (i < 0 ? none : i);

/**
 * White space and what may start a heading, quote, list item, table rule, fence, link definition or
 * thematic break (1); of those, what makes its line more than prose wherever it is (HOLDS_ITSELF).
 */
const MAY_START = new Uint8Array(128);
for (const c of '\t\v\f -+:#>0123456789`~[|*_') MAY_START[c.charCodeAt(0)] = 1;
const HOLDS_ITSELF = 2;
for (const c of '`~[|*_<\\') MAY_START[c.charCodeAt(0)] = HOLDS_ITSELF;

/**
 * The plain text of a line that simpleText() leaves: one with links, HTML, escapes or underscores,
 * or a long one. markersCollapsed() looks for its markers itself, which costs less than a look first.
 */
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
    if (done !== undefined) return inlineText(done, 0, done.length, special);
  }
  return inlineText(line, 0, n, special);
}
