import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { AppError } from '../errors.ts';

/**
 * JSON bodies only, up to `limit` bytes. A body of another type is refused with 415 rather than
 * silently read as empty.
 */
export function jsonBody(limit: number): Middleware[] {
  const refuseOtherTypes: Middleware = async (ctx, next) => {
    const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
    if (hasBody && !ctx.is('application/json', '+json')) {
      throw new AppError('unsupported_media_type', `Request bodies must be JSON (Content-Type: application/json), not ${ctx.get('content-type') || 'untyped'}`, {
        contentType: ctx.get('content-type') || null,
      });
    }
    await next();
  };
  const parse = koaBody({ json: true, jsonStrict: true, jsonLimit: limit, urlencoded: false, text: false, multipart: false, parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE] }) as unknown as Middleware;
  return [refuseOtherTypes, parse];
}
