import { LRUCache } from 'lru-cache';

/**
 * What each document gains from a term (its BM25F sum over the fields, before the weight of the kind
 * of match), kept between searches, with the term's documents in order of that gain: a term's
 * impacts depend on the index alone, not on the query, so a search that finds them kept reads its
 * best documents first and looks up any other document's gain in one step (rank-index.ts, top()).
 * Kept for the terms of every index alike, the least recently used dropped first, within a budget:
 * a change to an index makes its kept impacts stale (the generation they were made in no longer
 * matches: lengths and rarities move with every document), and they are made again when next needed.
 */
export interface Impacts {
  /** The index's generation they were made in (RankIndex bumps it on every change). */
  generation: number;
  /** Per posting, in the term's posting order (by document number); null for a dense term (its gains are in `dense`). */
  values: Float32Array | null;
  /** The term's documents, the greatest gain first (ties: the lower number first). */
  order: Int32Array;
  /** The gains in that order. */
  sorted: Float32Array;
  /**
   * For a term in many documents (DENSE): document number → its gain, -Infinity for a document
   * without the term, and its documents as a set of bits (word n >>> 5, bit n & 31). A rarer term's
   * gain is found by bisecting its postings: arrays over every document for each rare word of a
   * long query would cost more than its postings.
   */
  dense: { gain: Float32Array; bits: Uint32Array } | null;
}

/** A term is dense when it is in at least one document in this many. */
export const DENSE = 16;

/**
 * Bytes of impacts kept by default, over every index (keepImpactsWithin() sets another): a term in
 * every one of 10,000 documents takes about 120 KB, and the 190 terms of the 116 queries of the
 * bench's ranked rows (P2e, P2f) on 10,000 nodes in three languages about 22 MB.
 */
export const IMPACTS_BYTES = 64 * 1024 * 1024;

let maxBytes = IMPACTS_BYTES;
let kept = lruOf(maxBytes);

function lruOf(bytes: number): LRUCache<string, Impacts> | null {
  return bytes > 0 ? new LRUCache<string, Impacts>({ maxSize: bytes, sizeCalculation: (v) => Math.max(1, bytesOf(v)) }) : null;
}

/** Bytes of impacts kept now. */
export const keptImpactsBytes = (): number => kept?.calculatedSize ?? 0;

/** Keeps at most `bytes` of impacts from now on (0: none, each search makes those it needs), dropping what is kept. */
export function keepImpactsWithin(bytes: number): void {
  maxBytes = bytes;
  kept = lruOf(bytes);
}

/** The impacts of term `term` of index number `index` made in `generation`, or undefined. */
export function keptImpacts(index: number, term: number, generation: number): Impacts | undefined {
  const found = kept?.get(`${index}:${term}`);
  return found !== undefined && found.generation === generation ? found : undefined;
}

export function keepImpacts(index: number, term: number, impacts: Impacts): void {
  // Impacts larger than a quarter of the budget (an index of millions of documents) would push out everything else; they are made for each search.
  if (kept !== null && bytesOf(impacts) <= maxBytes / 4) kept.set(`${index}:${term}`, impacts);
}

function bytesOf(v: Impacts): number {
  return (v.values?.byteLength ?? 0) + v.order.byteLength + v.sorted.byteLength + (v.dense === null ? 0 : v.dense.gain.byteLength + v.dense.bits.byteLength);
}

let serial = 0;
/** A number for a new index, naming its kept impacts. */
export const nextIndexNumber = (): number => ++serial;
