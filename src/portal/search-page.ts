import type { RankedHit, RankedResult } from '../index/rank-types.ts';
import { html, type Html } from './html.ts';
import { resultLink } from './open-link.ts';
import { page, type Site } from './layout.ts';
import { canonicalLanguage } from '../domain/names.ts';
import { messagesFor, type Translate } from './i18n/messages.ts';
import { languageName, linksFor, type Links } from './site.ts';
import { controls, sideColumn, type Place } from './topic-page.ts';

/** Results on one page of search results; "More results" asks for the next as many. */
export const RESULTS_PER_PAGE = 10;

/** The largest `offset` taken, as the API's search takes (larger ones count as this). */
export const MAX_OFFSET = 9999;

/** What a search found from `offset` on, or why it did not run. */
export type Outcome = (RankedResult & { offset: number }) | { problem: string } | null;

/**
 * The `offset` of a search page's URL: results of better rank to skip. A link anyone can edit must
 * not fail the page, so what is not a whole number means the first results, and a larger one than
 * the API takes counts as its largest.
 */
export function resultOffset(value: string | undefined): number {
  if (value === undefined || !/^[0-9]+$/.test(value)) return 0;
  return Math.min(Number(value), MAX_OFFSET);
}

const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * A snippet with the index's ranges marked, each character escaped. The ranges are the index's
 * (what it matched, typos and word forms included): a query cannot say which words those were. A
 * range out of order, overlapping, past the end or inside a surrogate pair is cut to fit, never a failure.
 */
export function markRanges(snippet: string, ranges: ReadonlyArray<readonly [number, number]>): Html {
  const inPair = (at: number) => at > 0 && at < snippet.length && isLow(snippet.charCodeAt(at));
  const parts: Array<Html | string> = [];
  let from = 0;
  for (const [start, end] of ranges) {
    let s = Math.max(Math.trunc(start), from);
    let e = Math.min(Math.trunc(end), snippet.length);
    if (inPair(s)) s--;
    if (inPair(e)) e++;
    if (!(e > s) || s < from) continue;
    parts.push(snippet.slice(from, s), html`<mark>${snippet.slice(s, e)}</mark>`);
    from = e;
  }
  parts.push(snippet.slice(from));
  return html`${parts}`;
}


/** One result: the title linked to the passage's section, where it sits (ancestors, then the section), the snippet. */
function result(hit: RankedHit, language: string, links: Links, q: string, counted: boolean): Html {
  // Through `_open` while the search report counts opened results, else to the page (open-link.ts).
  const href = resultLink(links, q, hit.slug, language, hit.heading?.anchor, counted);
  const trail = [
    ...hit.breadcrumbs.map((b) => html`<span class="crumb">${b.title}</span>`),
    ...(hit.heading ? [html`<span class="crumb">${hit.title}</span>`, html`<span class="section">${hit.heading.text}</span>`] : []),
  ];
  const where = trail.length > 0 ? html`<p class="where">${trail.map((t, i) => (i === 0 ? t : html`<span class="sep" aria-hidden="true"> › </span>${t}`))}</p>` : '';
  const text = hit.snippet ? html`<p class="snippet">${markRanges(hit.snippet, hit.highlights)}</p>` : hit.summary ? html`<p class="snippet">${hit.summary}</p>` : '';
  return html`<li${hit.language !== language ? html` lang="${hit.language}"` : ''}><h2><a href="${href}">${hit.title}</a></h2>${where}${text}</li>`;
}

/** The results from `offset` on, how many matched, and the links to the results before and after. */
function results(found: RankedResult & { offset: number }, q: string, language: string, links: Links, t: Translate, counted: boolean): Html {
  const { hits, total, partial, offset } = found;
  const shown = hits.length;
  const more = offset + shown < total;
  let count: string;
  if (total === 0) count = t('search.none', { query: q });
  else {
    const n = total.toLocaleString(language);
    count = partial ? (total === 1 ? t('search.atLeastOne', { query: q }) : t('search.atLeastMany', { count: n, query: q })) : total === 1 ? t('search.one', { query: q }) : t('search.many', { count: n, query: q });
    if (shown === 0) count += ` ${t('search.noMore')}`;
    else if (offset > 0 || more) count += ` ${t('search.showing', { from: offset + 1, to: offset + shown })}`;
  }
  const previous = offset > 0 && total > 0 ? links.search(language, q, Math.max(0, Math.min(offset, total) - RESULTS_PER_PAGE)) : null;
  const next = more && shown > 0 ? links.search(language, q, offset + shown) : null;
  const suggestion = found.suggestion;
  let didYouMean: Html | string = '';
  if (suggestion) {
    const [before, after = ''] = t('search.suggestion', { suggestion: '\u0000' }).split('\u0000');
    didYouMean = html`<p class="suggestion">${before}<a href="${links.search(language, suggestion)}">${suggestion}</a>${after}</p>`;
  }
  return html`<p class="result-count" role="status">${count}</p>
${didYouMean}
${partial ? html`<p class="notice">${t('search.partial')}</p>` : ''}
${shown > 0 ? html`<ol class="results" start="${offset + 1}">${hits.map((hit) => result(hit, language, links, q, counted))}</ol>` : ''}
${previous !== null || next !== null
    ? html`<nav class="result-pages" aria-label="${t('search.pages')}">${previous !== null ? html`<a class="previous" rel="prev" href="${previous}">${t('search.previous')}</a>` : ''}${next !== null ? html`<a class="more" rel="next" href="${next}">${t('search.more')}</a>` : ''}</nav>`
    : ''}`;
}

/**
 * The search results page of a version: its topics ranked by relevance to `q`, ten at a time.
 * `counted`: the search report counts opened results (HELP_SEARCH_REPORT), so links go through `_open`.
 */
export function searchPage(site: Site, place: Place, q: string, outcome: Outcome, counted = true): string {
  const { state, language } = place;
  const t = messagesFor(language);
  const links = linksFor(site.portal, state, place.ref);
  let found: Html | string = '';
  let range = '';
  if (outcome !== null && 'problem' in outcome) found = html`<p class="notice" role="alert">${outcome.problem === 'too-long' ? t('search.tooLong', { max: 200 }) : outcome.problem}</p>`;
  else if (outcome !== null) {
    found = results(outcome, q, language, links, t, counted);
    if (outcome.offset > 0 && outcome.hits.length > 0) range = `, ${t('search.resultsRange', { from: outcome.offset + 1, to: outcome.offset + outcome.hits.length })}`;
  }
  const body = html`<div class="layout">
${sideColumn(site, place, links, null, (l) => links.search(l, q || undefined), t)}
<main id="main" tabindex="-1">
<h1>${q ? t('search.results') : t('search.title')}</h1>
${found}
</main>
</div>`;
  return page(site, {
    title: `${q ? `${q} – ${t('search.title')}${range}` : t('search.title')} · ${state.meta.label} · ${site.portal.title}`,
    language,
    noindex: true,
    home: links.version(language),
    controls: controls(links, language, t, q),
    drawer: true,
    body,
    data: { version: state.slug, ref: place.ref, slug: '', lang: language, section: '' },
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
export function errorPage(site: Site, status: number, missing?: MissingLanguage, language = 'en'): string {
  const t = messagesFor(language);
  const [title, text] =
    missing !== undefined
      ? [t('error.language.title'), t('error.language.text', { language: shownLanguage(missing.requested) })]
      : status === 404
        ? [t('error.404.title'), t('error.404.text')]
        : status === 503
          ? [t('error.503.title'), t('error.503.text')]
          : [t('error.500.title'), t('error.500.text')];
  const choices = missing ? html`<ul>${missing.languages.map((l) => html`<li><a href="${missing.path}?lang=${encodeURIComponent(l)}" hreflang="${l}" lang="${l}">${languageName(l)}</a></li>`)}</ul>` : html``;
  return page(site, {
    title: `${title} · ${site.portal.title}`,
    language,
    noindex: true,
    home: site.portal.path,
    body: html`<div class="layout single"><main id="main" tabindex="-1"><h1>${title}</h1><p>${text}</p>${choices}<p><a href="${site.portal.path}">${t('error.home')}</a></p></main></div>`,
  });
}
