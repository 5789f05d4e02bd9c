import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { comparable } from './helpers/content.ts';
import { generateDocSet, type ContentFile, type GeneratedNode, type GeneratedSet } from './helpers/generate.ts';
import { createVersion, exportOf, listNodes, startTestServer, type ListedNode, type TestResponse, type TestServer } from './helpers/server.ts';

/** A timeout fit for multi-megabyte imports and exports. */
const LARGE = { timeout: 50_000 };

/**
 * Large documentation sets through both import paths: the JSON import and content files.
 *
 * A set of 2,000 nodes in three languages has 6,000 Markdown files, more than import-files takes
 * (2,000 files per request), so content files carry a set of 666 nodes in three languages
 * (1,998 Markdown files and version.json, under 10 MB), and the 2,000-node set goes through the JSON
 * import (and is shown to be refused as files with 413).
 */
describe('large documentation sets', () => {
  let s: TestServer;
  let big: GeneratedSet;
  let medium: GeneratedSet;
  before(async () => {
    big = generateDocSet({ nodes: 2000, seed: 20_240_601, bodyBytes: { min: 300, max: 1500 }, translationRate: 0.9 });
    medium = generateDocSet({ nodes: 666, seed: 4048, bodyBytes: { min: 500, max: 5000 }, pathPrefix: 'docs/large/', isLatest: true });
    // Preconditions on the generated sets (what this file claims to test).
    assert.ok(big.stats.nodes >= 2000 && big.stats.depth === 4 && big.stats.sections > 0 && big.stats.topics > 0);
    assert.deepEqual(Object.keys(big.stats.translationsByLanguage), ['en', 'de', 'ja']);
    assert.ok(big.stats.translationsByLanguage.ja > 1500 && big.stats.translationsByLanguage.ja < 2000, 'some nodes lack ja, most have it');
    assert.equal(medium.stats.translations, 1998);
    assert.equal(medium.files.length, 1999);
    assert.ok(medium.stats.contentBytes < 10 * 1024 * 1024, `content files total ${medium.stats.contentBytes} bytes`);
    s = await startTestServer();
    await createVersion(s, 'large-json', { languages: ['en', 'de', 'ja'] });
  });
  after(() => s?.close());

  test('2,000 nodes in three languages imported as JSON: one commit, every node and translation', async () => {
    const commits = s.commitCount();
    const res = await send(s, 'POST', '/versions/large-json/import', { mode: 'replace', nodes: big.nodes });
    assert.equal(res.status, 200, res.text.slice(0, 1000));
    assert.equal(res.body.diff.created.length, big.stats.nodes);
    assert.equal(res.body.diff.updatedTranslations.length, big.stats.translations);
    assert.equal(s.commitCount(), commits + 1);
    const nodes = await listNodes(s, 'large-json', LARGE);
    assert.equal(nodes.length, big.stats.nodes);
    assert.deepEqual(nodes.map((n) => n.slug), big.nodes.map((n) => n.slug), 'document order as generated');
    assertCounts(nodes, big);
    assert.deepEqual((await exportOf(s, 'large-json', LARGE)).nodes.map(comparable), comparableGenerated(big.nodes));
  });

  test('the same 2,000 nodes as content files exceed the 2,000-file limit: 413 limit_exceeded', async () => {
    const files = generateDocSet({ nodes: 2000, seed: 20_240_601, bodyBytes: { min: 300, max: 1500 }, translationRate: 0.9 }).files;
    assert.ok(files.length > 2000);
    const commits = s.commitCount();
    const res = await send(s, 'POST', '/versions/large-too-many/import-files', { files });
    assert.equal(res.status, 413, res.text.slice(0, 1000));
    assert.equal(res.body.error.code, 'limit_exceeded');
    assert.equal(res.body.error.limit, 'files');
    assert.equal(s.commitCount(), commits);
  });

  test('666 nodes in three languages (1,999 files) imported as content files into a new version', async () => {
    const commits = s.commitCount();
    const res = await send(s, 'POST', '/versions/large-files/import-files', { files: medium.files });
    assert.equal(res.status, 200, res.text.slice(0, 1000));
    assert.equal(res.body.summary.created, medium.stats.nodes);
    assert.deepEqual(res.body.version, { slug: 'large-files', exists: false, status: 'published', isLatest: true });
    assert.equal(s.commitCount(), commits + 1);
    const nodes = await listNodes(s, 'large-files', LARGE);
    assert.equal(nodes.length, medium.stats.nodes);
    assertCounts(nodes, medium);
    assert.deepEqual((await exportOf(s, 'large-files', LARGE)).nodes.map(comparable), comparableGenerated(medium.nodes));
  });

  test('the JSON import of the same 666 nodes gives the same nodes as the content files', async () => {
    await createVersion(s, 'large-files-json', { languages: ['en', 'de', 'ja'] });
    const res = await send(s, 'POST', '/versions/large-files-json/import', { mode: 'replace', nodes: medium.nodes });
    assert.equal(res.status, 200, res.text.slice(0, 1000));
    assert.deepEqual((await exportOf(s, 'large-files-json', LARGE)).nodes.map(comparable), (await exportOf(s, 'large-files', LARGE)).nodes.map(comparable));
  });

  test('search finds a generated word in en and in ja', async () => {
    for (const [version, set] of [['large-json', big], ['large-files', medium]] as const) {
      for (const language of ['en', 'ja']) {
        const probe = set.probes.find((p) => p.language === language)!;
        assert.ok(probe, `a ${language} probe`);
        const res = await s.request('GET', `/versions/${version}/search?q=${encodeURIComponent(probe.word)}&lang=${language}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.language, language);
        assert.deepEqual(res.body.hits.map((h: { slug: string }) => h.slug), [probe.slug], `${version} ${language} ${probe.word}`);
        assert.ok(res.body.hits[0].snippet.includes(probe.word), `snippet ${res.body.hits[0].snippet}`);
      }
    }
  });

  test('round trip: export → import (replace) into another version → export gives the same nodes', async () => {
    const source = await exportOf(s, 'large-json', LARGE);
    await createVersion(s, 'large-json-copy', { languages: ['en', 'de', 'ja'] });
    const res = await send(s, 'POST', '/versions/large-json-copy/import', { mode: 'replace', document: source });
    assert.equal(res.status, 200, res.text.slice(0, 1000));
    const copy = await exportOf(s, 'large-json-copy', LARGE);
    assert.equal(copy.nodes.length, source.nodes.length);
    assert.deepEqual(copy.nodes.map(comparable), source.nodes.map(comparable));
  });

  test('round trip: export → import (replace) into the same version changes nothing', async () => {
    const source = await exportOf(s, 'large-json', LARGE);
    const res = await send(s, 'POST', '/versions/large-json/import', { mode: 'replace', document: source });
    assert.equal(res.status, 200, res.text.slice(0, 1000));
    assert.equal(res.body.diff.unchanged.length, big.stats.nodes);
    assert.deepEqual([res.body.diff.created, res.body.diff.updated, res.body.diff.deleted, res.body.diff.updatedTranslations, res.body.diff.deletedTranslations], [[], [], [], [], []]);
    assert.deepEqual(await exportOf(s, 'large-json', LARGE), source);
  });

  test('round trip: export?format=files → import-files into another version → export gives the same nodes', async () => {
    const exported = await send(s, 'GET', '/versions/large-files/export?format=files');
    assert.equal(exported.status, 200);
    const files = exported.body.files as ContentFile[];
    assert.equal(files.length, medium.files.length);
    assert.equal(files[0].path, 'version.json');
    const res = await send(s, 'POST', '/versions/large-files-copy/import-files', { files });
    assert.equal(res.status, 200, res.text.slice(0, 1000));
    assert.equal(res.body.summary.created, medium.stats.nodes);
    const source = await exportOf(s, 'large-files', LARGE);
    const copy = await exportOf(s, 'large-files-copy', LARGE);
    assert.deepEqual(copy.nodes.map(comparable), source.nodes.map(comparable));
    assert.deepEqual(copy.nodes.map((n) => n.id), source.nodes.map((n) => n.id), 'ids travel in version.json');
  });
});

/** Like TestServer.request, with the LARGE timeout. */
function send(s: TestServer, method: string, path: string, body?: unknown): Promise<TestResponse> {
  return s.request(method, path, { body, ...LARGE });
}

/** Node, section, topic and per-language translation counts, and the depth, as generated. */
function assertCounts(nodes: ListedNode[], set: GeneratedSet): void {
  assert.equal(nodes.filter((n) => n.kind === 'section').length, set.stats.sections);
  assert.equal(nodes.filter((n) => n.kind === 'topic').length, set.stats.topics);
  const byLanguage: Record<string, number> = {};
  for (const n of nodes) for (const l of Object.keys(n.translations)) byLanguage[l] = (byLanguage[l] ?? 0) + 1;
  assert.deepEqual(byLanguage, set.stats.translationsByLanguage);
  const parent = new Map(nodes.map((n) => [n.slug, n.parentSlug]));
  const depth = (slug: string): number => (parent.get(slug) ? 1 + depth(parent.get(slug)!) : 1);
  assert.equal(Math.max(...nodes.map((n) => depth(n.slug))), set.stats.depth);
}

function comparableGenerated(nodes: GeneratedNode[]) {
  return nodes.map(({ id: _id, ...rest }) => rest);
}
