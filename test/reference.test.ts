import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from './helpers/server.ts';

describe('The API index and the interactive reference', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('GET /help/v1 answers where the reference, openapi.json, /healthz and /metrics are, and each link works', async () => {
    const res = await s.request('GET', '', { key: null });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      name: 'Help Content API',
      apiVersion: '1.0.0',
      links: { docs: '/help/v1/docs', openapi: '/help/v1/openapi.json', healthz: '/healthz', metrics: '/metrics' },
    });
    for (const link of Object.values(res.body.links) as string[]) {
      assert.equal((await fetch(new URL(link, s.url))).status, 200, link);
    }
  });

  test('GET /help/v1/docs is a page whose scripts all come from the service, with a strict policy', async () => {
    const res = await fetch(`${s.url}/docs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const policy = res.headers.get('content-security-policy') ?? '';
    assert.match(policy, /script-src 'self'(;|$)/, 'no inline or remote scripts');
    assert.match(policy, /connect-src 'self'/, 'the page talks to this service only');
    const html = await res.text();
    assert.doesNotMatch(html, /<script>(?!<)/, 'no inline script');
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(urls, ['/help/v1/docs/favicon-32x32.png', '/help/v1/docs/swagger-ui.css', '/help/v1/docs/swagger-ui-bundle.js', '/help/v1/docs/reference.js']);
    for (const url of urls) {
      const asset = await fetch(new URL(url, s.url));
      assert.equal(asset.status, 200, url);
      assert.match(asset.headers.get('content-type') ?? '', url.endsWith('.css') ? /^text\/css/ : url.endsWith('.png') ? /^image\/png/ : /^text\/javascript/);
      assert.equal(asset.headers.get('x-content-type-options'), 'nosniff');
      assert.ok((await asset.arrayBuffer()).byteLength > 100, url);
    }
    const setup = await (await fetch(new URL('/help/v1/docs/reference.js', s.url))).text();
    assert.match(setup, /url: '\/help\/v1\/openapi\.json'/);
    assert.match(setup, /validatorUrl: null/, 'the document is never sent to a public validator');
  });
});
