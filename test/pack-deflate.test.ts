import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { prepareObject, type PreparedObject } from '../src/storage/git-objects.ts';
import { buildPack, packEntries, packEntry } from '../src/storage/pack-writer.ts';
import { deflateOnThread } from '../src/storage/deflate-thread.ts';

// A write of megabytes (an import) has its blobs deflated on a thread of its own; the pack holds
// the very bytes a small write's deflating makes, and git reads it.

/** Blobs of varied text, `count` of about 4 KB each, and one folder's tree naming them. */
function objects(count: number): PreparedObject[] {
  const blobs = Array.from({ length: count }, (_, i) => prepareObject('blob', Buffer.from(`# Page ${i}\n\n${`Step ${i}: open the settings and choose ${i % 7} items. `.repeat(60 + (i % 13))}\n`)));
  const entries = blobs.map((b, i) => Buffer.concat([Buffer.from(`100644 page-${String(i).padStart(4, '0')}.md\0`), Buffer.from(b.oid, 'hex')]));
  return [...blobs, prepareObject('tree', Buffer.concat(entries))];
}

test('a megabyte write deflates on another thread to the same pack entries as one deflated here', async () => {
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

test('a pack of objects deflated on the thread is one git verifies', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'help-pack-'));
  try {
    execFileSync('git', ['init', '--bare', '-q', dir]);
    const many = objects(400);
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
