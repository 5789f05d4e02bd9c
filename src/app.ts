import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import { anonymousReads, endpoint, mount, type Endpoint } from './http/api.ts';
import { authenticate } from './http/auth.ts';
import { generationFor, ResponseCache, tagFor } from './http/cache.ts';
import { replicationMiddleware } from './http/replication.ts';
import { ancestry } from './replica/ancestry.ts';
import { replicationHealth } from './replica/replication.ts';
import { replicationRoutes } from './routes/replication.ts';
import { ClientAddresses } from './http/client-address.ts';
import { cors, PREFLIGHT_ROUTE } from './http/cors.ts';
import { refuseNonJson } from './http/body.ts';
import { errorBoundary } from './http/errors.ts';
import { refuseBadHost } from './http/host.ts';
import { closeAfterUnreadBody } from './http/unread-body.ts';
import { requestLogging } from './http/logging.ts';
import { pushScriptRoutes } from './routes/push-script.ts';
import { gitHttp } from './routes/git-http.ts';
import { contentRoutes } from './routes/content.ts';
import type { Deps } from './deps.ts';
import { stillStarting } from './store/catalog.ts';
import { identityRoutes } from './routes/identity.ts';
import { nodeRoutes } from './routes/nodes.ts';
import { exportRoutes } from './routes/export.ts';
import { importRoutes } from './routes/import.ts';
import { pdfRoutes } from './routes/pdf.ts';
import { isPortalPath } from './portal/paths.ts';
import { publishingRoutes } from './routes/publishing.ts';
import { referenceRoutes } from './routes/reference.ts';
import { searchRoutes } from './routes/search.ts';
import { translationRoutes } from './routes/translations.ts';
import { translationStatusRoutes } from './routes/translation-status.ts';
import { versionRoutes } from './routes/versions.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { historyRoutes } from './routes/history.ts';
import { feedbackRoutes } from './routes/feedback.ts';
import { attentionRoutes } from './routes/attention.ts';
import { searchReportRoutes } from './routes/search-report.ts';
import { countSearches } from './http/search-counting.ts';
import { buildOpenApi } from './schemas/openapi.ts';
import type { OAuthFront } from './oauth/front.ts';
import { builtOnFirstRequest } from './http/first-request.ts';

/** Every endpoint of the API, in the order the contract lists them. */
export function apiEndpoints(deps: Deps, issuer: string): Endpoint[] {
  const endpoints: Endpoint[] = [
    ...versionRoutes(deps),
    ...contentRoutes(deps),
    ...searchRoutes(deps),
    ...exportRoutes(deps),
    ...importRoutes(deps),
    ...publishingRoutes(deps),
    ...pushScriptRoutes(),
    ...nodeRoutes(deps),
    ...translationRoutes(deps),
    ...translationStatusRoutes(deps),
    ...identityRoutes(deps),
    ...pdfRoutes(deps),
    ...webhookRoutes(deps),
    ...replicationRoutes(deps),
    ...historyRoutes(deps),
    ...feedbackRoutes(deps),
    ...searchReportRoutes(deps),
    ...attentionRoutes(deps),
    ...referenceRoutes(deps.config.basePath),
  ];
  let document: unknown;
  endpoints.push(
    endpoint({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApi',
      summary: 'This description of the API (OpenAPI 3.1)',
      tag: 'Meta',
      errors: [],
      access: 'public',
      responses: { 200: { description: 'The OpenAPI document' } },
      handle: () => ({ body: (document ??= buildOpenApi(endpoints, deps.config.basePath, issuer)) }),
    }),
  );
  return endpoints;
}

/** Which versions are in, which are still loading, which cannot be served, which are still being indexed: what /healthz reports. */
function loadProgress(catalog: Deps['catalog'], search: Deps['search']) {
  const loaded: string[] = [];
  const loading: string[] = [];
  const broken: string[] = [];
  for (const e of catalog.all()) (e.state ? loaded : e.loading ? loading : broken).push(e.slug);
  const indexing = search.indexing().filter((slug) => catalog.entry(slug)?.state !== undefined);
  return { versions: { loaded: loaded.length, loading: loading.length, broken: broken.length, indexing: indexing.length }, loading, broken, indexing };
}

const isOAuthPath = (path: string) => path.startsWith('/oauth/') || path.startsWith('/.well-known/');

/** The HTTP application: middleware order and routers, no I/O of its own. */
export function createApp(deps: Deps, oauth: OAuthFront, log: Logger, isReady: () => boolean): Koa {
  const app = new Koa();
  app.proxy = false;
  const api = new Router({ prefix: deps.config.basePath });
  const cache = new ResponseCache(generationFor(deps.catalog, deps.config.basePath), deps.config.cacheMaxAge, tagFor(deps.replication.tags, deps.config.basePath), (lookup) => deps.metrics.cacheLookup(lookup), deps.config.answerCacheBytes, deps.config.publicUrl === null ? 'Authorization, Host' : 'Authorization');
  const endpoints = apiEndpoints(deps, oauth.issuer);
  mount(api, endpoints, deps.config.bodyLimit, cache);

  const system = new Router();
  system.get('/metrics', deps.metrics.endpoint(deps.config.metricsToken));
  // Anyone may ask whether the service is ready, and how many versions it holds; which versions (drafts
  // among them) and the head commit, which moves with every write to a draft, are for callers with a credential.
  system.get('/healthz', authenticate(deps.keys, oauth), (ctx) => {
    const { versions, ...named } = loadProgress(deps.catalog, deps.search);
    // Versions there are, and none of them can be served: nothing to be ready for.
    const allBroken = versions.broken > 0 && versions.loaded === 0 && versions.loading === 0;
    const ok = isReady() && !allBroken;
    ctx.status = ok ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    const known = ctx.state.actor !== null;
    // The revision is on every answer (X-Content-Revision); a replica adds its lag and its last contact with the primary.
    ctx.body = { ok, ...(known ? { head: deps.repo.headCommit } : {}), replication: replicationHealth(deps.replication, known), versions, ...(known ? named : {}), ...(allBroken ? { problem: `every version's stored data is broken (${versions.broken}); GET a version with a key for the reason, and see the log` } : {}) };
  });

  // Every limit per address keys on ctx.ip: the connection's address, or a trusted proxy's word for it.
  app.use(new ClientAddresses(deps.config.trustedProxies).middleware());
  app.use(deps.metrics.middleware());
  app.use(requestLogging(log));
  app.use(closeAfterUnreadBody());
  // Before the answer cache: a search answered from it is a search too.
  app.use(countSearches(deps.searchReport, deps.catalog, deps.config.basePath));
  // Before anything that could copy the Host into an answer (or answer from a cache keyed by it).
  app.use(refuseBadHost());
  // The authorization server answers its own preflights; the API's CORS rules are for the API and the tool server.
  const apiCors = cors(deps.config.corsOrigins, { path: deps.config.mcpPath, origins: deps.config.mcpAllowedOrigins }, (path, method) => {
    // A preflight is counted under the template of the route it asks for, like the request that follows it.
    if (path === deps.config.mcpPath) return path;
    const template = api.match(path, method.toUpperCase()).pathAndMethod.find((layer) => layer.methods.length > 0)?.path;
    return typeof template === 'string' ? template : PREFLIGHT_ROUTE;
  });
  app.use((ctx, next) => (isOAuthPath(ctx.path) ? next() : apiCors(ctx, next)));
  // Before the answer cache: every answer carries its revision, a read may wait for one, and a replica sends writes to its primary.
  app.use(replicationMiddleware({ replication: deps.replication, basePath: deps.config.basePath, mcpPath: deps.config.mcpPath, bodyLimit: deps.config.bodyLimit, keys: deps.keys, isAncestor: ancestry(deps.repo.gitdir), stopping: deps.stopping }));
  // Hot anonymous reads are answered here, before everything that could not change their answer.
  app.use((ctx, next) => {
    if (!cache.answerAnonymous(ctx)) return next();
    ctx.state.cached = true;
  });
  app.use(errorBoundary(deps.config.bodyLimit));
  // git clients: before the gate on writes while starting (a clone reads git, not the index) and before the JSON-only rule.
  app.use(gitHttp(deps, oauth));
  // The reads that missed it, when anonymous, skip what follows up to the router (see anonymousReads).
  app.use(anonymousReads(deps.config.basePath, endpoints, cache));
  app.use(system.routes());
  app.keys = oauth.cookieKeys;
  app.use(oauth.middleware());
  // While versions load, reads are answered (a version not loaded yet is 503 version_loading); writes wait.
  app.use(async (ctx, next) => {
    if (!isReady() && ctx.method !== 'GET' && ctx.method !== 'HEAD' && ctx.method !== 'OPTIONS') throw stillStarting();
    await next();
  });
  // The portal and the tool server load on first use (first-use.ts): many deployments use neither.
  app.use(builtOnFirstRequest('portal', (ctx) => isPortalPath(ctx.path, deps.config.portal.path), async () => (await import('./portal/router.ts')).portalRoutes(deps)));
  app.use(authenticate(deps.keys, oauth));
  app.use(refuseNonJson);
  app.use(builtOnFirstRequest('tool server', (ctx) => ctx.path === deps.config.mcpPath, async () => (await import('./mcp/server.ts')).mcpServer(deps, oauth.issuer)));
  app.use(api.routes());
  app.use(api.allowedMethods());
  return app;
}
