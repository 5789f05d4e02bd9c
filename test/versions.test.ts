import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createVersion, startTestServer, type TestServer } from './helpers/server.ts';

describe('Versions', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('POST /versions creates a draft with defaults, one commit', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions', { body: { slug: 'v1', label: 'Version 1' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.slug, 'v1');
    assert.equal(res.body.status, 'draft');
    assert.deepEqual(res.body.languages, ['en']);
    assert.equal(res.body.isLatest, false);
    assert.equal(s.commitCount(), commits + 1);
    assert.match(s.git('log', '-1', '--format=%an|%s'), /^writer\|Create version v1/);
  });

  test('POST /versions with a taken slug is 409 conflict and writes nothing', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions', { body: { slug: 'v1', label: 'again' } });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'conflict');
    assert.equal(s.commitCount(), commits);
  });

  test('isLatest moves between published versions in one commit', async () => {
    await createVersion(s, 'a1', { status: 'published', isLatest: true });
    await createVersion(s, 'a2', { status: 'published' });
    const commits = s.commitCount();
    const res = await s.request('PATCH', '/versions/a2', { body: { isLatest: true } });
    assert.equal(res.status, 200);
    assert.equal(res.body.isLatest, true);
    assert.equal(s.commitCount(), commits + 1);
    const list = (await s.request('GET', '/versions')).body as Array<{ slug: string; isLatest: boolean }>;
    assert.deepEqual(list.filter((v) => v.isLatest).map((v) => v.slug), ['a2']);
    const files = s.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort();
    assert.deepEqual(files, ['a1/version.json', 'a2/version.json']);
  });
});
