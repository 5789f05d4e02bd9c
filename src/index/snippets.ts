import type { Translation } from '../domain/types.ts';
import { bodyText } from './body-text.ts';
import { columnsBack, columnsForward, isNarrowIn } from './columns.ts';
import { startsWord } from './raw-matcher.ts';
import { fold, foldInPlace, foldWithMap, type Word } from './words.ts';

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
 * A short excerpt of plain text around the first match in the body (else the summary, else the
 * start of the body). `candidates` (rawMatcher) finds where a match may be, so only the lines it
 * points at are folded.
 */
export function snippet(t: Translation, query: Word[], candidates: RegExp): string {
  const text = bodyText(t);
  const at = firstMatchIn(text, query, candidates);
  if (at >= 0) return clip(text, at, SNIPPET_BEFORE, true);
  const inSummary = firstMatch(t.summary, query);
  if (inSummary >= 0) return clip(t.summary, inSummary, SNIPPET_BEFORE, false);
  return text === '' ? clip(t.summary, 0, 0, false) : clip(text, 0, 0, true);
}

/**
 * Where in the plain text of a body (lines joined by \n) the first match is (-1: none): the earliest
 * match in the first line where `candidates` finds one.
 */
function firstMatchIn(text: string, query: Word[], candidates: RegExp): number {
  candidates.lastIndex = 0;
  for (let m = candidates.exec(text); m !== null; m = candidates.exec(text)) {
    if (m[1] !== undefined && !startsWord(text, m.index)) {
      candidates.lastIndex = m.index + (text.codePointAt(m.index)! > 0xffff ? 2 : 1);
      continue;
    }
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    let lineEnd = text.indexOf('\n', m.index);
    if (lineEnd < 0) lineEnd = text.length;
    const at = firstMatch(text.slice(lineStart, lineEnd), query);
    if (at >= 0) return lineStart + at;
    // (The pattern is looser than folding: no match in this line after all.)
    candidates.lastIndex = lineEnd + 1;
  }
  return -1;
}

/**
 * SNIPPET_COLUMNS of `text` from `before` columns ahead of `pos`, not starting or ending inside a
 * word of a spaced script (scripts without spaces can be cut anywhere), with … where text goes on;
 * `lines`: the text is a body's plain lines joined by \n, which the snippet shows as spaces.
 */
function clip(text: string, pos: number, before: number, lines: boolean): string {
  // Every unit the cut looks at lies in this window, so whether they all take one column is asked of it alone.
  const narrow = isNarrowIn(text, pos - Math.ceil(before) - 1, pos + SNIPPET_COLUMNS + 1);
  const start = clipStart(text, pos, before, narrow);
  let end = columnsForward(text, start, SNIPPET_COLUMNS, narrow);
  if (end < text.length && splitsWord(text, end)) {
    let wordStart = end;
    while (wordStart > pos && isWordChar(text, wordStart - 1)) wordStart--;
    if (wordStart > pos) end = wordStart;
  }
  while (end > start && SPACE.test(text[end - 1])) end--;
  const shown = text.slice(start, end);
  return `${start > 0 ? '…' : ''}${lines ? shown.replaceAll('\n', ' ') : shown}${end < text.length ? '…' : ''}`;
}

/**
 * Where clip() starts: `before` columns ahead of `pos`, moved forward out of a word and past white
 * space. `narrow`: every unit from there to `pos` takes one column.
 */
function clipStart(text: string, pos: number, before: number, narrow: boolean): number {
  let start = columnsBack(text, pos, before, narrow);
  if (splitsWord(text, start)) while (start < pos && isWordChar(text, start)) start++;
  while (start < pos && SPACE.test(text[start])) start++;
  return start;
}

const SPACE = /\s/;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** A letter, digit or mark of a script written with spaces between words. */
const isWordChar = (text: string, i: number) => SPACED_WORD_CHAR.test(text[i] ?? '');
const SPACED_WORD_CHAR = new RegExp(String.raw`^[[\p{L}\p{N}\p{M}]--[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]]$`, 'v');
/** Whether a cut before index `i` falls inside a word. */
const splitsWord = (text: string, i: number) => i > 0 && i < text.length && isWordChar(text, i - 1) && isWordChar(text, i);

/**
 * Where in `text` the earliest word of the query occurs (-1: none): where a word starts (any
 * occurrence of a word of a script without spaces), else, when no word does, inside another word.
 */
export function firstMatch(text: string, query: Word[]): number {
  let folded = foldInPlace(text) ?? fold(text);
  let source: number[] | null = null;
  // Folding keeps one character per character almost always; where it does not, map positions back.
  if (folded.length !== text.length) ({ folded, source } = foldWithMap(text));
  let at = -1;
  let inside = -1;
  for (const w of query) {
    const i = folded.indexOf(w.text);
    if (i < 0) continue;
    const start = w.unspaced ? i : wordStart(folded, w.text, i);
    if (start >= 0 && (at < 0 || start < at)) at = start;
    if (inside < 0 || i < inside) inside = i;
  }
  if (at < 0) at = inside;
  return at < 0 || source === null ? at : source[at];
}

/** The first occurrence of `term` at the start of a word, from its first occurrence `i` on (-1: none). */
function wordStart(text: string, term: string, i: number): number {
  for (; i >= 0; i = text.indexOf(term, i + 1)) if (i === 0 || !LETTER_OR_DIGIT.test(text[i - 1])) return i;
  return -1;
}
