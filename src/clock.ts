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

  constructor(private readonly now: () => number = Date.now) {}

  /** Never issue a stamp at or below one already stored (after a restart or a clock step back). */
  observe(iso: string): void {
    const ms = Date.parse(iso);
    if (Number.isFinite(ms) && ms > this.last) this.last = ms;
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
