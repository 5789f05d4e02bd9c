import type { Middleware } from 'koa';
import { AppError, notFound } from '../errors.ts';
import { requestLog } from './logging.ts';
import type { Challenge } from '../oauth/resource.ts';

/** Turns anything thrown below into an AppError: the one place where failures become HTTP answers. */
export function toAppError(err: unknown, bodyLimit: number): AppError | null {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; type?: string; message?: string };
  if (e.status === 413 || e.type === 'entity.too.large') {
    return new AppError('payload_too_large', `The request body is larger than the limit of ${bodyLimit} bytes`, { limit: bodyLimit });
  }
  // Everything the body parser refuses as malformed (bad JSON, a forbidden "__proto__" key, a body
  // that does not decompress as its Content-Encoding says) is the caller's JSON problem.
  const code = (err as { code?: string }).code ?? '';
  // zlib's codes (gzip, deflate) start with Z_, brotli's with ERR__ (two underscores; Node's own have one).
  if (code.startsWith('Z_') || code.startsWith('ERR__')) {
    return new AppError('invalid_json', `The request body does not decompress as its Content-Encoding says (${e.message})`, { field: 'header/content-encoding' });
  }
  if (e.type === 'entity.parse.failed' || e.status === 400) {
    return new AppError('invalid_json', `The request body is not valid JSON: ${e.message}`, { field: 'body' });
  }
  if (e.status === 415 || e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return new AppError('unsupported_media_type', `The request body's encoding is not supported: ${e.message} ${e.type === 'charset.unsupported' ? '' : ' (send it gzip, deflate or br compressed, or as it is)'}`, { field: e.type === 'charset.unsupported' ? 'header/content-type' : 'header/content-encoding' });
  }
  return null;
}

/**
 * The Bearer challenge (RFC 6750 §3) of a 401 or 403: where the client finds how to sign in
 * (`resource_metadata`, RFC 9728) and which scopes to ask for, which is what makes OAuth clients
 * start sign-in, or ask again for more scope.
 */
export function wwwAuthenticate(err: AppError, challenge: Challenge | undefined, sentCredential: boolean): string | null {
  if (err.code !== 'unauthorized' && err.code !== 'insufficient_scope') return null;
  const params = ['realm="help-content"'];
  if (err.code === 'insufficient_scope') params.push('error="insufficient_scope"');
  else if (sentCredential) params.push('error="invalid_token"');
  if (challenge) params.push(`scope="${challenge.scope}"`, `resource_metadata="${challenge.resourceMetadata}"`);
  return `Bearer ${params.join(', ')}`;
}

/** The error boundary: every error answers `{ error: { code, message, ...data } }`; unexpected ones are logged and hidden. */
export function errorBoundary(bodyLimit: number): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      // A handler that wrote the response itself (ctx.respond = false, the tool server) has answered.
      if (ctx.respond !== false && (ctx.body === undefined || ctx.body === null)) {
        if (ctx.status === 404) throw notFound('route', `No endpoint ${ctx.method} ${ctx.path}`);
        // The router answers these without a body; give them the envelope and the methods the path takes.
        if (ctx.status === 405 || ctx.status === 501) {
          const allow = ctx.response.get('Allow');
          throw new AppError('method_not_allowed', `${ctx.path} does not take ${ctx.method}${allow ? `; it takes ${allow}` : ''}`, { allow: allow ? allow.split(/,\s*/) : [] });
        }
      }
    } catch (err) {
      let appError = toAppError(err, (ctx.state.bodyLimit as number | undefined) ?? bodyLimit);
      if (appError === null) {
        requestLog(ctx).error({ err }, 'unexpected error');
        appError = new AppError('internal_error', 'Something went wrong on our side; the request id identifies it in the log');
      } else if (appError.status >= 500 && appError.cause !== undefined) {
        requestLog(ctx).error({ err: appError.cause, code: appError.code }, appError.message);
      }
      const challenge = wwwAuthenticate(appError, ctx.state.challenge as Challenge | undefined, ctx.get('authorization') !== '');
      if (challenge) ctx.set('WWW-Authenticate', challenge);
      if (typeof appError.data.retryAfter === 'number') ctx.set('Retry-After', String(appError.data.retryAfter));
      // A body refused for its size may be left partly unread on the connection: the next request there would start inside it.
      if (appError.code === 'payload_too_large') ctx.set('Connection', 'close');
      ctx.status = appError.status;
      ctx.body = { error: { code: appError.code, message: appError.message, ...appError.data, requestId: ctx.state.requestId } };
    }
  };
}
