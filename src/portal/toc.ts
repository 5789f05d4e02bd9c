import { html, trusted, type Html } from './html.ts';
import type { Translate } from './i18n/messages.ts';

/** One entry of "On this page": a `##` or `###` heading of the body, by the id the page gave it. */
export interface TocEntry {
  level: 2 | 3;
  id: string;
  /** The heading's text, escaped as the renderer escaped it. */
  text: string;
}

// The renderer's own output (markdown.ts): `<h2 id="…">inline HTML <a class="anchor" …>#</a></h2>`.
const HEADING = /<h([23]) id="([^"]*)">([\s\S]*?)<\/h\1>/g;

/**
 * The `##` and `###` headings of a rendered body, with the ids the renderer gave them (the rule of
 * content/headings.ts, which the link checker and search's section links use too), so an entry
 * lands where `topic#anchor` does. Read from the rendered HTML rather than the Markdown, so every
 * kind of heading the renderer knows is listed, with exactly its id.
 */
export function tocOf(bodyHtml: string): TocEntry[] {
  const out: TocEntry[] = [];
  for (const m of bodyHtml.matchAll(HEADING)) {
    // Markup inside a heading (code, emphasis, a link, the anchor) is left out: an entry is a link of its own.
    const text = m[3].replace(/<a class="anchor"[\s\S]*?<\/a>/g, '').replace(/<[^>]*>/g, '').trim();
    if (text !== '') out.push({ level: m[1] === '2' ? 2 : 3, id: m[2], text });
  }
  return out;
}

/**
 * "On this page": a `<details>` the stylesheet sets beside the article on wide screens (where the
 * script opens it) and above the body on narrow ones, closed. Nothing for fewer than two headings.
 */
export function tocBlock(entries: readonly TocEntry[], t: Translate): Html {
  if (entries.length < 2) return html``;
  return html`<details class="toc" id="toc">
<summary>${t('toc.title')}</summary>
<nav aria-label="${t('toc.title')}"><ol>${entries.map(
    (e) => html`<li class="toc-${e.level}"><a href="#${e.id}">${trusted(e.text)}</a></li>`,
  )}</ol></nav>
</details>`;
}
