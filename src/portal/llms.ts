import { pickTranslation } from '../domain/translations.ts';
import type { VersionState } from '../domain/types.ts';
import { languageName } from './site.ts';
import { linkText, listItem, oneLine, pageMarkdown, type MarkdownPlace } from './twin.ts';

/**
 * llms.txt (llmstxt.org) and llms-full.txt of a version: an index of its pages' Markdown twins for
 * agents, and all of them in one file.
 */

/**
 * Below this depth a page is "deep": inside a section of a section of a top-level section
 * (top-level nodes are at depth 0). Help sites put overviews and tasks in the first levels and
 * fine detail further down, which an agent with little room can skip.
 */
export const OPTIONAL_DEPTH = 3;

/** Sections whose name says they are reference material or history, which an agent can skip unless asked. */
export const isReferenceSection = (slug: string): boolean => slug === 'reference' || slug.endsWith('-reference') || slug === 'changelog' || slug === 'release-notes';

/**
 * The pages of a version in document order: its topics, and the sections that have text of their
 * own (a section with only a title is its list of pages, which llms.txt already is). Each with
 * whether it goes under `## Optional`: at OPTIONAL_DEPTH or deeper, or inside (or being) a
 * reference section.
 */
function* pagesOf(state: VersionState, language: string, from: string, depth = 0, optional = false): Generator<{ slug: string; optional: boolean }> {
  const node = state.nodes.get(from)!;
  const skip = optional || depth >= OPTIONAL_DEPTH || (node.kind === 'section' && isReferenceSection(from));
  if (node.kind === 'topic' || (pickTranslation(state, from, language)?.translation.bodyMd.trim() ?? '') !== '') yield { slug: from, optional: skip };
  for (const child of node.children) yield* pagesOf(state, language, child, depth + 1, skip);
}

/**
 * The version's llms.txt: an H1 with its label, a blockquote summing it up, a paragraph on where
 * the rest is, then an H2 per top-level node with its pages (a top-level topic is a group of one),
 * and `## Optional` with the pages that can be skipped. Pages are listed in document order, each a
 * link to its twin with its summary.
 */
export function llmsTxt(p: MarkdownPlace, siteTitle: string): string {
  const { state, language } = p;
  const groups: string[] = [];
  const optional: string[] = [];
  let count = 0;
  for (const root of state.roots) {
    const items: string[] = [];
    for (const page of pagesOf(state, language, root)) {
      count++;
      (page.optional ? optional : items).push(listItem(p, page.slug));
    }
    const title = pickTranslation(state, root, language)?.translation.title ?? root;
    if (items.length > 0) groups.push(`## ${oneLine(title)}\n\n${items.join('')}`);
  }
  const others = state.meta.languages.filter((l) => l !== language);
  const about = [
    `Each link is the Markdown of one page; every page in one file: ${p.origin}${p.links.llms(language, true)}`,
    ...(others.length > 0 ? [`In other languages: ${others.map((l) => `[${linkText(languageName(l))}](${p.origin}${p.links.llms(l)})`).join(', ')}.`] : []),
  ];
  return [
    `# ${oneLine(state.meta.label)}\n`,
    `> ${oneLine(`${siteTitle} for ${state.meta.label}, in ${languageName(language)}: ${count} ${count === 1 ? 'page' : 'pages'}, each linked below as Markdown.`)}\n`,
    `${about.join('\n')}\n`,
    ...groups,
    ...(optional.length > 0 ? [`## Optional\n\n${optional.join('')}`] : []),
  ].join('\n');
}

/** llms-full.txt, a page at a time: every page of llms.txt (the optional ones too) in document order, each under its title and address. */
export function* llmsFull(p: MarkdownPlace): Generator<string> {
  let first = true;
  for (const root of p.state.roots) {
    for (const page of pagesOf(p.state, p.language, root)) {
      yield (first ? '' : '\n') + pageMarkdown(p, page.slug, true);
      first = false;
    }
  }
}
