import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

describe('Caching of public reads: ETag, If-None-Match, Cache-Control', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_CACHE_MAX_AGE: '120' } });
    await createVersion(s, 'v1', { status: 'published' });
    await createNode(s, 'v1', { slug: 'a', translations: { en: { title: 'A', bodyMd: 'Alpha\n' } } });
  });
  after(() => s.close());

  test('an anonymous read carries an ETag and public Cache-Control; If-None-Match gets 304', async () => {
    const first = await s.request('GET', '/versions/v1/topics/a', { key: null });
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^W\/".+"$/);
    assert.equal(first.headers.get('cache-control'), 'public, max-age=120');
    assert.match(first.headers.get('vary') ?? '', /Authorization/);
    const again = await s.request('GET', '/versions/v1/topics/a', { key: null, headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const same = await s.request('GET', '/versions/v1/topics/a', { key: null });
    assert.deepEqual(same.body, first.body);
    assert.equal(same.headers.get('etag'), etag);
  });

  test('a write changes the ETag and the answer', async () => {
    const before = await s.request('GET', '/versions/v1/topics/a', { key: null });
    await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'A2', bodyMd: 'Beta\n' } });
    const after = await s.request('GET', '/versions/v1/topics/a', { key: null, headers: { 'if-none-match': before.headers.get('etag')! } });
    assert.equal(after.status, 200);
    assert.equal(after.body.title, 'A2');
    assert.notEqual(after.headers.get('etag'), before.headers.get('etag'));
  });

  test('different URLs and different callers get different validators; credentials are private', async () => {
    const de = await s.request('GET', '/versions/v1/topics/a?language=de', { key: null });
    const en = await s.request('GET', '/versions/v1/topics/a', { key: null });
    assert.notEqual(de.headers.get('etag'), en.headers.get('etag'));
    const withKey = await s.request('GET', '/versions/v1/topics/a');
    assert.equal(withKey.headers.get('cache-control'), 'private, no-cache');
    assert.notEqual(withKey.headers.get('etag'), en.headers.get('etag'));
  });

  test('tree, nodes, one translation, search, versions and the PDF bundle are cached the same way', async () => {
    for (const path of ['/versions', '/versions/v1/tree', '/versions/v1/nodes', '/versions/v1/topics/a/translations/en', '/versions/v1/search?q=beta', '/versions/v1/pdf-bundle']) {
      const res = await s.request('GET', path, { key: null });
      assert.equal(res.status, 200, path);
      const etag = res.headers.get('etag');
      assert.ok(etag, path);
      assert.equal((await s.request('GET', path, { key: null, headers: { 'if-none-match': etag } })).status, 304, path);
    }
  });

  test('errors are not cached, and a version published later is seen at once', async () => {
    assert.equal((await s.request('GET', '/versions/v2/tree', { key: null })).status, 404);
    await createVersion(s, 'v2', { status: 'published' });
    assert.equal((await s.request('GET', '/versions/v2/tree', { key: null })).status, 200);
  });
});
