/**
 * The terms of an index in code-unit order, for prefix lookups: the terms that start with a prefix
 * are one run of a sorted array, found by binary search.
 *
 * A radix tree (MiniSearch's SearchableMap, used before) inserts in time proportional to the number
 * of children of a node, and text in scripts written without spaces gives its root tens of thousands
 * of children (one per distinct first character of the character pairs): indexing 200,000 random
 * Chinese characters took 13 s. Here the terms are kept in sorted runs, as a log-structured merge
 * tree does: new terms collect in a small buffer, which is sorted into a run when full, and two runs
 * are merged (a linear pass, no sorting) when the newer is about as long as the older, up to
 * MAX_MERGED terms: no single step does more than a few milliseconds of work (merging two runs of
 * half a million terms takes 160 ms, sorting a million 500 ms). So n insertions cost O(n log n), and
 * a lookup is a binary search in each of about n / MAX_MERGED runs. Terms are removed lazily: the
 * owner says which are still live, and prune() drops the rest.
 */
export class SortedTerms {
  /** Sorted runs, longest first. */
  private runs: string[][] = [];
  /** Terms not yet in a run, unsorted. */
  private buffer: string[] = [];

  /** `live(term)`: whether the owner still holds the term; prune() keeps only those. */
  constructor(private readonly live: (term: string) => boolean) {}

  /** Terms already in code-unit order (as all() gives them), e.g. from a saved index. */
  static fromSorted(terms: string[], live: (term: string) => boolean): SortedTerms {
    const out = new SortedTerms(live);
    if (terms.length > 0) out.runs.push(terms);
    return out;
  }

  /** Adds a term the owner did not hold (each live term is added once). */
  add(term: string): void {
    this.buffer.push(term);
    if (this.buffer.length >= BUFFER) this.flush();
  }

  /** Sorts the buffer into a run, merging runs of about equal length. */
  private flush(): void {
    // Default sort() compares UTF-16 code units, the order prefix runs need.
    this.runs.push(this.buffer.sort());
    this.buffer = [];
    const runs = this.runs;
    while (runs.length > 1 && runs[runs.length - 1].length * 2 >= runs[runs.length - 2].length && runs[runs.length - 1].length + runs[runs.length - 2].length <= MAX_MERGED) {
      const newer = runs.pop()!;
      runs.push(merge(runs.pop()!, newer));
    }
  }

  /** Every live term starting with `prefix`. */
  *atPrefix(prefix: string): Generator<string> {
    // A version of a few thousand terms never fills the buffer, and every lookup would scan all of it.
    if (this.buffer.length > SCANNED) this.flush();
    for (const run of this.runs) {
      for (let i = lowerBound(run, prefix); i < run.length && run[i].startsWith(prefix); i++) if (this.live(run[i])) yield run[i];
    }
    for (const term of this.buffer) if (term.startsWith(prefix) && this.live(term)) yield term;
  }

  /**
   * All live terms in one sorted array (for saving; the runs stay as they are), merged pairwise,
   * shortest first (each term is copied about log(runs) times), with `pause()` now and then.
   */
  async all(pause: () => Promise<void>): Promise<string[]> {
    const parts = [...this.runs, [...this.buffer].sort()].sort((a, b) => a.length - b.length);
    while (parts.length > 1) {
      parts.push(await mergeInSlices(parts.shift()!, parts.shift()!, pause));
      parts.sort((a, b) => a.length - b.length);
    }
    const out: string[] = [];
    for (const [i, term] of (parts[0] ?? []).entries()) {
      if ((i & 8191) === 8191) await pause();
      if (this.live(term)) out.push(term);
    }
    return out;
  }

  /** Drops dead terms (after the owner removed many). */
  prune(): void {
    this.runs = this.runs.map((run) => run.filter(this.live)).filter((run) => run.length > 0);
    this.buffer = this.buffer.filter(this.live);
  }
}

/** The longest run made by merging as terms are added (about 10 ms of work to merge). */
const MAX_MERGED = 64 * 1024;

/** The most unsorted terms a lookup scans; more are sorted into a run first (a few hundred µs, once). */
const SCANNED = 64;

/** Terms collected before they are sorted into a run: sorting this many takes about a millisecond. */
const BUFFER = 4096;

/** Two sorted runs as one. */
function merge(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = new Array(a.length + b.length);
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out[n++] = j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++];
  return out;
}

/** merge(), with `pause()` every 32 K terms. */
async function mergeInSlices(a: readonly string[], b: readonly string[], pause: () => Promise<void>): Promise<string[]> {
  const out: string[] = new Array(a.length + b.length);
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    out[n++] = j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++];
    if ((n & 32767) === 0) await pause();
  }
  return out;
}

/** The first index whose term is not less than `key` in sorted `terms`. */
export function lowerBound(terms: readonly string[], key: string): number {
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
