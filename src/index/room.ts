/**
 * A typed array a search uses and the next one uses again, grown when a search needs more. A typed
 * array over 64 bytes is allocated outside V8's heap, at about a microsecond or more each here: made
 * anew for every search (and every snippet), such arrays cost 5–9 % of a search's time. Searches run
 * synchronously, so one room serves them all; what a room gives is valid until it is taken again.
 */
export class Room<T extends Int32Array | Uint32Array | Uint8Array> {
  private array: T;

  constructor(private readonly make: (length: number) => T) {
    this.array = make(1024);
  }

  /** `n` elements, as the last user left them. */
  take(n: number): T {
    if (this.array.length < n) this.array = this.make(Math.max(n, 2 * this.array.length));
    return this.array.subarray(0, n) as T;
  }

  /** `n` elements, all 0. */
  cleared(n: number): T {
    const out = this.take(n);
    out.fill(0);
    return out;
  }
}
