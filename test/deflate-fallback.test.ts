import assert from 'node:assert/strict';
import { syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';
import { test } from 'node:test';
import { deflateOnThread } from '../src/storage/deflate-thread.ts';
import { assertPackedAsHere, pageObjects } from './helpers/packs.ts';

// When the deflating thread dies under a job, the job is refused, later jobs go
// elsewhere for a while, and a megabyte write's objects are deflated here: the pack entries are the
// same bytes, and nothing waits forever.

/** Runs `run` with every new worker thread one that exits with code 3 as soon as it starts. */
async function withDyingThreads(run: () => Promise<void>): Promise<void> {
  const RealWorker = workerThreads.Worker;
  class DyingWorker extends RealWorker {
    constructor(_source: string | URL, options?: workerThreads.WorkerOptions) {
      super('process.exit(3)', { ...options, eval: true });
    }
  }
  workerThreads.Worker = DyingWorker;
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    workerThreads.Worker = RealWorker;
    syncBuiltinESMExports();
  }
}

test('a deflating thread that dies under a job: the job is refused, then a megabyte write is deflated here to the same pack entries', async () => {
  await withDyingThreads(async () => {
    await assert.rejects(deflateOnThread([Buffer.from('some text '.repeat(1000))], 1), /exit code 3/);
    // Within a minute of the failure the thread is not tried again: the job is refused at once.
    await assert.rejects(deflateOnThread([Buffer.from('more text')], 1), /failed a moment ago/);

    await assertPackedAsHere(pageObjects(400));
  });
});
