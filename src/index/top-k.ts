/**
 * The k best documents of a ranking (highest key; ties: the lower document number), in a binary heap
 * with the worst on top: a document that cannot enter costs one comparison.
 */
export class TopK {
  private readonly ns: Int32Array;
  private readonly keys: Float64Array;
  size = 0;

  constructor(readonly k: number) {
    this.ns = new Int32Array(Math.max(1, k));
    this.keys = new Float64Array(Math.max(1, k));
  }

  /** The key a document must beat to enter once the heap is full (-Infinity before). */
  get floor(): number {
    return this.size < this.k ? -Infinity : this.keys[0];
  }

  /** Whether a is worse than b. */
  private worse(i: number, j: number): boolean {
    return this.keys[i] < this.keys[j] || (this.keys[i] === this.keys[j] && this.ns[i] > this.ns[j]);
  }

  offer(n: number, key: number): void {
    if (this.size < this.k) {
      this.ns[this.size] = n;
      this.keys[this.size] = key;
      this.up(this.size++);
      return;
    }
    if (key < this.keys[0] || (key === this.keys[0] && n > this.ns[0])) return;
    this.ns[0] = n;
    this.keys[0] = key;
    this.down(0);
  }

  /**
   * The documents, best first, emptying the heap: the worst is taken off the top until none is left,
   * each into its place from the end (sorting them with a comparing function took about 20 µs of a
   * search for its 100 documents here).
   */
  drain(): Array<{ n: number; key: number }> {
    const out = new Array<{ n: number; key: number }>(this.size);
    while (this.size > 0) {
      const last = --this.size;
      out[last] = { n: this.ns[0], key: this.keys[0] };
      this.ns[0] = this.ns[last];
      this.keys[0] = this.keys[last];
      this.down(0);
    }
    return out;
  }

  private swap(i: number, j: number): void {
    const n = this.ns[i];
    this.ns[i] = this.ns[j];
    this.ns[j] = n;
    const key = this.keys[i];
    this.keys[i] = this.keys[j];
    this.keys[j] = key;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < this.size && this.worse(l, w)) w = l;
      if (r < this.size && this.worse(r, w)) w = r;
      if (w === i) return;
      this.swap(i, w);
      i = w;
    }
  }
}
