import markdownIt, { type StateInline, type Token } from 'markdown-it';
import { githubAliases, headingScan } from './headings.ts';

/**
 * The links a Markdown body holds and the heading anchors it gives its page. Links are read with
 * markdown-it's tokenizer in the portal's safe settings (no raw HTML, nothing evaluated or fetched),
 * so a link is a link exactly where the portal renders one; anchors are the ids of headingsOf()'s
 * headings (headings.ts), read only when a link asks for one.
 *
 * markdown-it's block parse makes a token object for every block, which cost most of an import's
 * link check (about 0.4 s for the realistic set) though one block in ten holds a link. A body is
 * therefore cut into pieces where nothing goes on across the cut — a blank line followed by a line
 * that starts at the margin, outside fenced code — and only the pieces that may hold a link (a `]`)
 * are parsed. A body with reference definitions (`]:`) is parsed whole: a reference may be defined
 * in another piece than it is used.
 *
 * markdown-it is linear but slow on link-dense text: a body of 5 MB of `[a](b)`, parsed whole, held
 * the event loop for 17 s (2 cores, busy). The body is therefore parsed in blocks, only the blocks
 * that can hold a link (a `]`) are parsed inline, a piece at a time, and each body gets a budget of
 * characters and links: past it the scan stops and says so (`complete: false`), and nothing past it
 * is reported as missing. The same body then costs about a quarter of a second.
 */

/** A link as written in the body: its destination (escapes decoded, as markdown-it reads it) and its line in the body, from 0. */
export interface ScannedLink {
  destination: string;
  line: number;
}

export interface BodyScan {
  links: ScannedLink[];
  /** The ids the portal gives the page's headings, in order. */
  anchors: ReadonlySet<string>;
  /** Other ids a link may name a heading by: the ids GitHub gives them, where they differ (headings.ts, githubAliases), to the portal's. */
  aliases: ReadonlyMap<string, string>;
  /** False when the body was longer than the scan's budget: links past it are unknown. */
  complete: boolean;
  /** False when the body was longer than the scan's budget: anchors past it are unknown. */
  anchorsComplete: boolean;
}

/** Characters of a body whose block structure is parsed, at most. */
export const MAX_SCANNED_CHARS = 256 * 1024;
/** Characters of inline text parsed per body, at most: the blocks that may hold links. */
export const MAX_INLINE_CHARS = 100_000;
/** Inline text is parsed this much at a time (cut at a line break where there is one), so the link limit stops the work soon. */
const PIECE_CHARS = 16 * 1024;
/** Links taken from one body at most. */
export const MAX_LINKS = 1_000;

/** Bare URLs (linkify) are left out: they always have a scheme, so they are never links within the service. */
const md = markdownIt({ html: false, linkify: false, typographer: false });
md.core.ruler.disable(['inline', 'replacements', 'smartquotes', 'text_join'], true);
// A table's rows read as a paragraph's lines hold the same links on the same lines, and making a token
// per cell took a third of an import's scan.
md.block.ruler.disable(['table']);
// Emphasis and strikethrough only pair delimiters into tokens nobody reads here: they match nothing
// in the silent mode a link's label is read in, so a link starts and ends where it does with them;
// their tokens and the passes pairing them were about a fifth of the scan.
md.inline.ruler.disable(['strikethrough', 'emphasis']);
md.inline.ruler2.disable(['balance_pairs', 'strikethrough', 'emphasis', 'fragments_join']);

// Most destinations are plain ASCII that normalizeLink() leaves as it is and normalizeLinkText() gives
// back unchanged; the URL parsing and punycode both run for every link took a third of the scan.
const PLAIN_URL = /^[A-Za-z0-9;/?:@&=+$,\-_.!~*'()#]*$/;
const normalizeLink = md.normalizeLink.bind(md);
const normalizeLinkText = md.normalizeLinkText.bind(md);
md.normalizeLink = (url: string) => (PLAIN_URL.test(url) ? url : normalizeLink(url));
const destinationOf = (href: string) => (PLAIN_URL.test(href) && !href.includes('xn--') ? href : normalizeLinkText(href));

// Where each link starts in its block's text: the link rule is wrapped to note it on the link_open token.
const linkRule = md.inline.ruler.__rules__.find((r) => r.name === 'link')!.fn;
md.inline.ruler.at('link', (state: StateInline, silent: boolean) => {
  const start = state.pos;
  const from = state.tokens.length;
  if (!linkRule(state, silent)) return false;
  if (!silent) {
    const open = state.tokens.slice(from).find((t) => t.type === 'link_open');
    if (open) open.meta = { at: start };
  }
  return true;
});

/**
 * The links and anchors of a body, within the budget above. A body without link syntax (`](`, `][`,
 * `]:`) has no link; the anchors of any body are read only when a link asks for one: most pages are
 * no link's target with an anchor.
 */
export function scanBody(bodyMd: string): BodyScan {
  const found = bodyMd.includes('](') || bodyMd.includes('][') || bodyMd.includes(']:') ? linkScan(bodyMd) : { links: [], complete: true };
  let heads: ReturnType<typeof anchorScan> | undefined;
  const read = () => (heads ??= anchorScan(bodyMd));
  return {
    links: found.links,
    complete: found.complete,
    get anchors() {
      return read().anchors;
    },
    get aliases() {
      return read().aliases;
    },
    get anchorsComplete() {
      return read().complete;
    },
  };
}

/** The ids of the body's headings (and their GitHub ids); past MAX_SCANNED_CHARS (or the most headings read) they are unknown. */
function anchorScan(bodyMd: string): { anchors: ReadonlySet<string>; aliases: ReadonlyMap<string, string>; complete: boolean } {
  const cut = bodyMd.length > MAX_SCANNED_CHARS ? cutAt(bodyMd, MAX_SCANNED_CHARS) : bodyMd;
  const scan = headingScan(cut);
  return { anchors: new Set(scan.anchors), aliases: githubAliases(scan.texts, scan.anchors), complete: scan.complete && cut.length === bodyMd.length };
}

/** The text up to the last line break before `max` (or `max` characters when there is none). */
function cutAt(text: string, max: number): string {
  const cut = text.lastIndexOf('\n', max);
  return text.slice(0, cut > 0 ? cut : max);
}

function linkScan(bodyMd: string): { links: ScannedLink[]; complete: boolean } {
  const text = bodyMd.length > MAX_SCANNED_CHARS ? cutAt(bodyMd, MAX_SCANNED_CHARS) : bodyMd;
  const complete = text.length === bodyMd.length;
  const env: Record<string, unknown> = {};
  const budget = { left: MAX_INLINE_CHARS };
  const links: ScannedLink[] = [];
  if (text.includes(']:')) return { links, complete: blockLinks(text, 0, env, budget, links) && complete };
  for (const piece of pieces(text)) {
    const bracket = text.indexOf(']', piece.from);
    if (bracket < 0) break;
    if (bracket >= piece.to) continue;
    if (!blockLinks(text.slice(piece.from, piece.to), piece.line, env, budget, links)) return { links, complete: false };
  }
  return { links, complete };
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The body cut where a block cannot go on: before a line at the margin that follows a blank line,
 * outside fenced code (each piece: its range and its first line). Such a line ends every list,
 * quote, paragraph and indented code above it, so markdown-it reads a piece alone as it reads it in
 * the whole body.
 */
function* pieces(text: string): Generator<{ from: number; to: number; line: number }> {
  let from = 0;
  let fromLine = 0;
  let fence: string | null = null;
  let blank = false;
  for (let s = 0, line = 0; s < text.length; line++) {
    let e = text.indexOf('\n', s);
    if (e < 0) e = text.length;
    const c = text.charCodeAt(s);
    if (fence === null && blank && s > from && c !== 32 && c !== 9 && c !== 13 && c !== 10) {
      yield { from, to: s, line: fromLine };
      from = s;
      fromLine = line;
    }
    blank = isBlank(text, s, e);
    let k = s;
    while (k < s + 3 && text.charCodeAt(k) === 32) k++;
    const d = text.charCodeAt(k);
    if (d === 96 || d === 126) {
      const row = text.slice(s, e).replace(/\r$/, '');
      const f = FENCE.exec(row);
      if (f) {
        if (fence === null) {
          if (!(f[1][0] === '`' && row.slice(row.indexOf(f[1]) + f[1].length).includes('`'))) fence = f[1];
        } else if (f[1][0] === fence[0] && f[1].length >= fence.length && row.trim() === f[1]) fence = null;
      }
    }
    s = e + 1;
  }
  if (from < text.length) yield { from, to: text.length, line: fromLine };
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/** Adds the links of the blocks of `text` (whose first line is `firstLine` of the body) to `out`; false when a limit stopped it. */
function blockLinks(text: string, firstLine: number, env: Record<string, unknown>, budget: { left: number }, links: ScannedLink[]): boolean {
  const blocks = md.parse(text, env);
  let line = firstLine;
  for (let i = 0; i < blocks.length; i++) {
    const token = blocks[i];
    if (token.map) line = firstLine + token.map[0];
    if (token.type !== 'inline' || !token.content.includes(']')) continue;
    const content = token.content;
    let pieceLine = line;
    for (let at = 0; at < content.length; ) {
      let end = Math.min(content.length, at + PIECE_CHARS, at + budget.left);
      if (end < content.length) {
        const cut = content.lastIndexOf('\n', end);
        if (cut > at) end = cut + 1;
      }
      const piece = content.slice(at, end);
      budget.left -= piece.length;
      if (!linksOf(piece, pieceLine, env, links)) return false;
      for (let k = 0; k < piece.length; k++) if (piece.charCodeAt(k) === 10) pieceLine++;
      at = end;
      if (budget.left <= 0) return false;
    }
  }
  return true;
}

/** Adds the links of a block's inline text to `out`; false when MAX_LINKS is reached. */
function linksOf(content: string, firstLine: number, env: Record<string, unknown>, out: ScannedLink[]): boolean {
  const tokens: Token[] = [];
  md.inline.parse(content, md, env, tokens);
  let at = 0;
  let line = firstLine;
  for (const t of tokens) {
    if (t.type !== 'link_open') continue;
    const start = (t.meta as { at?: number } | null)?.at ?? at;
    // Links come in order, so counting the line breaks between them is linear in the text.
    for (; at < start; at++) if (content.charCodeAt(at) === 10) line++;
    if (out.length >= MAX_LINKS) return false;
    out.push({ destination: destinationOf(String(t.attrGet('href') ?? '')), line });
  }
  return true;
}
