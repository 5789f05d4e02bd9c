import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

const APP = 'https://app.example.com';
const ELSEWHERE = 'https://elsewhere.example.org';

describe('Cross-origin requests (CORS)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_CORS_ORIGINS: `${APP}, https://admin.example.com:8443` } });
    await createVersion(s, 'v1', { status: 'published' });
    await createNode(s, 'v1', { slug: 'intro' });
  });
  after(() => s.close());

  const preflight = (origin: string, method: string, headers: string) =>
    fetch(`${s.url}/versions/v1/topics/intro/translations/en`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });

  test('anonymous reads answer any origin, from the router and from the answer cache alike', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await s.request('GET', '/versions/v1/tree', { key: null, headers: { origin: ELSEWHERE } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /ETag/);
      assert.doesNotMatch(res.headers.get('vary') ?? '', /Origin/, 'one copy for every origin in a CDN');
    }
  });

  test('an anonymous read that fails still lets the page read the JSON error', async () => {
    const res = await s.request('GET', '/versions/nope/tree', { key: null, headers: { origin: ELSEWHERE } });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.equal(res.body.error.code, 'not_found');
  });

  test('a request with a key from an origin not configured gets no CORS grant', async () => {
    const res = await s.request('GET', '/whoami', { headers: { origin: ELSEWHERE } });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    const pre = await preflight(ELSEWHERE, 'PUT', 'authorization, content-type');
    assert.equal(pre.status, 204);
    assert.doesNotMatch(pre.headers.get('access-control-allow-methods') ?? '', /PUT/);
    assert.doesNotMatch(pre.headers.get('access-control-allow-headers') ?? '', /Authorization/i);
  });

  test('a configured origin may preflight and send credentialed writes', async () => {
    const pre = await preflight(APP, 'PUT', 'authorization, content-type');
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), APP);
    assert.match(pre.headers.get('access-control-allow-methods') ?? '', /PUT/);
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    assert.equal(pre.headers.get('access-control-max-age'), '600');
    const put = await s.request('PUT', '/versions/v1/topics/intro/translations/en', { body: { title: 'From the app' }, headers: { origin: APP } });
    assert.equal(put.status, 200);
    assert.equal(put.headers.get('access-control-allow-origin'), APP);
    const read = await s.request('GET', '/versions/v1/nodes?include=bodies', { headers: { origin: APP } });
    assert.equal(read.headers.get('access-control-allow-origin'), APP);
    assert.match(read.headers.get('vary') ?? '', /Authorization/);
    const other = await preflight('https://admin.example.com:8443', 'DELETE', 'authorization');
    assert.equal(other.headers.get('access-control-allow-origin'), 'https://admin.example.com:8443');
  });

  test('requests without an Origin carry no CORS headers', async () => {
    const res = await s.request('GET', '/versions/v1/tree', { key: null });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });

  test('HELP_CORS_ORIGINS takes origins only, and says which value is wrong', () => {
    for (const value of ['*', 'app.example.com', 'https://app.example.com/path', 'https://a.example, nope']) {
      assert.throws(() => loadConfig({ HELP_CORS_ORIGINS: value }), (err: unknown) => err instanceof ConfigError && /HELP_CORS_ORIGINS/.test((err as Error).message), value);
    }
    assert.deepEqual([...loadConfig({ HELP_CORS_ORIGINS: 'https://a.example/, http://localhost:3000' }).corsOrigins], ['https://a.example', 'http://localhost:3000']);
  });
});
