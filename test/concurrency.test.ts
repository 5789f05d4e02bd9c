import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createNode, createVersion, putTranslation as put, startTestServer, type TestServer } from './helpers/server.ts';

/** `git fsck --strict` exits non-zero on any problem (s.git throws then). */
function assertFsckClean(s: TestServer): void {
  const out = s.git('fsck', '--strict', '--no-dangling');
  assert.doesNotMatch(out, /error|broken|missing|warning/i, out);
}

describe('Concurrency', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('30 parallel PUTs of different translations in one version all succeed and all land', async () => {
    await createVersion(s, 'many', { languages: ['en', 'de', 'fr'] });
    for (let i = 0; i < 15; i++) await createNode(s, 'many', { slug: `n${i}` });
    const jobs: Array<{ slug: string; lang: string; title: string; bodyMd: string }> = [];
    for (let i = 0; i < 15; i++) {
      for (const lang of ['de', 'fr']) jobs.push({ slug: `n${i}`, lang, title: `${lang} title ${i}`, bodyMd: `${lang} body ${i}\n` });
    }
    const commits = s.commitCount();
    const results = await Promise.all(jobs.map((j) => put(s, 'many', j.slug, j.lang, { title: j.title, bodyMd: j.bodyMd })));
    results.forEach((r, i) => {
      assert.equal(r.status, 200, `${jobs[i].lang}/${jobs[i].slug}: ${r.text}`);
      assert.equal(r.body.translation.created, true);
    });
    assert.equal(s.commitCount(), commits + 30);
    assert.equal(new Set(results.map((r) => r.body.translation.updatedAt)).size, 30);
    for (const j of jobs) {
      const read = await s.request('GET', `/versions/many/topics/${j.slug}/translations/${j.lang}`);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.title, j.title);
      assert.equal(read.body.bodyMd, j.bodyMd);
    }
    const files = s.git('ls-tree', '-r', '--name-only', 'HEAD', 'many/').trim().split('\n');
    for (const j of jobs) assert.ok(files.includes(`many/${j.lang}/${j.slug}.md`), `many/${j.lang}/${j.slug}.md in git`);
    // version.json, 45 translations, and the stamps: the nodes' and each language's
    assert.equal(files.length, 1 + 15 * 3 + 4);
    // every one of the 30 commits touches exactly one content file, and the stamps of its language
    const log = s.git('log', '-30', '--no-renames', '--name-only', '--format=@@%H', 'main').split('@@').filter(Boolean);
    assert.equal(log.length, 30);
    for (const entry of log) {
      const [, ...paths] = entry.trim().split('\n').filter(Boolean);
      assert.equal(paths.length, 2, entry);
      assert.equal(paths[0], `many/.stamps/${paths[1].split('/')[1]}.json`, entry);
    }
    assertFsckClean(s);
  });

  test('after those parallel writes a restart serves every translation from git', async () => {
    s = await s.restart();
    for (let i = 0; i < 15; i++) {
      for (const lang of ['de', 'fr']) {
        const read = await s.request('GET', `/versions/many/topics/n${i}/translations/${lang}`);
        assert.equal(read.status, 200, read.text);
        assert.equal(read.body.bodyMd, `${lang} body ${i}\n`);
      }
    }
  });

  test('20 parallel PUTs to the same translation with the same expectedUpdatedAt: exactly one 200, the rest 409 stale_write', async () => {
    await createVersion(s, 'race');
    const created = await createNode(s, 'race', { slug: 'hot', translations: { en: { title: 'Hot' } } });
    const first = await put(s, 'race', 'hot', 'de', { title: 'Start' });
    const expected = first.body.translation.updatedAt as string;
    assert.ok(created.updatedAt < expected);
    const commits = s.commitCount();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => put(s, 'race', 'hot', 'de', { title: `Writer ${i}`, expectedUpdatedAt: expected })),
    );
    const ok = results.filter((r) => r.status === 200);
    const stale = results.filter((r) => r.status === 409);
    assert.equal(ok.length, 1, results.map((r) => r.status).join(','));
    assert.equal(stale.length, 19, results.map((r) => r.status).join(','));
    for (const r of stale) {
      assert.equal(r.body.error.code, 'stale_write');
      assert.equal(r.body.error.currentUpdatedAt, ok[0].body.translation.updatedAt);
    }
    assert.equal(s.commitCount(), commits + 1);
    const read = await s.request('GET', '/versions/race/topics/hot/translations/de');
    assert.equal(read.body.title, ok[0].body.translation.title);
    assert.equal(read.body.updatedAt, ok[0].body.translation.updatedAt);
    assertFsckClean(s);
  });

  test('20 parallel PATCHes of the same node with the same expectedUpdatedAt: exactly one 200, the rest 409 stale_write', async () => {
    await createVersion(s, 'race2');
    const created = await createNode(s, 'race2', { slug: 'hot' });
    const commits = s.commitCount();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.request('PATCH', '/versions/race2/nodes/hot', { body: { translations: { en: { summary: `S${i}` } }, expectedUpdatedAt: created.updatedAt } }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1, results.map((r) => r.status).join(','));
    assert.equal(results.filter((r) => r.status === 409 && r.body.error.code === 'stale_write').length, 19);
    assert.equal(s.commitCount(), commits + 1);
  });

  test('parallel writes to two different versions all land', async () => {
    await createVersion(s, 'left', { languages: ['en', 'de'] });
    await createVersion(s, 'right', { languages: ['en', 'de'] });
    for (let i = 0; i < 10; i++) {
      await createNode(s, 'left', { slug: `l${i}` });
      await createNode(s, 'right', { slug: `r${i}` });
    }
    const commits = s.commitCount();
    const writes: Array<Promise<{ status: number; text: string }>> = [];
    for (let i = 0; i < 10; i++) {
      writes.push(put(s, 'left', `l${i}`, 'de', { title: `Links ${i}`, bodyMd: `left ${i}` }));
      writes.push(put(s, 'right', `r${i}`, 'de', { title: `Rechts ${i}`, bodyMd: `right ${i}` }));
    }
    writes.push(s.request('POST', '/versions/left/nodes', { body: { slug: 'extra-left', translations: { en: { title: 'Extra left' } } } }));
    writes.push(s.request('POST', '/versions/right/nodes', { body: { slug: 'extra-right', translations: { en: { title: 'Extra right' } } } }));
    writes.push(s.request('PATCH', '/versions/left/nodes/l0', { body: { icon: 'star' } }));
    writes.push(s.request('PATCH', '/versions/right/nodes/r0', { body: { icon: 'moon' } }));
    const results = await Promise.all(writes);
    for (const r of results) assert.equal(r.status, 200, r.text);
    assert.equal(s.commitCount(), commits + writes.length);
    for (let i = 0; i < 10; i++) {
      const l = await s.request('GET', `/versions/left/topics/l${i}/translations/de`);
      assert.equal(l.body.bodyMd, `left ${i}`);
      const r = await s.request('GET', `/versions/right/topics/r${i}/translations/de`);
      assert.equal(r.body.bodyMd, `right ${i}`);
    }
    const left = (await s.request('GET', '/versions/left/nodes')).body.nodes as Array<{ slug: string; icon: string | null }>;
    const right = (await s.request('GET', '/versions/right/nodes')).body.nodes as Array<{ slug: string; icon: string | null }>;
    assert.equal(left.length, 11);
    assert.equal(right.length, 11);
    assert.equal(left.find((n) => n.slug === 'l0')!.icon, 'star');
    assert.equal(right.find((n) => n.slug === 'r0')!.icon, 'moon');
    const files = s.git('ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n');
    for (let i = 0; i < 10; i++) {
      assert.ok(files.includes(`left/de/l${i}.md`));
      assert.ok(files.includes(`right/de/r${i}.md`));
    }
    assert.ok(files.includes('left/en/extra-left.md'));
    assert.ok(files.includes('right/en/extra-right.md'));
    assertFsckClean(s);
    s = await s.restart();
    const l0 = await s.request('GET', '/versions/left/nodes');
    assert.deepEqual(l0.body.nodes.map((n: { slug: string }) => n.slug), left.map((n) => n.slug));
    const r9 = await s.request('GET', '/versions/right/topics/r9/translations/de');
    assert.equal(r9.body.bodyMd, 'right 9');
  });

  test('parallel node creates and deletes in one version leave a consistent tree', async () => {
    await createVersion(s, 'churn');
    for (let i = 0; i < 10; i++) await createNode(s, 'churn', { slug: `old${i}` });
    const commits = s.commitCount();
    const writes = [
      ...Array.from({ length: 10 }, (_, i) => s.request('DELETE', `/versions/churn/nodes/old${i}`)),
      ...Array.from({ length: 10 }, (_, i) => s.request('POST', '/versions/churn/nodes', { body: { slug: `new${i}`, translations: { en: { title: `New ${i}` } } } })),
    ];
    const results = await Promise.all(writes);
    for (const r of results) assert.equal(r.status, 200, r.text);
    assert.equal(s.commitCount(), commits + 20);
    const nodes = (await s.request('GET', '/versions/churn/nodes')).body.nodes as Array<{ slug: string; sortOrder: number }>;
    assert.deepEqual(nodes.map((n) => n.slug).sort(), Array.from({ length: 10 }, (_, i) => `new${i}`).sort());
    assert.deepEqual(nodes.map((n) => n.sortOrder), Array.from({ length: 10 }, (_, i) => i));
    const files = s.git('ls-tree', '-r', '--name-only', 'HEAD', 'churn/').trim().split('\n').sort();
    assert.deepEqual(files, ['churn/.stamps/en.json', 'churn/.stamps/nodes.json', 'churn/version.json', ...Array.from({ length: 10 }, (_, i) => `churn/en/new${i}.md`)].sort());
    assertFsckClean(s);
  });
});
