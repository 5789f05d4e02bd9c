/**
 * Counts attempts per key (an account name, a client address) in fixed windows. `take` answers how
 * many seconds to wait when the key has used up its window, or 0 when the attempt may go ahead.
 * Memory stays bounded: windows that have ended are dropped as new ones are opened.
 */
const MAX_KEYS = 10_000;

export class RateLimit {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  constructor(
    readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts an attempt; answers the seconds until the next one may be made (0: go ahead). */
  take(key: string): number {
    const wait = this.check(key);
    if (wait > 0) return wait;
    const now = this.now();
    const w = this.windows.get(key);
    if (w && w.endsAt > now) w.count++;
    else this.open(key, now);
    return 0;
  }

  /** The seconds to wait before `key` may try again, without counting an attempt. */
  check(key: string): number {
    const w = this.windows.get(key);
    const now = this.now();
    if (!w || w.endsAt <= now || w.count < this.limit) return 0;
    return Math.max(1, Math.ceil((w.endsAt - now) / 1000));
  }

  /**
   * Counts an attempt before its outcome is known, when it may go ahead (answers 0); `release` hands
   * it back when it succeeds. Attempts evaluated at the same time then count each other, so no more
   * than `limit` of them are evaluated per window, however many arrive at once.
   */
  reserve(key: string): number {
    return this.take(key);
  }

  /** Gives back an attempt counted by `reserve` (one that succeeded), within the same window. */
  release(key: string): void {
    const w = this.windows.get(key);
    if (w && w.endsAt > this.now() && w.count > 0) w.count--;
  }

  private open(key: string, now: number): void {
    if (this.windows.size >= MAX_KEYS) {
      for (const [k, w] of this.windows) if (w.endsAt <= now) this.windows.delete(k);
      // Still full (many addresses at once): the oldest window goes first.
      if (this.windows.size >= MAX_KEYS) this.windows.delete(this.windows.keys().next().value!);
    }
    this.windows.set(key, { count: 1, endsAt: now + this.windowMs });
  }
}
