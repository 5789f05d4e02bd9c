import assert from 'node:assert/strict';
import { ERROR_CATALOGUE } from '../../src/errors.ts';

/** An ISO 8601 UTC timestamp with milliseconds, as the service writes every stamp. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Whether a value is a string in the ISO_MS form. */
export const isIso = (value: unknown): boolean => typeof value === 'string' && ISO_MS.test(value);

/** The parts of an answer assertError looks at (a TestResponse has them all). */
export interface ErrorAnswer {
  status: number;
  body: any;
  text?: string;
}

/**
 * Asserts the JSON error envelope: the status, the code (one of the catalogue, with that status),
 * a non-empty message and the request id; each entry of `data` must equal the error's field of
 * that name. Returns the error object for further checks.
 */
export function assertError(res: ErrorAnswer, status: number, code: string, data: Record<string, unknown> = {}): any {
  const shown = (res.text ?? JSON.stringify(res.body) ?? '').slice(0, 2000);
  assert.equal(res.status, status, shown);
  assert.equal(res.body?.error?.code, code, shown);
  assert.equal(typeof res.body.error.message, 'string', shown);
  assert.ok(res.body.error.message.length > 0, `an empty error message in ${shown}`);
  assert.equal(typeof res.body.error.requestId, 'string', shown);
  assert.ok(Object.hasOwn(ERROR_CATALOGUE, code), `${code} is in the error catalogue`);
  assert.equal(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status, status, `the catalogue's status for ${code}`);
  for (const [k, v] of Object.entries(data)) assert.deepEqual(res.body.error[k], v, `error.${k} in ${shown}`);
  return res.body.error;
}

/** The parameters of a Bearer challenge (`WWW-Authenticate`), without the realm: what a client acts on. */
export function challengeOf(headers: Headers): Record<string, string> {
  const header = headers.get('www-authenticate') ?? '';
  assert.match(header, /^Bearer /, `a Bearer challenge, not ${JSON.stringify(header)}`);
  const params: Record<string, string> = {};
  for (const m of header.slice(7).matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) if (m[1] !== 'realm') params[m[1]] = m[2].replace(/\\(.)/g, '$1');
  return params;
}
