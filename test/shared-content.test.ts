import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

/**
 * Versions duplicated for each release hold the same text: in memory it is held once (translations
 * and search indexes are shared until a version changes). Whatever is shared, a change of one
 * version must never show in another — after duplicating, and after a restart from snapshots or from git.
 */
describe('Duplicated versions share their content, never their changes', () => {
  let s: TestServer;
  const search = async (version: string, q: string) => (await s.request('GET', `/versions/${version}/search?q=${encodeURIComponent(q)}`)).body.hits.map((h: { slug: string }) => h.slug);
  const title = async (version: string, slug: string) => (await s.request('GET', `/versions/${version}/topics/${slug}`)).body.title;

  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'r1');
    await createNode(s, 'r1', { slug: 'a', translations: { en: { title: 'Zebra crossing', bodyMd: 'Stripes on the road.\n' } } });
    await createNode(s, 'r1', { slug: 'b', translations: { en: { title: 'Giraffe', bodyMd: 'A long neck.\n' } } });
    for (const copy of ['r2', 'r3']) assert.equal((await s.request('POST', '/versions/r1/duplicate', { body: { slug: copy } })).status, 200);
  });
  after(() => s.close());

  async function editEachAndCheck(round: string) {
    await s.request('PUT', '/versions/r2/topics/a/translations/en', { body: { title: `Okapi ${round}`, bodyMd: `Forest ${round}.\n` } });
    assert.deepEqual(await search('r2', `okapi ${round}`), ['a']);
    assert.deepEqual(await search('r1', `okapi ${round}`), []);
    assert.deepEqual(await search('r3', `okapi ${round}`), []);
    assert.equal(await title('r3', 'a'), 'Zebra crossing');
    assert.deepEqual(await search('r3', 'zebra'), ['a']);
    assert.deepEqual(await search('r1', 'stripes'), ['a']);
  }

  test('after duplicating', () => editEachAndCheck('one'));

  test('after a restart from snapshots', async () => {
    s = await s.restart();
    assert.equal(await title('r2', 'a'), 'Okapi one');
    assert.deepEqual(await search('r3', 'giraffe'), ['b']);
    await editEachAndCheck('two');
    await s.request('PUT', '/versions/r3/topics/b/translations/en', { body: { title: 'Gnu', bodyMd: 'Horns.\n' } });
    assert.deepEqual(await search('r1', 'giraffe'), ['b']);
    assert.deepEqual(await search('r3', 'giraffe'), []);
  });

  test('after a restart from git (snapshots deleted)', async () => {
    await s.service.close();
    rmSync(join(s.dataDir, 'snapshots'), { recursive: true, force: true });
    s = await s.restart();
    assert.equal(await title('r2', 'a'), 'Okapi two');
    assert.equal(await title('r3', 'b'), 'Gnu');
    assert.equal(await title('r1', 'b'), 'Giraffe');
    await editEachAndCheck('three');
  });
});
