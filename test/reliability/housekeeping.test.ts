import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { deltaRepack } from '../../src/storage/delta-repack.ts';
import { TEMP_DIR } from '../../src/storage/durable-fs.ts';
import { prepareObject } from '../../src/storage/git-objects.ts';
import { packEntry, stagePack } from '../../src/storage/pack-writer.ts';
import { metric } from '../helpers/metrics.ts';
import { createNode, createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);

/** How many background runs of `operation` (gc, repack) the server at `url` has finished, from /metrics. */
const storageRuns = (url: string, operation: 'gc' | 'repack') => metric(url, 'help_storage_duration_seconds_count', { operation });

/**
 * git gc runs inside the service, due every HELP_GC_EVERY commits, at a pause of writes or in the
 * midst of a long burst; an operator's own `git gc` (default prune window) is safe too. Every
 * acknowledged write must survive either.
 */
describe('Housekeeping while writes go on', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_GC_EVERY: '10' } });
    await createVersion(s, 'v1', { status: 'published' });
    for (let i = 0; i < 4; i++) await createNode(s, 'v1', { slug: `n${i}` });
  });
  after(() => s.close());

  /** Four writers, each PUTting its own node `rounds` times; answers the last acknowledged title per node. */
  async function writeConcurrently(rounds: number, tag: string): Promise<Map<string, string>> {
    const last = new Map<string, string>();
    await Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < rounds; i++) {
          const title = `${tag} ${w} ${i}`;
          const res = await s.request('PUT', `/versions/v1/topics/n${w}/translations/en`, { body: { title, bodyMd: `Revision ${i} of writer ${w}.\n`.repeat(20) } });
          assert.equal(res.status, 200, res.text);
          last.set(`n${w}`, title);
        }
      }),
    );
    return last;
  }

  async function assertAllThere(last: Map<string, string>, commitsBefore: number, writes: number): Promise<void> {
    // Counted and checked with the service stopped: its background merging of small packs would remove a
    // pack git is reading ("index not opened", "Could not read"), which says nothing about the repository.
    await s.service.close();
    assert.equal(s.commitCount(), commitsBefore + writes, 'one commit per acknowledged write');
    await run('git', ['--git-dir', s.gitdir, 'fsck', '--strict', '--no-progress']);
    // What a restart reads from git is what was acknowledged.
    s = await s.restart();
    for (const [slug, title] of last) assert.equal((await s.request('GET', `/versions/v1/topics/${slug}/translations/en`)).body.title, title);
  }

  const gcRuns = () => storageRuns(s.url, 'gc');

  test('the service runs git gc itself while writes go on (four writers, 60 writes, a gc due every 10), and no acknowledged write is lost', async () => {
    const before = s.commitCount();
    const last = await writeConcurrently(15, 'inside');
    // The last run may still be going: wait for it, then for the repository to be packed with deltas.
    const deadline = Date.now() + 30_000;
    while ((await gcRuns()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok((await gcRuns()) >= 1, 'git gc ran');
    // A commit whose pack appears while gc is reading the refs is not yet referenced, so git leaves
    // its objects loose (they stay reachable; the next gc packs them). When that happened, write one
    // at a time, each time waiting for a gc to finish, until a gc has run with no write beside it.
    const loose = async () => Number(/^count: (\d+)/m.exec((await run('git', ['--git-dir', s.gitdir, 'count-objects', '-v'])).stdout)![1]);
    const quiet = async () => {
      for (let runs = await gcRuns(), i = 0; i < 30; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const now = await gcRuns();
        if (now === runs && i >= 14) return;
        if (now !== runs) [runs, i] = [now, 0];
      }
    };
    await quiet();
    let extra = 0;
    for (let i = 0; i < 12 && (await loose()) > 0; i++, extra++) {
      const res = await s.request('PUT', '/versions/v1/topics/n0/translations/en', { body: { title: `quiet ${i}`, bodyMd: 'One at a time.\n' } });
      assert.equal(res.status, 200, res.text);
      last.set('n0', `quiet ${i}`);
      await quiet();
    }
    assert.equal(await loose(), 0, 'no loose objects left');
    await assertAllThere(last, before, 60 + extra);
  });

  test("an operator's git gc (default prune window) while writes go on loses nothing", async () => {
    const before = s.commitCount();
    // git gc may stop with "index not opened" when the service merges away a pack it was reading:
    // that leaves the repository as it was. What matters is that no write is lost.
    const gc = (async () => {
      for (let i = 0; i < 3; i++) await run('git', ['--git-dir', s.gitdir, 'gc', '--quiet']).catch(() => undefined);
    })();
    const last = await writeConcurrently(15, 'outside');
    await gc;
    await assertAllThere(last, before, 60);
  });
});

/**
 * A git gc takes a core and the disk from the writes beside it: the service runs the one that is due
 * once writes pause, and in a burst with no pause only after GC_BURST_FACTOR times HELP_GC_EVERY commits.
 */
describe('git gc waits for a pause of writes', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_GC_EVERY: '10' } });
    await createVersion(s, 'v1', { status: 'published' });
  });
  after(() => s.close());

  const gcRuns = () => storageRuns(s.url, 'gc');
  const put = async (i: number) => {
    const res = await s.request('PUT', '/versions/v1/topics/page/translations/en', { body: { title: `Edit ${i}`, bodyMd: `Revision ${i}.\n` } });
    assert.equal(res.status, 200, res.text);
  };
  const packedRefs = () => fs.existsSync(join(s.gitdir, 'packed-refs'));

  test('a gc due in a burst runs at its pause; a burst with no pause runs it after four times HELP_GC_EVERY commits', async () => {
    await createNode(s, 'v1', { slug: 'page' });
    const before = s.commitCount();
    assert.equal(before, 2, 'the version and the page, a commit each');
    // 30 more make 32 commits: more than three gcs' worth, fewer than the burst's 40.
    for (let i = 0; i < 30; i++) await put(i);
    assert.equal(await gcRuns(), 0, 'no git gc during the burst');
    assert.equal(packedRefs(), false, 'git gc has not packed the refs during the burst');
    const deadline = Date.now() + 30_000;
    while ((await gcRuns()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await gcRuns(), 1, 'git gc ran once the writes paused');
    assert.ok(packedRefs(), 'git gc packed the refs');

    // A burst that never pauses: the gc starts with its 40th commit and ends a little later.
    let writes = 0;
    while ((await gcRuns()) === 1 && writes < 200) await put(100 + writes++);
    assert.equal(await gcRuns(), 2, `git gc ran in the burst (${writes} writes)`);
    assert.ok(writes >= 40, `git gc ran after ${writes} writes of the burst, before 4 × 10`);
    await s.service.close();
    await run('git', ['--git-dir', s.gitdir, 'fsck', '--strict', '--no-progress']);
    assert.equal(s.commitCount(), before + 30 + writes, 'one commit per acknowledged write');
  });

  test('a pause whose git gc fails merges the small packs instead', async () => {
    // git gc stops at once on a setting it cannot parse; the delta repack is off, so the pause's work is gc or the merge.
    const t = await startTestServer({ env: { HELP_GC_EVERY: '10', HELP_REPACK_PERCENT: '0' } });
    try {
      t.git('config', 'gc.pruneExpire', 'not-a-date');
      await createVersion(t, 'v2');
      await createNode(t, 'v2', { slug: 'page' });
      for (let i = 0; i < 12; i++) {
        const res = await t.request('PUT', '/versions/v2/topics/page/translations/en', { body: { title: `Edit ${i}`, bodyMd: `Revision ${i}.\n` } });
        assert.equal(res.status, 200, res.text);
      }
      const packs = () => fs.readdirSync(join(t.gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack')).length;
      assert.ok(packs() >= 14, `${packs()} packs after 14 writes`);
      const deadline = Date.now() + 15_000;
      while (packs() > 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(packs() <= 2, `${packs()} packs once writes paused`);
      assert.equal(await storageRuns(t.url, 'gc'), 0, 'no git gc succeeded');
      await t.service.close();
      await run('git', ['--git-dir', t.gitdir, 'fsck', '--strict', '--no-progress']);
    } finally {
      await t.close();
    }
  });
});

/** Bytes under objects/ (packs, indexes, loose objects). */
function objectBytes(gitdir: string): number {
  let total = 0;
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else total += fs.statSync(join(dir, e.name)).size;
    }
  };
  walk(join(gitdir, 'objects'));
  return total;
}

/**
 * The service repacks history with deltas once writes pause and the packs written since its last
 * repack reach HELP_REPACK_PERCENT of the repository; writes go on meanwhile.
 */
describe('Repacking with deltas while writes go on', () => {
  let s: TestServer;
  before(async () => {
    // git gc off: what gives the history its deltas here is the repack alone.
    s = await startTestServer({ env: { HELP_GC_EVERY: '0', HELP_REPACK_PERCENT: '10' } });
    await createVersion(s, 'v1', { status: 'published' });
    for (let i = 0; i < 4; i++) await createNode(s, 'v1', { slug: `n${i}` });
  });
  after(() => s.close());

  const repackRuns = () => storageRuns(s.url, 'repack');
  const waitForRepacks = async (atLeast: number) => {
    const deadline = Date.now() + 30_000;
    while ((await repackRuns()) < atLeast && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok((await repackRuns()) >= atLeast, `${atLeast} repack(s) ran`);
  };
  const edit = async (slug: string, title: string, i: number) => {
    // Long bodies that differ by a line: whole they cost kilobytes each, as deltas a few bytes.
    const res = await s.request('PUT', `/versions/v1/topics/${slug}/translations/en`, { body: { title, bodyMd: `${'A paragraph that stays the same in every revision of this topic.\n'.repeat(60)}Revision ${i}.\n` } });
    assert.equal(res.status, 200, res.text);
  };

  test('a pause after many writes repacks: the bytes shrink, writes during the repack are kept, git fsck is clean and a restart reads every acknowledged write', async () => {
    const commitsBefore = s.commitCount();
    const runsBefore = await repackRuns();
    const last = new Map<string, string>();
    for (let i = 0; i < 40; i++) {
      const slug = `n${i % 4}`;
      await edit(slug, `first ${i}`, i);
      last.set(slug, `first ${i}`);
    }
    const written = objectBytes(s.gitdir);
    await waitForRepacks(runsBefore + 1);
    const repacked = objectBytes(s.gitdir);
    assert.ok(repacked < written / 2, `objects/ went from ${written} to ${repacked} bytes`);

    // More writes, paused once so that a repack starts while the next ones are written.
    for (let round = 0; round < 2; round++) {
      await Promise.all(
        Array.from({ length: 4 }, async (_, w) => {
          for (let i = 0; i < 10; i++) {
            await edit(`n${w}`, `second ${round} ${w} ${i}`, 100 + i);
            last.set(`n${w}`, `second ${round} ${w} ${i}`);
          }
        }),
      );
      if (round === 0) await new Promise((r) => setTimeout(r, 1100));
    }
    await waitForRepacks(runsBefore + 2);
    assert.equal(s.commitCount(), commitsBefore + 40 + 80, 'one commit per acknowledged write');
    await s.service.close();
    await run('git', ['--git-dir', s.gitdir, 'fsck', '--strict', '--no-progress']);
    s = await s.restart();
    for (const [slug, title] of last) assert.equal((await s.request('GET', `/versions/v1/topics/${slug}/translations/en`)).body.title, title);
  });
});

describe("A commit's pack is kept from git gc until the branch refers to it", () => {
  test('published, its ref not yet written: git repack -a -d (which drops what no ref reaches) keeps it; released, the same repack drops it', async () => {
    const dir = fs.mkdtempSync(join(tmpdir(), 'help-keep-'));
    const gitdir = join(dir, 'repo.git');
    try {
      execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', gitdir]);
      fs.mkdirSync(join(gitdir, TEMP_DIR));
      const pending = prepareObject('blob', Buffer.from('Written, its commit not yet on the branch.\n'));
      const staged = await stagePack(gitdir, join(gitdir, TEMP_DIR), [packEntry(pending)]);
      const packDir = join(gitdir, 'objects', 'pack');
      // The .keep is made while the files are staged; the pack and its index go in at publish.
      assert.deepEqual(fs.readdirSync(packDir), [`${staged.name}.keep`], 'only the .keep in objects/pack before publish');
      await staged.publish();
      assert.deepEqual(fs.readdirSync(packDir).sort(), ['.idx', '.keep', '.pack'].map((ext) => `${staged.name}${ext}`));
      const repackAll = () => execFileSync('git', ['--git-dir', gitdir, 'repack', '-a', '-d', '-q'], { stdio: 'pipe' });
      repackAll();
      assert.equal(execFileSync('git', ['--git-dir', gitdir, 'cat-file', 'blob', pending.oid], { encoding: 'utf8' }), 'Written, its commit not yet on the branch.\n');
      staged.release();
      assert.deepEqual(fs.readdirSync(packDir).sort(), ['.idx', '.pack'].map((ext) => `${staged.name}${ext}`));
      repackAll();
      assert.throws(() => execFileSync('git', ['--git-dir', gitdir, 'cat-file', '-e', pending.oid], { stdio: 'pipe' }), 'without its .keep, an unreferenced object is git\'s to drop');
      // A pack staged and then discarded (its commit failed) leaves neither files nor .keep.
      const other = await stagePack(gitdir, join(gitdir, TEMP_DIR), [packEntry(prepareObject('blob', Buffer.from('Never committed.\n')))]);
      await other.discard();
      assert.ok(!fs.readdirSync(packDir).some((f) => f.startsWith(other.name)), 'nothing of a discarded pack in objects/pack');
      assert.deepEqual(fs.readdirSync(join(gitdir, TEMP_DIR)), [], 'nor in the temp folder');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('after writes no .keep is left; a start removes the ones a crash left, never an operator\'s', async () => {
    let s = await startTestServer();
    try {
      await createVersion(s, 'v1');
      await createNode(s, 'v1', { slug: 'a' });
      const packDir = join(s.gitdir, 'objects', 'pack');
      assert.deepEqual(fs.readdirSync(packDir).filter((f) => f.endsWith('.keep')), []);
      const packs = fs.readdirSync(packDir).filter((f) => f.endsWith('.pack')).map((f) => f.slice(0, -5));
      assert.ok(packs.length >= 2, packs.join(', '));
      // One as a crash between publish and release leaves it; one an operator keeps on purpose.
      fs.writeFileSync(join(packDir, `${packs[0]}.keep`), 'help-content-service: a write in progress\n');
      fs.writeFileSync(join(packDir, `${packs[1]}.keep`), 'kept by hand\n');
      s = await s.restart();
      assert.deepEqual(fs.readdirSync(packDir).filter((f) => f.endsWith('.keep')), [`${packs[1]}.keep`]);
      assert.equal((await s.request('GET', '/versions/v1/topics/a/translations/en')).status, 200);
    } finally {
      await s.close();
    }
  });
});

describe('A repack keeps every object of the packs it replaces', () => {
  test("a pack on disk whose commit has no ref yet (a write between its pack and its ref) keeps its objects", async () => {
    const dir = fs.mkdtempSync(join(tmpdir(), 'help-repack-'));
    const gitdir = join(dir, 'repo.git');
    try {
      execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', gitdir]);
      fs.mkdirSync(join(gitdir, TEMP_DIR));
      // Pushes received as packs, as the service's commits are written.
      execFileSync('git', ['--git-dir', gitdir, 'config', 'receive.unpackLimit', '1']);
      const work = join(dir, 'work');
      execFileSync('git', ['clone', '-q', gitdir, work], { stdio: 'ignore' });
      const gitIn = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { cwd: work, stdio: 'pipe' });
      for (let i = 0; i < 3; i++) {
        fs.writeFileSync(join(work, 'page.md'), `${'Same text.\n'.repeat(200)}Change ${i}.\n`);
        gitIn('add', '-A');
        gitIn('commit', '-qm', `change ${i}`);
        gitIn('push', '-q', 'origin', 'HEAD:main');
      }
      // The service's own pack of an object no ref reaches yet: while its write is under way it is
      // kept (left as it is); after (a crash before the ref, say) it goes into the new pack all the same.
      const pending = prepareObject('blob', Buffer.from('Written, not yet referenced.\n'));
      const staged = await stagePack(gitdir, join(gitdir, TEMP_DIR), [packEntry(pending)]);
      await staged.publish();
      const packsBefore = fs.readdirSync(join(gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack'));
      assert.ok(packsBefore.length >= 4, packsBefore.join(', '));
      await deltaRepack(gitdir, join(gitdir, TEMP_DIR));
      const packsKept = fs.readdirSync(join(gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack'));
      assert.equal(packsKept.length, 2, 'the pack of the write under way stays beside the new one');
      assert.ok(packsKept.includes(`${staged.name}.pack`));
      staged.release();

      await deltaRepack(gitdir, join(gitdir, TEMP_DIR));
      const packsAfter = fs.readdirSync(join(gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack'));
      assert.equal(packsAfter.length, 1, 'the packs it replaced are gone');
      assert.equal(execFileSync('git', ['--git-dir', gitdir, 'cat-file', 'blob', pending.oid], { encoding: 'utf8' }), 'Written, not yet referenced.\n');
      execFileSync('git', ['--git-dir', gitdir, 'fsck', '--strict', '--no-progress'], { stdio: 'pipe' });
      // Nothing new since: a second run leaves the one pack as it is.
      await deltaRepack(gitdir, join(gitdir, TEMP_DIR));
      assert.deepEqual(fs.readdirSync(join(gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack')), packsAfter);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
