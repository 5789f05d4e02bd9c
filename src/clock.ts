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

  stamp(): string {
    this.last = Math.max(this.now(), this.last + 1);
    return new Date(this.last).toISOString();
  }
}
