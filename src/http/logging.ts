import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * Request ids shaped like UUIDs (also for the answers given on the socket, before a request exists:
 * client-errors.ts, connections.ts): a random prefix per process and a counter in the last group, which
 * is unique within the process and unlikely to repeat across processes, without drawing random bytes
 * on every request.
 */
const ID_PREFIX = randomUUID().slice(0, 24);
let counter = 0;
export const nextRequestId = () => ID_PREFIX + (counter++).toString(16).padStart(12, '0');

/** The request's logger, carrying its `requestId` (made when first needed: most requests never log more than their line). */
export function requestLog(ctx: Context): Logger {
  return ((ctx.state.log as Logger | undefined) ??= (ctx.state.baseLog as Logger).child({ requestId: ctx.state.requestId }));
}

/**
 * Gives each request an id (the caller's `X-Request-Id` when sensible) and one log line when it ends:
 * `{ requestId, method, path, status, ms, actor }`, plus `cached: true` when the answer cache
 * answered it before the router (see ResponseCache.answerAnonymous).
 */
export function requestLogging(log: Logger): Middleware {
  return async (ctx, next) => {
    const given = ctx.req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    const started = performance.now();
    ctx.state.requestId = requestId;
    ctx.state.baseLog = log;
    ctx.set('X-Request-Id', requestId);
    // Every answer, API, portal, sign-in pages and files alike, is of the type it names: no browser is to take
    // a JSON answer whose title holds <script> for a page.
    ctx.set('X-Content-Type-Options', 'nosniff');
    try {
      await next();
    } finally {
      if (log.isLevelEnabled('info')) {
        const ms = Math.round((performance.now() - started) * 10) / 10;
        // The same JSON as a child logger's line (requestId first), without making one per request.
        log.info({ requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms, actor: ctx.state.actor?.name, cached: ctx.state.cached }, 'request');
      }
    }
  };
}
