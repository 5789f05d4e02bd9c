/**
 * An index worker (see index-workers.ts): builds the indexes of a language (terms and ranking) from the documents the main thread
 * sends in batches, each batch tagged with its build, and answers each, once its last batch is
 * in, as packIndexes() writes them, its buffer transferred, not copied. Builds whose batches come
 * interleaved (several versions or languages at once) are held side by side.
 */
import { parentPort } from 'node:worker_threads';
import { documentTerms } from './document-terms.ts';
import type { Batch, Built } from './index-workers.ts';
import { primeIndexing } from './prime.ts';
import { RankIndex } from './rank-index.ts';
import { TermIndex } from './term-index.ts';
import { packIndexes } from './index-bytes.ts';

const port = parentPort!;
const indexes = new Map<number, { terms: TermIndex; ranked: RankIndex }>();
// A worker starts to index large amounts of text: see primeIndexing for why the sample goes first.
primeIndexing();

port.on('message', (batch: Batch) => {
  let index = indexes.get(batch.job);
  if (index === undefined) indexes.set(batch.job, (index = { terms: new TermIndex(), ranked: new RankIndex(batch.language) }));
  for (const [key, title, summary, bodyMd] of batch.documents) {
    const { terms, rank } = documentTerms(index.terms, { title, summary, bodyMd });
    index.terms.add(key, terms);
    index.ranked.add(key, rank);
  }
  if (!batch.last) return;
  indexes.delete(batch.job);
  const { terms, ranked } = index;
  // A failure here is the worker's end: the main thread then builds the index itself.
  void terms.save().then((saved) => {
    const bytes = packIndexes(saved, ranked.save());
    port.postMessage({ job: batch.job, bytes } satisfies Built, [bytes.buffer as ArrayBuffer]);
  });
});
