/*
 * Front matter of the common shape, read without gray-matter and js-yaml: at a start without
 * snapshots every Markdown file of every version is parsed, and the general parsers cost several
 * times what the file's read from git does (gray-matter also hashes and copies the whole file).
 *
 * The shape is the one the service writes and most people write by hand: the file opens with a line
 * `---`, then lines `title:`, `summary:` or `updatedAt:` (each at most once), each followed by one
 * string on its line (plain, 'single-quoted' or "double-quoted"), empty lines allowed between them,
 * then a line that starts with `---`. For such a file the result is exactly gray-matter's with
 * js-yaml. Anything else (other keys, comments, indentation, tabs, CRLF, a byte order mark, anchors,
 * tags, block or flow values, numbers, dates, keywords such as `true` or `null`, characters YAML reads
 * specially, a file without a closing line) is not of the shape: the caller goes to the full parser,
 * which reads it or reports its problem. Each character of the front matter is looked at a bounded
 * number of times, and the body is not looked at.
 */

/** The front matter's mapping and the body after it. */
export interface FrontMatter {
  data: Record<string, string>;
  content: string;
}

const KEYS = ['title', 'summary', 'updatedAt', 'basedOn'];

/** What gray-matter and js-yaml give for `text`, when its front matter is of the common shape; null otherwise. */
export function simpleFrontMatter(text: string): FrontMatter | null {
  if (!text.startsWith('---\n')) return null;
  const data: Record<string, string> = {};
  let keys = 0;
  for (let at = 4; ; ) {
    // gray-matter's closing delimiter is the first "\n---", whatever follows it on its line.
    if (text.startsWith('---', at)) {
      if (keys === 0) return null;
      let content = text.slice(at + 3);
      if (content.charCodeAt(0) === CR) content = content.slice(1);
      if (content.charCodeAt(0) === LF) content = content.slice(1);
      return { data, content };
    }
    const end = text.indexOf('\n', at);
    if (end < 0) return null;
    if (end > at) {
      const key = keyAt(text, at, end);
      if (key === null || key in data) return null;
      let from = at + key.length + 1;
      if (text.charCodeAt(from) !== SPACE) return null;
      while (text.charCodeAt(from) === SPACE) from++;
      const value = valueAt(text, from, end);
      if (value === null) return null;
      data[key] = value;
      keys++;
    }
    at = end + 1;
  }
}

const LF = 10;
const CR = 13;
const SPACE = 32;
const HASH = 35;
const COLON = 58;

function keyAt(text: string, at: number, end: number): string | null {
  for (const key of KEYS) {
    if (at + key.length < end && text.startsWith(key, at) && text.charCodeAt(at + key.length) === COLON) return key;
  }
  return null;
}

/** The string of a value that runs from `at` to the end of its line, or null when it is not a plain or quoted string alone. */
function valueAt(text: string, at: number, end: number): string | null {
  const first = text.charCodeAt(at);
  if (first === 0x22) return doubleQuoted(text, at + 1, end);
  if (first === 0x27) return singleQuoted(text, at + 1, end);
  return plain(text, at, end);
}

/**
 * A plain scalar that js-yaml reads as the string it spells: it starts with a letter (never an
 * indicator, a digit or a sign, so never a number or date), holds no `: ` or ` #`, does not end with
 * `:`, and is none of the words that read as null or a boolean. Trailing spaces are not part of it.
 */
function plain(text: string, at: number, end: number): string | null {
  if (!LETTER.test(text.charAt(at))) return null;
  let last = at;
  for (let i = at; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === SPACE) continue;
    if (c === COLON && (i + 1 === end || text.charCodeAt(i + 1) === SPACE)) return null;
    if (c === HASH && text.charCodeAt(i - 1) === SPACE) return null;
    const width = printable(text, i);
    if (width === 0) return null;
    i += width - 1;
    last = i + 1;
  }
  const value = text.slice(at, last);
  return KEYWORDS.has(value) ? null : value;
}

/** A letter: never one of YAML's indicators, digits or signs. */
const LETTER = /^\p{L}$/u;

/** Plain scalars that js-yaml reads as null or a boolean. */
const KEYWORDS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/** A single-quoted scalar on one line (`''` is a quote), then nothing but spaces. */
function singleQuoted(text: string, at: number, end: number): string | null {
  let out = '';
  let from = at;
  for (let i = at; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x27) {
      out += text.slice(from, i);
      if (text.charCodeAt(i + 1) !== 0x27) return onlySpaces(text, i + 1, end) ? out : null;
      from = ++i;
      continue;
    }
    const width = printable(text, i);
    if (width === 0) return null;
    i += width - 1;
  }
  return null;
}

/** A double-quoted scalar on one line, with the escapes js-yaml reads, then nothing but spaces. */
function doubleQuoted(text: string, at: number, end: number): string | null {
  let out = '';
  let from = at;
  for (let i = at; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return onlySpaces(text, i + 1, end) ? out + text.slice(from, i) : null;
    if (c === 0x5c) {
      out += text.slice(from, i);
      const e = text.charAt(i + 1);
      const simple = ESCAPES.get(e);
      if (simple !== undefined) {
        out += simple;
        i++;
      } else {
        const digits = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
        if (digits === 0 || i + 2 + digits > end) return null;
        const hex = text.slice(i + 2, i + 2 + digits);
        if (!HEX.test(hex)) return null;
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) return null;
        out += String.fromCodePoint(code);
        i += 1 + digits;
      }
      from = i + 1;
      continue;
    }
    const width = printable(text, i);
    if (width === 0) return null;
    i += width - 1;
  }
  return null;
}

const HEX = /^[0-9a-fA-F]+$/;

/** js-yaml's one-character escapes (a backslash before a tab or a line break aside). */
const ESCAPES = new Map([
  ['0', '\0'],
  ['a', '\x07'],
  ['b', '\b'],
  ['t', '\t'],
  ['n', '\n'],
  ['v', '\v'],
  ['f', '\f'],
  ['r', '\r'],
  ['e', '\x1b'],
  [' ', ' '],
  ['"', '"'],
  ['/', '/'],
  ['\\', '\\'],
  ['N', '\x85'],
  ['_', '\xa0'],
  ['L', '\u2028'],
  ['P', '\u2029'],
]);

const onlySpaces = (text: string, from: number, end: number) => {
  for (let i = from; i < end; i++) if (text.charCodeAt(i) !== SPACE) return false;
  return true;
};

/**
 * The UTF-16 length of the character at `i` when it is one the shape allows in a value, else 0:
 * control characters (tabs and carriage returns among them), C1 controls, line and paragraph
 * separators, byte order marks, non-characters and lone surrogates are left to the full parser,
 * which treats some of them specially.
 */
function printable(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 || c === 0xfeff || c === 0xfffe || c === 0xffff) return 0;
  if (c >= 0xd800 && c <= 0xdbff) {
    const low = text.charCodeAt(i + 1);
    return low >= 0xdc00 && low <= 0xdfff ? 2 : 0;
  }
  return c >= 0xdc00 && c <= 0xdfff ? 0 : 1;
}

/** A front-matter parser as gray-matter takes them: `engines[language].parse`. */
export interface Engine {
  parse: (text: string) => unknown;
}

/**
 * What gray-matter 4 gives for `text` (`matter(text, { excerpt: false, engines })`), read here:
 * gray-matter tells front matter of nothing but comments with /^\s*#[^\n]+/gm, which takes time
 * quadratic in the blank lines of the front matter (40,000 of them held the process for most of a
 * second; a 5 MB file would hold it for hours), and it hashes and copies every file it reads. The
 * result and the errors are gray-matter's, its quirks included: a byte order mark is dropped, the text
 * after the opening `---` names the language, the first "\n---" closes, whatever follows on its line,
 * and engines are looked up as it looks them up. `engines` must be a plain object.
 *
 * One step of gray-matter's is left out: with excerpts off it still turns an `excerpt_separator` the
 * front matter names into a string, which fails for some values and, for a nest of YAML aliases,
 * takes time exponential in the file's size. The key is ignored (with a warning) like any other.
 */
export function readFrontMatter(text: string, engines: Readonly<Record<string, Engine>>): { data: unknown; content: string } {
  const file = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!file.startsWith('---') || file.charAt(3) === '-') return { data: {}, content: file };
  let rest = file.slice(3);
  const length = rest.length;
  const raw = rest.slice(0, rest.search(/\r?\n/));
  let language = 'yaml';
  if (raw.trim() !== '') {
    language = raw.trim();
    rest = rest.slice(raw.length);
  }
  let close = rest.indexOf('\n---');
  if (close < 0) close = length;
  const block = rest.slice(0, close);
  let data = onlyComments(block) ? {} : parseWith(engines, language, block);
  data ??= {};
  let content = '';
  if (close !== length) {
    content = rest.slice(close + 4);
    if (content.charCodeAt(0) === CR) content = content.slice(1);
    if (content.charCodeAt(0) === LF) content = content.slice(1);
  }
  return { data, content };
}

/** gray-matter's engine lookup: by name (inherited properties included), then by its alias. */
function parseWith(engines: Readonly<Record<string, Engine>>, language: string, block: string): unknown {
  let engine: unknown = engines[language] || engines[alias(language)];
  if (engine === undefined) throw new Error(`gray-matter engine "${language}" is not registered`);
  if (typeof engine === 'function') engine = { parse: engine };
  const parse = (engine as { parse?: unknown }).parse;
  if (typeof parse !== 'function') throw new TypeError(`expected "${language}.parse" to be a function`);
  return (engine as { parse: (text: string, options: object) => unknown }).parse(block, {});
}

function alias(name: string): string {
  switch (name.toLowerCase()) {
    case 'js':
    case 'javascript':
      return 'javascript';
    case 'coffee':
    case 'coffeescript':
    case 'cson':
      return 'coffee';
    case 'yaml':
    case 'yml':
      return 'yaml';
    default:
      return name;
  }
}

/**
 * Whether `block` is white space and comment lines only, as gray-matter decides it (what is left
 * after /^\s*#[^\n]+/gm is removed is white space), in one pass: a character other than white space
 * survives unless it is a `#` reached from the start of a line through white space alone (line
 * breaks included) and followed by something other than a line feed, which removes the rest of
 * its line.
 */
function onlyComments(block: string): boolean {
  for (let i = 0; ; ) {
    // Past the first round, i is at the line feed that ended a comment: a line starts after it.
    let lineStart = i === 0;
    while (i < block.length && WHITE.test(block.charAt(i))) {
      if (LINE_BREAK.test(block.charAt(i))) lineStart = true;
      i++;
    }
    if (i >= block.length) return true;
    if (!lineStart || block.charCodeAt(i) !== HASH || i + 1 >= block.length || block.charCodeAt(i + 1) === LF) return false;
    const end = block.indexOf('\n', i + 1);
    i = end < 0 ? block.length : end;
  }
}

/** What a regular expression's \s matches (and String.prototype.trim removes). */
const WHITE = /^\s$/;
/** What ends a line for a regular expression's ^ with the m flag. */
const LINE_BREAK = /^[\n\r\u2028\u2029]$/;
