// The earlier Markdown → plain text conversion, a regular expression per rule, kept unchanged as the
// oracle the differential tests compare src/content/plain-text.ts with: the output must stay the same.
/**
 * Markdown → plain text, for the search index and snippets: the words a reader sees, without
 * syntax noise (markers, link targets, HTML tags, table rules). Code stays: readers search for it.
 * Every pattern is bounded (no match spans more than a line or a few hundred characters), so the
 * work is linear in the size of the body whatever a writer puts in it.
 */
export function plainText(markdown: string): string {
  return plainLines(markdown).join(' ');
}

/**
 * The plain text of each Markdown line that has any, white space collapsed: joined with spaces they
 * make plainText(). Lines, so a caller that needs only the start of a body or the lines around a
 * match need not convert all of it.
 */
export function plainLines(markdown: string, from = 0, until = markdown.length): string[] {
  const out: string[] = [];
  for (let start = from; start < until; ) {
    let end = markdown.indexOf('\n', start);
    if (end < 0 || end > until) end = until;
    const raw = markdown.slice(start, end);
    // A lone CR ends a line too (old Mac files); CRLF leaves a CR at the end of `raw`.
    if (raw.includes('\r')) {
      for (const part of raw.split(/\r\n?/)) {
        const line = plainLineText(part);
        if (line !== '') out.push(line);
      }
    } else if (raw !== '') {
      const line = plainLineText(raw);
      if (line !== '') out.push(line);
    }
    start = end + 1;
  }
  return out;
}

/** One line's plain text, trimmed and with white space collapsed ('' when nothing is left). */
function plainLineText(raw: string): string {
  if (!SYNTAX.test(raw)) return SPACE_RUN.test(raw) ? collapse(raw) : raw;
  if (!FULL_RULES.test(raw)) return plainSimpleLine(raw);
  const line = plainLine(raw);
  return SPACE_RUN.test(line) ? collapse(line) : line;
}

const collapse = (line: string) => line.replace(/\s+/g, ' ').trim();

/** A line without any of these characters is plain text as it is (most lines of prose). */
const SYNTAX = /[<>[\]!|*_~`\\#]|^\s*(?:[-+:]|\d{1,9}[.)])|-->/;
/** White space other than single inner spaces (\s less the space, two spaces, a space at either end). */
const SPACE_RUN = /[^\S ]|  |^ | $/;

/**
 * Characters whose rules (HTML, links, quotes, escapes) only plainLine() applies. Lines without them
 * (table rows, list items, headings, emphasis and code, most lines with syntax) take
 * plainSimpleLine(), which gives the same text in one pass instead of a regular expression per rule:
 * snippets convert a dozen lines for each of up to 50 hits.
 */
const FULL_RULES = /[<>[\\]/;

/** Whether a line is dropped whole; `first` is its first character that is not white space. */
function dropped(line: string, first: string): boolean {
  if ((first === '`' || first === '~') && /^ {0,3}(```|~~~)/.test(line)) return true; // code fences (the code itself stays)
  if (first === '[' && /^\s*\[[^\]\n]{1,200}\]:\s+\S/.test(line)) return true; // link definitions
  if ((first === '|' || first === ':' || first === '-') && line.includes('---') && /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{0,200}:?\s*){0,100}\|?\s*$/.test(line)) return true; // table rules
  if ((first === '-' || first === '*' || first === '_') && /^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return true; // thematic breaks
  return false;
}

/**
 * plainLineText() of a line without FULL_RULES characters: what plainLine() does to it (heading and
 * list markers, table pipes, emphasis and code markers, underscores), then white space collapsed.
 */
function plainSimpleLine(line: string): string {
  let at = firstNonSpace(line, 0);
  if (at === line.length || dropped(line, line[at])) return '';
  let s = line;
  if (s[at] === '#' && at <= 3) {
    s = s.replace(/^ {0,3}#{1,6}\s+/, '');
    at = firstNonSpace(s, 0);
  }
  const c = s.charCodeAt(at);
  if (c === 0x2d || c === 0x2a || c === 0x2b || (c >= 0x30 && c <= 0x39)) s = s.replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/, '');
  if (!s.includes('_')) return inline(s, true);
  s = inline(s, false).replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1');
  return SPACE_RUN.test(s) ? collapse(s) : s;
}

/**
 * `s` with table pipes as spaces and emphasis and code markers (`*` runs, `~~`, backtick runs)
 * gone, as plainLine() does it; with `collapsed`, white space collapsed and trimmed too.
 */
function inline(s: string, collapsed: boolean): string {
  let out = '';
  let space = false;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const pipe = c === 0x7c;
    const drop = c === 0x2a || c === 0x60 || (c === 0x7e && s.charCodeAt(i + 1) === 0x7e);
    const blank = collapsed && (pipe || isSpace(c));
    if (!drop && !blank && !pipe) continue;
    if (i > from) {
      if (space && out !== '') out += ' ';
      out += s.slice(from, i);
      space = false;
    }
    if (blank) space = true;
    else if (pipe) out += ' ';
    if (c === 0x7e) i++;
    from = i + 1;
  }
  if (from < s.length) {
    if (space && out !== '') out += ' ';
    out += from === 0 ? s : s.slice(from);
  }
  return out;
}

/** The index of the first character at or after `from` that is not white space (\s), or the length. */
function firstNonSpace(s: string, from: number): number {
  let i = from;
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** Whether a UTF-16 unit is white space as \s and trim() see it. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function plainLine(line: string): string {
  // The lines dropped whole all start (after indentation) with one of a few markers.
  if (dropped(line, line.charAt(line.search(/\S/)))) return '';
  // Each step runs only when its marker is there: most lines need few of them.
  let s = line;
  if (s.includes('<')) {
    s = s
      .replace(/<!--|-->/g, ' ')
      .replace(/<\/?[A-Za-z][^<>\n]{0,500}>/g, ' '); // HTML tags
  } else if (s.includes('-->')) s = s.replace(/-->/g, ' ');
  if (s.includes('[')) {
    s = s
      .replace(/!\[([^[\]\n]{0,500})\]\([^()\n]{0,2000}\)/g, '$1') // images → alt text
      .replace(/\[([^[\]\n]{0,500})\]\([^()\n]{0,2000}\)/g, '$1') // links → their text
      .replace(/\[([^[\]\n]{0,500})\]\[[^[\]\n]{0,200}\]/g, '$1'); // reference links
  }
  if (s.includes('<')) s = s.replace(/<(https?:\/\/[^<>\s]{1,2000})>/g, '$1'); // autolinks
  if (s.includes('#')) s = s.replace(/^ {0,3}#{1,6}\s+/, ''); // heading markers
  if (s.includes('>')) s = s.replace(/^(\s*>)+\s?/, ''); // quotes
  s = s.replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/, ''); // list markers and task boxes
  if (s.includes('|')) s = s.replace(/\|/g, ' ');
  if (/[*~`]/.test(s)) s = s.replace(/\*+|~~|`+/g, ''); // emphasis and code markers
  if (s.includes('_')) s = s.replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1'); // _emphasis_, not snake_case
  if (s.includes('\\')) s = s.replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, '$1');
  return s;
}
