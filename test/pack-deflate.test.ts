import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { deflateSync, inflateSync } from 'node:zlib';
import { buildPack, packEntries } from '../src/storage/pack-writer.ts';
import { deflateOnThread } from '../src/storage/deflate-thread.ts';
import { windowBitsFor } from '../src/storage/deflate-window.ts';
import { assertPackedAsHere, pageObjects } from './helpers/packs.ts';

// A write of megabytes (an import) has its blobs deflated on a thread of its own; the pack holds
// the very bytes a small write's deflating makes, and git reads it.

test('a megabyte write deflates on another thread to the same pack entries as one deflated here', async () => {
  await assertPackedAsHere(pageObjects(400));
});

test('a pack of objects deflated on the thread is one git verifies', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'help-pack-'));
  try {
    execFileSync('git', ['init', '--bare', '-q', dir]);
    const many = pageObjects(400);
    const pack = await buildPack(await packEntries(many));
    const base = join(dir, 'objects', 'pack', pack.name);
    writeFileSync(`${base}.pack`, pack.pack);
    writeFileSync(`${base}.idx`, pack.idx);
    execFileSync('git', ['verify-pack', `${base}.idx`], { stdio: 'pipe' });
    const tree = many.at(-1)!;
    const listed = execFileSync('git', ['ls-tree', tree.oid], { cwd: dir, encoding: 'utf8' }).trim().split('\n');
    assert.equal(listed.length, 400);
    assert.equal(execFileSync('git', ['cat-file', '-p', many[123].oid], { cwd: dir }).toString(), many[123].content.toString());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the thread answers jobs sent at once, each with its own objects in order', async () => {
  const jobs = [1, 2, 3].map((j) => Array.from({ length: 50 * j }, (_, i) => Buffer.from(`job ${j} object ${i} `.repeat(20 + i))));
  const answers = await Promise.all(jobs.map((job) => deflateOnThread(job, 1)));
  for (const [j, job] of jobs.entries()) {
    assert.equal(answers[j].length, job.length);
    for (const [i, content] of job.entries()) assert.ok(inflateSync(answers[j][i]).equals(content), `job ${j}, object ${i}`);
  }
});

test('objects are deflated with a window their size: the same deflated data as the full window, only the header differs (git verifies such packs above)', async () => {
  const full = (bytes: Buffer) => deflateSync(bytes, { level: 1 });
  for (const length of [0, 1, 249, 250, 251, 762, 763, 2000, 7930, 7931, 16_000, 32_506, 32_507, 100_000]) {
    const bytes = Buffer.from(Array.from({ length }, (_, i) => 'The quick brown fox [links](a.md) jumps.\n'[(i * 7) % 41]).join(''));
    const bits = windowBitsFor(length);
    assert.ok(2 ** bits >= Math.min(length + 262, 2 ** 15), `${length} bytes: window ${2 ** bits}`);
    const small = deflateSync(bytes, { level: 1, windowBits: bits });
    assert.equal(small[0] >> 4, bits - 8, 'the header states the window');
    assert.ok(small.subarray(2).equals(full(bytes).subarray(2)), `${length} bytes: the deflated data are the full window's`);
    assert.ok(inflateSync(small).equals(bytes));
  }
  // The pack writer's entries: after the entry's header (7 bits of size a byte while the top bit is set), the zlib stream's.
  const objects = pageObjects(3);
  const entries = await packEntries(objects);
  for (const [k, entry] of entries.entries()) {
    let at = 0;
    while (entry.bytes[at] & 0x80) at++;
    assert.equal(entry.bytes[at + 1] >> 4, windowBitsFor(objects[k].content.length) - 8, `object ${k} (${objects[k].content.length} bytes)`);
  }
});
