import assert from 'node:assert/strict';
import { syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';
import { test } from 'node:test';
import { prepareObject, type PreparedObject } from '../src/storage/git-objects.ts';
import { packEntries, packEntry } from '../src/storage/pack-writer.ts';
import { deflateOnThread } from '../src/storage/deflate-thread.ts';

// When the deflating thread cannot start or dies under a job, the job is refused, later jobs go
// elsewhere for a while, and a megabyte write's objects are deflated here: the pack entries are the
// same bytes, and nothing waits forever.

function objects(count: number): PreparedObject[] {
  const blobs = Array.from({ length: count }, (_, i) => prepareObject('blob', Buffer.from(`# Page ${i}\n\n${`Open the report ${i} and choose ${i % 5} filters. `.repeat(70 + (i % 11))}\n`)));
  const entries = blobs.map((b, i) => Buffer.concat([Buffer.from(`100644 page-${String(i).padStart(4, '0')}.md\0`), Buffer.from(b.oid, 'hex')]));
  return [...blobs, prepareObject('tree', Buffer.concat(entries))];
}

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

    const many = objects(400);
    assert.ok(many.reduce((n, o) => n + o.content.length, 0) > 1 << 20, 'enough bytes to go to the thread');
    const entries = await packEntries(many);
    assert.equal(entries.length, many.length);
    for (const [k, entry] of entries.entries()) {
      const here = packEntry(many[k]);
      assert.equal(entry.oid, here.oid);
      assert.ok(entry.bytes.equals(here.bytes), `entry ${k}`);
      assert.equal(entry.crc, here.crc);
    }
  });
});
