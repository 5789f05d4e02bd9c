import markdownIt, { type Token } from 'markdown-it';
import { plainText } from './plain-text.ts';

/**
 * The headings of a Markdown body and the ids the portal gives them, so a search hit can link to
 * the section it matched in (`…/topic#anchor`) and the portal's links and the search's agree.
 */

/** Ids the portal's page layout uses itself: a heading never takes one (it gets `-1`). */
export const PAGE_IDS = ['main', 'q', 'tree', 'pdf-dialog', 'pdf-form', 'pdf-title', 'pdf-topics', 'pdf-topics-status', 'pdf-lang', 'pdf-progress', 'pdf-bar', 'pdf-status', 'pdf-error', 'pdf-submit', 'pdf-cancel', 'pdf-open'];

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

/** Characters that may start inline Markdown (emphasis, code, links, images, HTML, entities, escapes, autolinks, line breaks) or a bare URL. */
const INLINE_SYNTAX = /[*_`[\]!<>&\\~:|]|\s{2}/;

/** The text and code of an inline token's children (the portal's heading ids are made from this). */
export function inlineText(token: Token | undefined): string {
  if (!token?.children) return token?.content ?? '';
  return token.children.map((t) => (t.type === 'text' || t.type === 'code_inline' ? t.content : '')).join('');
}

/** At most this many headings of a body are kept: a body of nothing but headings must not make a list as long as itself per search. */
const MAX_HEADINGS = 500;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}#{1,6}(?:[ \t]+|$)/;

/**
 * The ATX headings (`## Text`) of a Markdown body, outside fenced code, with their anchors; the
 * first MAX_HEADINGS. One pass over the lines, so linear in the body.
 */
export function headingsOf(markdown: string): Heading[] {
  const out: Heading[] = [];
  const ids = new HeadingIds();
  let fence: string | null = null;
  for (let s = 0; s < markdown.length && out.length < MAX_HEADINGS; ) {
    let e = markdown.indexOf('\n', s);
    if (e < 0) e = markdown.length;
    // Most lines start with neither: look no further.
    const c = markdown.charCodeAt(s + (markdown.charCodeAt(s) === 32 ? markdown.slice(s, s + 4).search(/[^ ]|$/) : 0));
    if (c === 35 /* # */ || c === 96 /* ` */ || c === 126 /* ~ */) {
      const line = markdown.slice(s, e).replace(/\r$/, '');
      const f = FENCE.exec(line);
      if (f) {
        if (fence === null) fence = f[1];
        else if (f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = null;
      } else if (fence === null && ATX.test(line)) {
        const content = line.replace(/^ {0,3}#{1,6}(?:[ \t]+|$)/, '').replace(/(?:^|[ \t]+)#+[ \t]*$/, '').trim();
        const text = headingText(content);
        if (text.trim() !== '') out.push({ text: text.trim(), anchor: ids.next(text), plain: plainText(line) });
      }
    }
    s = e + 1;
  }
  return out;
}
