import { plainLines } from '../content/plain-text.ts';
import type { Translation } from '../domain/types.ts';
import { AHEAD_CHARS, bodyText, keptBodyText } from './body-text.ts';
import { CLASS, infoOf, MARK, NARROW_WORD, WORD } from './char-classes.ts';
import { columnsBack, columnsForward, isNarrowIn } from './columns.ts';
import { startsWord } from './raw-matcher.ts';
import { foldKeepingPlaces, type Word } from './words.ts';

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
  const kept = keptBodyText(t);
  if (kept === undefined && t.bodyMd.length > AHEAD_CHARS) return snippetNearMatch(t, query, candidates);
  const text = kept ?? bodyText(t);
  const at = firstMatchIn(text, query, candidates);
  if (at >= 0) return clip(text, at, SNIPPET_BEFORE, true);
  return fromSummaryOrStart(t, query, text, false);
}

/** The snippet of the summary's match, else of the start of the body's plain text `text` (`more`: the body goes on past it). */
function fromSummaryOrStart(t: Translation, query: Word[], text: string, more: boolean): string {
  const inSummary = firstMatch(t.summary, query);
  if (inSummary >= 0) return clip(t.summary, inSummary, SNIPPET_BEFORE, false);
  return text === '' ? clip(t.summary, 0, 0, false) : clip(text, 0, 0, true, false, more);
}

/**
 * The snippet of a long body whose plain text is not made yet (body-text.ts makes it ahead, in
 * slices, once the body is indexed): cut from the plain text of the whole lines within WINDOW_CHARS
 * of the first places where the Markdown may hold a match (at most WINDOWS of them), else from the
 * summary or the body's first lines. Converting the whole body here would hold every other request.
 */
function snippetNearMatch(t: Translation, query: Word[], candidates: RegExp): string {
  const body = t.bodyMd;
  let m = nextCandidate(body, candidates, 0);
  for (let windows = 0; m !== null && windows < WINDOWS; windows++) {
    const from = m.index <= WINDOW_CHARS ? 0 : body.lastIndexOf('\n', m.index - WINDOW_CHARS) + 1;
    const until = lineEndFrom(body, m.index + WINDOW_CHARS);
    const text = plainLines(body, from, until).join('\n');
    const at = firstMatchIn(text, query, candidates);
    if (at >= 0) return clip(text, at, SNIPPET_BEFORE, true, from > 0, until < body.length);
    m = nextCandidate(body, candidates, until + 1);
  }
  const until = lineEndFrom(body, WINDOW_CHARS);
  return fromSummaryOrStart(t, query, plainLines(body, 0, until).join('\n'), until < body.length);
}

/** Markdown converted on each side of a possible match in a long body without its text (snippetNearMatch). */
const WINDOW_CHARS = 2048;
/** Possible matches in such a body looked at, at most: each costs a window converted. */
const WINDOWS = 8;

/** The end of the line holding index `i` of `text` (its length past the end). */
function lineEndFrom(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const end = text.indexOf('\n', i);
  return end < 0 ? text.length : end;
}

/**
 * The next place from `from` on where `candidates` finds what may be a match: a word of a script
 * without spaces anywhere, another one where a word starts. Past a place inside a word, the rest of
 * that word is skipped: no place in it starts a word either (hostile text of one long word made of a
 * query word repeated otherwise cost a match per character).
 */
function nextCandidate(text: string, candidates: RegExp, from: number): RegExpExecArray | null {
  candidates.lastIndex = from;
  for (let m = candidates.exec(text); m !== null; m = candidates.exec(text)) {
    if (m[1] === undefined || startsWord(text, m.index)) return m;
    candidates.lastIndex = Math.max(spacedWordEnd(text, m.index), m.index + 1);
  }
  return null;
}
/** Where the word of a script written with spaces going on at `i` ends (a word of one without them may follow it directly). */
function spacedWordEnd(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 256) {
      if (NARROW_WORD[c] === 0) return i;
      i++;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const cls = infoOf(cp) & CLASS;
    if (cls !== WORD && cls !== MARK) return i;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/**
 * Where in the plain text of a body (lines joined by \n) the first match is (-1: none): the earliest
 * match in the first line where `candidates` finds one.
 */
function firstMatchIn(text: string, query: Word[], candidates: RegExp): number {
  for (let m = nextCandidate(text, candidates, 0); m !== null; ) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    const lineEnd = lineEndFrom(text, m.index);
    const at = firstMatch(text.slice(lineStart, lineEnd), query);
    if (at >= 0) return lineStart + at;
    // (The pattern is looser than folding: no match in this line after all.)
    m = nextCandidate(text, candidates, lineEnd + 1);
  }
  return -1;
}

/**
 * SNIPPET_COLUMNS of `text` from `before` columns ahead of `pos`, not starting or ending inside a
 * word of a spaced script (scripts without spaces can be cut anywhere), with … where text goes on;
 * `lines`: the text is a body's plain lines joined by \n, which the snippet shows as spaces.
 * `moreBefore`, `moreAfter`: the body goes on before or after `text` (a part of it).
 */
function clip(text: string, pos: number, before: number, lines: boolean, moreBefore = false, moreAfter = false): string {
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
  return `${start > 0 || moreBefore ? '…' : ''}${lines ? shown.replaceAll('\n', ' ') : shown}${end < text.length || moreAfter ? '…' : ''}`;
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
  const { folded, source } = foldKeepingPlaces(text);
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
