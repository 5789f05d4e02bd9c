import type { Middleware } from 'koa';

/** Headers a browser may send with a credentialed request, and the ones its script may read back. */
const ALLOW_HEADERS = 'Authorization, Content-Type, If-Unmodified-Since, If-None-Match, Mcp-Protocol-Version, X-Min-Revision';
const EXPOSE_HEADERS = 'ETag, X-Request-Id, WWW-Authenticate, Link, X-Content-Revision';
const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
/** The metrics' route label of a preflight for a path no route template matches (never the raw path). */
export const PREFLIGHT_ROUTE = '(preflight)';
/** How long a browser may keep a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

/**
 * Cross-origin access. Anonymous reads (GET and HEAD without a credential) are open to every origin,
 * so a product can embed published help from anywhere: they see only what any visitor sees. A request
 * that carries a credential, and every write, needs a browser preflight, and the preflight is granted
 * only to the configured origins (`HELP_CORS_ORIGINS`): a page elsewhere cannot use a reader's key.
 * `also` trusts more origins on one path (the tool server's `HELP_MCP_ALLOWED_ORIGINS`).
 */
export function cors(trustedOrigins: ReadonlySet<string>, also?: { path: string; origins: ReadonlySet<string> }, preflightRoute: (path: string, method: string) => string = () => PREFLIGHT_ROUTE): Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (origin === '') return next();
    const trusted = trustedOrigins.has(origin) || (also !== undefined && ctx.path === also.path && also.origins.has(origin));
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '') {
      // Answered here, before any router: the metrics' route label comes from the caller.
      ctx.state.route = preflightRoute(ctx.path, ctx.get('access-control-request-method'));
      ctx.status = 204;
      ctx.vary('Origin');
      if (trusted) {
        ctx.set('Access-Control-Allow-Origin', origin);
        ctx.set('Access-Control-Allow-Methods', ALLOW_METHODS);
        ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
      } else {
        // Anonymous reads with conditional headers preflight too; nothing else is allowed.
        ctx.set('Access-Control-Allow-Origin', '*');
        ctx.set('Access-Control-Allow-Methods', 'GET, HEAD');
        ctx.set('Access-Control-Allow-Headers', 'If-None-Match, X-Min-Revision');
      }
      ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE));
      return;
    }
    // The same "*" for every origin, so a CDN keeps one copy of an anonymous answer (no Vary: Origin).
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.get('authorization') === '') ctx.set('Access-Control-Allow-Origin', '*');
    else if (trusted) ctx.set('Access-Control-Allow-Origin', origin);
    else return next();
    ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    await next();
  };
}
