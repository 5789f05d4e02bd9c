/**
 * Optimal-string-alignment distance (Levenshtein plus the transposition of two neighbours, the most
 * common typo), bounded: as soon as every way on is over `max`, it stops and says max + 1. Rows are
 * reused between calls: no allocation per term compared.
 */
let prev2 = new Int32Array(64);
let prev = new Int32Array(64);
let row = new Int32Array(64);

export function boundedDistance(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (m + 1 > row.length) {
    prev2 = new Int32Array(m + 1);
    prev = new Int32Array(m + 1);
    row = new Int32Array(m + 1);
  }
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    row[0] = i;
    let best = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) d = Math.min(d, prev2[j - 2] + 1);
      row[j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = row;
    row = t;
  }
  return prev[m];
}
