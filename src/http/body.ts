import bourne from '@hapi/bourne';
import coBody from 'co-body';
import type { Context, Middleware } from 'koa';
import { AppError } from '../errors.ts';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (jsonBodyParser), undefined when the request has none. */
    body?: unknown;
    /** The body's text, kept for endpoints that verify a signature over it. */
    rawBody?: string;
  }
}

/** A JSON body: application/json or any `+json` type. The check that refuses other bodies and the parser use this one test, so a body that passes the first is read by the second. */
const isJson = (ctx: Context) => ctx.is('application/json', '+json') !== false;
const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A body of another type than JSON is refused with 415 rather than silently read as empty. */
export const refuseNonJson: Middleware = async (ctx, next) => {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !isJson(ctx)) {
    throw new AppError('unsupported_media_type', `Request bodies must be JSON (Content-Type: application/json), not ${ctx.get('content-type') || 'untyped'}`, {
      contentType: ctx.get('content-type') || null,
    });
  }
  // JSON exchanged between systems is UTF-8 (RFC 8259); a body in another charset would be read as UTF-8 and fail as bad JSON.
  const charset = hasBody ? ctx.request.charset.toLowerCase() : '';
  if (charset !== '' && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError('unsupported_media_type', `Request bodies must be UTF-8 JSON, not ${charset} (send Content-Type: application/json; charset=utf-8, or no charset)`, {
      contentType: ctx.get('content-type'),
    });
  }
  await next();
};

/**
 * Parses a JSON body of at most `limit` bytes; a larger one is refused (413) before it is parsed.
 * co-body reads and parses (raw-body with its limits, inflation, a JSON parser that refuses
 * `__proto__`); it is called directly because koa-body, around it, brought a schema library and a
 * multipart parser into every start for options checked once. With `keepRaw` the body is only read,
 * into `rawBody`: the endpoint verifies that text (a signature) before it is parsed (parseJsonText).
 */
export function jsonBodyParser(limit: number, keepRaw = false): Middleware {
  return async (ctx, next) => {
    ctx.state.bodyLimit = limit;
    if (PARSED_METHODS.has(ctx.method) && isJson(ctx)) {
      const options = { encoding: 'utf-8', limit, strict: true };
      if (keepRaw) {
        ctx.request.rawBody = await coBody.text(ctx, options);
      } else {
        ctx.request.body = await coBody.json(ctx, options);
      }
    }
    // Decoding and parsing megabytes of JSON takes tens of milliseconds, and handling the request
    // would follow in the same turn of the event loop: let other requests in between.
    // Twice: the body ends in the poll phase, and one setImmediate would run before the next poll.
    if ((ctx.request.length ?? 0) > YIELD_AFTER_BYTES) await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
    await next();
  };
}

const YIELD_AFTER_BYTES = 256 * 1024;

/** co-body's strict JSON: an object or an array (an empty body is an empty object). */
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*(\[|\{)/;

/**
 * A raw body parsed as jsonBodyParser parses the others (co-body's rules and its parser, which
 * refuses `__proto__` and `constructor.prototype` keys), for an endpoint that kept the raw text to
 * verify it first: an unsigned body costs no parsing.
 */
export function parseJsonText(text: string): unknown {
  if (text === '') return {};
  try {
    if (!STRICT_JSON.test(text)) throw new SyntaxError('invalid JSON, only supports object and array');
    return bourne.parse(text, { protoAction: 'error' });
  } catch (err) {
    throw new AppError('invalid_json', `The request body is not valid JSON: ${(err as Error).message}`, { field: 'body' });
  }
}
