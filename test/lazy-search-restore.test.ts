import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeRec, Translation, VersionState } from '../src/domain/types.ts';
import { SearchIndex } from '../src/index/search.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// A start from snapshots takes each version's saved search index without loading it; the index is
// loaded on the version's first search or write (or in the background later). What a search
// answers must not depend on when that happened.

const STAMP = '2026-01-01T00:00:00.000Z';
const TOPICS: Record<string, [string, string]> = {
  install: ['Installing the client', 'Download the installer and run it. The installer asks for a folder.'],
  upgrade: ['Upgrading', 'An upgrade keeps your settings. Run the installer again to upgrade.'],
  backup: ['Backups', 'Back up the data folder before an upgrade. Restoring a backup replaces the folder.'],
  proxy: ['Proxy settings', 'Behind a proxy, set the proxy address in the settings file.'],
};

function stateOf(slug: string, translations: VersionState['translations']): VersionState {
  const nodes = new Map<string, NodeRec>();
  for (const node of translations.keys()) nodes.set(node, { id: node, slug: node, kind: 'topic', parentSlug: null, icon: null, sortOrder: 0, updatedAt: STAMP, children: [] });
  return {
    slug,
    meta: { label: slug, status: 'published', languages: ['en'], sortOrder: null, isLatest: false, hidden: false, workingCopyOf: null, createdAt: STAMP, updatedAt: STAMP },
    nodes,
    roots: [...translations.keys()],
    translations,
  };
}

function translationsOf(topics: Record<string, [string, string]>): Map<string, Map<string, Translation>> {
  return new Map(Object.entries(topics).map(([slug, [title, body]]) => [slug, new Map([['en', { title, summary: '', bodyMd: `${body}\n`, updatedAt: STAMP }]])]));
}

const QUERIES = ['installer', 'upgrade', 'folder', 'proxy settings', 'instal', 'upgrde', 'nothing-like-this'];

function answers(index: SearchIndex, state: VersionState) {
  return QUERIES.map((q) => ({ q, document: index.search(state, 'en', q), ranked: index.ranked(state, 'en', q, { limit: 10, offset: 0 }) }));
}

async function saved(state: VersionState): Promise<{ bytes: Buffer; before: ReturnType<typeof answers> }> {
  const built = new SearchIndex();
  await built.update(state.slug, state);
  return { bytes: Buffer.concat((await built.savePieces(state.slug))!), before: answers(built, state) };
}

describe('search indexes restored lazily', () => {
  test('a deferred index answers its first search, and its copies\' searches, as the index it was saved from', async () => {
    const state = stateOf('v1', translationsOf(TOPICS));
    const { bytes, before } = await saved(state);
    const index = new SearchIndex();
    assert.equal(index.restoreLater('v1', state, bytes), true);
    assert.equal(index.isDeferred('v1'), true, 'taken without loading');
    index.update('v1', state);
    assert.equal(index.isDeferred('v1'), true, 'setting the state it was saved with loads nothing');
    // A copy of the version (the same translations under another slug) shares the deferred index.
    const copy = { ...state, slug: 'v2' };
    index.update('v2', copy);
    assert.equal(index.isDeferred('v2'), true, 'the copy shares the saved index, still not loaded');
    assert.equal(await index.searchable('v2'), true);
    assert.deepEqual(answers(index, copy), before, 'the copy answers as the original did');
    assert.equal(index.isDeferred('v1'), false, 'loaded once for both');
    assert.deepEqual(answers(index, state), before);
    index.stop();
  });

  test('a save before any search writes the saved bytes as they are; a write patches the loaded index', async () => {
    const state = stateOf('v1', translationsOf(TOPICS));
    const { bytes } = await saved(state);
    const index = new SearchIndex();
    assert.equal(index.restoreLater('v1', state, bytes), true);
    assert.deepEqual(Buffer.concat((await index.savePieces('v1'))!), bytes);
    assert.equal(index.isDeferred('v1'), true, 'a save loads nothing');
    const edited = new Map(state.translations);
    edited.set('proxy', new Map([['en', { title: 'Proxy settings', summary: '', bodyMd: 'Set the gateway address.\n', updatedAt: STAMP }]]));
    const after = stateOf('v1', edited);
    await index.update('v1', after);
    assert.deepEqual(index.search(after, 'en', 'gateway').hits.map((h) => h.slug), ['proxy']);
    assert.deepEqual(index.search(after, 'en', 'behind').hits, [], 'the old text is gone');
    assert.deepEqual(index.search(after, 'en', 'installer').hits.map((h) => h.slug), ['install', 'upgrade']);
    index.stop();
  });

  test('bytes that are not a saved index are refused at once; a saved index that does not fit its state is rebuilt on first use', async () => {
    const state = stateOf('v1', translationsOf(TOPICS));
    const { bytes, before } = await saved(state);
    const index = new SearchIndex();
    assert.equal(index.restoreLater('v1', state, bytes.subarray(0, bytes.length - 3)), false, 'cut short');
    assert.equal(index.restoreLater('v1', state, new Uint8Array(0)), false, 'empty');
    // Saved for more documents than the state has: only loading finds out.
    const fewer = stateOf('v1', translationsOf({ install: TOPICS.install, upgrade: TOPICS.upgrade }));
    let told = 0;
    assert.equal(index.restoreLater('v1', fewer, bytes, () => told++), true);
    assert.equal(await index.searchable('v1'), true, 'the search waits for the index built instead');
    assert.equal(told, 1);
    assert.deepEqual(index.search(fewer, 'en', 'installer').hits.map((h) => h.slug), ['install', 'upgrade']);
    assert.deepEqual(index.search(fewer, 'en', 'proxy').hits, []);
    // And the whole state's index restored lazily elsewhere answers as before.
    const other = new SearchIndex();
    assert.equal(other.restoreLater('v1', state, bytes), true);
    assert.deepEqual(answers(other, state), before);
    index.stop();
    other.stop();
  });

  test('loaded in the background after the start, the indexes answer as the ones saved', async () => {
    const state = stateOf('v1', translationsOf(TOPICS));
    const { bytes, before } = await saved(state);
    const index = new SearchIndex();
    assert.equal(index.restoreLater('v1', state, bytes), true);
    const deadline = Date.now() + 30_000;
    while (index.isDeferred('v1') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(index.isDeferred('v1'), false, 'loaded without a search');
    assert.deepEqual(answers(index, state), before);
    index.stop();
  });
});

describe('a start from snapshots', () => {
  async function view(s: TestServer, version: string) {
    const out: Record<string, unknown> = {};
    for (const q of QUERIES) {
      for (const lang of ['en', 'de']) {
        const plain = await s.request('GET', `/versions/${version}/search?q=${encodeURIComponent(q)}&lang=${lang}`);
        const ranked = await s.request('GET', `/versions/${version}/search?q=${encodeURIComponent(q)}&lang=${lang}&order=relevance&limit=50`);
        assert.equal(plain.status, 200, plain.text);
        assert.equal(ranked.status, 200, ranked.text);
        out[`${lang} ${q}`] = { hits: plain.body.hits, partial: plain.body.partial, ranked: ranked.body.hits, total: ranked.body.total, suggestion: ranked.body.suggestion };
      }
    }
    return out;
  }

  test('answers searches of its versions and their copies with the same hits as before the restart', async () => {
    let s = await startTestServer();
    try {
      const created = (res: { status: number; text: string }) => assert.ok(res.status === 200 || res.status === 201, res.text);
      created(await s.request('POST', '/versions', { body: { slug: 'v1', label: 'One', languages: ['en', 'de'] } }));
      for (const [slug, [title, body]] of Object.entries(TOPICS)) {
        const res = await s.request('POST', '/versions/v1/nodes', { body: { slug, kind: 'topic', translations: { en: { title, bodyMd: body }, de: { title: `${title} (de)`, bodyMd: `Ordner und ${body}` } } } });
        created(res);
      }
      created(await s.request('POST', '/versions/v1/duplicate', { body: { slug: 'v2', status: 'published' } }));
      const before = { v1: await view(s, 'v1'), v2: await view(s, 'v2') };
      assert.ok((before.v1['en installer'] as { hits: unknown[] }).hits.length > 0, 'the queries find something');

      s = await s.restart();
      // The copy first: its index is its source's, loaded by the first search of either.
      assert.deepEqual(await view(s, 'v2'), before.v2);
      assert.deepEqual(await view(s, 'v1'), before.v1);

      // A write to a version whose index was not searched since the start patches the saved index.
      s = await s.restart();
      const res = await s.request('POST', '/versions/v2/nodes', { body: { slug: 'gateway', kind: 'topic', translations: { en: { title: 'Gateway', bodyMd: 'The gateway forwards the installer traffic.' } } } });
      created(res);
      const found = await s.request('GET', '/versions/v2/search?q=installer&lang=en');
      assert.deepEqual(found.body.hits.map((h: { slug: string }) => h.slug).sort(), ['gateway', 'install', 'upgrade']);
      assert.deepEqual(await view(s, 'v1'), before.v1, 'the source keeps its own answers');
    } finally {
      await s.close();
    }
  });
});
