import markdownIt from 'markdown-it';

/**
 * Rewrites the link destinations of a Markdown body and leaves every other character as the author
 * wrote it: the Markdown twins are "the body as stored", only their links must work away from the
 * page they were written for.
 *
 * Only the block structure is parsed (markdown-it with its inline rules off), to know which lines are
 * code; the lines around it are scanned once, left to right, for inline links `](dest)` and
 * reference definitions `[label]: dest`, skipping code spans. Every step is linear in the body's
 * length, so a hostile body costs no more than a long one.
 */

/** The new destination of a link as written, or null to keep it. */
export type Resolve = (destination: string) => string | null;

const blocks = markdownIt({ html: false });
blocks.core.ruler.disable(['inline', 'linkify', 'replacements', 'smartquotes', 'text_join'], true);

// A destination followed by white space (a title) or the closing parenthesis; one holding
// parentheses of its own is left alone rather than cut short.
const INLINE_LINK = /\]\([ \t]*(<[^<>\n]*>|[^\s()<>]+)(?=[\s)])/g;
const DEFINITION = /^ {0,3}\[(?:[^[\]\\\n]|\\.){1,999}\]:[ \t]*(<[^<>\n]*>|[^\s<>]+)/;

/** `bodyMd` with each link destination that `resolve` answers replaced. */
export function rewriteLinks(bodyMd: string, resolve: Resolve): string {
  if (!bodyMd.includes('](') && !bodyMd.includes(']:')) return bodyMd;
  const code = codeLines(bodyMd);
  // Separators kept, so that the line endings come back as they were.
  const parts = bodyMd.split(/(\r\n|\r|\n)/);
  for (let i = 0; i < parts.length; i += 2) {
    if (!code.has(i / 2)) parts[i] = rewriteLine(parts[i], resolve);
  }
  return parts.join('');
}

/** The lines (from 0) inside fenced or indented code blocks. */
function codeLines(bodyMd: string): Set<number> {
  const lines = new Set<number>();
  for (const token of blocks.parse(bodyMd, {})) {
    if ((token.type === 'fence' || token.type === 'code_block') && token.map) {
      for (let line = token.map[0]; line < token.map[1]; line++) lines.add(line);
    }
  }
  return lines;
}

function rewriteLine(line: string, resolve: Resolve): string {
  if (!line.includes('](') && !line.includes(']:')) return line;
  const spans = codeSpans(line);
  const inCode = (at: number) => {
    // Spans are sorted and apart: a binary search keeps a line of many spans and links linear-ish.
    let low = 0;
    let high = spans.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (at < spans[mid][0]) high = mid - 1;
      else if (at >= spans[mid][1]) low = mid + 1;
      else return true;
    }
    return false;
  };
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const consider = (raw: string, start: number) => {
    if (inCode(start)) return;
    const angled = raw.startsWith('<');
    const destination = angled ? raw.slice(1, -1) : raw;
    const replaced = destination === '' ? null : resolve(destination);
    if (replaced !== null && replaced !== destination) edits.push({ start, end: start + raw.length, text: angled ? `<${replaced}>` : replaced });
  };
  const definition = DEFINITION.exec(line);
  if (definition) consider(definition[1], definition[0].length - definition[1].length);
  for (const match of line.matchAll(INLINE_LINK)) consider(match[1], match.index + match[0].length - match[1].length);
  if (edits.length === 0) return line;
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const edit of edits) {
    if (edit.start < at) continue;
    out += line.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + line.slice(at);
}

/**
 * The code spans of a line, as [start, end): a run of backticks opens one that the next run of the
 * same length closes; a run without such a partner is plain text. The partner of each run is found
 * in one pass from the right, so a line of many unmatched runs stays linear.
 */
function codeSpans(line: string): Array<[number, number]> {
  if (!line.includes('`')) return [];
  const runs = [...line.matchAll(/`+/g)].map((m) => ({ start: m.index, length: m[0].length }));
  const partner = new Array<number>(runs.length).fill(-1);
  const nextOfLength = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    partner[i] = nextOfLength.get(runs[i].length) ?? -1;
    nextOfLength.set(runs[i].length, i);
  }
  const spans: Array<[number, number]> = [];
  for (let i = 0; i < runs.length; ) {
    const j = partner[i];
    if (j < 0) {
      i++;
      continue;
    }
    spans.push([runs[i].start, runs[j].start + runs[j].length]);
    i = j + 1;
  }
  return spans;
}
