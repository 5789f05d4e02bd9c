/** Builds the anchor and answers the judged queries on a thread of its own (see anchorAnswers). */
import { parentPort, workerData } from 'node:worker_threads';
import { Anchor, type AnchorJob, type AnchorResult } from './anchor.ts';

const { pages, queries, cutoff } = workerData as AnchorJob;
const anchor = new Anchor(pages);
const answers = queries.map(({ version, language, q }) => {
  const t = performance.now();
  const slugs = anchor.search(version, language, q);
  return { slugs: slugs.slice(0, cutoff), empty: slugs.length === 0, ms: performance.now() - t };
});
parentPort!.postMessage({ buildMs: anchor.buildMs, answers } satisfies AnchorResult);
