import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { MAX_BODY_DEPTH } from '../../src/http/api.ts';
import { createNode, createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

/** `{"a":{"a":…1…}}` nested `depth` levels below the field `field` of an otherwise valid body. */
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const nestedArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('Deeply nested JSON bodies are refused with 400, never 500', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { status: 'published' });
    await createNode(s, 'v1', { slug: 'a' });
  });
  after(() => s.close());

  const send = (method: string, path: string, raw: string, key?: string | null) =>
    s.request(method, path, { raw, key, headers: { 'content-type': 'application/json' }, timeout: 30_000 });

  const routes: Array<{ method: string; path: string; wrap: (nested: string) => string; key?: null }> = [
    { method: 'PUT', path: '/versions/v1/topics/a/translations/en', wrap: (n) => `{"title":"T","bodyMd":${n}}` },
    { method: 'POST', path: '/versions', wrap: (n) => `{"slug":"deep","label":${n}}` },
    { method: 'POST', path: '/versions/v1/import', wrap: (n) => `{"nodes":[{"slug":"x","translations":{"en":{"title":${n}}}}]}` },
    { method: 'POST', path: '/versions/v1/reorder', wrap: (n) => `{"items":${n}}` },
  ];

  for (const r of routes) {
    test(`${r.method} ${r.path}${r.key === null ? ' (anonymous)' : ''}: 3,000 and 100,000 levels answer validation_failed naming the depth`, async () => {
      const commits = s.commitCount();
      for (const nested of [nestedObject(3_000), nestedArray(3_000), nestedArray(100_000)]) {
        const res = await send(r.method, r.path, r.wrap(nested), r.key);
        assert.equal(res.status, 400, res.text.slice(0, 200));
        assert.equal(res.body.error.code, 'validation_failed');
        assert.match(res.body.error.message, new RegExp(`nested deeper than ${MAX_BODY_DEPTH} levels`));
        assert.match(res.body.error.field, /^body\//);
      }
      assert.equal(s.commitCount(), commits, 'nothing is written');
      assert.equal((await fetch(new URL('/healthz', s.url))).status, 200, 'the service is still up');
    });
  }

  test('the GitHub webhook: a signed delivery nested 3,000 and 100,000 levels is validation_failed naming the depth; an unsigned one is refused before it is parsed', async () => {
    // The webhook answers only with publishing on and a secret; a repository host that is not there is never called for these.
    const secret = 'hook-secret';
    const hooked = await startTestServer({
      env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: 'acme/help', HELP_GITHUB_TOKEN: 'ghp_test', HELP_GITHUB_API_URL: 'http://127.0.0.1:9', HELP_GITHUB_WEBHOOK_SECRET: secret },
    });
    try {
      const post = (raw: string, signed: boolean) =>
        hooked.request('POST', '/webhooks/github', {
          raw,
          key: null,
          headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', ...(signed ? { 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}` } : {}) },
          timeout: 30_000,
        });
      for (const nested of [nestedObject(3_000), nestedArray(3_000), nestedArray(100_000)]) {
        const raw = `{"action":"closed","pull_request":${nested}}`;
        const res = await post(raw, true);
        assert.equal(res.status, 400, res.text.slice(0, 200));
        assert.equal(res.body.error.code, 'validation_failed');
        assert.match(res.body.error.message, new RegExp(`nested deeper than ${MAX_BODY_DEPTH} levels`));
        assert.match(res.body.error.field, /^body\//);
        const unsigned = await post(raw, false);
        assert.equal(unsigned.status, 401, unsigned.text.slice(0, 200));
      }
      // Signed but not JSON, holding a prototype key, or JSON but no object: the parser's refusals, after the signature.
      for (const [raw, code] of [['{"action":', 'invalid_json'], ['{"__proto__":{"x":1}}', 'invalid_json'], ['"text"', 'validation_failed']]) {
        const res = await post(raw, true);
        assert.equal(res.status, 400, `${raw}: ${res.text}`);
        assert.equal(res.body.error.code, code);
        assert.equal((await post(raw, false)).status, 401);
      }
      assert.equal((await fetch(new URL('/healthz', hooked.url))).status, 200, 'the service is still up');
    } finally {
      await hooked.close();
    }
  });

  test(`the limit is ${MAX_BODY_DEPTH} levels: the field that goes one level too deep is named`, async () => {
    const ok = await send('PUT', '/versions/v1/topics/a/translations/en', `{"title":"T","extra":${nestedArray(MAX_BODY_DEPTH - 1)}}`);
    assert.equal(ok.status, 400, 'the body is refused by its schema, not by its depth');
    assert.doesNotMatch(ok.body.error.message, /nested deeper/);
    const deep = await send('PUT', '/versions/v1/topics/a/translations/en', `{"title":"T","extra":${nestedArray(MAX_BODY_DEPTH)}}`);
    assert.equal(deep.status, 400);
    assert.equal(deep.body.error.field, `body/extra${'/0'.repeat(MAX_BODY_DEPTH - 1)}`);
  });
});
