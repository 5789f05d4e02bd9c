import { versionLanguage } from '../domain/translations.ts';
import { AppError } from '../errors.ts';
import { LOADING_RETRY_SECONDS } from '../store/catalog.ts';
import { endpoint } from '../http/api.ts';
import { language } from '../http/languages.ts';
import { readerOf } from '../http/actor.ts';
import { readableVersion } from '../queries/versions.ts';
import type { Deps } from '../deps.ts';
import type { Reader } from '../queries/reader.ts';

/**
 * Waits, a bounded while, for the search indexes of a version served before they were built (at
 * start); 503 version_loading when they take longer.
 */
export async function untilSearchable(search: Deps['search'], slug: string): Promise<void> {
  if (await search.searchable(slug)) return;
  throw new AppError('version_loading', `Version "${slug}" is still being indexed for search after the start; its other reads are served, and its search will be in a moment`, { version: slug, retryAfter: LOADING_RETRY_SECONDS });
}

/** A search as the API answers it, for the route and the tool server alike (`field` names `given`, the language, in errors; see versionLanguage). */
export async function searchVersion({ catalog, search }: Pick<Deps, 'catalog' | 'search'>, reader: Reader, version: string, q: string, given: string | undefined, field: string) {
  const asked = given === undefined ? undefined : language(given, field);
  let state = readableVersion(catalog, reader, version);
  let lang = versionLanguage(state, asked, field);
  if (search.isIndexing(state.slug)) {
    await untilSearchable(search, state.slug);
    // Read again after the wait: the version may have changed meanwhile.
    state = readableVersion(catalog, reader, version);
    lang = versionLanguage(state, asked, field);
  }
  const { hits, partial } = search.search(state, lang, q);
  return { version: state.slug, language: lang, query: q, hits, ...(partial ? { partial: true } : {}) };
}

/** Full-text search in one version and language. */
export function searchRoutes({ catalog, search }: Deps) {
  return [
    endpoint<unknown, { q: string; lang?: string }>({
      method: 'get',
      path: '/versions/:version/search',
      operationId: 'search',
      cache: true,
      summary: 'Search titles, summaries and bodies of one language',
      description:
        'A node is a hit when every word of `q` occurs in its title, summary or body as a word or the start of one, ignoring case and diacritics; Japanese and Chinese text is cut into words. Up to 50 hits, in document order, each with a plain-text snippet around the first match. Repeated words count once. A word so short that it starts more than 5,000 distinct terms is looked up in the first 5,000 only; then `partial` is true: every hit is a match, but some matches may be missing (type more letters). Right after a start without snapshots a version is served before its index is built: its search waits for the index, up to 2 s, then answers 503 `version_loading` with `Retry-After`.',
      tag: 'Reading content',
      access: 'public',
      query: 'SearchQuery',
      errors: ['not_found', 'language_not_enabled'],
      responses: { 200: { description: 'The hits', schema: 'SearchResult' } },
      handle: async ({ actor, params, query }) => ({ body: await searchVersion({ catalog, search }, readerOf(actor), params.version, query.q, query.lang, 'query/lang') }),
    }),
  ];
}
