import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { AppError } from '../errors.ts';

/** A body of another type than JSON is refused with 415 rather than silently read as empty. */
export const refuseNonJson: Middleware = async (ctx, next) => {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !ctx.is('application/json', '+json')) {
    throw new AppError('unsupported_media_type', `Request bodies must be JSON (Content-Type: application/json), not ${ctx.get('content-type') || 'untyped'}`, {
      contentType: ctx.get('content-type') || null,
    });
  }
  await next();
};

/** Parses a JSON body of at most `limit` bytes; a larger one is refused (413) before it is parsed. */
export function jsonBodyParser(limit: number, keepRaw = false): Middleware {
  const parse = koaBody({
    json: true,
    jsonStrict: true,
    jsonLimit: limit,
    urlencoded: false,
    text: false,
    multipart: false,
    includeUnparsed: keepRaw,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  }) as unknown as Middleware;
  return async (ctx, next) => {
    ctx.state.bodyLimit = limit;
    // Decoding and parsing megabytes of JSON takes tens of milliseconds, and handling the request
    // would follow in the same turn of the event loop: let other requests in between.
    await parse(ctx, async () => {
      // Twice: the body ends in the poll phase, and one setImmediate would run before the next poll.
      if ((ctx.request.length ?? 0) > YIELD_AFTER_BYTES) await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
      await next();
    });
  };
}

const YIELD_AFTER_BYTES = 256 * 1024;

/** The body's raw text, for endpoints that verify a signature over it (parsed with `keepRaw`). */
export const rawBodyOf = (request: { rawBody?: unknown }): string => (typeof request.rawBody === 'string' ? request.rawBody : '');
