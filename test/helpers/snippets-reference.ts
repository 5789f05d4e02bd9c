// The earlier snippets, which converted only the Markdown lines around a match, kept as the oracle the
// differential test compares src/index/snippets.ts with (test/search-snippets.test.ts); with one
// change made to both: firstMatch(), now imported from there, prefers a word that starts where it occurs.
import { plainLines } from '../../src/content/plain-text.ts';
import type { Translation } from '../../src/domain/types.ts';
import { columnsBack, columnsForward } from '../../src/index/columns.ts';
import { startsWord } from '../../src/index/raw-matcher.ts';
import { firstMatch } from '../../src/index/snippets.ts';
import type { Word } from '../../src/index/words.ts';

/**
 * Snippets for search hits: a short excerpt of plain text around the first match, measured in
 * display columns, cut at word boundaries where it can be.
 */

/**
 * A snippet's width in display columns: a character of East Asian scripts (wide or fullwidth) takes
 * two, so a Japanese snippet shows about as much text as an English one (80 characters, not 160).
 */
const SNIPPET_COLUMNS = 160;
/** How much of the text before a match the snippet shows, in columns. */
const SNIPPET_BEFORE = SNIPPET_COLUMNS / 3;
/**
 * Columns of text before a match in its own line past which the excerpt surely starts in that line
 * (SNIPPET_BEFORE, plus the column a wide character may take beyond it): the lines before need no converting.
 */
const OWN_LINE_COLUMNS = Math.ceil(SNIPPET_BEFORE) + 2;

/**
 * A short excerpt of plain text around the first match in the body (else the summary, else the
 * start of the body). `candidates` (rawMatcher) finds the Markdown lines that may hold a match, so only those
 * and the lines around the match are converted to plain text.
 */
export function snippet(t: Translation, query: Word[], candidates: RegExp): string {
  const body = t.bodyMd;
  candidates.lastIndex = 0;
  for (let m = candidates.exec(body); m !== null; m = candidates.exec(body)) {
    if (m[1] !== undefined && !startsWord(body, m.index)) {
      candidates.lastIndex = m.index + (body.codePointAt(m.index)! > 0xffff ? 2 : 1);
      continue;
    }
    const lineStart = body.lastIndexOf('\n', m.index) + 1;
    let lineEnd = body.indexOf('\n', m.index);
    if (lineEnd < 0) lineEnd = body.length;
    const lines = plainLines(body, lineStart, lineEnd);
    for (let i = 0; i < lines.length; i++) {
      const at = firstMatch(lines[i], query);
      if (at < 0) continue;
      // A match far enough into its line starts the excerpt inside that line: nothing before it is shown.
      if (pastOwnLineColumns(lines[i], at)) return excerpt([], -1, lines[i], at, lines.slice(i + 1), body, lineEnd + 1);
      const before = linesBefore(body, lineStart, lines.slice(0, i));
      return excerpt(before.lines, before.full ? before.from : -1, lines[i], at, lines.slice(i + 1), body, lineEnd + 1);
    }
    // The match was in Markdown syntax (a link target, say): look further.
    candidates.lastIndex = lineEnd + 1;
  }
  const inSummary = firstMatch(t.summary, query);
  if (inSummary >= 0) return clip(t.summary, inSummary, SNIPPET_BEFORE, false);
  let head = '';
  for (const line of plainLinesOf(body)) {
    head = head === '' ? line : `${head} ${line}`;
    if (head.length > SNIPPET_COLUMNS) break;
  }
  head ||= t.summary;
  return clip(head, 0, 0, false);
}

/** Whether the text before `at` takes more than OWN_LINE_COLUMNS columns (counted only that far). */
const pastOwnLineColumns = (line: string, at: number) => at > OWN_LINE_COLUMNS / 2 && columnsIn(line, 0, at, OWN_LINE_COLUMNS) > OWN_LINE_COLUMNS;

/**
 * The plain-text lines just before the Markdown line at `lineStart` (after `first`, the plain lines
 * of that line before the match): at least SNIPPET_BEFORE characters of them where the text has
 * that many; `from` is where the earliest of them starts, and `full` whether they reached that many
 * (only then can there be text before them).
 */
function linesBefore(markdown: string, lineStart: number, first: string[]): { lines: string[]; from: number; full: boolean } {
  const lines = first;
  let chars = 0;
  for (const l of lines) chars += l.length + 1;
  let from = lineStart;
  for (let end = lineStart - 1; end >= 0 && chars < SNIPPET_BEFORE; ) {
    const start = end === 0 ? 0 : markdown.lastIndexOf('\n', end - 1) + 1;
    const plain = plainLines(markdown, start, end);
    if (plain.length > 0) {
      lines.unshift(...plain);
      for (const l of plain) chars += l.length + 1;
      from = start;
    }
    end = start - 1;
  }
  return { lines, from, full: chars >= SNIPPET_BEFORE };
}

/** Whether any Markdown line before `lineStart` has plain text. */
function hasTextBefore(markdown: string, lineStart: number): boolean {
  for (let end = lineStart - 1; end >= 0; ) {
    const start = end === 0 ? 0 : markdown.lastIndexOf('\n', end - 1) + 1;
    if (plainLines(markdown, start, end).length > 0) return true;
    end = start - 1;
  }
  return false;
}

/**
 * The snippet for a match at `at` in the plain line `line`, which comes after the plain lines
 * `before` and is followed by `rest` and then the plain lines of the Markdown from `after` on: about
 * a third of it before the match, the rest after, cut at word boundaries, with … where the text goes
 * on. `earlier` is where the Markdown before `before` ends (-1: no text there); whether it holds
 * text is asked only when the excerpt starts with the first of them. Lines after the match are
 * converted only until the excerpt's end is known.
 */
function excerpt(before: string[], earlier: number, line: string, at: number, rest: string[], markdown: string, after: number): string {
  const lead = before.length > 0 ? `${before.join(' ')} ` : '';
  let text = lead + line;
  const pos = lead.length + at;
  let narrow = isNarrow(text);
  const start = clipStart(text, pos, SNIPPET_BEFORE, narrow);
  // The excerpt's end is known once the text from `start` takes more columns than it shows (one
  // character past it says that the text goes on), or reaches past the most an excerpt shows after the match.
  const limit = pos + SNIPPET_COLUMNS;
  let columns = narrow ? text.length - start : columnsIn(text, start, text.length, SNIPPET_COLUMNS);
  let lines = rest;
  let i = 0;
  for (let from = after; columns <= SNIPPET_COLUMNS && text.length <= limit; ) {
    if (i === lines.length) {
      if (from >= markdown.length) break;
      let end = markdown.indexOf('\n', from);
      if (end < 0) end = markdown.length;
      lines = plainLines(markdown, from, end);
      i = 0;
      from = end + 1;
      continue;
    }
    const next = lines[i++];
    text += ` ${next}`;
    const narrowLine = isNarrow(next);
    narrow &&= narrowLine;
    columns += 1 + (narrowLine ? next.length : columnsIn(next, 0, next.length, SNIPPET_COLUMNS));
  }
  return clipFrom(text, pos, start, start > 0 || (earlier >= 0 && hasTextBefore(markdown, earlier)), narrow);
}

/** The plain-text lines of a Markdown text, converted as they are asked for. */
function* plainLinesOf(markdown: string, from = 0): Generator<string, void, undefined> {
  for (let start = from; start < markdown.length; ) {
    let end = markdown.indexOf('\n', start);
    if (end < 0) end = markdown.length;
    yield* plainLines(markdown, start, end);
    start = end + 1;
  }
}

/**
 * SNIPPET_COLUMNS of `text` from `before` columns ahead of `pos`, not starting or ending inside a
 * word of a spaced script (scripts without spaces can be cut anywhere), with … where text goes on.
 */
function clip(text: string, pos: number, before: number, moreBefore: boolean): string {
  const narrow = isNarrow(text);
  const start = clipStart(text, pos, before, narrow);
  return clipFrom(text, pos, start, start > 0 || moreBefore, narrow);
}

/**
 * Where clip() starts: `before` columns ahead of `pos`, moved forward out of a word and past white
 * space (it depends only on the text up to `pos`). `narrow`: every unit of `text` takes one column.
 */
function clipStart(text: string, pos: number, before: number, narrow: boolean): number {
  let start = columnsBack(text, pos, before, narrow);
  if (splitsWord(text, start)) while (start < pos && isWordChar(text, start)) start++;
  while (start < pos && SPACE.test(text[start])) start++;
  return start;
}

/** SNIPPET_COLUMNS of `text` from `start`, not ending inside a word after `pos`, with … where text goes on (`cutBefore`: before too). */
function clipFrom(text: string, pos: number, start: number, cutBefore: boolean, narrow: boolean): string {
  let end = columnsForward(text, start, SNIPPET_COLUMNS, narrow);
  if (end < text.length && splitsWord(text, end)) {
    let wordStart = end;
    while (wordStart > pos && isWordChar(text, wordStart - 1)) wordStart--;
    if (wordStart > pos) end = wordStart;
  }
  while (end > start && SPACE.test(text[end - 1])) end--;
  return `${cutBefore ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

const SPACE = /\s/;

/** A letter, digit or mark of a script written with spaces between words. */
const isWordChar = (text: string, i: number) => SPACED_WORD_CHAR.test(text[i] ?? '');
const SPACED_WORD_CHAR = new RegExp(String.raw`^[[\p{L}\p{N}\p{M}]--[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]]$`, 'v');
/** Whether a cut before index `i` falls inside a word. */
const splitsWord = (text: string, i: number) => i > 0 && i < text.length && isWordChar(text, i - 1) && isWordChar(text, i);

const isNarrow = (text: string) => !/[\u1100-\uffff]/.test(text);

/** Display columns of `text` from `from` to `until`, counted up to just past `upTo`. */
function columnsIn(text: string, from: number, until: number, upTo: number): number {
  let columns = 0;
  for (let i = from; i < until && columns <= upTo; i++) columns += columnsOf(text.charCodeAt(i));
  return columns;
}

function columnsOf(code: number): number {
  if (code < 0x1100) return 1;
  if (code >= 0xdc00 && code <= 0xdfff) return 0;
  return code <= 0x115f || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xdbff) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) || (code >= 0xffe0 && code <= 0xffe6) ? 2 : 1;
}
