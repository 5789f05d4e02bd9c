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
/** A fence at any indent (a closer's indent is checked against its container's text column). */
const FENCE_ANYWHERE = /^[ \t]*(`{3,}|~{3,})/;
const ATX = /^ {0,3}#{1,6}(?:[ \t]+|$)/;
/** A setext underline: `===` makes a first-level heading of the paragraph above it, `---` a second. */
const SETEXT = /^ {0,3}(?:=+|-+)[ \t]*$/;
/** Lines that start a block of their own, so they are no line of a paragraph that an underline could make a heading. */
const THEMATIC = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;

/**
 * The headings (`## Text`, and a paragraph underlined with `===` or `---`) of a Markdown body,
 * outside fenced and indented code, with their anchors; the first MAX_HEADINGS. One pass over the
 * lines, so linear in the body; list items and block quotes are followed (scanLines()).
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
 *
 * List items and block quotes are followed as CommonMark has them (its containers): a line stays in
 * an item while it stands at or right of the item's text, in a quote while it starts with `>`, or in
 * both while it continues their paragraph lazily; what is left of it is read as a line of its own.
 * So a heading on a marker's line (`- ## Step`, `> ## Note`) is one, a fence opened in a container
 * ends with it (left open in a step, it does not hide the rest of the page), and its closer may
 * stand up to 3 columns right of the container's text.
 */
function scanLines(markdown: string, max: number, heading: (content: string, line: string) => void, found: () => number): boolean {
  let fence: string | null = null;
  // The containers the fence was opened in.
  let fenceDepth = 0;
  // The open containers, outermost first: a list item (its text column) or a quote (QUOTE).
  const open: number[] = [];
  // markdown-it's nesting of the open containers (two levels an item, one a quote), and the first
  // container whose text it renders no more (NESTING reached), or -1.
  let levels = 0;
  let dropped = -1;
  // Whether the last line began an item with no text: an item may begin with one blank line, not two.
  let emptyItem = false;
  // The lines of the paragraph being read, while an underline can make it a heading.
  let paragraph: string[] | null = null;
  let inParagraph = false;
  const close = (keep: number) => {
    while (open.length > keep) levels -= open.pop() === QUOTE ? 1 : 2;
    if (dropped >= keep) dropped = -1;
  };
  let s = 0;
  for (; s < markdown.length && found() < max; ) {
    let e = markdown.indexOf('\n', s);
    if (e < 0) e = markdown.length;
    const line = markdown.charCodeAt(e - 1) === 13 ? markdown.slice(s, e - 1) : markdown.slice(s, e);
    s = e + 1;
    // The containers the line goes on, and what is left of it: `text`, from column `col`, whose
    // white space reaches `indent` columns further (-1: blank).
    let text = line;
    let col = 0;
    let indent = indentOf(line);
    let matched = 0;
    // Columns of `text`'s white space the items matched take, dropped from it once (a line deep in
    // items is not cut once per item).
    let taken = 0;
    for (; matched < open.length; matched++) {
      const c = open[matched];
      if (c === QUOTE) {
        // (markdown-it takes the `>` of a quote's later lines however far in it stands.)
        if (indent < 0 || text.charCodeAt(whiteSpace(text)) !== 62 /* > */) break;
        text = afterQuoteMarker(dropColumns(text, taken), col, indent);
        col = 0;
        taken = 0;
        indent = indentOf(text);
      } else if (indent >= 0) {
        if (col + indent < c) break;
        indent -= c - col;
        taken += c - col;
        col = c;
      }
    }
    if (taken > 0) text = dropColumns(text, taken);
    if (fence !== null) {
      if (matched >= fenceDepth) {
        const f = indent >= 0 && indent < 4 ? FENCE_ANYWHERE.exec(text) : null;
        if (f && f[1][0] === fence[0] && f[1].length >= fence.length && text.trim() === f[1]) fence = null;
        continue;
      }
      // A container of the code ended: the code with it.
      fence = null;
    }
    const wasEmpty = emptyItem;
    emptyItem = false;
    if (indent < 0) {
      close(matched);
      // An item begun by a blank line is over at the second.
      if (wasEmpty && open.length > 0 && open[open.length - 1] !== QUOTE) close(open.length - 1);
      paragraph = null;
      inParagraph = false;
      continue;
    }
    if (matched < open.length) {
      // A line that starts no block of its own continues the paragraph lazily, in all its containers.
      // It starts none 4 or more columns right of the innermost item's text (of the margin in a quote).
      const innermost = open[open.length - 1];
      if (inParagraph && (col + indent - (innermost === QUOTE ? 0 : innermost) >= 4 || !startsBlock(dropColumns(text, indent)))) {
        if (paragraph !== null) paragraph.push(text);
        continue;
      }
      close(matched);
      paragraph = null;
      inParagraph = false;
    }
    if (dropped >= 0) continue;
    // The line's block, a container's marker opening the next one in turn.
    // The rule character a thematic break was last looked for with and not found, on this line: the
    // text after a container's marker is a part of the text before, so it holds what failed that
    // search too (`- - - … x` is read in one pass, not once per marker).
    let noRule = 0;
    for (;;) {
      if (indent >= 4) {
        // A paragraph's continuation, or indented code.
        if (paragraph !== null) paragraph.push(text);
        break;
      }
      const c = text.charCodeAt(indent);
      const f = c === 96 /* ` */ || c === 126 /* ~ */ ? FENCE.exec(text) : null;
      if (f && !(f[1][0] === '`' && text.slice(indent + f[1].length).includes('`'))) {
        fence = f[1];
        fenceDepth = open.length;
        paragraph = null;
        inParagraph = false;
      } else if (c === 35 /* # */ && ATX.test(text)) {
        const content = text.replace(/^ {0,3}#{1,6}(?:[ \t]+|$)/, '').replace(/(?:^|[ \t]+)#+[ \t]*$/, '').trim();
        heading(content, line);
        paragraph = null;
        inParagraph = false;
      } else if ((c === 61 /* = */ || c === 45 /* - */) && paragraph !== null && SETEXT.test(text)) {
        heading(paragraph.map((l) => l.trim()).join('\n'), paragraph[0]);
        paragraph = null;
        inParagraph = false;
      } else if ((c === 42 /* * */ || c === 45 || c === 95 /* _ */) && c !== noRule && THEMATIC.test(text)) {
        paragraph = null;
        inParagraph = false;
      } else if (c === 62 /* > */) {
        open.push(QUOTE);
        paragraph = null;
        inParagraph = false;
        if (++levels >= NESTING) {
          // markdown-it renders nothing of the quote's text from here on.
          dropped = open.length - 1;
          break;
        }
        text = afterQuoteMarker(text, col, indent);
        col = 0;
        indent = indentOf(text);
        if (indent >= 0) continue;
      } else {
        if (c === 42 || c === 45 || c === 95) noRule = c;
        const item: ListItem | null = c === 45 || c === 42 || c === 43 /* + */ || (c >= 48 && c <= 57) ? listItem(text, inParagraph) : null;
        if (item !== null) {
          // markdown-it renders nothing from here on: no heading either.
          if ((levels += 2) >= NESTING) return true;
          // The item's text column: after the marker and 1–4 spaces (1 when the text is blank or indented code).
          col += indent + item.marker + (item.rest === '' || item.spaces > 4 ? 1 : item.spaces);
          open.push(col);
          emptyItem = item.rest === '';
          paragraph = null;
          inParagraph = false;
          if (item.rest !== '' && item.spaces <= 4) {
            text = item.rest;
            indent = 0;
            continue;
          }
          inParagraph = item.rest !== '';
        } else if (paragraph !== null) {
          paragraph.push(text);
        } else if (!inParagraph) {
          paragraph = [text];
          inParagraph = true;
        }
      }
      break;
    }
  }
  return s >= markdown.length;
}

/** A block quote among the open containers (a list item's is its text column, 1 or more). */
const QUOTE = 0;
/** markdown-it's nesting (maxNesting) at which it renders a container's text no more: two levels a list item (its list's and its own), one a quote. */
const NESTING = 100;

/** The spaces and tabs `text` starts with. */
function whiteSpace(text: string): number {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  return i;
}

/**
 * `text` (at column `col` of its quote's text, `indent` columns of white space first) after its `>`
 * and the one space or column of a tab that may follow it. What follows is at column 0 of the new
 * quote's text: markdown-it places a quote's list items from there, on each line anew.
 */
function afterQuoteMarker(text: string, col: number, indent: number): string {
  const i = whiteSpace(text) + 1;
  const c = text.charCodeAt(i);
  if (c === 32) return text.slice(i + 1);
  // A tab after the marker: one of its columns is the marker's space, the rest stay.
  if (c === 9) return ' '.repeat(3 - ((col + indent + 1) % 4)) + text.slice(i + 1);
  return text.slice(i);
}

const LIST_ITEM = /^( {0,3})(?:[-+*]|(\d{1,9})[.)])(?=[ \t]|$)/;

/** A list item's start: columns of its marker, of the white space after it, and its text after that. */
interface ListItem {
  marker: number;
  spaces: number;
  rest: string;
}

/**
 * The list item `text` starts (at most 3 columns in): the columns up to the marker's end, the
 * columns of white space after it and the text after that; null when it starts none. An empty item,
 * or a numbered one not numbered 1, does not interrupt a paragraph (`inParagraph`): it is its text.
 */
function listItem(text: string, inParagraph: boolean): ListItem | null {
  const m = LIST_ITEM.exec(text);
  if (m === null) return null;
  let col = m[0].length;
  let i = col;
  const from = col;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) col++;
    else if (c === 9) col += 4 - (col % 4);
    else break;
  }
  const rest = text.slice(i);
  if (inParagraph && (rest === '' || (m[2] !== undefined && Number(m[2]) !== 1))) return null;
  return { marker: from - m[1].length, spaces: col - from, rest };
}

/**
 * Whether `line` (its white space dropped), which does not go on in every open container, starts a
 * block, so it cannot continue their paragraph lazily. Any list item does, empty or numbered from 2:
 * the rule that such items do not interrupt a paragraph holds within the paragraph's own column, as
 * markdown-it reads it.
 */
function startsBlock(line: string): boolean {
  return FENCE.test(line) || ATX.test(line) || THEMATIC.test(line) || /^ {0,3}>/.test(line) || LIST_ITEM.test(line);
}

/** `line` without its first `n` columns of white space (a tab counted to the next multiple of 4; a tab that reaches past them leaves spaces). */
function dropColumns(line: string, n: number): string {
  let col = 0;
  let i = 0;
  for (; i < line.length && col < n; i++) {
    const c = line.charCodeAt(i);
    if (c === 32) col++;
    else if (c === 9) col += 4 - (col % 4);
    else break;
  }
  return col > n ? ' '.repeat(col - n) + line.slice(i) : line.slice(i);
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
