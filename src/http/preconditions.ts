import type { Context } from 'koa';
import type { Precondition } from '../domain/preconditions.ts';
import { invalid } from '../errors.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * The write's precondition: `expectedUpdatedAt` from the body, else the `If-Unmodified-Since` header
 * (an ISO stamp, compared to the millisecond, or an HTTP-date, compared to the second).
 */
export function readPrecondition(ctx: Context, expectedUpdatedAt: string | undefined): Precondition | null {
  if (expectedUpdatedAt !== undefined) {
    return { at: Date.parse(expectedUpdatedAt), precision: 'ms', source: 'expectedUpdatedAt', raw: expectedUpdatedAt };
  }
  const header = ctx.get('if-unmodified-since').trim();
  if (header === '') return null;
  const at = Date.parse(header);
  if (Number.isNaN(at)) throw invalid('header/if-unmodified-since', 'must be an ISO timestamp or an HTTP-date');
  return { at, precision: ISO.test(header) ? 'ms' : 's', source: 'If-Unmodified-Since', raw: header };
}
