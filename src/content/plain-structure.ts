import { Pieces } from './text-pieces.ts';
import { isSpace } from './plain-inline.ts';

/**
 * The first half of a Markdown line's conversion to plain text: HTML comment markers and tags become
 * spaces, images and links their text, autolinks their address. plain-rules.ts does it with a regular
 * expression per rule, each over what the one before it left; this is one scan that gives the same
 * text where the order of the rules cannot matter. Where it could (a tag or comment marker inside
 * brackets, brackets inside brackets, a link that almost matches), the scan gives up and the line is
 * left to the rules: such lines are rare.
 */

/** Where the text of the image or link imageAt() or link() found last starts and ends. */
let textStart = 0;
let textEnd = 0;
/** Whether the `>` closingOf() found last closes an autolink (else a tag). */
let autolinked = false;

/**
 * s[from, end) with its links and HTML done; `undefined` when nothing changes, `null` when the line
 * is left to the rules.
 */
export function structure(s: string, from: number, end: number): string | undefined | null {
  const out = new Pieces();
  let run = from;
  // The next `<`, `[` and `-->` at or after `i` (`end`: none): the engine finds them, the units
  // between need no look.
  let lt = found(s.indexOf('<', from), end);
  let bracket = found(s.indexOf('[', from), end);
  let arrow = found(s.indexOf('-->', from), end);
  for (let i = from; ; ) {
    if (lt < i) lt = found(s.indexOf('<', i), end);
    if (bracket < i) bracket = found(s.indexOf('[', i), end);
    if (arrow < i) arrow = found(s.indexOf('-->', i), end);
    const q = Math.min(lt, bracket, arrow);
    if (q >= end) break;
    let close: number;
    let text = ' ';
    if (q === arrow) close = q + 2;
    else if (q === lt) {
      if (at(s, q + 1, end) === 0x21 && at(s, q + 2, end) === 0x2d && at(s, q + 3, end) === 0x2d) close = q + 3;
      else {
        close = closingOf(s, q, end);
        if (close === -1) return null;
        if (close === -2) {
          i = q + 1;
          continue;
        }
        if (autolinked) text = s.slice(q + 1, close);
      }
    } else {
      // `[` at q, after a `!` that nothing before took: an image.
      const image = q > i && s.charCodeAt(q - 1) === 0x21;
      close = image ? imageAt(s, q - 1, end) : link(s, q, end);
      if (close === -1) return null;
      if (close === -2) {
        i = q + 1;
        continue;
      }
      text = s.slice(textStart, textEnd);
      if (image) {
        out.add(s.slice(run, q - 1) + text);
        i = run = close + 1;
        continue;
      }
    }
    out.add(s.slice(run, q) + text);
    i = run = close + 1;
  }
  return run === from ? undefined : out.text(s.slice(run, end));
}

/** `i`, or `none` for -1: a loop that compared a position staying -1 ran 100 times slower once optimized. */
const found = (i: number, none: number) => (i < 0 ? none : i);

/** The unit at `i`, or -1 at or past `end`. */
const at = (s: string, i: number, end: number) => (i < end ? s.charCodeAt(i) : -1);

/**
 * For the `<` at `i` (not a comment marker): the index of the `>` that closes it as an HTML tag
 * (/<\/?[A-Za-z][^<>\n]{0,500}>/) or as an autolink (/<https?:\/\/[^<>\s]{1,2000}>/, which only tags
 * longer than 500 characters leave), -2 when it stays as it is, -1 to leave the line to the rules:
 * when a comment marker next to it joins it with what follows (the rules remove those markers
 * first), or a link after it could change what follows it (they are resolved before autolinks).
 */
function closingOf(s: string, i: number, end: number): number {
  const next = at(s, i + 1, end);
  const letter = next === 0x2f ? i + 2 : i + 1;
  if (!isAsciiLetter(at(s, letter, end))) return next === 0x5b || next === 0x21 ? -1 : -2;
  let t = i + 1;
  let bracket = false;
  for (; t < end; t++) {
    const d = s.charCodeAt(t);
    if (d === 0x3c || d === 0x3e) break;
    if (d === 0x5b) bracket = true;
  }
  const closed = t < end && s.charCodeAt(t) === 0x3e;
  if (closed) {
    if (t - i >= 3 && s.charCodeAt(t - 1) === 0x2d && s.charCodeAt(t - 2) === 0x2d) return -1;
  } else if (t < end && at(s, t + 1, end) === 0x21 && at(s, t + 2, end) === 0x2d && at(s, t + 3, end) === 0x2d) return -1;
  autolinked = false;
  if (closed && t - letter - 1 <= 500) return t;
  if (bracket) return -1;
  autolinked = closed && autolink(s, i, t);
  return autolinked ? t : -2;
}

const isAsciiLetter = (c: number) => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;

/** Whether s[i, close] is an autolink: `<`, http:// or https://, 1 to 2,000 units that are not white space, `>`. */
function autolink(s: string, i: number, close: number): boolean {
  const scheme = s.startsWith('https://', i + 1) ? 8 : s.startsWith('http://', i + 1) ? 7 : 0;
  const from = i + 1 + scheme;
  if (scheme === 0 || close - from < 1 || close - from > 2000) return false;
  for (let k = from; k < close; k++) if (isSpace(s.charCodeAt(k))) return false;
  return true;
}

/**
 * For the `![` at `i`: the index of the `)` that ends it as an image (/!\[[^[\]\n]{0,500}\]\([^()\n]{0,2000}\)/,
 * its text at textStart…textEnd), or -1 to leave the line to the rules (it is not one, or has `<`,
 * `>` or brackets where the rules that come before and after images could change it).
 */
function imageAt(s: string, i: number, end: number): number {
  IMAGE.lastIndex = i;
  if (!IMAGE.test(s) || IMAGE.lastIndex > end) return -1;
  textStart = i + 2;
  textEnd = s.indexOf(']', i);
  return IMAGE.lastIndex - 1;
}

const IMAGE = /!\[[^[\]<>]{0,500}\]\([^()<>[\]]{0,2000}\)/y;
const LINK = /\[[^[\]<>]{0,500}\]\([^()<>[\]]{0,2000}\)/y;

/**
 * For the `[` at `i`: the index of the `)` or `]` that ends it as a link (`[text](target)`,
 * `[![alt](image)](target)`) or reference link (`[text][name]`), its text at textStart…textEnd; -2
 * when it is not one and nothing later can make it one (the rules leave it as it is), -1 to leave the
 * line to the rules.
 */
function link(s: string, i: number, end: number): number {
  LINK.lastIndex = i;
  if (LINK.test(s) && LINK.lastIndex <= end) {
    textStart = i + 1;
    textEnd = s.indexOf(']', i);
    return LINK.lastIndex - 1;
  }
  const j = runEnd(s, i + 1, end, 500, false);
  if (j === end) return -2;
  const d = at(s, j, end);
  if (d === 0x5b) {
    // A linked image: the image rule leaves `[alt](target)`, which the link rule takes.
    if (j !== i + 2 || s.charCodeAt(i + 1) !== 0x21) return -1;
    const k = imageAt(s, i + 1, end);
    if (k < 0 || at(s, k + 1, end) !== 0x5d || at(s, k + 2, end) !== 0x28) return -1;
    const v = runEnd(s, k + 3, end, 2000, true);
    return at(s, v, end) === 0x29 ? v : -1;
  }
  if (d !== 0x5d) return -1;
  textStart = i + 1;
  textEnd = j;
  const n = at(s, j + 1, end);
  // A link that LINK did not match: a target too long or with brackets, `<` or `>` in it.
  if (n === 0x28) return -1;
  if (n === 0x5b) {
    // A reference link, unless its name is followed by what makes the name a link of its own
    // (links go first) or, through an image, could.
    const k = runEnd(s, j + 2, end, 200, false);
    if (at(s, k, end) !== 0x5d) return -1;
    const after = at(s, k + 1, end);
    return after === 0x28 || after === 0x21 ? -1 : k;
  }
  // `[text]` before anything but `(`, `[` or an image stays as it is.
  return n === 0x21 ? -1 : -2;
}

/**
 * The end of the run from `i` of units other than brackets, `<` and `>` (with `parens`, `(` and `)`
 * too): the index of the unit that ends it, `end`, or -1 when it is longer than `max` units.
 */
function runEnd(s: string, i: number, end: number, max: number, parens: boolean): number {
  const stop = Math.min(end, i + max + 1);
  for (let k = i; k < stop; k++) {
    const c = s.charCodeAt(k);
    if (c === 0x5b || c === 0x5d || c === 0x3c || c === 0x3e || (parens && (c === 0x28 || c === 0x29))) return k;
  }
  return stop === end ? end : -1;
}
