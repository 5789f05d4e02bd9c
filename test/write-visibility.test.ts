import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { commitWithGit } from './helpers/git.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

// A write's search index update, history record and link check are worked out while its commit is
// made durable, and shown only once it is: a reader sees a change when its write is answered, never
// before, and a write that fails leaves everything as it was.

/** The slugs a search finds, in the default order and ranked. */
async function found(s: TestServer, version: string, q: string): Promise<{ plain: string[]; ranked: string[] }> {
  const plain = await s.request('GET', `/versions/${version}/search?q=${encodeURIComponent(q)}`);
  const ranked = await s.request('GET', `/versions/${version}/search?q=${encodeURIComponent(q)}&order=relevance`);
  assert.equal(plain.status, 200, plain.text);
  assert.equal(ranked.status, 200, ranked.text);
  return { plain: plain.body.hits.map((h: { slug: string }) => h.slug), ranked: ranked.body.hits.map((h: { slug: string }) => h.slug) };
}

/** What a reader sees of topic `a` of v1: its English text, the version's and the topic's history, and searches for `words`. */
async function seen(s: TestServer, words: string[]) {
  const text = await s.request('GET', '/versions/v1/topics/a/translations/en');
  const history = await s.request('GET', '/versions/v1/history');
  const nodeHistory = await s.request('GET', '/versions/v1/nodes/a/history');
  assert.equal(history.status, 200, history.text);
  assert.equal(nodeHistory.status, 200, nodeHistory.text);
  const searches = [];
  for (const w of words) searches.push([w, await found(s, 'v1', w)]);
  return { bodyMd: text.body.bodyMd, title: text.body.title, history: history.body, nodeHistory: nodeHistory.body, searches };
}

describe('Writes: shown once durable, and only then', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1');
    await createVersion(s, 'v2');
    await createNode(s, 'v1', { slug: 'a', translations: { en: { title: 'Alpha', bodyMd: 'The original walrus text.\n' } } });
    await createNode(s, 'v1', { slug: 'b', translations: { en: { title: 'Beta', bodyMd: 'Links to [alpha](a).\n' } } });
    await createNode(s, 'v2', { slug: 'a', translations: { en: { title: 'Alpha two', bodyMd: 'Second version.\n' } } });
  });
  after(() => s.close());

  test('a search right after a write is answered finds the new text, and no longer the old', async () => {
    let old = 'walrus';
    for (const word of ['pelican', 'narwhal', 'ibis', 'quokka', 'okapi']) {
      const put = await putTranslation(s, 'v1', 'a', 'en', { title: 'Alpha', bodyMd: `The ${word} text.\n` });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(await found(s, 'v1', word), { plain: ['a'], ranked: ['a'] }, word);
      assert.deepEqual(await found(s, 'v1', old), { plain: [], ranked: [] }, old);
      old = word;
    }
    // The answer's link warnings are those of what was written.
    const broken = await putTranslation(s, 'v1', 'b', 'en', { title: 'Beta', bodyMd: 'Links to [nowhere](no-such-topic).\n' });
    assert.equal(broken.status, 200, broken.text);
    assert.deepEqual(
      broken.body.warnings.map((w: { code: string; link: string }) => [w.code, w.link]),
      [['broken_link', 'no-such-topic']],
    );
    const fixed = await putTranslation(s, 'v1', 'b', 'en', { title: 'Beta', bodyMd: 'Links to [alpha](a).\n' });
    assert.equal(fixed.body.warnings, undefined, fixed.text);
  });

  test('writes to two versions at once are each searchable, and in their history, when answered', async () => {
    for (let round = 0; round < 6; round++) {
      const [one, two] = await Promise.all([
        putTranslation(s, 'v1', 'a', 'en', { title: 'Alpha', bodyMd: `Round ${round} flamingo${round}.\n` }),
        putTranslation(s, 'v2', 'a', 'en', { title: 'Alpha two', bodyMd: `Round ${round} heron${round}.\n` }),
      ]);
      assert.equal(one.status, 200, one.text);
      assert.equal(two.status, 200, two.text);
      assert.deepEqual((await found(s, 'v1', `flamingo${round}`)).plain, ['a']);
      assert.deepEqual((await found(s, 'v2', `heron${round}`)).plain, ['a']);
      assert.deepEqual((await found(s, 'v1', `heron${round}`)).plain, []);
      const newest = (await s.request('GET', '/versions/v2/nodes/a/history')).body.history[0];
      assert.equal(newest.message, 'Update translation en/a in v2');
    }
  });

  test('a write whose commit fails after its files are staged changes neither the text, nor search, nor history', async () => {
    await putTranslation(s, 'v1', 'a', 'en', { title: 'Alpha', bodyMd: 'The settled walrus text.\n' });
    const words = ['walrus', 'albatross'];
    const was = await seen(s, words);
    const commits = s.commitCount();
    // The pack is staged and fsynced, then cannot be moved into objects/pack/: the commit fails there.
    const packs = join(s.gitdir, 'objects', 'pack');
    renameSync(packs, `${packs}.away`);
    writeFileSync(packs, 'not a folder');
    let res;
    try {
      res = await putTranslation(s, 'v1', 'a', 'en', { title: 'Changed', bodyMd: 'The albatross text.\n' });
    } finally {
      rmSync(packs);
      renameSync(`${packs}.away`, packs);
    }
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.error.code, 'storage_failed');
    assert.equal(s.commitCount(), commits);
    assert.deepEqual(await seen(s, words), was);
    // What the failed write prepared is not kept for the next one.
    const retry = await putTranslation(s, 'v1', 'a', 'en', { title: 'Alpha', bodyMd: 'The cormorant text.\n' });
    assert.equal(retry.status, 200, retry.text);
    assert.deepEqual((await found(s, 'v1', 'cormorant')).plain, ['a']);
    assert.deepEqual((await found(s, 'v1', 'albatross')).plain, []);
    assert.deepEqual((await found(s, 'v1', 'walrus')).plain, []);
    assert.equal(s.commitCount(), commits + 1);
    execFileSync('git', ['fsck', '--strict', '--no-progress'], { cwd: s.gitdir, stdio: 'pipe' });
  });

  test('a write to a branch moved outside the service is refused and changes neither search nor history', async () => {
    const t = await startTestServer();
    try {
      await createVersion(t, 'v1');
      await createNode(t, 'v1', { slug: 'a', translations: { en: { title: 'Alpha', bodyMd: 'The original walrus text.\n' } } });
      const words = ['walrus', 'puffin'];
      const was = await seen(t, words);
      commitWithGit(t.gitdir, { 'notes.txt': 'by hand\n' }, 'A commit by hand');
      const res = await putTranslation(t, 'v1', 'a', 'en', { title: 'Changed', bodyMd: 'The puffin text.\n' });
      assert.equal(res.status, 409, res.text);
      assert.equal(res.body.error.code, 'repository_changed');
      assert.deepEqual(await seen(t, words), was);
    } finally {
      await t.close();
    }
  });
});
