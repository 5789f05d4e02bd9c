import { randomUUID } from 'node:crypto';

/** A source of new ids (nodes, publish requests); tests may pass a predictable one. */
export type NewId = () => string;
export const randomId: NewId = () => randomUUID();

/**
 * Issues `updatedAt` stamps. Stamps strictly increase across the whole process, so two writes in the
 * same millisecond still get distinct stamps and every returned stamp works as the next `expectedUpdatedAt`.
 */
export class Clock {
  private last = 0;
  /** The latest stamp observed in the form toISOString() writes (`2026-01-02T03:04:05.678Z`). */
  private latestWritten = '';

  constructor(private readonly now: () => number = Date.now) {}

  /** Never issue a stamp at or below one already stored (after a restart or a clock step back). */
  observe(iso: string): void {
    // Stamps in the form the service writes order as strings do: one not after the latest needs no
    // parsing (a start observes every stamp of every version; parsing each held a start of 30,000
    // files 65 ms). Only dates valid as written take the shortcut: Date.parse moves "02-31" to March.
    if (iso <= this.latestWritten && iso.length === 24 && WRITTEN.test(iso)) return;
    const ms = Date.parse(iso);
    if (!Number.isFinite(ms)) return;
    if (ms > this.last) this.last = ms;
    if (iso > this.latestWritten && new Date(ms).toISOString() === iso) this.latestWritten = iso;
  }

  /** The current time, without issuing a stamp (for what is dated but not stamped, e.g. a PDF's date). */
  time(): string {
    return new Date(this.now()).toISOString();
  }

  stamp(): string {
    this.last = Math.max(this.now(), this.last + 1);
    return new Date(this.last).toISOString();
  }
}

/** A stamp as toISOString() writes it, on a day every month has (so no parser can move it to another). */
const WRITTEN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|1\d|2[0-8])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;
