import { fold, type Word } from './words.ts';

/**
 * A pattern that finds, in raw text, where a word of the query may occur (case and accents
 * ignored): a fast way to the lines worth converting to plain text. A Latin-script word must also
 * start a word there, which the pattern leaves to startsWord(): a match of its first group is one
 * only where that holds. It can find places that are not matches in the plain text (inside a link
 * target), and it misses a word split by inline Markdown (`ca**fe**`).
 *
 * Every query builds its own pattern, so it is kept cheap to compile: a look-behind for letters,
 * or \p{M} after every letter, took V8 about 2 ms to compile for a two-word query, more than the
 * rest of the search. So the marks a letter may carry are the blocks of combining marks for
 * Latin, Greek and Cyrillic (MARKS), not all of \p{M}.
 */
export function rawMatcher(query: Word[]): RegExp {
  const spaced = query.filter((w) => !w.unspaced).map((w) => {
    let pattern = '';
    for (const ch of w.text) pattern += letterClass(ch);
    return pattern;
  });
  const unspaced = query.filter((w) => w.unspaced).map((w) => escapeRegExp(w.text));
  return new RegExp([...(spaced.length > 0 ? [`(${spaced.join('|')})`] : []), ...unspaced].join('|'), 'giu');
}

/** Combining marks written after letters of spaced scripts: the diacritical blocks (with their extensions, supplement, and those for symbols and half marks) and Cyrillic's. */
const MARKS = String.raw`[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]`;

/** Whether `index` starts a word in `text`: the code point before it is no letter, digit or mark. */
export function startsWord(text: string, index: number): boolean {
  if (index === 0) return true;
  const low = text.charCodeAt(index - 1);
  const high = index >= 2 ? text.charCodeAt(index - 2) : 0;
  WORD_CHAR_AT.lastIndex = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? index - 2 : index - 1;
  return !WORD_CHAR_AT.test(text);
}
const WORD_CHAR_AT = /[\p{L}\p{N}\p{M}]/uy;

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/** Folded letter → the letters that fold to it (é, è, É, … for e), for rawMatcher. */
let variants: Map<string, string> | null = null;
/** Folded letter → its class in the pattern, as letterClass() made it: queries keep using the same few letters. */
const classes = new Map<string, string>();

function letterClass(folded: string): string {
  let made = classes.get(folded);
  if (made !== undefined) return made;
  if (variants === null) {
    variants = new Map();
    for (const [from, to] of [[0xc0, 0x24f], [0x370, 0x3ff], [0x400, 0x4ff], [0x1e00, 0x1eff]]) {
      for (let code = from; code <= to; code++) {
        const ch = String.fromCodePoint(code);
        const f = fold(ch);
        if (f.length === 1 && f !== ch) variants.set(f, (variants.get(f) ?? '') + ch);
      }
    }
  }
  const more = variants.get(folded);
  made = more ? `[${escapeRegExp(folded)}${escapeRegExp(more)}]${MARKS}*` : `${escapeRegExp(folded)}${MARKS}*`;
  // Bounded by the characters a query can hold; past this many distinct ones (a flood of rare scripts), start again.
  if (classes.size >= 4096) classes.clear();
  classes.set(folded, made);
  return made;
}
