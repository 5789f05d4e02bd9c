/**
 * A language's indexes as one buffer, for a snapshot or a worker's answer: the term index's bytes
 * (TermIndex.save()), then the ranking's (RankIndex.save()), after the first's length.
 */
export function packIndexes(terms: Uint8Array, ranked: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + terms.length + ranked.length);
  new DataView(out.buffer).setUint32(0, terms.length);
  out.set(terms, 4);
  out.set(ranked, 4 + terms.length);
  return out;
}

/** The two parts packIndexes() wrote; null when `bytes` cannot be them. */
export function unpackIndexes(bytes: Uint8Array): { terms: Uint8Array; ranked: Uint8Array } | null {
  if (bytes.length < 4) return null;
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
  if (4 + length > bytes.length) return null;
  return { terms: bytes.subarray(4, 4 + length), ranked: bytes.subarray(4 + length) };
}
