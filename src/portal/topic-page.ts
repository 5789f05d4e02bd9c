import { plainLines } from '../content/plain-text.ts';
import { pickTranslation } from '../domain/translations.ts';
import type { VersionState } from '../domain/types.ts';
import { presentTopic } from '../presenters/content.ts';
import { html, trusted, type Html } from './html.ts';
import { page, type Site } from './layout.ts';
import { renderMarkdown } from './markdown.ts';
import { bodyLinks } from './body-links.ts';
import { breadcrumbs, languageSwitch, navTree, pdfDialog, searchForm, versionSwitch } from './nav.ts';
import { directionOf, languageName, linksFor, type Links } from './site.ts';

/** Where a page is served: the origin for absolute URLs, the versions listed, and how the path named the version. */
export interface Place {
  origin: string;
  versions: readonly VersionState[];
  state: VersionState;
  ref: string;
  language: string;
}

/** A meta description: the summary, else the start of the body's text (about 160 characters). */
function describe(summary: string, bodyMd: string): string {
  if (summary.trim() !== '') return summary.trim();
  let text = '';
  for (const line of plainLines(bodyMd)) {
    text = text === '' ? line : `${text} ${line}`;
    if (text.length >= 160) break;
  }
  return text.length > 160 ? `${text.slice(0, 157).replace(/\s+\S*$/, '')}…` : text;
}

/** The header's controls on a version's pages. */
export function controls(place: Place, links: Links, slug: string | null, href: (language: string) => string, q = ''): Html {
  return html`<div class="controls">
${searchForm(links, place.language, q)}
${versionSwitch(place.versions, place.state, slug, place.language, links.base)}
${languageSwitch(place.state, slug, place.language, href)}
<button type="button" class="pdf-open" id="pdf-open" hidden>Download PDF</button>
</div>`;
}

/** The page of a topic or section: tree, breadcrumbs, the body from Markdown, previous and next, the PDF dialog. */
export function topicPage(site: Site, place: Place, slug: string): string {
  const { state, language } = place;
  const links = linksFor(site.portal, state, place.ref);
  const topic = presentTopic(state, slug, language);
  const node = state.nodes.get(slug)!;
  const absolute = (l: string) => `${place.origin}${linksFor(site.portal, state, state.slug).node(slug, l)}`;
  const sectionSlug = node.kind === 'section' ? slug : node.parentSlug;
  const section = sectionSlug === null ? null : { slug: sectionSlug, title: pickTranslation(state, sectionSlug, language)?.translation.title ?? sectionSlug };
  const children = node.children.map((c) => ({ slug: c, picked: pickTranslation(state, c, language) }));
  const { previous, next } = topic.neighbours;
  const body = html`<div class="layout">
${navTree(state, slug, language, links)}
<main id="main" tabindex="-1">
<div class="page-head">
${breadcrumbs(state, slug, language, links)}
<div class="page-actions"><span id="copy-status" role="status" aria-live="polite"></span><button type="button" id="copy-markdown" hidden>Copy as Markdown</button></div>
</div>
${topic.fallback ? html`<p class="notice" role="note">This page is not yet available in ${languageName(language)}; showing ${html`<span lang="${topic.language}">${languageName(topic.language)}</span>`}.</p>` : ''}
<article class="content" lang="${topic.language}" dir="${directionOf(topic.language)}">
<h1>${topic.title}</h1>
${topic.summary ? html`<p class="summary">${topic.summary}</p>` : ''}
${trusted(renderMarkdown(topic.bodyMd, bodyLinks(state, slug, language, links)))}
${children.length > 0
    ? html`<nav class="children" aria-label="In this section"><ul>${children.map(
        (c) => html`<li><a href="${links.node(c.slug, language)}">${c.picked?.translation.title ?? c.slug}</a>${c.picked?.translation.summary ? html`<span class="summary">${c.picked.translation.summary}</span>` : ''}</li>`,
      )}</ul></nav>`
    : ''}
</article>
<nav class="pager" aria-label="Previous and next">
${previous ? html`<a class="prev" rel="prev" href="${links.node(previous.slug, language)}"><span>Previous</span> ${previous.title}</a>` : ''}
${next ? html`<a class="next" rel="next" href="${links.node(next.slug, language)}"><span>Next</span> ${next.title}</a>` : ''}
</nav>
</main>
</div>
${pdfDialog(state, section, language)}`;
  return page(site, {
    title: `${topic.title} · ${state.meta.label} · ${site.portal.title}`,
    description: describe(topic.summary, topic.bodyMd),
    canonical: absolute(language),
    markdown: links.markdown(slug, language),
    alternates: [
      ...topic.availableLanguages.filter((l) => state.meta.languages.includes(l)).map((l) => ({ language: l, href: absolute(l) })),
      { language: 'x-default', href: absolute(state.meta.languages[0]) },
    ],
    language,
    home: links.version(language),
    controls: controls(place, links, slug, (l) => links.node(slug, l)),
    body,
    data: { version: state.slug, ref: place.ref, slug, lang: language, section: section?.slug ?? '' },
  });
}
