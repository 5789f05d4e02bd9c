/**
 * P2e and P2f: the search by relevance (`order=relevance`) over HTTP, beside P2's search in document
 * order. P2e is the time a reader waits for a new query's answer: one request at a time, each a new
 * URL (a cache-busting parameter, as P2c's), ranked and document order taking turns on the same
 * queries so that a machine slowing down meanwhile weighs on both; its p95 against document order's.
 * P2f is P2c for the ranked search: every request a new URL at the suite's connections, requests/s.
 */
import { request } from './lib/http.ts';
import type { LoadOptions, LoadResult } from './lib/load.ts';
import type { Row } from './lib/table.ts';
import { median, now, percentile, progress, round } from './lib/util.ts';

export interface RankedLatencyInput {
  origin: string;
  pid: number;
  /** The version's API path (…/versions/v1). */
  api: string;
  shape: string;
  nodes: number;
  queries: ReadonlyArray<{ language: string; q: string }>;
  duration: number;
  warmup: number;
  connections: number;
  /** P2c's run (document order, every request a new URL), the baseline of P2f, when it ran. */
  documentFresh: LoadResult | null;
  /** The same queries in process (SearchIndex.ranked, no HTTP), when P2's probe timed them: what of P2f's time is the query's. */
  inProcess: { timed: number; mean: number; p50: number; p99: number } | null;
  load(what: string, opts: LoadOptions): Promise<LoadResult>;
}

/** The shape whose p95 the targets judge: a help site's, not the flat set's even tree and bodies. */
const JUDGED_SHAPE = 'realistic';
/** P2f's target holds at this size of the flat shape; smaller sets report the figure. */
const FULL_NODES = 10_000;

/** The queries, the languages taking turns: a run too short for all of them still has every language. */
function byTurns<T extends { language: string }>(queries: readonly T[]): T[] {
  const by = new Map<string, T[]>();
  for (const q of queries) by.set(q.language, [...(by.get(q.language) ?? []), q]);
  const out: T[] = [];
  for (let i = 0; out.length < queries.length; i++) for (const list of by.values()) if (i < list.length) out.push(list[i]);
  return out;
}

const inProcessNote = (t: RankedLatencyInput['inProcess']) => (t === null ? '' : `; in process (SearchIndex.ranked, no HTTP) p50 ${round(t.p50, 3)} ms, mean ${round(t.mean, 3)} ms, p99 ${round(t.p99, 2)} ms over ${t.timed} searches`);

export async function rankedLatencyRows(input: RankedLatencyInput, details: Record<string, unknown>): Promise<Row[]> {
  const { origin, api } = input;
  const queries = byTurns(input.queries);
  const url = (k: number, ranked: boolean) => {
    const { language, q } = queries[k % queries.length];
    return `${origin}${api}/search?q=${encodeURIComponent(q)}&lang=${language}${ranked ? '&order=relevance' : ''}&_bench=${ranked ? 'r' : 'd'}${k}`;
  };

  progress(`  service: ${queries.length} queries one at a time, ranked and document order in turn, every request a new URL`);
  const times = { ranked: [] as number[], document: [] as number[] };
  // What the ranked answers hold, once per distinct query asked: for the note.
  const asked = new Set<number>();
  let empty = 0;
  let ranked = 0;
  let k = 0;
  const run = async (seconds: number, keep: boolean) => {
    const end = now() + seconds * 1000;
    // At least a few pairs, however slow the answers.
    for (let pairs = 0; now() < end || pairs < 20; pairs++, k++) {
      for (const isRanked of k % 2 === 0 ? [true, false] : [false, true]) {
        const res = await request('GET', url(k, isRanked));
        if (res.status !== 200) throw new Error(`GET ${url(k, isRanked)}: ${res.status} ${res.text.slice(0, 200)}`);
        if (keep) times[isRanked ? 'ranked' : 'document'].push(res.ms);
        if (isRanked && !asked.has(k % queries.length)) {
          asked.add(k % queries.length);
          const body = JSON.parse(res.text) as { order?: string; hits: unknown[] };
          if (body.order === 'relevance') ranked++;
          if (body.hits.length === 0) empty++;
        }
      }
    }
  };
  await run(input.warmup, false);
  await run(input.duration, true);
  const p = (v: number[], q: number) => round(percentile(v, q), 2);
  const rankedP95 = percentile(times.ranked, 95);
  const documentP95 = percentile(times.document, 95);

  progress(`  service: ranked, every request a new URL, ${input.connections} connections`);
  let n = k; // past every URL asked so far, so none is in the answer cache
  const fresh = await input.load('search by relevance', {
    origin,
    pid: input.pid,
    paths: () => url(n++, true).slice(origin.length),
    connections: input.connections,
    duration: input.duration,
    warmup: input.warmup,
  });
  details.rankedSearch = {
    queries: queries.length,
    askedQueries: asked.size,
    emptyAnswers: empty,
    rankedAnswers: ranked,
    sequential: { requests: times.ranked.length, ranked: { p50: p(times.ranked, 50), p95: p(times.ranked, 95), p99: p(times.ranked, 99) }, document: { p50: p(times.document, 50), p95: p(times.document, 95), p99: p(times.document, 99) } },
    fresh,
  };

  const judged = input.shape === JUDGED_SHAPE;
  const served = ranked === asked.size ? '' : `; ${asked.size - ranked} of them not ranked (no \`order: relevance\`)`;
  const sequentialNote = `${times.ranked.length} requests of each, one at a time; ranked p50 ${p(times.ranked, 50)} ms, p99 ${p(times.ranked, 99)} ms; document order p50 ${round(median(times.document), 2)} ms, p99 ${p(times.document, 99)} ms; ${asked.size} of the ${queries.length} queries asked, ${empty} of them ranked without a hit${served}`;
  const full = input.shape === 'flat' && input.nodes >= FULL_NODES;
  const base = input.documentFresh;
  return [
    {
      id: 'P2e',
      scenario: `search by relevance, a new query at a time (${queries.length} queries of 2–3 title words, a third with a typo): p95`,
      measured: rankedP95,
      unit: 'ms',
      baseline: documentP95,
      baselineLabel: 'document order, same queries, in turn',
      ratio: documentP95 > 0 ? rankedP95 / documentP95 : null,
      target: judged ? '≤ 25 ms and ≤ 3× baseline' : `— (judged on the ${JUDGED_SHAPE} shape: ≤ 25 ms and ≤ 3×)`,
      met: judged ? rankedP95 <= 25 && rankedP95 <= 3 * documentP95 : null,
      note: sequentialNote,
    },
    {
      id: 'P2f',
      scenario: 'search by relevance, every request a new URL (no answer cache)',
      measured: fresh.rps,
      unit: 'req/s',
      baseline: base?.rps ?? null,
      baselineLabel: 'document order (P2c)',
      ratio: base && base.rps > 0 ? fresh.rps / base.rps : null,
      target: full ? '≥ 2,000 req/s' : `— (≥ 2,000 req/s at ${FULL_NODES.toLocaleString('en-US')} nodes)`,
      met: full ? fresh.rps >= 2000 : null,
      note: `p50 ${fresh.p50} ms, p99 ${fresh.p99} ms at ${input.connections} connections${fresh.timeouts > 0 ? `; ${fresh.timeouts} requests timed out` : ''}; server CPU ${fresh.cpuPerRequestUs === null ? '?' : Math.round(fresh.cpuPerRequestUs)} µs per answer${inProcessNote(input.inProcess)}`,
    },
  ];
}
