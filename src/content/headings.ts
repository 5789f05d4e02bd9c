import markdownIt, { type Token } from 'markdown-it';
import { plainText } from './plain-text.ts';

/**
 * The headings of a Markdown body and the ids the portal gives them, so a search hit can link to
 * the section it matched in (`…/topic#anchor`) and the portal's links and the search's agree.
 */

/** Ids the portal's page layout uses itself: a heading never takes one (it gets `-1`). */
export const PAGE_IDS = ['main', 'q', 'tree', 'pdf-dialog', 'pdf-form', 'pdf-title', 'pdf-topics', 'pdf-topics-status', 'pdf-lang', 'pdf-progress', 'pdf-bar', 'pdf-status', 'pdf-error', 'pdf-submit', 'pdf-cancel', 'pdf-open', 'copy-status', 'copy-markdown', 'drawer', 'drawer-close', 'drawer-backdrop', 'menu-button', 'toc', 'announcer', 'portal-messages', 'switch-version', 'switch-language', 'home-q'];

/** A heading's id: its text in lower case, words joined by `-` (letters of every script kept). */
export function slugify(text: string): string {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .trim()
      .replace(/[\s_-]+/g, '-')
      .slice(0, 80) || 'section'
  );
}

/**
 * The id GitHub's Markdown preview gives a heading (github-slugger's rules, shared by Starlight,
 * Docusaurus and rehype-slug): lower case, symbols and punctuation dropped except `-` and `_` (and
 * letters that are symbols too, such as Ⓐ), every space a `-` with runs kept. Writers who review
 * content on GitHub link with these: `## Billing & invoices` is `#billing--invoices` there and
 * `billing-invoices` here, `` ## `--force` `` is `#--force` there and `-force` here.
 */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(GITHUB_DROPPED, (c) => (c === ' ' || c === '-' || ALPHABETIC.test(c) ? c : ''))
    .replace(/ /g, '-');
}

/** The general categories github-slugger removes (other numbers, punctuation, symbols, controls, separators). */
const GITHUB_DROPPED = /[\p{No}\p{Pd}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Po}\p{S}\p{C}\p{Z}]/gu;
const ALPHABETIC = /^\p{Alphabetic}$/u;

/**
 * The GitHub ids of a page's headings (their texts in order, as headingText() gives them) that name a
 * heading here under another id: GitHub id → the portal's id. GitHub numbers repeats `-1`, `-2`… as
 * the portal does, but counts them apart. An id the page uses already (a heading's, the layout's) is
 * left to it: a link to it goes where it always went.
 */
export function githubAliases(texts: readonly string[], anchors: readonly string[]): Map<string, string> {
  const taken = new Set([...anchors, ...PAGE_IDS]);
  const seen = new Map<string, number>();
  const aliases = new Map<string, string>();
  for (let i = 0; i < texts.length; i++) {
    const base = githubSlug(texts[i]);
    let id = base;
    // As github-slugger: the next free `base-n`, counting from the base's own repeats.
    while (seen.has(id)) {
      const n = seen.get(base)! + 1;
      seen.set(base, n);
      id = `${base}-${n}`;
    }
    seen.set(id, 0);
    if (id !== '' && id !== anchors[i] && !taken.has(id)) aliases.set(id, anchors[i]);
  }
  return aliases;
}

/** Gives headings ids unique within a page, in the order they come, as the portal renders them. */
export class HeadingIds {
  private readonly seen = new Map<string, number>(PAGE_IDS.map((id) => [id, 1]));

  next(text: string): string {
    const id = slugify(text);
    const n = this.seen.get(id) ?? 0;
    this.seen.set(id, n + 1);
    return n > 0 ? `${id}-${n}` : id;
  }
}

export interface Heading {
  /** The heading's text as the page shows it (markdown-it's inline text, entities decoded). */
  text: string;
  /** Its id on the topic's page. */
  anchor: string;
  /** Its line as plain text (plain-text.ts), as it stands in a body's plain text. */
  plain: string;
}

/** Inline Markdown only, raw HTML shown as text, as the portal renders it (nothing here evaluates or fetches anything). */
const inline = markdownIt({ html: false, linkify: true, typographer: false });
inline.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });

/** The text of a heading's inline Markdown as the portal takes it for the heading's id: its text and code, nothing else. */
export function headingText(markdown: string): string {
  // Most headings are words alone: without a character inline Markdown gives a meaning to, their text is themselves.
  if (!INLINE_SYNTAX.test(markdown)) return markdown;
  return inlineText(inline.parseInline(markdown, {})[0]);
}

/** Characters that may start inline Markdown (emphasis, code, links, images, HTML, entities, escapes, autolinks, line breaks, the soft breaks of a heading of several lines) or a bare URL. */
const INLINE_SYNTAX = /[*_`[\]!<>&\\~:|\n]|\s{2}/;

/** The text and code of an inline token's children (the portal's heading ids are made from this). */
export function inlineText(token: Token | undefined): string {
  if (!token?.children) return token?.content ?? '';
  return token.children.map((t) => (t.type === 'text' || t.type === 'code_inline' ? t.content : '')).join('');
}

/** At most this many headings of a body are kept: a body of nothing but headings must not make a list as long as itself per search. */
const MAX_HEADINGS = 500;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A fence at any indent (a closer's indent is checked against its opener's). */
const FENCE_ANYWHERE = /^[ \t]*(`{3,}|~{3,})/;
const ATX = /^ {0,3}#{1,6}(?:[ \t]+|$)/;
/** A setext underline: `===` makes a first-level heading of the paragraph above it, `---` a second. */
const SETEXT = /^ {0,3}(?:=+|-+)[ \t]*$/;
/** Lines that start a block of their own, so they are no line of a paragraph that an underline could make a heading. */
const THEMATIC = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const LIST_OR_QUOTE = /^ {0,3}(?:[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|>)/;

/**
 * The headings (`## Text`, and a paragraph underlined with `===` or `---`) of a Markdown body,
 * outside fenced and indented code, with their anchors; the first MAX_HEADINGS. One pass over the
 * lines, so linear in the body. Headings inside block quotes and list items indented four or more
 * columns are not read (the portal shows them, rarely seen in help content).
 */
export function headingsOf(markdown: string): Heading[] {
  return headingScan(markdown).headings;
}

/**
 * headingsOf(), the id of every heading the portal renders (those without text too, in order) with
 * the text it was made from, and whether the whole body was read (false when it stopped at `max` headings).
 */
export function headingScan(markdown: string, max = MAX_HEADINGS): { headings: Heading[]; anchors: string[]; texts: string[]; complete: boolean } {
  const out: Heading[] = [];
  const anchors: string[] = [];
  const texts: string[] = [];
  const ids = new HeadingIds();
  const complete = scanLines(markdown, max, (content, line) => add(out, anchors, texts, ids, content, line), () => anchors.length);
  return { headings: out, anchors, texts, complete };
}

/**
 * The text of each of headingsOf()'s headings, the same list, without their anchors and plain lines:
 * what ranking counts (an import indexes every page, and the ids and plain text were a third of this).
 */
export function headingTexts(markdown: string): string[] {
  const out: string[] = [];
  let count = 0;
  scanLines(
    markdown,
    MAX_HEADINGS,
    (content) => {
      const text = headingText(content);
      count++;
      if (text.trim() !== '') out.push(text.trim());
    },
    () => count,
  );
  return out;
}

/**
 * Reads the body's lines as headingScan() describes, calling `heading` with each heading's inline
 * Markdown and its first line, while `found()` (the headings the portal renders so far) is below
 * `max`; true when the whole body was read.
 */
function scanLines(markdown: string, max: number, heading: (content: string, line: string) => void, found: () => number): boolean {
  let fence: string | null = null;
  // The opening fence's indent. Inside a list item a fence's closer may stand up to 3 columns right of
  // the item's text, as CommonMark has it, so 4 or more from the margin (a step "1. Run" whose code
  // opens 3 columns in and closes 4 in): a closer counts up to 3 columns right of its opener.
  let fenceIndent = 0;
  // The lines of the paragraph being read, while it is one an underline can make a heading (a
  // paragraph begun by a list item or a quote is not: its underline is a rule or its own text).
  let paragraph: string[] | null = null;
  let inParagraph = false;
  let s = 0;
  for (; s < markdown.length && found() < max; ) {
    let e = markdown.indexOf('\n', s);
    if (e < 0) e = markdown.length;
    const line = markdown.charCodeAt(e - 1) === 13 ? markdown.slice(s, e - 1) : markdown.slice(s, e);
    const next = e + 1;
    const indent = indentOf(line);
    if (fence !== null) {
      const f = indent >= 0 && indent < Math.max(4, fenceIndent + 4) ? FENCE_ANYWHERE.exec(line) : null;
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = null;
    } else if (indent < 0) {
      paragraph = null;
      inParagraph = false;
    } else if (indent >= 4) {
      // A paragraph's continuation, or indented code.
      if (paragraph !== null) paragraph.push(line);
    } else {
      const c = line.charCodeAt(indent);
      const f = c === 96 /* ` */ || c === 126 /* ~ */ ? FENCE.exec(line) : null;
      if (f && !(f[1][0] === '`' && line.slice(indent + f[1].length).includes('`'))) {
        fence = f[1];
        fenceIndent = indent;
        paragraph = null;
        inParagraph = false;
      } else if (c === 35 /* # */ && ATX.test(line)) {
        const content = line.replace(/^ {0,3}#{1,6}(?:[ \t]+|$)/, '').replace(/(?:^|[ \t]+)#+[ \t]*$/, '').trim();
        heading(content, line);
        paragraph = null;
        inParagraph = false;
      } else if ((c === 61 /* = */ || c === 45 /* - */) && paragraph !== null && SETEXT.test(line)) {
        heading(paragraph.map((l) => l.trim()).join('\n'), paragraph[0]);
        paragraph = null;
        inParagraph = false;
      } else if ((c === 42 /* * */ || c === 45 || c === 95 /* _ */) && THEMATIC.test(line)) {
        paragraph = null;
        inParagraph = false;
      } else if (LIST_OR_QUOTE.test(line)) {
        paragraph = null;
        inParagraph = true;
      } else if (paragraph !== null) {
        paragraph.push(line);
      } else if (!inParagraph) {
        paragraph = [line];
        inParagraph = true;
      }
    }
    s = next;
  }
  return s >= markdown.length;
}

function add(out: Heading[], anchors: string[], texts: string[], ids: HeadingIds, content: string, line: string): void {
  const text = headingText(content);
  // A heading without text is no section to list, but the portal gives it an id all the same.
  const anchor = ids.next(text);
  anchors.push(anchor);
  texts.push(text);
  if (text.trim() !== '') out.push({ text: text.trim(), anchor, plain: plainText(line) });
}

/** Columns of white space a line starts with (a tab to the next multiple of 4); -1 when the line is blank. */
function indentOf(line: string): number {
  let col = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 32) col++;
    else if (c === 9) col += 4 - (col % 4);
    else return col;
  }
  return -1;
}
