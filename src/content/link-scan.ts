import markdownIt, { type StateInline, type Token } from 'markdown-it';
import { headingText, HeadingIds } from './headings.ts';

/**
 * The links a Markdown body holds and the heading anchors it gives its page, read with markdown-it's
 * tokenizer in the portal's safe settings (no raw HTML, nothing evaluated or fetched), so a link is
 * a link exactly where the portal renders one and an anchor exists exactly when the portal's
 * heading ids (HeadingIds) make it.
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
  /** False when the body was longer than the scan's budget: links past it are unknown. */
  complete: boolean;
  /** False when the body was longer than the scan's budget: anchors past it are unknown. */
  anchorsComplete: boolean;
}

/** Characters of a body whose block structure is parsed, at most. */
export const MAX_SCANNED_CHARS = 256 * 1024;
/** Characters of inline text parsed per body, at most: headings, and the blocks that may hold links. */
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

const EMPTY: BodyScan = { links: [], anchors: new Set(), complete: true, anchorsComplete: true };

/**
 * The links and anchors of a body, within the budget above. A body without link syntax (`](`, `][`,
 * `]:`) has no link, and its anchors are read only when a link asks for one: most pages are no
 * link's target with an anchor, and parsing every body's structure doubled the cost of an import.
 */
export function scanBody(bodyMd: string): BodyScan {
  if (bodyMd.includes('](') || bodyMd.includes('][') || bodyMd.includes(']:')) return fullScan(bodyMd);
  let anchorsOnly: BodyScan | undefined;
  const read = () => (anchorsOnly ??= fullScan(bodyMd));
  return {
    links: [],
    complete: true,
    get anchors() {
      return read().anchors;
    },
    get anchorsComplete() {
      return read().anchorsComplete;
    },
  };
}

function fullScan(bodyMd: string): BodyScan {
  if (!bodyMd.includes(']') && !bodyMd.includes('#') && !/\n[ \t]*(?:=+|-+)[ \t]*(?:\r?\n|$)/.test(bodyMd)) return EMPTY;
  let complete = true;
  let text = bodyMd;
  if (text.length > MAX_SCANNED_CHARS) {
    const cut = text.lastIndexOf('\n', MAX_SCANNED_CHARS);
    text = text.slice(0, cut > 0 ? cut : MAX_SCANNED_CHARS);
    complete = false;
  }
  const env: Record<string, unknown> = {};
  const blocks = md.parse(text, env);
  const links: ScannedLink[] = [];
  const ids = new HeadingIds();
  const anchors = new Set<string>();
  let budget = MAX_INLINE_CHARS;
  let line = 0;
  for (let i = 0; i < blocks.length; i++) {
    const token = blocks[i];
    if (token.map) line = token.map[0];
    if (token.type === 'heading_open') {
      const content = blocks[i + 1]?.content ?? '';
      budget -= content.length;
      if (budget < 0) return { links, anchors, complete: false, anchorsComplete: false };
      anchors.add(ids.next(headingText(content)));
      continue;
    }
    if (token.type !== 'inline' || !token.content.includes(']')) continue;
    const content = token.content;
    let pieceLine = line;
    for (let at = 0; at < content.length; ) {
      let end = Math.min(content.length, at + PIECE_CHARS, at + budget);
      if (end < content.length) {
        const cut = content.lastIndexOf('\n', end);
        if (cut > at) end = cut + 1;
      }
      const piece = content.slice(at, end);
      budget -= piece.length;
      if (!linksOf(piece, pieceLine, env, links)) return { links, anchors, complete: false, anchorsComplete: false };
      for (let k = 0; k < piece.length; k++) if (piece.charCodeAt(k) === 10) pieceLine++;
      at = end;
      if (budget <= 0) return { links, anchors, complete: false, anchorsComplete: false };
    }
  }
  return { links, anchors, complete, anchorsComplete: complete };
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
    out.push({ destination: md.normalizeLinkText(String(t.attrGet('href') ?? '')), line });
  }
  return true;
}
