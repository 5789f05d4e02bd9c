import bourne from '@hapi/bourne';
import coBody from 'co-body';
import type { Context, Middleware } from 'koa';
import { AppError, invalid } from '../errors.ts';
import { byteName, notUtf8 } from '../storage/blob-text.ts';
import { duplicateKey } from './duplicate-keys.ts';

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
    // GitHub's webhooks send a form by default: the setting to change is on GitHub's side.
    const where = ctx.path.endsWith('/webhooks/github') ? '; in the webhook\'s settings on GitHub, set "Content type" to application/json' : '';
    throw new AppError('unsupported_media_type', `Request bodies must be JSON (Content-Type: application/json), not ${ctx.get('content-type') || 'untyped'}${where}`, {
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
 * co-body reads the bytes (raw-body with its limits, inflation); they must be UTF-8, which is checked
 * before they are decoded (a decoder would put U+FFFD in place of bad bytes, and the service would
 * store those), and parsed with co-body's parser, which refuses `__proto__` (parseJsonText). It is
 * called directly because koa-body, around it, brought a schema library and a multipart parser into
 * every start for options checked once. With `keepRaw` the body is only read, into `rawBody`: the
 * endpoint verifies that text (a signature) before it is parsed.
 */
export function jsonBodyParser(limit: number, keepRaw = false): Middleware {
  return async (ctx, next) => {
    ctx.state.bodyLimit = limit;
    if (PARSED_METHODS.has(ctx.method) && isJson(ctx)) {
      // encoding null: raw-body gives the bytes, undecoded.
      const bytes = (await coBody.text(ctx, { encoding: null, limit } as unknown as coBody.Options)) as unknown as Buffer;
      const text = utf8Body(bytes);
      if (keepRaw) ctx.request.rawBody = text;
      else ctx.request.body = parseJsonText(text);
    }
    // Decoding and parsing megabytes of JSON takes tens of milliseconds, and handling the request
    // would follow in the same turn of the event loop: let other requests in between.
    // Twice: the body ends in the poll phase, and one setImmediate would run before the next poll.
    if ((ctx.request.length ?? 0) > YIELD_AFTER_BYTES) await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
    await next();
  };
}

const YIELD_AFTER_BYTES = 256 * 1024;

/** The body's bytes as text, without a byte order mark; refused, naming the place, when they are not UTF-8. */
function utf8Body(bytes: Buffer): string {
  const bad = notUtf8(bytes);
  if (bad !== null) {
    throw new AppError('invalid_json', `The request body is not UTF-8: byte ${byteName(bad.value)} at offset ${bad.byte} (line ${bad.line}) starts no UTF-8 character; send the body encoded as UTF-8`, { field: 'body', offset: bad.byte });
  }
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** co-body's strict JSON: an object or an array (an empty body is an empty object). */
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*(\[|\{)/;

/**
 * A body's text parsed as co-body parses JSON (its rules and its parser, which refuses `__proto__`
 * and `constructor.prototype` keys); for an endpoint that kept the raw text to verify it first, an
 * unsigned body costs no parsing. JSON that is no object or array (`"x"`, `null`, `12`) is valid JSON,
 * and refused as the wrong shape, not as bad JSON.
 */
export function parseJsonText(text: string): unknown {
  if (text === '') return {};
  const strict = STRICT_JSON.test(text);
  let parsed: unknown;
  try {
    parsed = bourne.parse(text, { protoAction: 'error' });
  } catch (err) {
    const message = (err as Error).message;
    if (/prototype property/.test(message)) {
      throw new AppError('invalid_json', 'The request body holds a "__proto__" key (or "constructor" with "prototype"), which is not accepted: such keys can change how a server reads an object; rename them', { field: 'body' });
    }
    throw new AppError('invalid_json', `The request body is not valid JSON: ${message}`, { field: 'body' });
  }
  // Only objects hold keys: a body that is no object or array is refused below, as the wrong shape.
  const twice = strict ? duplicateKey(text) : null;
  if (twice !== null) {
    const field = ['body', ...twice.path.map((p) => (typeof p === 'string' ? p.slice(0, 60) : p))].join('/');
    throw new AppError('invalid_json', `The request body gives the key ${JSON.stringify(twice.key.slice(0, 60))} twice in one object (${field}); JSON readers differ on which one counts, so send it once`, { field, key: twice.key.slice(0, 60) });
  }
  if (!strict) {
    throw invalid('body', `must be a JSON object ({ … }), not ${parsed === null ? 'null' : typeof parsed === 'string' ? 'a string' : typeof parsed === 'number' ? 'a number' : 'true or false'}`);
  }
  return parsed;
}
