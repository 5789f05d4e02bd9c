import type { Deps } from '../deps.ts';
import type { Actor } from '../http/actor.ts';
import { endpoint } from '../http/api.ts';
import { reportVersion } from './report-version.ts';

/** GET /versions/{version}/search-report's answer. */
export function searchReportOf(deps: Pick<Deps, 'catalog' | 'searchReport'>, actor: Actor | null, version: string, query: { lang?: string; limit?: string }, field = 'query/lang') {
  const { state, lang } = reportVersion(deps, actor, version, query.lang, field);
  return { version: state.slug, language: lang ?? null, ...deps.searchReport.report(state.slug, lang, query.limit === undefined ? 20 : Number(query.limit)) };
}

/** What readers search for in a version, counted by query. */
export function searchReportRoutes(deps: Deps) {
  return [
    endpoint<unknown, { lang?: string; limit?: string }>({
      method: 'get',
      path: '/versions/:version/search-report',
      operationId: 'getSearchReport',
      summary: 'What readers search for: top queries, queries without results, results nobody opened',
      description:
        'Searches of the portal and of the API, counted per version and language by query, normalised (lower case, white space collapsed, at most 100 characters): nothing else about the reader is kept. `top` are the most searched queries, `noResults` those whose last search found nothing, `notOpened` those that found pages of which no result was ever opened from the portal\'s result list. Bounded: `HELP_SEARCH_REPORT_QUERIES` distinct queries per version and language (the rarest are forgotten first); written to the data directory every minute and at stop. `HELP_SEARCH_REPORT=off` turns counting off (`enabled: false`). Needs a credential with `help:read`.',
      tag: 'Feedback',
      access: 'credential',
      query: 'SearchReportQuery',
      errors: ['not_found', 'language_not_enabled', 'insufficient_scope'],
      responses: { 200: { description: 'The report', schema: 'SearchReport' } },
      handle: ({ actor, params, query }) => ({ body: searchReportOf(deps, actor, params.version, query) }),
    }),
  ];
}
