import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { normalizeQuery, SearchReport } from '../src/feedback/search-report.ts';
import { assertError } from './helpers/assertions.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

// The search report: searches of the API and the portal counted by normalised query, those that
// found nothing, the results opened from the portal; bounded in memory, kept across a restart, off
// when told.

async function site(s: TestServer) {
  await createVersion(s, 'v1', { status: 'published', isLatest: true, languages: ['en', 'de'] });
  await createNode(s, 'v1', { slug: 'install', translations: { en: { title: 'Install', bodyMd: '## Download\n\nGet the installer.\n' }, de: { title: 'Installieren', bodyMd: 'Laden Sie es herunter.\n' } } });
  await createNode(s, 'v1', { slug: 'configure', translations: { en: { title: 'Configure', bodyMd: 'Settings and the installer options.\n' } } });
}

const origin = (s: TestServer) => new URL(s.url).origin;
const portal = (s: TestServer, path: string) => fetch(`${origin(s)}/support${path}`, { redirect: 'manual' });
const report = async (s: TestServer, query = '') => {
  const res = await s.request('GET', `/versions/v1/search-report${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
};
const row = (q: { query: string; language: string; count: number; results: number | null; opened: number }) => `${q.query}|${q.language}|${q.count}|${q.results}|${q.opened}`;

describe('The search report', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await site(s);
  });
  after(() => s.close());

  test('queries are normalised: lower case, white space collapsed and trimmed, at most 100 characters', () => {
    assert.equal(normalizeQuery('  Install\t\tTHE   Agent \n'), 'install the agent');
    assert.equal(normalizeQuery('Ä'.repeat(150)).length, 100);
    // Never half of a character outside the basic plane.
    const cut = normalizeQuery(`${'a'.repeat(99)}😀😀`);
    assert.equal(cut, 'a'.repeat(99));
    assert.equal(normalizeQuery('   '), '');
  });

  test('API searches count per version and language, answers from the cache too, with what they found', async () => {
    for (const q of ['Installer', '  installer ', 'installer', 'zebra']) assert.equal((await s.request('GET', `/versions/v1/search?q=${encodeURIComponent(q)}`, { key: null })).status, 200);
    assert.equal((await s.request('GET', '/versions/v1/search?q=installer&order=relevance', { key: null })).status, 200);
    // A later page of the same ranked search is no new search.
    assert.equal((await s.request('GET', '/versions/v1/search?q=installer&order=relevance&offset=10', { key: null })).status, 200);
    assert.equal((await s.request('GET', '/versions/v1/search?q=herunter&lang=de', { key: null })).status, 200);
    // Refused searches are not counted.
    assert.equal((await s.request('GET', '/versions/v1/search?q=installer&lang=fr', { key: null })).status, 400);
    assert.equal((await s.request('GET', '/versions/v9/search?q=installer', { key: null })).status, 404);
    const all = await report(s);
    assert.equal(all.enabled, true);
    assert.deepEqual(all.top.map(row), ['installer|en|4|2|0', 'herunter|de|1|1|0', 'zebra|en|1|0|0']);
    assert.deepEqual(all.noResults.map(row), ['zebra|en|1|0|0']);
    assert.deepEqual([all.searches, all.distinctQueries], [6, 3]);
    const german = await report(s, '?lang=de');
    assert.deepEqual([german.language, german.top.map(row)], ['de', ['herunter|de|1|1|0']]);
    assert.ok(typeof all.since === 'string');
  });

  test('the portal\'s searches count; a result is opened through _open, which counts it and sends the reader on', async () => {
    const page = await portal(s, '/v1/search?q=Settings');
    assert.equal(page.status, 200);
    const html = await page.text();
    const link = /<ol class="results"[^>]*><li[^>]*><h2><a href="([^"]+)"/.exec(html)?.[1].replace(/&amp;/g, '&');
    assert.ok(link?.startsWith('/support/v1/_open?'), link);
    assert.equal((await portal(s, '/v1/search?q=settings')).status, 200, 'the same search, answered from the page cache');
    assert.equal((await portal(s, '/v1/search?q=nothing+here')).status, 200);
    const opened = await portal(s, link!.slice('/support'.length));
    assert.equal(opened.status, 302);
    assert.equal(opened.headers.get('location'), '/support/v1/configure');
    assert.equal(opened.headers.get('cache-control'), 'no-store');
    const anchored = await portal(s, '/v1/_open?q=installer&to=install&at=download&lang=de');
    assert.equal(anchored.headers.get('location'), '/support/v1/install?lang=de#download');
    const r = await report(s);
    assert.ok(r.top.map(row).includes('settings|en|2|1|1'), JSON.stringify(r.top));
    assert.ok(r.noResults.map(row).includes('nothing here|en|1|0|0'));
    // Found pages, none of them opened.
    assert.ok(r.notOpened.map(row).includes('installer|en|4|2|0'), JSON.stringify(r.notOpened));
    assert.ok(!r.notOpened.some((q: { query: string }) => q.query === 'settings'));
  });

  test('_open sends nobody off the version\'s pages, and adds no query of its own', async () => {
    for (const to of ['https://evil.example/', '//evil.example', 'nosuchpage', '../admin', '']) {
      const res = await portal(s, `/v1/_open?q=installer&to=${encodeURIComponent(to)}`);
      assert.equal(res.status, 404, to);
      assert.equal(res.headers.get('location'), null);
    }
    assert.equal((await portal(s, '/v1/_open?q=a+query+nobody+searched&to=install')).status, 302);
    const r = await report(s);
    assert.ok(!r.top.some((q: { query: string }) => q.query === 'a query nobody searched'));
  });

  test('for callers who may read drafts', async () => {
    assertError(await s.request('GET', '/versions/v1/search-report', { key: null }), 401, 'unauthorized');
    assertError(await s.request('GET', '/versions/v1/search-report?limit=0'), 400, 'validation_failed', { field: 'query/limit' });
    assertError(await s.request('GET', '/versions/v1/search-report?lang=fr'), 400, 'language_not_enabled');
  });

  test('kept in the data directory at stop and read at start', async () => {
    const before = await report(s);
    s = await s.restart();
    const after = await report(s);
    assert.deepEqual(after, before);
    assert.ok(existsSync(join(s.dataDir, 'search-report.json')));
  });

  test('a deleted version\'s counts go with it: a new version under its slug starts with none, also after a restart', async () => {
    await createVersion(s, 'gone', { languages: ['en', 'de'] });
    await createNode(s, 'gone', { slug: 'old-page', translations: { en: { title: 'Old page', bodyMd: 'Gone soon.\n' }, de: { title: 'Alte Seite' } } });
    for (const q of ['old page', 'zebra', 'seite&lang=de']) assert.equal((await s.request('GET', `/versions/gone/search?q=${q}`)).status, 200);
    assert.equal((await s.request('GET', '/versions/gone/search-report')).body.searches, 3);
    const kept = await report(s);

    assert.equal((await s.request('DELETE', '/versions/gone')).status, 200);
    s = await s.restart();
    const saved = JSON.parse(readFileSync(join(s.dataDir, 'search-report.json'), 'utf8')) as { tables: Record<string, unknown> };
    assert.deepEqual(Object.keys(saved.tables).filter((key) => key.startsWith('gone\n')), [], 'written without the deleted version');
    await createVersion(s, 'gone', { languages: ['en'] });
    const fresh = (await s.request('GET', '/versions/gone/search-report')).body;
    assert.deepEqual([fresh.searches, fresh.distinctQueries, fresh.top, fresh.noResults], [0, 0, [], []]);
    assert.deepEqual(await report(s), kept, 'the other versions keep theirs');
  });
});

describe('The search report is bounded', () => {
  test('many distinct queries keep at most the configured number per version and language; the frequent ones stay', () => {
    const dir = mkdtempSync(join(tmpdir(), 'help-test-'));
    try {
      const r = new SearchReport(dir, true, 50, () => new Date().toISOString());
      for (let i = 0; i < 30; i++) r.count('v1', 'en', 'password reset', 3);
      for (let i = 0; i < 20_000; i++) r.count('v1', 'en', `query number ${i} ${'x'.repeat(i % 90)}`);
      assert.ok(r.size() <= 50, `${r.size()} queries held`);
      const top = r.report('v1', 'en', 5).top;
      assert.deepEqual([top[0].query, top[0].count, top[0].results], ['password reset', 30, 3]);
      // Each held query is at most 100 characters: memory is bounded by both.
      assert.ok(r.report('v1', 'en', 100).top.every((q) => q.query.length <= 100));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('over HTTP as well: HELP_SEARCH_REPORT_QUERIES', async () => {
    const s = await startTestServer({ env: { HELP_SEARCH_REPORT_QUERIES: '10' } });
    try {
      await site(s);
      for (let i = 0; i < 40; i++) assert.equal((await s.request('GET', `/versions/v1/search?q=word${i}`, { key: null })).status, 200);
      assert.equal((await report(s, '?limit=100')).distinctQueries <= 10, true);
    } finally {
      await s.close();
    }
  });
});

describe('HELP_SEARCH_REPORT=off', () => {
  test('nothing is counted or written, and the report says it is off', async () => {
    const s = await startTestServer({ env: { HELP_SEARCH_REPORT: 'off' } });
    try {
      await site(s);
      assert.equal((await s.request('GET', '/versions/v1/search?q=installer', { key: null })).status, 200);
      assert.equal((await portal(s, '/v1/search?q=installer')).status, 200);
      assert.equal((await portal(s, '/v1/_open?q=installer&to=install')).status, 302, 'result links still lead to their pages');
      const r = await report(s);
      assert.deepEqual([r.enabled, r.searches, r.top], [false, 0, []]);
      const dataDir = s.dataDir;
      await s.service.close();
      assert.equal(existsSync(join(dataDir, 'search-report.json')), false);
      rmSync(dataDir, { recursive: true, force: true });
    } catch (err) {
      await s.close();
      throw err;
    }
  });

  test('a bad value stops the start, naming the setting', () => {
    assert.throws(() => loadConfig({ HELP_SEARCH_REPORT: 'maybe' }), /HELP_SEARCH_REPORT must be on or off, not "maybe"/);
    assert.throws(() => loadConfig({ HELP_SEARCH_REPORT_QUERIES: '5' }), /HELP_SEARCH_REPORT_QUERIES must be a whole number from 10 to 100000/);
  });
});

test('the report file holds only the words searched, their counts and times', async () => {
  const s = await startTestServer();
  try {
    await site(s);
    await s.request('GET', '/versions/v1/search?q=Installer', { key: null, headers: { 'user-agent': 'Secret-Agent/1.0' } });
    const dataDir = s.dataDir;
    await s.service.close();
    const text = readFileSync(join(dataDir, 'search-report.json'), 'utf8');
    assert.ok(text.includes('"installer"'));
    assert.ok(!text.includes('127.0.0.1') && !text.includes('Secret-Agent'));
    rmSync(dataDir, { recursive: true, force: true });
  } catch (err) {
    await s.close();
    throw err;
  }
});
