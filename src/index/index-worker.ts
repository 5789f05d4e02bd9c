/**
 * An index worker (see index-workers.ts): builds term indexes from the documents the main thread
 * sends in batches, each batch tagged with its build, and answers each index, once its last batch is
 * in, as TermIndex.save() writes it, its buffer transferred, not copied. Builds whose batches come
 * interleaved (several versions or languages at once) are held side by side.
 */
import { parentPort } from 'node:worker_threads';
import { documentTerms } from './document-terms.ts';
import type { Batch, Built } from './index-workers.ts';
import { primeIndexing } from './prime.ts';
import { TermIndex } from './term-index.ts';

const port = parentPort!;
const indexes = new Map<number, TermIndex>();
// A worker starts to index large amounts of text: see primeIndexing for why the sample goes first.
primeIndexing();

port.on('message', (batch: Batch) => {
  let index = indexes.get(batch.job);
  if (index === undefined) indexes.set(batch.job, (index = new TermIndex()));
  for (const [key, title, summary, bodyMd] of batch.documents) index.add(key, documentTerms(index, { title, summary, bodyMd }));
  if (!batch.last) return;
  indexes.delete(batch.job);
  // A failure here is the worker's end: the main thread then builds the index itself.
  void index.save().then((bytes) => port.postMessage({ job: batch.job, bytes } satisfies Built, [bytes.buffer as ArrayBuffer]));
});
