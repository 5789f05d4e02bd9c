/**
 * An index worker (see index-workers.ts): builds one language's term index from the documents the
 * main thread sends in batches, and answers the index as TermIndex.save() writes it, its buffer
 * transferred, not copied. One index at a time: the next batch after a `last` one starts a new index.
 */
import { parentPort } from 'node:worker_threads';
import { documentTerms } from './document-terms.ts';
import type { Batch } from './index-workers.ts';
import { TermIndex } from './term-index.ts';

const port = parentPort!;
let index = new TermIndex();

port.on('message', ({ documents, last }: Batch) => {
  for (const [key, title, summary, bodyMd] of documents) index.add(key, documentTerms(index, { title, summary, bodyMd }));
  if (!last) return;
  const built = index;
  index = new TermIndex();
  // A failure here is the worker's end: the main thread then builds the index itself.
  void built.save().then((bytes) => port.postMessage(bytes, [bytes.buffer as ArrayBuffer]));
});
