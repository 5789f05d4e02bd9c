/**
 * P2, in process: the time of one search in the service's own search index, without HTTP.
 *
 * Run by bench/run.ts as a child process (so the index's memory does not disturb the other figures):
 *   node --import tsx bench/search-inproc.ts <shape> <nodes> <queries.json> <budget seconds> [<ranked-queries.json>]
 * It regenerates the same documentation set (the generator is deterministic) and builds the version's
 * state and SearchIndex exactly as the service does when it loads. Building takes long, so it is done
 * while the suite sets up; the child then prints `{"built":ms}` and waits for a line on stdin before it
 * measures (so the timing runs while nothing else does). It runs every query once (warm-up; queries that
 * find nothing are left out, as in the HTTP scenario), then times `search()` calls round-robin until every
 * query was timed `passes` times or the budget is spent (at least once each). With a second query file, it
 * then times the search by relevance (`ranked()`, the first page of 10 hits, as P2e and P2f ask it) the same
 * way on those queries: the query's cost without HTTP. Prints one JSON line.
 */
import * as fs from 'node:fs';
import { createInterface } from 'node:readline';
import { readFileSet } from '../src/content/file-set.ts';
import { ProblemList } from '../src/content/problems.ts';
import { SearchIndex } from '../src/index/search.ts';
import { derivedId } from '../src/store/load.ts';
import { SHAPES, type DocShape } from './lib/dataset.ts';
import { median, percentile } from './lib/util.ts';

const shape = SHAPES[process.argv[2] as DocShape['name']];
const nodes = Number(process.argv[3]);
const queries = JSON.parse(fs.readFileSync(process.argv[4], 'utf8')) as Array<{ language: string; q: string }>;
const budgetMs = Number(process.argv[5] ?? 10) * 1000;
const rankedQueries = process.argv[6] ? (JSON.parse(fs.readFileSync(process.argv[6], 'utf8')) as typeof queries) : [];
const passes = 5;

let t = performance.now();
const set = shape.set(nodes);
const files = new Map(set.files.map((f) => [f.path, f.content]));
const problems = new ProblemList();
const state = readFileSet(files, { slug: 'v1', fallbackStamp: '1970-01-01T00:00:00.000Z', idFor: (s) => derivedId('v1', s) }, problems);
if (state === null) throw new Error(`the generated set does not load: ${JSON.stringify(problems.errors.slice(0, 3))}`);
files.clear();
const index = new SearchIndex();
const indexStarted = performance.now();
// A large set is indexed in slices: the timing waits until it is searchable.
await index.update('v1', state);
await index.indexed();
const buildMs = performance.now() - indexStarted;
process.stdout.write(`${JSON.stringify({ built: performance.now() - t })}\n`);

// Wait for the go-ahead.
const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
lines.close();

const found: typeof queries = [];
let hits = 0;
for (const query of queries) {
  const n = index.search(state, query.language, query.q).hits.length;
  if (n > 0) found.push(query);
  hits += n;
}
const times: number[] = [];
const byLanguage: Record<string, number[]> = {};
const started = performance.now();
for (let pass = 0; pass < passes; pass++) {
  for (const { language, q } of found) {
    t = performance.now();
    index.search(state, language, q);
    const ms = performance.now() - t;
    times.push(ms);
    (byLanguage[language] ??= []).push(ms);
  }
  if (performance.now() - started > budgetMs) break;
}

/** The search by relevance, timed as above: every query once to warm up, then round-robin within the budget. */
function timeRanked(): { timed: number; mean: number; p50: number; p99: number } | null {
  if (rankedQueries.length === 0) return null;
  const options = { limit: 10, offset: 0 };
  for (const { language, q } of rankedQueries) index.ranked(state!, language, q, options);
  const spent: number[] = [];
  const from = performance.now();
  for (let pass = 0; pass < passes && (pass === 0 || performance.now() - from <= budgetMs); pass++) {
    for (const { language, q } of rankedQueries) {
      const at = performance.now();
      index.ranked(state!, language, q, options);
      spent.push(performance.now() - at);
    }
  }
  return { timed: spent.length, mean: spent.reduce((a, b) => a + b, 0) / spent.length, p50: median(spent), p99: percentile(spent, 99) };
}
const ranked = timeRanked();

process.stdout.write(
  `${JSON.stringify({
    ranked,
    buildMs,
    queries: found.length,
    empty: queries.length - found.length,
    timed: times.length,
    meanHits: hits / Math.max(1, found.length),
    mean: times.reduce((a, b) => a + b, 0) / Math.max(1, times.length),
    p50: median(times),
    p99: percentile(times, 99),
    p50ByLanguage: Object.fromEntries(Object.entries(byLanguage).map(([l, v]) => [l, median(v)])),
  })}\n`,
);
