/**
 * Runs the judged set through the three rankings — ours (SearchIndex.ranked), the anchor (MiniSearch)
 * and document order (SearchIndex.search, the floor) — and scores them: MRR@10, hit@10 and the share
 * of queries answered with nothing at all (bench/README.md, Search quality).
 */
import type { AnchorAnswer } from './anchor.ts';
import type { Corpus } from './corpus.ts';
import type { JudgedQuery } from './judged.ts';

export const SYSTEMS = ['ours', 'anchor', 'document'] as const;
export type System = (typeof SYSTEMS)[number];
/** Ranks past this do not count (MRR@10, hit@10). */
export const CUTOFF = 10;

export interface Judged {
  query: JudgedQuery;
  /** Rank (1-based) of the first relevant page within the first CUTOFF, or null. */
  rank: Record<System, number | null>;
  /** Whether the answer held no page at all. */
  empty: Record<System, boolean>;
  /** Milliseconds the call took. */
  ms: Record<System, number>;
  /** Our first three hits' titles. */
  oursTop: string[];
}

export interface Scores {
  n: number;
  mrr: number;
  hit: number;
  zero: number;
}

export interface Measured {
  judged: Judged[];
  /** Queries our ranking threw on (counted as answering nothing), and the first message. */
  errors: number;
  firstError?: string;
}

const rankOf = (slugs: readonly string[], relevant: readonly string[]) => {
  const i = slugs.slice(0, CUTOFF).findIndex((s) => relevant.includes(s));
  return i < 0 ? null : i + 1;
};

/** Every query through ours and document order, in the set's order, beside the anchor's answers (anchorAnswers()). */
export function measure(corpus: Corpus, anchor: readonly AnchorAnswer[], queries: readonly JudgedQuery[]): Measured {
  const judged: Judged[] = [];
  let errors = 0;
  let firstError: string | undefined;
  for (const [i, query] of queries.entries()) {
    const state = corpus.states.get(query.version)!;
    let t = performance.now();
    let ours: Array<{ slug: string; title: string }> = [];
    try {
      ours = corpus.index.ranked(state, query.language, query.q, { limit: CUTOFF, offset: 0 }).hits;
    } catch (err) {
      errors++;
      firstError ??= (err as Error).stack ?? String(err);
    }
    const oursMs = performance.now() - t;
    t = performance.now();
    const document = corpus.index.search(state, query.language, query.q).hits;
    const documentMs = performance.now() - t;
    const oursSlugs = ours.map((h) => h.slug);
    judged.push({
      query,
      rank: { ours: rankOf(oursSlugs, query.relevant), anchor: rankOf(anchor[i].slugs, query.relevant), document: rankOf(document.map((h) => h.slug), query.relevant) },
      empty: { ours: ours.length === 0, anchor: anchor[i].empty, document: document.length === 0 },
      ms: { ours: oursMs, anchor: anchor[i].ms, document: documentMs },
      oursTop: ours.slice(0, 3).map((h) => h.title),
    });
  }
  return { judged, errors, firstError };
}

/** MRR@10, hit@10 and the zero-result rate of one system over some judged queries. */
export function scores(judged: readonly Judged[], system: System): Scores {
  let rr = 0;
  let hits = 0;
  let zero = 0;
  for (const j of judged) {
    const r = j.rank[system];
    if (r !== null) {
      rr += 1 / r;
      hits++;
    }
    if (j.empty[system]) zero++;
  }
  const n = judged.length;
  return { n, mrr: n ? rr / n : Number.NaN, hit: n ? hits / n : Number.NaN, zero: n ? zero / n : Number.NaN };
}

/** The queries where ours ranks the relevant page worse than the anchor, the largest loss (in reciprocal rank) first. */
export function misses(judged: readonly Judged[]): Judged[] {
  const rr = (r: number | null) => (r === null ? 0 : 1 / r);
  return judged
    .map((j, i) => ({ j, i, loss: rr(j.rank.anchor) - rr(j.rank.ours) }))
    .filter((m) => m.loss > 0)
    .sort((a, b) => b.loss - a.loss || a.i - b.i)
    .map((m) => m.j);
}
