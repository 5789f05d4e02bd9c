import type { Readable } from 'node:stream';
import type { Context, Middleware } from 'koa';
import { LRUCache } from 'lru-cache';
import type { Deps } from '../deps.ts';
import { isNodeSlug } from '../domain/names.ts';
import { AppError, notFound } from '../errors.ts';
import { etagOf, matches } from '../http/cache.ts';
import { requestLog } from '../http/logging.ts';
import { textStream } from '../http/stream.ts';
import { readNode } from '../queries/content.ts';
import { untilSearchable } from '../routes/search.ts';
import { PUBLIC_READER } from '../queries/reader.ts';
import { Assets } from './assets.ts';
import type { Site } from './layout.ts';
import { errorPage, RESULTS_PER_PAGE, resultOffset, searchPage, type Outcome } from './search-page.ts';
import { robots, sitemap } from './seo.ts';
import { linksFor, listedVersions, pageLanguage, portalVersion } from './site.ts';
import { llmsFull, llmsTxt } from './llms.ts';
import { topicPage, type Place } from './topic-page.ts';
import { portalHome, versionHome } from './home-page.ts';
import { prefersMarkdown, textError } from './text-answers.ts';
import { pageMarkdown, type MarkdownPlace } from './twin.ts';
import { answerOldAddress } from './old-addresses.ts';
import { answerReaderSignals, countPortalSearch } from './reader-signals.ts';
import { errorLanguage, portalLanguage } from './error-language.ts';
import { PAGE_POLICY } from './page-policy.ts';

const HTML = 'text/html; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';
const MARKDOWN = 'text/markdown; charset=utf-8';
const YEAR = 31_536_000;

/**
 * The reader portal: server-rendered pages of the published versions under HELP_PORTAL_PATH
 * (`/support/{version}/{slug}`, `/support/{version}`, `/support/{version}/search`, `latest` for the
 * version marked latest), the pages' Markdown twins (`{slug}.md`, or the page's own address asked
 * for with `Accept: text/markdown`), llms.txt and llms-full.txt, its assets, sitemap.xml, and
 * /robots.txt. It reads through the same queries as the API, always as the public reader, and
 * answers HTML (a 404 page) where the API answers JSON, text where text was asked for. Pages carry
 * ETags over the index's generation, like the API's public reads.
 */
export function portalRoutes(deps: Deps): Middleware {
  const { catalog, config } = deps;
  const base = config.portal.path;
  const site: Site = { portal: config.portal, assets: new Assets(config.portal), apiBase: config.basePath };
  // Validators from the content (store/content-tags.ts): the same page has the same one on every replica.
  const tags = deps.replication.tags;
  // Rendered pages by their validator (which covers the generation, host and URL).
  const rendered = new LRUCache<string, string>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (v, k) => v.length + k.length });
  const originOf = (ctx: Context) => config.publicUrl ?? `${ctx.protocol}://${ctx.host}`;
  /** Pages, the sitemap and robots.txt hold absolute URLs: from the request's Host when HELP_PUBLIC_URL is unset. */
  const varyByHost = (ctx: Context) => {
    if (config.publicUrl === null) ctx.set('Vary', 'Host');
  };

  /**
   * Answers a page (or sitemap) built by `render`, or 304 when the caller holds it. `tag` is what the
   * answer depends on besides its URL: by default every version (a page's version switch lists them).
   */
  function cached(ctx: Context, route: string, type: string, render: () => string, tag = `${tags.all()}|portal`): void {
    ctx.state.route = `${base}${route}`;
    const etag = etagOf(tag, 'public', ctx);
    let body = rendered.get(etag);
    if (body === undefined && !matches(ctx, etag)) {
      body = render();
      rendered.set(etag, body);
    }
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', `public, max-age=${config.cacheMaxAge}`);
    varyByHost(ctx);
    send(ctx, type, matches(ctx, etag) ? null : body!);
  }

  function send(ctx: Context, type: string, body: string | Buffer | Readable | null, status = 200): void {
    ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
    if (type === HTML) ctx.set('Content-Security-Policy', PAGE_POLICY);
    if (body === null) {
      ctx.status = 304;
      return;
    }
    ctx.status = status;
    ctx.type = type;
    ctx.body = body;
  }

  const place = (ctx: Context, ref: string): Place => {
    const state = portalVersion(catalog, config.portal, ref);
    return { origin: originOf(ctx), versions: listedVersions(catalog, config.portal), state, ref, language: pageLanguage(state, single(ctx.query.lang)) };
  };

  /** A version's Markdown as the path names it (a slug or `latest`), in the language asked for. */
  const markdownPlace = (ctx: Context, ref: string): MarkdownPlace => {
    const state = portalVersion(catalog, config.portal, ref);
    return { origin: originOf(ctx), links: linksFor(config.portal, state, ref), state, language: pageLanguage(state, single(ctx.query.lang)) };
  };

  /**
   * What Markdown answers depend on: their version alone, so a write to another version leaves them
   * (and their validators) current, as the API's answers about one version; through `latest`, every
   * version, as the mark may move.
   */
  const versionTag = (p: MarkdownPlace, kind: string) => `${p.links.ref === 'latest' ? tags.all() : tags.version(p.state.slug)}|${kind}`;

  /** A page's Markdown twin. */
  function twin(ctx: Context, route: string, ref: string, slug: string): MarkdownPlace {
    ctx.state.route = `${base}${route}`;
    const p = markdownPlace(ctx, ref);
    readNode(catalog, PUBLIC_READER, p.state.slug, slug);
    // The HTML page is the one to index; this is the same text for agents.
    ctx.set('X-Robots-Tag', 'noindex');
    cached(ctx, route, MARKDOWN, () => pageMarkdown(p, slug), versionTag(p, 'md'));
    return p;
  }

  /** The version an address without one stands for: the one marked latest, else the first listed (as `/support` goes to). */
  function defaultRef(): string {
    const versions = listedVersions(catalog, config.portal);
    const target = versions.find((v) => v.meta.isLatest) ? 'latest' : versions[0]?.slug;
    if (target === undefined) throw notFound('version', 'The portal shows no version');
    return target;
  }

  async function dispatch(ctx: Context, parts: string[]): Promise<void> {
    const [first, second] = parts;
    if (parts.length === 0) {
      return cached(ctx, '', HTML, () => {
        const versions = listedVersions(catalog, config.portal);
        return portalHome(site, versions, portalLanguage(versions, single(ctx.query.lang)));
      });
    }
    if (parts.length === 1 && first === '_go') {
      // The switches' forms without JavaScript: on to the chosen page of this portal, nowhere else.
      ctx.state.route = `${base}/_go`;
      const to = single(ctx.query.to) ?? '';
      if (!isPortalAddress(to, base)) throw notFound('route', 'No such page');
      ctx.set('Cache-Control', 'no-cache');
      return ctx.redirect(to);
    }
    if (parts.length === 2 && first === '_assets') {
      ctx.state.route = `${base}/_assets/:file`;
      const asset = site.assets.get(second);
      if (!asset) throw notFound('route', 'No such asset');
      ctx.set('Cache-Control', `public, max-age=${YEAR}, immutable`);
      return send(ctx, asset.type, asset.body);
    }
    if (parts.length === 1 && first === 'sitemap.xml') {
      return cached(ctx, '/sitemap.xml', 'application/xml; charset=utf-8', () => sitemap(originOf(ctx), base, listedVersions(catalog, config.portal)));
    }
    if ((parts.length === 1 && first === 'llms.txt') || (parts.length === 2 && second === 'llms.txt')) {
      const route = parts.length === 1 ? '/llms.txt' : '/:version/llms.txt';
      ctx.state.route = `${base}${route}`;
      const p = markdownPlace(ctx, parts.length === 1 ? defaultRef() : first);
      return cached(ctx, route, TEXT, () => llmsTxt(p, config.portal.title), versionTag(p, 'llms'));
    }
    if (parts.length === 2 && second === 'llms-full.txt') {
      // Streamed, never kept whole: a large version's text is many megabytes.
      ctx.state.route = `${base}/:version/llms-full.txt`;
      const p = markdownPlace(ctx, first);
      const etag = etagOf(versionTag(p, 'llms-full'), 'public', ctx);
      ctx.set('ETag', etag);
      ctx.set('Cache-Control', `public, max-age=${config.cacheMaxAge}`);
      varyByHost(ctx);
      return send(ctx, TEXT, matches(ctx, etag) ? null : textStream(llmsFull(p)));
    }
    // A renamed topic's old address (301) or a deleted one's (410), where the page's own path would say 404.
    if (parts.length === 2 && second !== 'search' && answerOldAddress(ctx, { catalog, portal: config.portal, site, maxAge: config.cacheMaxAge, send }, first, second)) return;
    if (parts.length === 2 && second.endsWith('.md') && isNodeSlug(second.slice(0, -3))) {
      twin(ctx, '/:version/:slug.md', first, second.slice(0, -3));
      return;
    }
    if (parts.length === 1) {
      return cached(ctx, '/:version', HTML, () => {
        return versionHome(site, place(ctx, first));
      });
    }
    if (parts.length === 2 && second === 'search') {
      const { slug } = place(ctx, first).state;
      if (deps.search.isIndexing(slug)) await untilSearchable(deps.search, slug);
      countPortalSearch(deps, slug, place(ctx, first).language, ctx.query);
      // Kept by the whole URL, so each `offset` is a page of its own (see cached).
      return cached(ctx, '/:version/search', HTML, () => {
        const p = place(ctx, first);
        const q = (single(ctx.query.q) ?? '').trim();
        const offset = resultOffset(single(ctx.query.offset));
        let outcome: Outcome = null;
        if (q.length > 200) outcome = { problem: 'too-long' };
        else if (q !== '') outcome = { ...deps.search.ranked(p.state, p.language, q, { limit: RESULTS_PER_PAGE, offset }), offset };
        if (outcome !== null && 'total' in outcome) deps.searchReport.results(p.state.slug, p.language, q, outcome.total);
        return searchPage(site, p, q, outcome, config.feedback.searchReport);
      });
    }
    if (parts.length === 2 && isNodeSlug(second)) {
      // One address, two answers: the HTML page, or its twin for a client that ranks Markdown higher.
      if (prefersMarkdown(ctx)) {
        const p = twin(ctx, '/:version/:slug', first, second);
        ctx.set('Content-Location', p.links.markdown(second, p.language));
      } else {
        cached(ctx, '/:version/:slug', HTML, () => {
          const p = place(ctx, first);
          readNode(catalog, PUBLIC_READER, p.state.slug, second);
          return topicPage(site, p, second);
        });
        // The page exists (else cached threw): agents that look at headers only find its twin too.
        const p = markdownPlace(ctx, first);
        ctx.append('Link', `<${p.links.markdown(second, p.language)}>; rel="alternate"; type="text/markdown"`);
      }
      ctx.vary('Accept');
      return;
    }
    throw notFound('route', 'No such page');
  }

  /** An error page's language (error-language.ts); English when even the versions cannot be read (the 503 of a store not ready). */
  function pageErrorLanguage(ctx: Context): string {
    try {
      return errorLanguage(catalog, config.portal, ctx.path.slice(base.length).split('/').find((p) => p !== ''), single(ctx.query.lang));
    } catch {
      return 'en';
    }
  }

  return async (ctx, next) => {
    const path = ctx.path;
    if (path === '/robots.txt') {
      ctx.state.route = '/robots.txt';
      ctx.set('Cache-Control', `public, max-age=${config.cacheMaxAge}`);
      // llms.txt is not at the origin's root (the portal is not): this is where agents look next.
      ctx.set('Link', `<${originOf(ctx)}${base}/llms.txt>; rel="alternate"; type="text/plain"; title="llms.txt"`);
      varyByHost(ctx);
      return send(ctx, TEXT, robots(originOf(ctx), base));
    }
    if (path !== base && !path.startsWith(`${base}/`)) return next();
    if (await answerReaderSignals(ctx, deps, site)) return;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.state.route = `${base}/*`;
      ctx.set('Allow', 'GET, HEAD');
      return send(ctx, TEXT, 'Method not allowed: the portal\'s pages are read with GET.\n', 405);
    }
    try {
      await dispatch(ctx, path.slice(base.length).split('/').filter((p) => p !== ''));
    } catch (err) {
      const status = err instanceof AppError ? (err.status === 404 || err.status === 503 ? err.status : 500) : 500;
      if (status === 500) requestLog(ctx).error({ err }, 'portal page failed');
      ctx.remove('ETag');
      ctx.set('Cache-Control', 'no-cache');
      if (err instanceof AppError && typeof err.data.retryAfter === 'number') ctx.set('Retry-After', String(err.data.retryAfter));
      // A language the version lacks (pageLanguage names it and those the version has).
      const data = err instanceof AppError && status === 404 ? err.data : {};
      const missing = Array.isArray(data.languages) ? { path: ctx.path, requested: String(data.language), languages: data.languages as string[] } : undefined;
      // Text is asked for (a twin, llms.txt, or Markdown by Accept): the error is text too.
      if (/\.(md|txt)$/.test(path) || prefersMarkdown(ctx)) send(ctx, TEXT, textError(status, missing), status);
      else send(ctx, HTML, errorPage(site, status, missing, pageErrorLanguage(ctx)), status);
    }
  };
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[value.length - 1] : value);

/** A path below the portal's own (with its query), and nothing that a browser could take for another origin. */
export function isPortalAddress(to: string, base: string): boolean {
  return to.length <= 1000 && to.startsWith(`${base}/`) && !/[\\\s]|\/\/|\/(?:\.|%2e){1,2}(?:[/?#]|$)/i.test(to);
}
