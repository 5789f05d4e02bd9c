import { AppError } from '../errors.ts';

/** "Only if unchanged since": from `expectedUpdatedAt` (an ISO stamp) or `If-Unmodified-Since` (ISO or HTTP-date). */
export interface Precondition {
  readonly at: number;
  /** HTTP-dates carry whole seconds, so the stored stamp is compared at that precision. */
  readonly precision: 'ms' | 's';
  readonly source: 'expectedUpdatedAt' | 'If-Unmodified-Since';
  readonly raw: string;
}

/** Refuses the write when the resource changed after the caller's stamp (409 `stale_write`). */
export function assertUnchanged(what: string, current: string | null, pre: Precondition | null): void {
  if (pre === null) return;
  if (current === null) {
    throw new AppError('stale_write', `${what} does not exist: it was deleted since, or never made (${pre.source} was ${pre.raw})`, { currentUpdatedAt: null, expectedUpdatedAt: pre.raw });
  }
  let ms = Date.parse(current);
  if (pre.precision === 's') ms = Math.floor(ms / 1000) * 1000;
  if (ms > pre.at) {
    throw new AppError('stale_write', `${what} changed at ${current}, after ${pre.source} ${pre.raw}; read it again and retry`, {
      currentUpdatedAt: current,
      expectedUpdatedAt: pre.raw,
    });
  }
}
