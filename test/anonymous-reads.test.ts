import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { metric } from './helpers/metrics.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

/**
 * Anonymous GETs of cacheable endpoints are answered before the rest of the stack (anonymousReads
 * in src/http/api.ts). They must be the answers the router gives: compared here with the same
 * reads made with a key, which take the full path, and with the router's own errors.
 */
describe('Anonymous reads answered before the router', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_ANSWER_CACHE_MB: '0' } });
    await createVersion(s, 'v1', { status: 'published' });
    await createNode(s, 'v1', { slug: 'guide', kind: 'section', translations: { en: { title: 'Guide' } } });
    await createNode(s, 'v1', { slug: 'install', parentSlug: 'guide', translations: { en: { title: 'Install', bodyMd: 'Run "setup" now.\n' }, de: { title: 'Installieren', bodyMd: 'Führen Sie „setup“ aus.\n' } } });
    await createVersion(s, 'draft');
  });
  after(() => s.close());

  test('the same bodies as the full path, for every cacheable read', async () => {
    for (const path of ['/versions/v1/topics/install', '/versions/v1/topics/install?language=de', '/versions/v1/topics/install?language=fr', '/versions/v1/tree?language=de', '/versions/v1/nodes', '/versions/v1/topics/install/translations/de', '/versions/v1/search?q=setup']) {
      const anonymous = await s.request('GET', path, { key: null });
      const keyed = await s.request('GET', path);
      assert.equal(anonymous.status, 200, path);
      assert.deepEqual(anonymous.body, keyed.body, path);
      assert.equal(anonymous.headers.get('cache-control'), 'public, max-age=60', path);
    }
  });

  test('escaped path segments are decoded as the router decodes them; what it alone can match still works', async () => {
    // Plain fetch: the contract check of the test client knows only the documented spellings.
    const get = async (path: string) => {
      const res = await fetch(`${s.url}${path}`);
      return { status: res.status, body: (await res.json()) as any };
    };
    assert.equal((await get('/versions/v1/topics/%69nstall')).body.title, 'Install');
    assert.equal((await get('/versions/v1/topics/install/')).body.title, 'Install', 'a trailing slash');
    assert.equal((await get('/Versions/v1/topics/install')).body.title, 'Install', 'other letter case');
    const badEscape = await get('/versions/v1/topics/%E0%A4%A');
    assert.equal(badEscape.status, 400);
    assert.equal(badEscape.body.error.code, 'validation_failed');
  });

  test('errors are the API errors: unknown or unpublished version, unknown node, bad language, unknown route', async () => {
    const cases: Array<[string, number, string]> = [
      ['/versions/nope/topics/install', 404, 'not_found'],
      ['/versions/draft/tree', 404, 'not_found'],
      ['/versions/v1/topics/missing', 404, 'not_found'],
      ['/versions/v1/topics/install?language=12345678901234567890', 400, 'validation_failed'],
      ['/versions/v1/search', 400, 'validation_failed'],
      ['/versions/v1/topics/install/nothing-here', 404, 'not_found'],
    ];
    for (const [path, status, code] of cases) {
      const res = await s.request('GET', path, { key: null });
      assert.equal(res.status, status, path);
      assert.equal(res.body.error.code, code, path);
      assert.equal(typeof res.body.error.message, 'string', path);
    }
    // A draft and a slug no version has read alike: the answer does not tell that the draft exists.
    const draft = await s.request('GET', '/versions/draft/tree', { key: null });
    const none = await s.request('GET', '/versions/nope/tree', { key: null });
    assert.equal(draft.body.error.message, 'No version "draft"');
    assert.equal(none.body.error.message, 'No version "nope"');
  });

  test('metrics name the route template of answers given before the router', async () => {
    await s.request('GET', '/versions/v1/topics/install', { key: null });
    const answered = await metric(s.url, 'help_http_request_duration_seconds_count', { method: 'GET', route: '/help/v1/versions/:version/topics/:slug', status: '200' });
    assert.ok(answered >= 1, `answers counted under the route template: ${answered}`);
  });
});
