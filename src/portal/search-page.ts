import type { Hit } from '../index/search.ts';
import { foldWithMap, words } from '../index/words.ts';
import { html, type Html } from './html.ts';
import { page, type Site } from './layout.ts';
import { navTree, pdfDialog } from './nav.ts';
import { canonicalLanguage } from '../domain/names.ts';
import { languageName, linksFor } from './site.ts';
import { controls, type Place } from './topic-page.ts';

/** What a search found, or why it did not run. */
export type Outcome = { hits: Hit[]; partial: boolean } | { problem: string } | null;

/**
 * A snippet with the words of the query marked: each word of `q`, ignoring case and accents, at the
 * start of a word of the text (anywhere in scripts written without spaces), as the search matched it.
 */
export function markSnippet(snippet: string, q: string): Html {
  const { folded, source } = foldWithMap(snippet);
  const ranges: Array<[number, number]> = [];
  for (const w of words(q)) {
    for (let at = folded.indexOf(w.text); at >= 0; at = folded.indexOf(w.text, at + 1)) {
      if (!w.unspaced && at > 0 && /[\p{L}\p{N}]/u.test(folded[at - 1])) continue;
      ranges.push([source[at], source[at + w.text.length]]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const parts: Array<Html | string> = [];
  let from = 0;
  for (const [start, end] of ranges) {
    if (end <= from) continue;
    const s = Math.max(start, from);
    parts.push(snippet.slice(from, s), html`<mark>${snippet.slice(s, end)}</mark>`);
    from = end;
  }
  parts.push(snippet.slice(from));
  return html`${parts}`;
}

/** The search results page of a version: the same search as the API, hits in document order with marked snippets. */
export function searchPage(site: Site, place: Place, q: string, outcome: Outcome): string {
  const { state, language } = place;
  const links = linksFor(site.portal, state, place.ref);
  let results: Html | string = '';
  if (outcome !== null && 'problem' in outcome) results = html`<p class="notice" role="alert">${outcome.problem}</p>`;
  else if (outcome !== null) {
    const count = outcome.hits.length;
    results = html`<p class="result-count" role="status">${count === 0 ? `No pages match “${q}”.` : `${count === 1 ? '1 page matches' : `${count} pages match`} “${q}”${count === 50 ? ' (the first 50 are shown)' : ''}.`}</p>
${outcome.partial ? html`<p class="notice">Some matches of very short words may be missing: type more letters.</p>` : ''}
<ol class="results">${outcome.hits.map(
      (hit) => html`<li><a href="${links.node(hit.slug, language)}">${hit.title}</a>${hit.snippet ? html`<p class="snippet">${markSnippet(hit.snippet, q)}</p>` : ''}</li>`,
    )}</ol>`;
  }
  const body = html`<div class="layout">
${navTree(state, null, language, links)}
<main id="main" tabindex="-1">
<h1>${q ? html`Search results` : 'Search'}</h1>
${results}
</main>
</div>
${pdfDialog(state, null, language)}`;
  return page(site, {
    title: `${q ? `${q} – Search` : 'Search'} · ${state.meta.label} · ${site.portal.title}`,
    language,
    noindex: true,
    home: links.version(language),
    controls: controls(place, links, null, (l) => links.search(l, q || undefined), q),
    body,
    data: { version: state.slug, ref: place.ref, slug: '', lang: language, section: '' },
  });
}

/** A version without any page yet. */
export function emptyVersionPage(site: Site, place: Place): string {
  const links = linksFor(site.portal, place.state, place.ref);
  return page(site, {
    title: `${place.state.meta.label} · ${site.portal.title}`,
    language: place.language,
    home: links.version(place.language),
    controls: controls(place, links, null, (l) => links.version(l)),
    body: html`<div class="layout"><main id="main" tabindex="-1"><h1>${place.state.meta.label}</h1><p>This version has no pages yet.</p></main></div>`,
  });
}

/** A published version asked for in a language it does not have: the page's path, and the languages it has. */
export interface MissingLanguage {
  path: string;
  requested: string;
  languages: readonly string[];
}

/** A language asked for, as a reader would name it: its own name and code when it is one (français (fr)), else as sent. */
function shownLanguage(requested: string): string {
  const code = canonicalLanguage(requested);
  return code === null ? `“${requested.slice(0, 40)}”` : `${languageName(code)} (${code})`;
}

/**
 * The page of a path that shows nothing: status 404 (or 503, 500), never a hint of what a draft holds.
 * A published version asked for in another language links the same page in the languages it has.
 */
export function errorPage(site: Site, status: number, missing?: MissingLanguage): string {
  const [title, text] =
    missing !== undefined
      ? ['Not available in this language', `This help is not available in ${shownLanguage(missing.requested)}. Read it in:`]
      : status === 404
        ? ['Page not found', 'There is no published page at this address. It may have moved, or the version may not be published.']
        : status === 503
          ? ['Not available right now', 'This part of the help cannot be shown at the moment. Please try again shortly.']
          : ['Something went wrong', 'The page could not be shown. Please try again later.'];
  const choices = missing ? html`<ul>${missing.languages.map((l) => html`<li><a href="${missing.path}?lang=${encodeURIComponent(l)}" hreflang="${l}" lang="${l}">${languageName(l)}</a></li>`)}</ul>` : html``;
  return page(site, {
    title: `${title} · ${site.portal.title}`,
    language: 'en',
    noindex: true,
    home: site.portal.path,
    body: html`<div class="layout single"><main id="main" tabindex="-1"><h1>${title}</h1><p>${text}</p>${choices}<p><a href="${site.portal.path}">Go to the help start page</a></p></main></div>`,
  });
}
