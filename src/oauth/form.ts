import type { Context } from 'koa';
import { AppError } from '../errors.ts';

/** Sign-in forms are a few hundred bytes; anything much larger is not one. */
const FORM_LIMIT = 16 * 1024;

/** Reads an `application/x-www-form-urlencoded` body of at most 16 KB. */
export async function readForm(ctx: Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new AppError('unsupported_media_type', `The sign-in forms send application/x-www-form-urlencoded, not ${ctx.get('content-type') || 'untyped'}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT) throw new AppError('payload_too_large', `A sign-in form is at most ${FORM_LIMIT} bytes`, { limit: FORM_LIMIT });
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
