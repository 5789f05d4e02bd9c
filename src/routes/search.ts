import { versionLanguage } from '../domain/translations.ts';
import { AppError, invalid } from '../errors.ts';
import { LOADING_RETRY_SECONDS } from '../store/catalog.ts';
import { endpoint } from '../http/api.ts';
import { language } from '../http/languages.ts';
import { readerOf } from '../http/actor.ts';
import { readableVersion } from '../queries/versions.ts';
import type { Deps } from '../deps.ts';
import type { Reader } from '../queries/reader.ts';
import type { RankOptions } from '../index/rank-types.ts';

/**
 * Waits, a bounded while, for the search indexes of a version served before they were built (at
 * start); 503 version_loading when they take longer.
 */
export async function untilSearchable(search: Deps['search'], slug: string): Promise<void> {
  if (await search.searchable(slug)) return;
  throw new AppError('version_loading', `Version "${slug}" is still being indexed for search after the start; its other reads are served, and its search will be in a moment`, { version: slug, retryAfter: LOADING_RETRY_SECONDS });
}

/** The version and language a search is for, once the version's indexes are built (see untilSearchable). */
async function searchableVersion({ catalog, search }: Pick<Deps, 'catalog' | 'search'>, reader: Reader, version: string, given: string | undefined, field: string) {
  const asked = given === undefined ? undefined : language(given, field);
  let state = readableVersion(catalog, reader, version);
  let lang = versionLanguage(state, asked, field);
  if (search.isIndexing(state.slug)) {
    await untilSearchable(search, state.slug);
    // Read again after the wait: the version may have changed meanwhile.
    state = readableVersion(catalog, reader, version);
    lang = versionLanguage(state, asked, field);
  }
  return { state, lang };
}

/** A search as the API answers it, for the route and the tool server alike (`field` names `given`, the language, in errors; see versionLanguage). */
export async function searchVersion({ catalog, search }: Pick<Deps, 'catalog' | 'search'>, reader: Reader, version: string, q: string, given: string | undefined, field: string) {
  const { state, lang } = await searchableVersion({ catalog, search }, reader, version, given, field);
  const { hits, partial } = search.search(state, lang, q);
  return { version: state.slug, language: lang, query: q, hits, ...(partial ? { partial: true } : {}) };
}

/** A search by relevance as the API answers it (`order=relevance`), for the route and the tool server alike; see searchVersion. */
export async function searchVersionRanked({ catalog, search }: Pick<Deps, 'catalog' | 'search'>, reader: Reader, version: string, q: string, given: string | undefined, field: string, options: RankOptions) {
  const { state, lang } = await searchableVersion({ catalog, search }, reader, version, given, field);
  const { hits, total, partial, suggestion } = search.ranked(state, lang, q, options);
  return {
    version: state.slug,
    language: lang,
    query: q,
    order: 'relevance' as const,
    offset: options.offset,
    limit: options.limit,
    total,
    ...(partial ? { partial: true } : {}),
    ...(suggestion !== undefined ? { suggestion } : {}),
    hits,
  };
}

/** Hits per answer of a search by relevance when the caller does not say. */
export const DEFAULT_LIMIT = 10;

/** Full-text search in one version and language. */
export function searchRoutes({ catalog, search, searchReport }: Deps) {
  return [
    endpoint<unknown, { q: string; lang?: string; order?: 'document' | 'relevance'; limit?: string; offset?: string }>({
      method: 'get',
      path: '/versions/:version/search',
      operationId: 'search',
      cache: true,
      summary: 'Search titles, summaries and bodies of one language',
      description:
        'Two orders. **`order=relevance`** ranks the topics best first: a BM25F score over title, section headings, summary and body (weighted in that order), a query equal to a title first, then topics with all the words before those missing some, a bonus for the words standing together; other forms of a word match (stemming, for the languages with a Snowball stemmer), a word of 5+ letters matches with one typo (9+: two), and the last word also as the start of a word (search as you type). It pages with `limit` (1–50, default 10) and `offset`, says how many topics matched (`total`), gives each hit its best passage as `snippet` with `highlights`, the `heading` and anchor of its section and its `breadcrumbs`, and when nothing matches may offer a `suggestion`. **`order=document`** (the default) is exact matching: a node is a hit when every word of `q` occurs in its title, summary or body as a word or the start of one, ignoring case and diacritics; Japanese and Chinese text is cut into words. Up to 50 hits, in document order, each with a plain-text snippet around the first match. Repeated words count once. A word so short that it starts more than 5,000 distinct terms is looked up in the first 5,000 only; then `partial` is true: every hit is a match, but some matches may be missing (type more letters). Right after a start without snapshots a version is served before its index is built: its search waits for the index, up to 2 s, then answers 503 `version_loading` with `Retry-After`.',
      tag: 'Reading content',
      access: 'public',
      query: 'SearchQuery',
      errors: ['not_found', 'language_not_enabled'],
      responses: { 200: { description: 'The hits: `SearchResult` in document order, `RankedSearchResult` by relevance', schema: 'SearchAnswer' } },
      handle: async ({ actor, params, query }) => {
        if (query.order !== 'relevance') {
          for (const name of ['limit', 'offset'] as const) if (query[name] !== undefined) throw invalid(`query/${name}`, 'applies to order=relevance only (document order answers its up to 50 hits at once)');
          const found = await searchVersion({ catalog, search }, readerOf(actor), params.version, query.q, query.lang, 'query/lang');
          // The search itself is counted by http/search-counting.ts, cached answers too.
          searchReport.results(found.version, found.language, query.q, found.hits.length);
          return { body: found };
        }
        const options = { limit: query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit), offset: query.offset === undefined ? 0 : Number(query.offset) };
        const ranked = await searchVersionRanked({ catalog, search }, readerOf(actor), params.version, query.q, query.lang, 'query/lang', options);
        searchReport.results(ranked.version, ranked.language, query.q, ranked.total);
        return { body: ranked };
      },
    }),
  ];
}
