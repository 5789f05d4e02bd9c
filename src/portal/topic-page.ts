import { plainLines } from '../content/plain-text.ts';
import { pickTranslation } from '../domain/translations.ts';
import type { VersionState } from '../domain/types.ts';
import { presentTopic } from '../presenters/content.ts';
import { html, trusted, type Html } from './html.ts';
import { page, type Site } from './layout.ts';
import { renderMarkdown } from './markdown.ts';
import { bodyLinks } from './body-links.ts';
import { drawer } from './drawer.ts';
import { displayLanguage, formatDate, messagesFor, type Translate } from './i18n/messages.ts';
import { breadcrumbs, pdfDialog, searchForm } from './nav.ts';
import { directionOf, languageName, linksFor, type Links } from './site.ts';
import { tocBlock, tocOf } from './toc.ts';
import { feedbackForm } from './feedback-form.ts';
import { outdatedNotice } from './outdated-notice.ts';

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

/** The header's controls on a version's pages: the search box. */
export function controls(links: Links, language: string, t: Translate, q = ''): Html {
  return searchForm(links, language, t, q);
}

/** The side column (switches and tree) of a version's page; `slug` is the node read, if any. */
export function sideColumn(site: Site, place: Place, links: Links, slug: string | null, href: (language: string) => string, t: Translate): Html {
  return drawer({ portal: site.portal.path, versions: place.versions, state: place.state, language: place.language, links, slug, href }, t);
}

/** The page of a topic or section: tree, breadcrumbs, the body from Markdown with its contents, previous and next, the PDF dialog. */
export function topicPage(site: Site, place: Place, slug: string): string {
  const { state, language } = place;
  const t = messagesFor(language);
  const links = linksFor(site.portal, state, place.ref);
  const topic = presentTopic(state, slug, language);
  const node = state.nodes.get(slug)!;
  const absolute = (l: string) => `${place.origin}${linksFor(site.portal, state, state.slug).node(slug, l)}`;
  const sectionSlug = node.kind === 'section' ? slug : node.parentSlug;
  const section = sectionSlug === null ? null : { slug: sectionSlug, title: pickTranslation(state, sectionSlug, language)?.translation.title ?? sectionSlug };
  const children = node.children.map((c) => ({ slug: c, picked: pickTranslation(state, c, language) }));
  const { previous, next } = topic.neighbours;
  const bodyHtml = renderMarkdown(topic.bodyMd, bodyLinks(state, slug, language, links), t('heading.anchor'));
  const toc = tocOf(bodyHtml);
  // Interface text inside an article of another language (a fallback) says which language it is in.
  const own = topic.language !== language ? html` lang="${language}" dir="${directionOf(language)}"` : '';
  const body = html`<div class="layout${toc.length >= 2 ? ' has-toc' : ''}">
${sideColumn(site, place, links, slug, (l) => links.node(slug, l), t)}
<main id="main" tabindex="-1">
<div class="page-head">
${breadcrumbs(state, slug, language, links, t)}
<div class="page-actions"><span id="copy-status" role="status" aria-live="polite"></span><button type="button" id="copy-markdown" hidden>${t('markdown.copy')}</button><button type="button" class="pdf-open" id="pdf-open" hidden>${t('pdf.open')}</button></div>
</div>
${topic.fallback ? html`<p class="notice" role="note">${fallbackNotice(t, language, topic.language)}</p>` : ''}
${outdatedNotice(topic, state.meta.languages[0], language, t)}
<article class="content" lang="${topic.language}" dir="${directionOf(topic.language)}">
<h1>${topic.title}</h1>
${topic.summary ? html`<p class="summary">${topic.summary}</p>` : ''}
<p class="updated"${own}><time datetime="${topic.updatedAt}">${t('updated', { date: formatDate(language, topic.updatedAt) })}</time></p>
${toc.length >= 2 ? html`<div class="toc-rail"${own}>${tocBlock(toc, t)}</div>` : ''}
<div class="article-body">
${trusted(bodyHtml)}
</div>
${children.length > 0
    ? html`<nav class="children" aria-label="${t('nav.section')}"${own}><ul>${children.map(
        (c) => html`<li><a href="${links.node(c.slug, language)}">${c.picked?.translation.title ?? c.slug}</a>${c.picked?.translation.summary ? html`<span class="summary">${c.picked.translation.summary}</span>` : ''}</li>`,
      )}</ul></nav>`
    : ''}
</article>
${feedbackForm(links, slug, language)}
${afterArticle()}
<nav class="pager" aria-label="${t('pager.label')}">
${previous ? html`<a class="prev" rel="prev" href="${links.node(previous.slug, language)}"><span>${t('pager.previous')}</span> ${previous.title}</a>` : ''}
${next ? html`<a class="next" rel="next" href="${links.node(next.slug, language)}"><span>${t('pager.next')}</span> ${next.title}</a>` : ''}
</nav>
</main>
</div>
${pdfDialog(state, section, language, t)}`;
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
    controls: controls(links, language, t),
    drawer: true,
    body,
    data: { version: state.slug, ref: place.ref, slug, lang: language, section: section?.slug ?? '' },
  });
}

/**
 * What stands between the feedback form and previous/next: the place of the notice that the
 * translation is older than its source. Empty until it is built.
 */
function afterArticle(): Html {
  return html``;
}

/** "This page is not yet available in Deutsch; showing English." with the shown language marked as such. */
function fallbackNotice(t: Translate, language: string, shown: string): Html {
  const text = t('notice.fallback', { language: displayLanguage(language, language), shown: '\u0000' });
  const [before, after = ''] = text.split('\u0000');
  return html`${before}<span lang="${shown}">${languageName(shown)}</span>${after}`;
}
