import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { series } from './helpers/metrics.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

describe('GET /metrics (Prometheus)', () => {
  let s: TestServer;
  let root: string;
  before(async () => {
    s = await startTestServer();
    root = new URL('/', s.url).toString();
    await createVersion(s, 'v1', { status: 'published' });
    await createNode(s, 'v1', { slug: 'a' });
    await createNode(s, 'v1', { slug: 'b', translations: { en: { title: 'B' }, de: { title: 'Be' } } });
  });
  after(() => s.close());

  const scrape = async () => {
    const res = await fetch(`${root}metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  test('requests are counted and timed by route template and status, cached answers included', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await s.request('GET', '/versions/v1/tree', { key: null })).status, 200);
    await s.request('GET', '/versions/zzz-unknown-version/tree', { key: null });
    await s.request('GET', '/no-such-route-xyz', { key: null });
    const text = await scrape();
    const tree = { method: 'GET', route: '/help/v1/versions/:version/tree' };
    assert.equal(series(text, 'help_http_request_duration_seconds_count', { ...tree, status: '200' }), 3);
    assert.equal(series(text, 'help_http_request_duration_seconds_count', { ...tree, status: '404' }), 1);
    assert.ok((series(text, 'help_http_request_duration_seconds_bucket', { ...tree, status: '200', le: '+Inf' }) ?? 0) === 3);
    assert.equal(series(text, 'help_http_request_duration_seconds_count', { method: 'GET', route: '(none)', status: '404' }), 1);
    assert.doesNotMatch(text, /zzz-unknown-version|no-such-route-xyz/, 'raw paths never become labels');
  });

  test('answer-cache hits and misses, commits, and the index size', async () => {
    const before = await scrape();
    const hits = series(before, 'help_answer_cache_lookups_total', { result: 'hit' }) ?? 0;
    const commits = series(before, 'help_storage_duration_seconds_count', { operation: 'commit' }) ?? 0;
    await s.request('PUT', '/versions/v1/topics/a/translations/de', { body: { title: 'A auf Deutsch' } });
    // The first two build the answer (it is kept the second time), the third is a hit.
    for (let i = 0; i < 3; i++) await s.request('GET', '/versions/v1/topics/a?language=de', { key: null });
    const text = await scrape();
    assert.equal(series(text, 'help_storage_duration_seconds_count', { operation: 'commit' }), commits + 1);
    assert.equal(series(text, 'help_answer_cache_lookups_total', { result: 'hit' }), hits + 1);
    assert.ok((series(text, 'help_answer_cache_lookups_total', { result: 'miss' }) ?? 0) >= 2);
    assert.equal(series(text, 'help_index_versions', { status: 'published' }), 1);
    assert.equal(series(text, 'help_index_nodes'), 2);
    assert.equal(series(text, 'help_index_translations'), 4);
    assert.ok((series(text, 'process_cpu_user_seconds_total') ?? 0) > 0, 'process metrics');
    assert.notEqual(series(text, 'nodejs_eventloop_lag_seconds'), undefined);
  });

  test('with HELP_METRICS_TOKEN, only that bearer token may scrape', async () => {
    const guarded = await startTestServer({ env: { HELP_METRICS_TOKEN: 'scrape-secret' } });
    try {
      const url = new URL('/metrics', guarded.url).toString();
      const none = await fetch(url);
      assert.equal(none.status, 401);
      const refused = (await none.json()) as { error: { code: string; requestId?: string } };
      assert.equal(refused.error.code, 'unauthorized');
      assert.equal(refused.error.requestId, none.headers.get('x-request-id'), 'a request id, like every error');
      assert.ok(refused.error.requestId);
      assert.equal((await fetch(url, { headers: { authorization: 'Bearer wrong' } })).status, 401);
      assert.equal((await fetch(url, { headers: { authorization: `Bearer ${guarded.key}` } })).status, 401, 'an API key is not the metrics token');
      assert.equal((await fetch(url, { headers: { authorization: 'Bearer scrape-secret' } })).status, 200);
    } finally {
      await guarded.close();
    }
  });

  test('every answered request has a route template: well-known metadata, the authorization server, preflights, robots.txt, the portal, the tool server; (none) is for refusals', async () => {
    const get = (path: string, init: RequestInit = {}) => fetch(new URL(path, root), { redirect: 'manual', ...init });
    const preflight = (path: string, method = 'PUT') => get(path, { method: 'OPTIONS', headers: { origin: 'http://elsewhere.test', 'access-control-request-method': method } });
    const answered: Array<[Promise<Response>, string, string, number]> = [
      [get('/.well-known/oauth-authorization-server'), 'GET', '/.well-known/oauth-authorization-server', 200],
      [get('/.well-known/oauth-protected-resource'), 'GET', '/.well-known/oauth-protected-resource', 200],
      [get('/.well-known/oauth-protected-resource/help/v1'), 'GET', '/.well-known/oauth-protected-resource/help/v1', 200],
      [get('/.well-known/oauth-protected-resource/mcp'), 'GET', '/.well-known/oauth-protected-resource/mcp', 200],
      [get('/oauth/jwks'), 'GET', '/oauth/jwks', 200],
      [get('/oauth/register', { method: 'OPTIONS' }), 'OPTIONS', '/oauth/register', 204],
      [preflight('/help/v1/versions/v1/topics/a/translations/de'), 'OPTIONS', '/help/v1/versions/:version/topics/:slug/translations/:lang', 204],
      [preflight('/mcp', 'POST'), 'OPTIONS', '/mcp', 204],
      [preflight('/help/v1/no-such-thing-xyz'), 'OPTIONS', '(preflight)', 204],
      [get('/robots.txt'), 'GET', '/robots.txt', 200],
      [get('/support/v1/a'), 'GET', '/support/:version/:slug', 200],
    ];
    for (const [answer, , route, status] of answered) assert.equal((await answer).status, status, route);
    const text = await scrape();
    for (const [, method, route, status] of answered) {
      assert.ok((series(text, 'help_http_request_duration_seconds_count', { method, route, status: String(status) }) ?? 0) >= 1, `${method} ${route} ${status}`);
    }
    const unlabelled = text.split('\n').filter((l) => l.startsWith('help_http_request_duration_seconds_count') && l.includes('route="(none)"') && !/status="[45]\d\d"/.test(l));
    assert.deepEqual(unlabelled, [], 'only refusals are counted without a route');
    assert.doesNotMatch(text, /no-such-thing-xyz/, 'a preflight for an unknown path is not labelled with it');
  });
});
