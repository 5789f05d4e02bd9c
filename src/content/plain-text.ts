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
    for (const part of raw.includes('\r') ? raw.split(/\r\n?/) : [raw]) {
      const line = plainLineText(part);
      if (line !== '') out.push(line);
    }
    start = end + 1;
  }
  return out;
}

/** One line's plain text, trimmed and with white space collapsed ('' when nothing is left). */
function plainLineText(raw: string): string {
  const line = SYNTAX.test(raw) ? plainLine(raw) : raw;
  return SPACE_RUN.test(line) ? line.replace(/\s+/g, ' ').trim() : line;
}

/** A line without any of these characters is plain text as it is (most lines of prose). */
const SYNTAX = /[<>[\]!|*_~`\\#]|^\s*(?:[-+:]|\d{1,9}[.)])|-->/;
/** White space other than single inner spaces. */
const SPACE_RUN = /^\s|\s$|\s\s|[^\S ]/;

function plainLine(line: string): string {
  // The lines dropped whole all start (after indentation) with one of a few markers.
  const first = line.charAt(line.search(/\S/));
  if ((first === '`' || first === '~') && /^ {0,3}(```|~~~)/.test(line)) return ''; // code fences (the code itself stays)
  if (first === '[' && /^\s*\[[^\]\n]{1,200}\]:\s+\S/.test(line)) return ''; // link definitions
  if ((first === '|' || first === ':' || first === '-') && /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{0,200}:?\s*){0,100}\|?\s*$/.test(line)) return ''; // table rules
  if ((first === '-' || first === '*' || first === '_') && /^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return ''; // thematic breaks
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
