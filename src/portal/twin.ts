import { resolveLink, scopeOf } from '../content/link-rules.ts';
import { canonicalLanguage } from '../domain/names.ts';
import { pickTranslation } from '../domain/translations.ts';
import { movedIn } from '../queries/redirects.ts';
import type { VersionState } from '../domain/types.ts';
import { rewriteLinks, type Resolve } from './markdown-links.ts';
import { languageName, type Links } from './site.ts';

/**
 * The Markdown twin of a portal page: what an agent reads instead of the HTML. The title as a
 * heading, the summary as a blockquote, the body as stored with its links made absolute (a link to
 * another page of the version goes to that page's twin), and the fallback notice of the HTML page.
 */

/** Where Markdown is served: the origin, the version's addresses as the path named it, the language asked for. */
export interface MarkdownPlace {
  readonly origin: string;
  readonly links: Links;
  readonly state: VersionState;
  readonly language: string;
}

/** Text on one line (titles and summaries in lists and headings). */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Text that stays the text of a Markdown link: brackets and backslashes escaped. */
export const linkText = (text: string): string => oneLine(text).replace(/[\\[\]]/g, '\\$&');

/** The absolute address of a page's twin. */
export const twinUrl = (p: MarkdownPlace, slug: string): string => `${p.origin}${p.links.markdown(slug, p.language)}`;

/** A list item of llms.txt and of a section's twin: `- [Title](url): summary`. */
export function listItem(p: MarkdownPlace, slug: string): string {
  const t = pickTranslation(p.state, slug, p.language)?.translation;
  const summary = oneLine(t?.summary ?? '');
  return `- [${linkText(t?.title ?? slug)}](${twinUrl(p, slug)})${summary ? `: ${summary}` : ''}\n`;
}

/**
 * Where the body's links go: an internal link (docs/content-format.md#links, the same rules the HTML
 * page follows) to its page's twin, in the language it names or else the one being read, at the
 * version as the path named it; any other relative link to the absolute address it stands for on the
 * page (an image). Links with a scheme, and escapes or entities (left to the reader), stay as written.
 */
export function linkResolver(p: MarkdownPlace, slug: string): Resolve {
  const page = new URL(`${p.origin}${p.links.node(slug, p.links.primary)}`);
  const scope = scopeOf(p.state, p.links.base);
  return (destination) => {
    if (/^[a-z][a-z0-9+.-]*:|^\/\/|[\\&]/i.test(destination)) return null;
    const target = resolveLink(destination, scope);
    const given = target === null ? null : (target.slug ?? slug);
    // A renamed node's old slug goes straight to the node's twin, as the HTML page links it.
    const to = given === null ? null : (movedIn(p.state, given)?.to ?? given);
    if (target !== null && to !== null && p.state.nodes.has(to)) {
      const language = target.language === null ? p.language : (canonicalLanguage(target.language) ?? target.language);
      const anchor = target.anchor === null ? '' : `#${encodeURIComponent(target.anchor)}`;
      return `${p.origin}${p.links.markdown(to, language)}${anchor}`;
    }
    try {
      return new URL(destination, page).href;
    } catch {
      return null;
    }
  };
}

/** The notice of a page shown in another language than asked for (the HTML page's words). */
function notice(p: MarkdownPlace, shown: string): string {
  return `This page is not yet available in ${languageName(p.language)}; showing ${languageName(shown)}.\n\n`;
}

/**
 * A page as Markdown. `source`: for llms-full.txt, the title first and then the page's address;
 * otherwise (the twin) the fallback notice comes first, as on the HTML page, and a section lists
 * its pages as its HTML page does.
 */
export function pageMarkdown(p: MarkdownPlace, slug: string, source = false): string {
  const picked = pickTranslation(p.state, slug, p.language);
  const t = picked?.translation;
  const fallback = picked !== null && picked.language !== p.language ? notice(p, picked.language) : '';
  let out = source ? `# ${oneLine(t?.title ?? slug)}\n\nSource: ${twinUrl(p, slug)}\n\n${fallback}` : `${fallback}# ${oneLine(t?.title ?? slug)}\n\n`;
  const summary = (t?.summary ?? '').trim();
  if (summary !== '') out += `${summary.split(/\r\n|\r|\n/).map((line) => (line.trim() === '' ? '>' : `> ${line}`)).join('\n')}\n\n`;
  const body = t?.bodyMd ?? '';
  if (body.trim() !== '') out += rewriteLinks(body, linkResolver(p, slug)) + (/[\r\n]$/.test(body) ? '' : '\n');
  const children = source ? [] : p.state.nodes.get(slug)!.children;
  if (children.length > 0) out += `${body.trim() !== '' ? '\n' : ''}${children.map((c) => listItem(p, c)).join('')}`;
  return out;
}
