import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { generateDocSet, type GeneratedSet } from './helpers/generate.ts';
import { createVersion, startTestServer, type TestServer } from './helpers/server.ts';

/**
 * The portal on a large version (2,000 nodes, four levels, three languages), where a page that
 * listed the whole tree or every topic would grow with the version: the start pages and topic pages
 * stay light, in the reader's language, and the tree shows the way to the page, not every branch.
 */
describe('The portal on a large version', () => {
  let s: TestServer;
  let set: GeneratedSet;
  let origin: string;
  let assetBytes: number;
  before(async () => {
    set = generateDocSet({ nodes: 2000, seed: 33, bodyBytes: { min: 300, max: 3000 }, languages: ['en', 'de', 'ja'] });
    s = await startTestServer();
    origin = new URL(s.url).origin;
    await createVersion(s, 'big', { languages: ['en', 'de', 'ja'] });
    const imported = await s.request('POST', '/versions/big/import', { body: { mode: 'replace', nodes: set.nodes }, timeout: 90_000 });
    assert.equal(imported.status, 200, imported.text.slice(0, 500));
    assert.equal((await s.request('PATCH', '/versions/big', { body: { status: 'published', isLatest: true } })).status, 200);
    // The stylesheet and script every page loads, compressed.
    const home = await (await fetch(`${origin}/support/big`)).text();
    const assets = [...home.matchAll(/(?:href|src)="(\/support\/_assets\/portal\.[0-9a-f]{12}\.(?:css|js))"/g)].map((m) => m[1]);
    assert.equal(assets.length, 2, 'one stylesheet and one script');
    assetBytes = 0;
    for (const path of assets) assetBytes += gzipSync(Buffer.from(await (await fetch(`${origin}${path}`)).arrayBuffer())).length;
  }, { timeout: 120_000 });
  after(() => s?.close());

  const page = async (path: string) => {
    const res = await fetch(`${origin}${path}`);
    const text = await res.text();
    assert.equal(res.status, 200, `${path}: ${text.slice(0, 300)}`);
    return { text, compressed: gzipSync(text).length };
  };

  test('the deepest topic weighs under 60 KB compressed with its stylesheet and script, and its tree shows only the way to it', async () => {
    const depth = (slug: string): number => {
      const node = set.nodes.find((n) => n.slug === slug)!;
      return node.parentSlug === null ? 1 : 1 + depth(node.parentSlug);
    };
    const deepest = set.nodes.filter((n) => n.kind === 'topic').sort((a, b) => depth(b.slug) - depth(a.slug) || b.translations.en.bodyMd.length - a.translations.en.bodyMd.length)[0];
    for (const language of ['en', 'de', 'ja']) {
      const { text, compressed } = await page(`/support/big/${deepest.slug}?lang=${language}`);
      assert.ok(compressed + assetBytes < 60 * 1024, `${language}: ${compressed} + ${assetBytes} bytes compressed`);
      const links = text.match(/<li class="(?:section|topic)[^"]*" data-slug=/g) ?? [];
      const topLevel = set.nodes.filter((n) => n.parentSlug === null).length;
      assert.ok(links.length < topLevel + 200, `${links.length} entries in the tree for ${topLevel} top-level nodes`);
      assert.match(text, new RegExp(`aria-current="page"`));
    }
  });

  test('the start pages list the version first and its top-level sections as cards of at most five topics, in the reader\'s language', async () => {
    const portal = await page('/support');
    assert.match(portal.text, /<a href="\/support\/big">/);
    const topLevel = set.nodes.filter((n) => n.parentSlug === null);
    for (const [language, search] of [['en', 'Search'], ['de', 'Suchen'], ['ja', '検索']] as const) {
      const home = await page(`/support/big${language === 'en' ? '' : `?lang=${language}`}`);
      assert.equal((home.text.match(/<ul class="card-topics">/g) ?? []).length, topLevel.filter((n) => set.nodes.some((c) => c.parentSlug === n.slug)).length, language);
      for (const list of home.text.match(/<ul class="card-topics">[\s\S]*?<\/ul>/g) ?? []) {
        assert.ok((list.match(/<li>/g) ?? []).length <= 5, `${language}: a card lists at most five topics`);
      }
      assert.match(home.text, new RegExp(`<button type="submit">${search}</button>`), language);
      assert.ok(home.compressed + assetBytes < 60 * 1024, `${language}: ${home.compressed} + ${assetBytes} bytes compressed`);
    }
  });
});
