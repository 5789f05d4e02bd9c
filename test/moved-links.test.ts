import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Clients, content, toolError } from './helpers/mcp.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

// A renamed node's old slug (docs/content-format.md#redirects-and-removed-pages) in links and tool reads:
// a link to it is reported as `moved` and the portal links straight to the node; the tools that name a node follow it.

describe('links and tool reads of a renamed node\'s old slug', () => {
  let s: TestServer;
  let origin: string;
  const clients = new Clients(() => s);
  let renameWarnings: Array<{ link: string; message: string }>;

  before(async () => {
    s = await startTestServer();
    origin = new URL(s.url).origin;
    await createVersion(s, 'v1', { languages: ['en', 'de'] });
    await createNode(s, 'v1', { slug: 'setup', translations: { en: { title: 'Setup', bodyMd: '## Download\n\nGet it.\n' }, de: { title: 'Einrichtung', bodyMd: '## Herunterladen\n' } } });
    await createNode(s, 'v1', { slug: 'guide', translations: { en: { title: 'Guide', bodyMd: 'Read [setup](setup) first.\n' } } });
    const renamed = await s.request('PATCH', '/versions/v1/nodes/setup', { body: { slug: 'install' } });
    assert.equal(renamed.status, 200, renamed.text);
    renameWarnings = renamed.body.warnings ?? [];
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
  });

  test('a rename warns of the links elsewhere that still name the old slug', () => {
    assert.deepEqual(
      renameWarnings.map((w) => [w.link, w.message]),
      [['setup', 'broken link "setup": "setup" moved to "install"; link to "install"']],
    );
  });

  test('a write warns of each link to the old slug as moved, with the slug to link to instead', async () => {
    const res = await putTranslation(s, 'v1', 'guide', 'en', { title: 'Guide', bodyMd: 'Read [setup](setup), [download](../setup#download) and [there](setup#nowhere).\n\n[Install](install)\n' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.warnings.map((w: { code: string; link: string; message: string }) => [w.code, w.link, w.message]),
      [
        ['broken_link', 'setup', 'broken link "setup": "setup" moved to "install"; link to "install"'],
        ['broken_link', '../setup#download', 'broken link "../setup#download": "setup" moved to "install"; link to "install"'],
        ['broken_link', 'setup#nowhere', 'broken link "setup#nowhere": "setup" moved to "install"; link to "install"'],
      ],
    );
  });

  test('GET /versions/{version}/links lists a moved link with the slug the node has now', async () => {
    const res = await s.request('GET', '/versions/v1/links');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.broken.map(({ line, ...b }: { line: number }) => (assert.ok(line >= 1), b)), [
      { path: 'en/guide.md', link: 'setup', target: 'setup', reason: 'moved', movedTo: 'install' },
      { path: 'en/guide.md', link: '../setup#download', target: 'setup', anchor: 'download', reason: 'moved', movedTo: 'install' },
      { path: 'en/guide.md', link: 'setup#nowhere', target: 'setup', anchor: 'nowhere', reason: 'moved', movedTo: 'install' },
    ]);
  });

  test('once a link names the node\'s slug now, what else is wrong with it is reported', async () => {
    const res = await putTranslation(s, 'v1', 'guide', 'de', { title: 'Anleitung', bodyMd: '[dort](install#nirgends)\n' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.warnings.map((w: { message: string }) => w.message), ['broken link "install#nirgends": "install" has no heading with the anchor "#nirgends" (its headings: #herunterladen)']);
  });

  describe('published', () => {
    before(async () => {
      const res = await s.request('PATCH', '/versions/v1', { body: { status: 'published' } });
      assert.equal(res.status, 200, res.text);
    });

    test('the portal page links a moved link straight to the node\'s page, not through the redirect', async () => {
      const res = await fetch(`${origin}/support/v1/guide`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /<a href="\/support\/v1\/install">setup<\/a>/);
      assert.match(html, /<a href="\/support\/v1\/install#download">download<\/a>/);
      assert.doesNotMatch(html, /href="[^"]*\/setup/);
      assert.match(html, /<span class="broken-link" title="[^"]*">there<\/span>/);
    });

    test('the Markdown twin links a moved link to the node\'s twin', async () => {
      const res = await fetch(`${origin}/support/v1/guide.md`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.ok(text.includes(`[setup](${origin}/support/v1/install.md)`), text);
      assert.ok(text.includes(`[download](${origin}/support/v1/install.md#download)`), text);
    });

    test('get_topic, get_translation and fetch read the node of an old slug and say they followed a redirect', async () => {
      const anon = await clients.connect(null);
      const topic = content(await anon.callTool({ name: 'get_topic', arguments: { version: 'v1', slug: 'setup', language: 'de' } }));
      assert.equal(topic.slug, 'install');
      assert.equal(topic.title, 'Einrichtung');
      assert.deepEqual(topic.redirect, { from: 'setup', to: 'install' });

      const translation = content(await anon.callTool({ name: 'get_translation', arguments: { version: 'v1', slug: 'setup', language: 'en' } }));
      assert.equal(translation.title, 'Setup');
      assert.deepEqual(translation.redirect, { from: 'setup', to: 'install' });

      const fetched = content(await anon.callTool({ name: 'fetch', arguments: { id: 'v1/de/setup' } }));
      assert.equal(fetched.id, 'v1/de/install');
      assert.equal(fetched.metadata.slug, 'install');
      assert.equal(fetched.url, `${origin}/support/v1/install?lang=de`);
      assert.deepEqual(fetched.redirect, { from: 'setup', to: 'install' });
    });

    test('get_history and submit_feedback take an old slug as the renamed node\'s and say they followed a redirect', async () => {
      const writer = await clients.connect(s.key);
      const followed = content(await writer.callTool({ name: 'get_history', arguments: { version: 'v1', slug: 'setup' } }));
      assert.equal(followed.slug, 'install');
      assert.deepEqual(followed.redirect, { from: 'setup', to: 'install' });
      assert.ok(followed.history.some((e: { change: string; from?: string }) => e.change === 'renamed' && e.from === 'setup'), JSON.stringify(followed.history));
      const live = content(await writer.callTool({ name: 'get_history', arguments: { version: 'v1', slug: 'install' } }));
      assert.equal(live.redirect, undefined);
      assert.deepEqual({ ...followed, redirect: undefined }, { ...live, redirect: undefined });

      const anon = await clients.connect(null);
      const entry = content(await anon.callTool({ name: 'submit_feedback', arguments: { version: 'v1', slug: 'setup', helpful: false, comment: 'Where is the download?' } }));
      assert.equal(entry.slug, 'install');
      assert.equal(entry.source, 'agent');
      assert.deepEqual(entry.redirect, { from: 'setup', to: 'install' });
      // Kept under the name the page has now, with the page's other feedback.
      const listed = await s.request('GET', '/feedback?version=v1&slug=install');
      assert.deepEqual(listed.body.entries.map((e: { id: string; comment: string }) => [e.id, e.comment]), [[entry.id, 'Where is the download?']]);
      assert.equal((await s.request('GET', '/feedback?version=v1&slug=setup')).body.entries.length, 0);
      toolError(await anon.callTool({ name: 'submit_feedback', arguments: { version: 'v1', slug: 'nowhere', helpful: true } }), 'not_found');
    });

    test('a read of a live slug carries no redirect; a slug that never was one is still not_found', async () => {
      const anon = await clients.connect(null);
      const topic = content(await anon.callTool({ name: 'get_topic', arguments: { version: 'v1', slug: 'install' } }));
      assert.equal(topic.redirect, undefined);
      toolError(await anon.callTool({ name: 'get_topic', arguments: { version: 'v1', slug: 'nowhere' } }), 'not_found');
      toolError(await anon.callTool({ name: 'fetch', arguments: { id: 'v1/en/nowhere' } }), 'not_found', { field: 'arguments/id' });
    });
  });
});
