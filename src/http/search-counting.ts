import type { Middleware } from 'koa';
import { canonicalLanguage } from '../domain/names.ts';
import type { SearchReport } from '../feedback/search-report.ts';
import type { Catalog } from '../store/catalog.ts';

/**
 * Counts every search of the API that was answered (200, or 304 to a client that held the answer),
 * for the search report, whether the answer was computed or came from the answer cache: so it sits
 * before the cache. How many results a query found is recorded by the search route when it computes
 * an answer (a cached one is the same answer again). A search for a version or language that does
 * not exist is answered with an error, and not counted.
 */
export function countSearches(report: SearchReport, catalog: Catalog, basePath: string): Middleware {
  const prefix = `${basePath}/versions/`;
  return async (ctx, next) => {
    await next();
    if (!report.enabled || (ctx.status !== 200 && ctx.status !== 304) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return;
    const path = ctx.path;
    if (!path.startsWith(prefix) || !path.endsWith('/search')) return;
    const version = path.slice(prefix.length, -'/search'.length);
    if (version.includes('/')) return;
    const q = ctx.query.q;
    const state = catalog.entry(version)?.state;
    if (typeof q !== 'string' || state === undefined) return;
    // The language the route searched in (routes/search.ts: `lang`, else English, else the primary language).
    const given = ctx.query.lang;
    const lang = typeof given === 'string' ? canonicalLanguage(given) : state.meta.languages.includes('en') ? 'en' : state.meta.languages[0];
    if (lang === null) return;
    // Later pages of a ranked search are the same search, read further.
    const offset = ctx.query.offset;
    if (typeof offset === 'string' && offset !== '0') return;
    report.count(version, lang, q);
  };
}
