import type { Context } from 'koa';
import type { Precondition } from '../domain/preconditions.ts';
import { AppError, invalid } from '../errors.ts';

/** RFC 9110's preferred HTTP-date (IMF-fixdate). */
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * The write's precondition: `expectedUpdatedAt` from the body, else the `If-Unmodified-Since` header
 * (an ISO stamp, compared to the millisecond, or an HTTP-date, compared to the second).
 */
export function readPrecondition(ctx: Context, expectedUpdatedAt: string | undefined): Precondition | null {
  if (expectedUpdatedAt !== undefined) return expectedPrecondition(expectedUpdatedAt, 'body/expectedUpdatedAt');
  const header = ctx.get('if-unmodified-since').trim();
  if (header === '') return null;
  const iso = ISO.test(header);
  const at = iso || HTTP_DATE.test(header) ? Date.parse(header) : NaN;
  if (Number.isNaN(at)) throw invalid('header/if-unmodified-since', 'must be an ISO timestamp or an HTTP-date (e.g. Sun, 06 Nov 1994 08:49:37 GMT)');
  return { at, precision: iso ? 'ms' : 's', source: 'If-Unmodified-Since', raw: header };
}

/**
 * Refuses a write that carries an entity-tag condition. The service's ETags are weak (they validate
 * cached reads), and If-Match compares strong ones (RFC 9110 §13.1.1), so no tag could match;
 * going ahead without the check would lose the update the client meant to guard against.
 */
export function refuseEntityTagConditions(ctx: Context): void {
  for (const header of ['If-Match', 'If-None-Match']) {
    const value = ctx.get(header).trim();
    if (value === '') continue;
    throw new AppError('precondition_failed', `${header} is not evaluated on writes here (the service's entity tags are weak, made for caching reads), so nothing was written: send If-Unmodified-Since with the updatedAt you read, or expectedUpdatedAt in the body`, {
      field: `header/${header.toLowerCase()}`,
    });
  }
}

/** The precondition `expectedUpdatedAt` sets (from a request body, or a tool's arguments); `field` names it in errors. */
export function expectedPrecondition(expectedUpdatedAt: string, field: string): Precondition {
  const at = Date.parse(expectedUpdatedAt);
  // The schema's date-time format allows a leap second (":60"), which Date cannot represent.
  if (Number.isNaN(at)) throw invalid(field, 'must be an ISO timestamp such as 2026-01-31T12:00:00.000Z');
  return { at, precision: 'ms', source: 'expectedUpdatedAt', raw: expectedUpdatedAt };
}
