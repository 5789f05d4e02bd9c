import { documentOrder } from '../domain/tree.ts';
import { pickTranslation } from '../domain/translations.ts';
import type { VersionState } from '../domain/types.ts';
import { html, type Html } from './html.ts';
import { messagesFor, type Translate } from './i18n/messages.ts';
import { page, type Site } from './layout.ts';
import { searchForm, titleOf } from './nav.ts';
import { directionOf, languageName, linksFor, type Links } from './site.ts';
import { sideColumn, type Place } from './topic-page.ts';

/** Topics a section's card lists; the rest are counted ("3 more"). */
const CARD_TOPICS = 5;

/** The versions the portal's start page offers: the one marked latest first, then as listed. */
export const latestFirst = (versions: readonly VersionState[]) => [...versions].sort((a, b) => Number(b.meta.isLatest) - Number(a.meta.isLatest));

/**
 * The portal's start page (`/support`): the versions a reader may pick, the latest first, each
 * with its languages. In `language` when the reader asked for one a listed version has.
 */
export function portalHome(site: Site, versions: readonly VersionState[], language: string): string {
  const t = messagesFor(language);
  const cards = latestFirst(versions).map((v) => {
    const links = linksFor(site.portal, v, v.slug);
    const lang = v.meta.languages.includes(language) ? language : v.meta.languages[0];
    return html`<li class="card${v.meta.isLatest ? ' latest' : ''}">
<h3><a href="${links.version(lang)}">${v.meta.label}</a>${v.meta.isLatest ? html` <span class="badge">${t('home.latest')}</span>` : ''}</h3>
<p class="languages">${v.meta.languages.map((l, i) => html`${i > 0 ? ' · ' : ''}<span lang="${l}">${languageName(l)}</span>`)}</p>
</li>`;
  });
  const body = html`<div class="layout single home">
<main id="main" tabindex="-1">
<h1>${site.portal.title}</h1>
<h2>${t('home.versions')}</h2>
${versions.length > 0 ? html`<ul class="cards versions">${cards}</ul>` : html`<p>${t('error.404.text')}</p>`}
</main>
</div>`;
  return page(site, { title: site.portal.title, language, home: site.portal.path, body });
}

/**
 * `lang` and `dir` for text taken from a translation in another language than the page's (a
 * fallback), as topic pages mark theirs, so it is read aloud and laid out as that language.
 */
function ownLanguage(state: VersionState, slug: string, language: string): Html | string {
  const shown = pickTranslation(state, slug, language)?.language;
  return shown === undefined || shown === language ? '' : html` lang="${shown}" dir="${directionOf(shown)}"`;
}

/** One top-level node as a card: a section with its summary and first topics, or a topic with its summary. */
function card(state: VersionState, slug: string, language: string, links: Links, t: Translate): Html {
  const node = state.nodes.get(slug)!;
  const summary = pickTranslation(state, slug, language)?.translation.summary ?? '';
  const first = node.children.slice(0, CARD_TOPICS);
  const rest = node.children.length - first.length;
  const own = ownLanguage(state, slug, language);
  return html`<li class="card ${node.kind}">
<h3${own}><a href="${links.node(slug, language)}">${titleOf(state, slug, language)}</a></h3>
${summary ? html`<p class="summary"${own}>${summary}</p>` : ''}
${first.length > 0 ? html`<ul class="card-topics">${first.map((c) => html`<li${ownLanguage(state, c, language)}><a href="${links.node(c, language)}">${titleOf(state, c, language)}</a></li>`)}${rest > 0 ? html`<li class="more"><a href="${links.node(slug, language)}">${t('home.more', { count: rest })}</a></li>` : ''}</ul>` : ''}
</li>`;
}

/**
 * A version's start page (`/support/{version}`): its label, a search box, and its top-level
 * sections (and topics) as cards with their summaries and first topics.
 */
export function versionHome(site: Site, place: Place): string {
  const { state, language } = place;
  const t = messagesFor(language);
  const links = linksFor(site.portal, state, place.ref);
  const start = documentOrder(state).find((s) => state.nodes.get(s)!.kind === 'topic');
  const body = html`<div class="layout version-home">
${sideColumn(site, place, links, null, (l) => links.version(l), t)}
<main id="main" tabindex="-1">
<div class="hero">
<h1>${state.meta.label}</h1>
${searchForm(links, language, t)}
${start !== undefined ? html`<p><a class="start" href="${links.node(start, language)}">${t('home.start')}</a></p>` : ''}
</div>
${state.roots.length > 0
    ? html`<h2>${t('home.sections')}</h2>
<ul class="cards">${state.roots.map((slug) => card(state, slug, language, links, t))}</ul>`
    : html`<p>${t('home.empty')}</p>`}
</main>
</div>`;
  const canonical = `${place.origin}${linksFor(site.portal, state, state.slug).version(language)}`;
  return page(site, {
    title: `${state.meta.label} · ${site.portal.title}`,
    canonical,
    alternates: state.meta.languages.map((l) => ({ language: l, href: `${place.origin}${linksFor(site.portal, state, state.slug).version(l)}` })),
    language,
    home: links.version(language),
    // The page's own search box is the large one below its title.
    drawer: true,
    body,
    data: { version: state.slug, ref: place.ref, slug: '', lang: language, section: '' },
  });
}
