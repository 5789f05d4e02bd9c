import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { createNode, createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);

/**
 * git gc runs inside the service every HELP_GC_EVERY commits, while writes go on; an operator's own
 * `git gc` (default prune window) is safe too. Every acknowledged write must survive either.
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
    assert.equal(s.commitCount(), commitsBefore + writes, 'one commit per acknowledged write');
    // Checked with the service stopped: its background merging of small packs would remove a pack
    // fsck is reading ("index not opened"), which says nothing about the repository.
    await s.service.close();
    await run('git', ['--git-dir', s.gitdir, 'fsck', '--strict', '--no-progress']);
    // What a restart reads from git is what was acknowledged.
    s = await s.restart();
    for (const [slug, title] of last) assert.equal((await s.request('GET', `/versions/v1/topics/${slug}/translations/en`)).body.title, title);
  }

  const gcRuns = async () => {
    const text = await (await fetch(new URL('/metrics', s.url))).text();
    return Number(/^help_storage_duration_seconds_count\{operation="gc"\} (\d+)/m.exec(text)?.[1] ?? 0);
  };

  test('the service runs git gc itself every HELP_GC_EVERY commits, and no acknowledged write is lost', async () => {
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
