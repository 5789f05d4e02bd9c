import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { FakeGitHub } from './helpers/fake-github.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

describe('Bad input never breaks the service', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { status: 'published', languages: ['en', 'pt-BR'] });
    await createNode(s, 'v1', { slug: 'a' });
  });
  after(() => s.close());

  test('bodies built to make regular expressions backtrack are stored, indexed and searched quickly', async () => {
    for (const body of ['**a '.repeat(250_000), '[a'.repeat(300_000), '<!--a'.repeat(200_000), '_a '.repeat(300_000)]) {
      const res = await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'A', bodyMd: body } });
      assert.equal(res.status, 200);
    }
    assert.equal((await s.request('GET', '/versions/v1/search?q=a', { key: null })).status, 200);
  });

  test('a string that is not valid Unicode (a lone surrogate) is 400 naming the field', async () => {
    const res = await s.request('PUT', '/versions/v1/topics/a/translations/en', { raw: '{"title":"T","bodyMd":"b\\ud83d"}', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.field, 'body/bodyMd');
  });

  test('a "__proto__" key and a body that does not decompress are 400 invalid_json, not 500', async () => {
    const proto = await s.request('POST', '/versions', { raw: '{"__proto__":{"x":1},"slug":"v14"}', headers: { 'content-type': 'application/json' } });
    assert.equal(proto.status, 400);
    assert.equal(proto.body.error.code, 'invalid_json');
    const res = await fetch(`${s.url}/versions`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: '{"slug":"v15"}' });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as any).error.code, 'invalid_json');
    const ok = await fetch(`${s.url}/versions`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync('{"slug":"v16"}') });
    assert.equal(ok.status, 200, 'a real gzip body is accepted');
  });

  test('a leap-second expectedUpdatedAt is refused, never treated as "no check"', async () => {
    const res = await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'X', expectedUpdatedAt: '2000-12-31T23:59:60Z' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.field, 'body/expectedUpdatedAt');
  });

  test('If-Unmodified-Since accepts ISO stamps and HTTP-dates only', async () => {
    for (const value of ['1', 'yesterday', '2026-13-45']) {
      const res = await s.request('PATCH', '/versions/v1/nodes/a', { body: { icon: 'star' }, headers: { 'if-unmodified-since': value } });
      assert.equal(res.status, 400, value);
    }
    const http = await s.request('PATCH', '/versions/v1/nodes/a', { body: { icon: 'star' }, headers: { 'if-unmodified-since': new Date(Date.now() + 60_000).toUTCString() } });
    assert.equal(http.status, 200);
  });

  test('a tree deeper than 32 levels is 400 too_deep, and nothing is written', async () => {
    const nodes = Array.from({ length: 40 }, (_, i) => ({ slug: `d${i}`, parentSlug: i === 0 ? null : `d${i - 1}`, translations: { en: { title: `D${i}` } } }));
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions/v1/import', { body: { nodes } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'too_deep');
    // The first node that lands too deep: the 33rd, under the 32nd.
    assert.equal(res.body.error.field, 'body/nodes/32/parentSlug');
    assert.equal(s.commitCount(), commits);
    const ok = await s.request('POST', '/versions/v1/import', { body: { nodes: nodes.slice(0, 32) } });
    assert.equal(ok.status, 200);
  });

  test('JSON import takes language keys in any case, as node writes do', async () => {
    const res = await s.request('POST', '/versions/v1/import', { body: { nodes: [{ slug: 'a', translations: { en: { title: 'A' }, 'pt-br': { title: 'Á' } } }] } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.diff.updatedTranslations.find((t: any) => t.language === 'pt-BR'), { slug: 'a', language: 'pt-BR' });
  });

  test('a write that changes nothing makes no commit and moves no stamp', async () => {
    const before = (await s.request('GET', '/versions/v1/nodes')).body.nodes.find((n: any) => n.slug === 'a').updatedAt;
    const commits = s.commitCount();
    assert.equal((await s.request('PATCH', '/versions/v1', { body: {} })).status, 200);
    assert.equal((await s.request('PATCH', '/versions/v1/nodes/a', { body: {} })).body.updatedAt, before);
    assert.equal((await s.request('POST', '/versions/v1/import', { body: { nodes: [] } })).status, 200);
    assert.equal(s.commitCount(), commits);
  });

  test('content files that give one id to two nodes still load after a restart', async () => {
    await createNode(s, 'v1', { slug: 'b' });
    const id = (await s.request('GET', '/versions/v1/nodes')).body.nodes.find((n: any) => n.slug === 'b').id;
    const files = [
      { path: 'version.json', content: JSON.stringify({ status: 'published', languages: ['en'], nav: [{ slug: 'a', id }, 'b'] }) },
      { path: 'en/a.md', content: '---\ntitle: A\n---\n' },
      { path: 'en/b.md', content: '---\ntitle: B\n---\n' },
    ];
    assert.equal((await s.request('POST', '/versions/v2/import-files', { body: { files } })).status, 200);
    assert.equal((await s.request('POST', '/versions/v1/import-files', { body: { files } })).status, 200);
    const ids = (await s.request('GET', '/versions/v1/nodes')).body.nodes.map((n: any) => n.id);
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');
    s = await s.restart();
    assert.equal((await s.request('GET', '/versions/v1/tree')).status, 200);
  });
});

describe('Working copies follow their version', () => {
  let s: TestServer;
  let gh: FakeGitHub;
  before(async () => {
    gh = await new FakeGitHub().start();
    s = await startTestServer({ env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url } });
    const publisher = await s.createKey({ name: 'pub', publisher: true });
    for (let i = 0; i < 40 && (await s.request('GET', '/whoami', { key: publisher })).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
    await s.request('POST', '/versions', { body: { slug: 'v1', status: 'published' }, key: publisher });
    await s.request('POST', '/versions/v1/nodes', { body: { slug: 'a', translations: { en: { title: 'A' } } }, key: publisher });
    (s as any).publisher = publisher;
  });
  after(async () => {
    await s.close();
    await gh.stop();
  });

  test('parallel discards of one working copy: exactly one succeeds, one commit', async () => {
    assert.equal((await s.request('POST', '/versions/v1/working-copy')).status, 201);
    const commits = s.commitCount();
    const results = await Promise.all([1, 2, 3].map(() => s.request('DELETE', '/versions/v1/working-copy')));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 404, 404]);
    assert.equal(s.commitCount(), commits + 1);
  });

  test('deleting a version deletes its working copy in the same commit', async () => {
    assert.equal((await s.request('POST', '/versions/v1/working-copy')).status, 201);
    const commits = s.commitCount();
    const res = await s.request('DELETE', '/versions/v1', { key: (s as any).publisher });
    assert.equal(res.status, 200);
    assert.equal(s.commitCount(), commits + 1);
    const all = (await s.request('GET', '/versions?includeWorkingCopies=true')).body.map((v: any) => v.slug);
    assert.deepEqual(all, []);
  });
});
