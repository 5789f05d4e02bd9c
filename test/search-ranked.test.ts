import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { NodeRec, VersionState } from '../src/domain/types.ts';
import { SearchIndex } from '../src/index/search.ts';
import { searchCachesBytes } from '../src/index/search-caches.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

// Search by relevance (order=relevance) through the API: what a reader notices about the ranking,
// the paging, the snippets, and the errors. The sample content is the help site of a task app.

const SAMPLE = fileURLToPath(new URL('../content-sample', import.meta.url));

interface Ranked {
  total: number;
  partial?: true;
  suggestion?: string;
  offset: number;
  limit: number;
  order: string;
  hits: Array<{ slug: string; title: string; score: number; snippet: string; highlights: Array<[number, number]>; heading: { text: string; anchor: string } | null; breadcrumbs: Array<{ slug: string; title: string }>; language: string }>;
}

describe('Search by relevance', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ sample: SAMPLE });
  });
  after(() => s.close());

  const ranked = async (q: string, extra = '') => {
    const res = await s.request('GET', `/versions/v1/search?q=${encodeURIComponent(q)}&order=relevance${extra}`, { key: null });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Ranked;
  };
  const titles = (r: Ranked) => r.hits.map((h) => h.title);

  test('the page a word is about comes first, not the first page that mentions it', async () => {
    assert.equal(titles(await ranked('slack'))[0], 'Slack integration');
    assert.equal(titles(await ranked('reminder'))[0], 'Due dates and reminders');
    // Document order, the default, is unchanged: the same words in the order of the tree.
    const plain = await s.request('GET', '/versions/v1/search?q=slack', { key: null });
    assert.equal(plain.status, 200);
    assert.equal((plain.body as { order?: string }).order, undefined);
    assert.notEqual((plain.body as Ranked).hits[0].title, 'Slack integration');
  });

  test('a query equal to a title puts that page first, and scores go down the list', async () => {
    const r = await ranked('Guest access');
    assert.equal(r.hits[0].title, 'Guest access');
    for (let i = 1; i < r.hits.length; i++) assert.ok(r.hits[i - 1].score >= r.hits[i].score, 'scores descend');
  });

  test('a word that is a section\'s whole heading finds the page with that section before pages that merely have the word in their title', async () => {
    // The REST API page has an "Authentication" section; "Two-factor authentication" only has the word in its title.
    const r = await ranked('Authentication');
    assert.equal(r.hits[0].slug, 'rest-api', JSON.stringify(titles(r)));
    assert.equal(r.hits[0].heading?.text, 'Authentication');
    assert.ok(titles(r).includes('Two-factor authentication'), 'the other page is still found');
  });

  test('pages with all the words come before pages with some; a page missing a word is still found', async () => {
    const both = await ranked('slack reminders');
    const slackOnly = await ranked('slack');
    const remindersOnly = await ranked('reminders');
    assert.ok(both.total >= Math.max(slackOnly.total, remindersOnly.total), 'some words are enough to be a hit');
    const hasAll = (slug: string) => slackOnly.hits.some((h) => h.slug === slug) && remindersOnly.hits.some((h) => h.slug === slug);
    const firstPartial = both.hits.findIndex((h) => !hasAll(h.slug));
    assert.ok(firstPartial > 0, 'at least one page has both words');
    assert.ok(both.hits.slice(firstPartial).every((h) => !hasAll(h.slug)), 'no page with both words after one without');
    // A word no page has does not empty the answer.
    assert.ok((await ranked('slack zzzqqq')).hits.some((h) => h.title === 'Slack integration'));
  });

  test('a typo, another form of the word and a half-typed word find the page', async () => {
    assert.equal(titles(await ranked('integraiton slack'))[0], 'Slack integration', 'one transposition in a long word');
    assert.equal(titles(await ranked('remindrs'))[0], 'Due dates and reminders', 'one letter missing');
    assert.equal(titles(await ranked('slack integ'))[0], 'Slack integration', 'the last word half typed');
    assert.ok(titles(await ranked('reminding')).includes('Due dates and reminders'), 'another form of the word (stemming)');
    // Short words are not fuzzed: "tsak" (4 letters) is no typo of "task" here.
    assert.equal((await ranked('tsak')).total, 0);
  });

  test('the snippet is the passage that matched, with the words marked and its section linked', async () => {
    const r = await ranked('slash commands');
    const hit = r.hits[0];
    assert.equal(hit.title, 'Slack integration');
    assert.ok(hit.highlights.length > 0);
    for (const [start, end] of hit.highlights) assert.match(hit.snippet.slice(start, end).toLowerCase(), /^(slash|commands?)$/);
    assert.deepEqual(hit.heading, { text: 'Slash commands', anchor: 'slash-commands' });
    // The anchor is the id of that heading on the topic's page.
    const page = await fetch(new URL(`/support/v1/${hit.slug}`, s.url));
    assert.match(await page.text(), /id="slash-commands"/);
    assert.equal(hit.language, 'en');
  });

  test('breadcrumbs name the ancestors, the root first', async () => {
    const hit = (await ranked('slack')).hits[0];
    assert.ok(hit.breadcrumbs.length >= 1);
    const tree = await s.request('GET', '/versions/v1/tree', { key: null });
    const path: string[] = [];
    const find = (entries: Array<{ slug: string; title: string; children?: unknown[] }>, trail: Array<{ slug: string; title: string }>): boolean => {
      for (const e of entries) {
        if (e.slug === hit.slug) {
          path.push(...trail.map((t) => t.slug));
          return true;
        }
        if (e.children && find(e.children as typeof entries, [...trail, { slug: e.slug, title: e.title }])) return true;
      }
      return false;
    };
    assert.ok(find((tree.body as { tree: Array<{ slug: string; title: string }> }).tree, []));
    assert.deepEqual(hit.breadcrumbs.map((b) => b.slug), path);
  });

  test('pages of results neither repeat nor skip a hit', async () => {
    const all = await ranked('tasks', '&limit=50');
    assert.ok(all.total > 6, 'enough hits to page');
    const paged: string[] = [];
    for (let offset = 0; offset < all.total; offset += 3) {
      const page = await ranked('tasks', `&limit=3&offset=${offset}`);
      assert.equal(page.total, all.total);
      assert.equal(page.offset, offset);
      paged.push(...page.hits.map((h) => h.slug));
    }
    assert.deepEqual(paged, all.hits.map((h) => h.slug));
    assert.equal(new Set(paged).size, paged.length);
    assert.equal((await ranked('tasks')).hits.length, 10, 'ten by default');
  });

  test('when nothing matches, a suggestion built from the version\'s own words', async () => {
    const r = await ranked('slekk');
    assert.equal(r.total, 0);
    assert.equal(r.suggestion, 'slack');
    assert.ok((await ranked(r.suggestion!)).total > 0);
    assert.equal((await ranked('qqqqqqqq')).suggestion, undefined);
  });

  test('German is stemmed as German, and results stay in the language asked', async () => {
    const r = await ranked('Erinnerungen', '&lang=de');
    assert.ok(r.hits.length > 0);
    assert.ok(r.hits.every((h) => h.language === 'de'));
  });

  test('Japanese and Chinese are cut into character pairs: a phrase finds the page that has it', async () => {
    await createVersion(s, 'cjk', { languages: ['ja'] });
    await createNode(s, 'cjk', { slug: 'notifications', kind: 'topic', translations: { ja: { title: '通知の設定', summary: 'メールとアプリの通知を設定します。', bodyMd: '## 通知の種類\n\nタスクの期限が近づくと通知が届きます。' } } });
    await createNode(s, 'cjk', { slug: 'billing', kind: 'topic', translations: { ja: { title: '請求', summary: '請求書を確認します。', bodyMd: '請求書はメールで届きます。' } } });
    // (A new version is a draft: its reader needs a key.)
    const res = await s.request('GET', `/versions/cjk/search?q=${encodeURIComponent('期限が近づく')}&order=relevance&lang=ja`);
    assert.equal(res.status, 200);
    const body = res.body as Ranked;
    assert.equal(body.hits[0].slug, 'notifications');
    assert.equal(body.hits[0].heading?.text, '通知の種類');
    const [start, end] = body.hits[0].highlights[0];
    assert.ok('期限が近づく'.includes(body.hits[0].snippet.slice(start, end)));
  });

  test('an edit is searchable at once, ranked by its new words', async () => {
    await createVersion(s, 'edits');
    await createNode(s, 'edits', { slug: 'one', kind: 'topic', translations: { en: { title: 'First page', summary: 'About apples', bodyMd: 'Apples.' } } });
    await createNode(s, 'edits', { slug: 'two', kind: 'topic', translations: { en: { title: 'Second page', summary: 'About pears', bodyMd: 'Pears.' } } });
    const first = await s.request('GET', '/versions/edits/search?q=bananas&order=relevance');
    assert.equal((first.body as Ranked).total, 0);
    const put = await putTranslation(s, 'edits', 'two', 'en', { title: 'Bananas', summary: 'About bananas', bodyMd: 'Bananas.' });
    assert.equal(put.status, 200);
    const after = await s.request('GET', '/versions/edits/search?q=bananas&order=relevance');
    assert.deepEqual((after.body as Ranked).hits.map((h) => h.slug), ['two']);
  });

  test('a half-typed word and a typo asked before a page had the word find the page once it has it', async () => {
    await createVersion(s, 'words');
    await createNode(s, 'words', { slug: 'fruit', kind: 'topic', translations: { en: { title: 'Fruit', summary: 'About apples', bodyMd: 'Apples.' } } });
    const ask = async (q: string) => (await s.request('GET', `/versions/words/search?q=${q}&order=relevance`)).body as Ranked;
    for (const q of ['mangos', 'mang', 'mnagoes']) assert.equal((await ask(q)).total, 0, q);
    assert.equal((await putTranslation(s, 'words', 'fruit', 'en', { title: 'Fruit', summary: 'About mangoes', bodyMd: 'Mangoes and apples.' })).status, 200);
    for (const q of ['mangoes', 'mang', 'mnagoes']) assert.deepEqual((await ask(q)).hits.map((h) => h.slug), ['fruit'], q);
  });

  test('breadcrumbs follow a section renamed after they were shown', async () => {
    await createVersion(s, 'crumbs');
    await createNode(s, 'crumbs', { slug: 'guide', kind: 'section', translations: { en: { title: 'Guide', bodyMd: '' } } });
    await createNode(s, 'crumbs', { slug: 'kiwi', kind: 'topic', parentSlug: 'guide', translations: { en: { title: 'Kiwi', summary: 'About kiwis', bodyMd: 'Kiwis.' } } });
    const crumbs = async () => ((await s.request('GET', '/versions/crumbs/search?q=kiwi&order=relevance')).body as Ranked).hits[0].breadcrumbs;
    assert.deepEqual(await crumbs(), [{ slug: 'guide', title: 'Guide' }]);
    assert.equal((await s.request('PUT', '/versions/crumbs/topics/guide/translations/en', { body: { title: 'Handbook', bodyMd: '' } })).status, 200);
    assert.deepEqual(await crumbs(), [{ slug: 'guide', title: 'Handbook' }]);
  });

  test('bad parameters are 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['order=best', 'query/order'],
      ['order=relevance&limit=0', 'query/limit'],
      ['order=relevance&limit=51', 'query/limit'],
      ['order=relevance&offset=-1', 'query/offset'],
      ['limit=5', 'query/limit'],
      ['offset=5', 'query/offset'],
    ]) {
      const res = await s.request('GET', `/versions/v1/search?q=slack&${query}`, { key: null });
      assert.equal(res.status, 400, query);
      const error = (res.body as { error: { code: string; field: string } }).error;
      assert.equal(error.code, 'validation_failed', query);
      assert.equal(error.field, field, query);
    }
  });
});

describe('The ranking index in process', () => {
  const STAMP = '2026-01-01T00:00:00.000Z';
  function stateOf(topics: Record<string, { title: string; summary: string; bodyMd: string }>, slug = 'v1'): VersionState {
    const nodes = new Map<string, NodeRec>();
    for (const s of Object.keys(topics)) nodes.set(s, { id: s, slug: s, kind: 'topic', parentSlug: null, icon: null, sortOrder: 0, updatedAt: STAMP, children: [] });
    return {
      slug,
      meta: { label: 'V1', status: 'published', languages: ['en'], sortOrder: null, isLatest: true, hidden: false, workingCopyOf: null, createdAt: STAMP, updatedAt: STAMP },
      nodes,
      roots: Object.keys(topics),
      translations: new Map(Object.entries(topics).map(([s, t]) => [s, new Map([['en', { ...t, updatedAt: STAMP }]])])),
    };
  }
  const topics = {
    export: { title: 'Export your data', summary: 'Download projects as CSV.', bodyMd: '## Formats\n\nExports come as CSV or JSON files.\n' },
    import: { title: 'Import from other tools', summary: 'Bring projects over.', bodyMd: '## Spreadsheets\n\nImporting a spreadsheet keeps its columns.\n' },
    billing: { title: 'Billing', summary: 'Invoices and payment.', bodyMd: 'Invoices are exported monthly.\n' },
  };
  const ranks = (index: SearchIndex, state: VersionState, q: string) => index.ranked(state, 'en', q, { limit: 10, offset: 0 });

  test('a snapshot keeps it: an index restored from the saved bytes ranks, stems, forgives typos and suggests as the one it was saved from', async () => {
    const state = stateOf(topics);
    const built = new SearchIndex();
    await built.update('v1', state);
    const pieces = (await built.savePieces('v1'))!;
    const restored = new SearchIndex();
    assert.ok(restored.restore('v1', state, Buffer.concat(pieces)), 'the saved bytes are taken');
    for (const q of ['export', 'exporting', 'expotr data', 'spreadsh', 'invoice', 'bilin']) assert.deepEqual(ranks(restored, state, q), ranks(built, state, q), q);
    assert.equal(ranks(restored, state, 'exporting').hits[0].slug, 'export');
    assert.equal(ranks(restored, state, 'spreadsh').hits[0].slug, 'import');
    // Bytes of another format (a document-order index alone, as an older version wrote) are refused, not half used.
    assert.equal(new SearchIndex().restore('v1', state, Buffer.concat(pieces).subarray(0, 40)), false);
  });

  test('a duplicated version shares the ranking of its source until one of them changes', async () => {
    const index = new SearchIndex();
    const source = stateOf(topics);
    await index.update('v1', source);
    const copy: VersionState = { ...source, slug: 'v2' };
    await index.update('v2', copy);
    assert.deepEqual(ranks(index, copy, 'export'), ranks(index, source, 'export'));
    const edited: VersionState = { ...copy, translations: new Map([...copy.translations, ['billing', new Map([['en', { title: 'Export billing', summary: 'Invoices.', bodyMd: 'x', updatedAt: STAMP }]])]]) };
    await index.update('v2', edited);
    assert.ok(ranks(index, edited, 'export').hits.some((h) => h.slug === 'billing' && h.title === 'Export billing'));
    assert.ok(ranks(index, source, 'export').hits.every((h) => h.title !== 'Export billing'), 'the source is untouched');
  });

  test('a page stays found by relevance through the edit that has the index drop its old postings', async () => {
    // Each edit leaves the page's old document number gone; once gone numbers outnumber 1,024 and the
    // living, the postings are rebuilt without them, in the very edit that retires one more. The edits
    // around that one are large, as an import's: those are indexed in slices, the new number filed
    // before the old one goes.
    const index = new SearchIndex();
    const first = stateOf(topics);
    await index.update('v1', first);
    const filler = 'Line items and totals.\n'.repeat(3000);
    for (let i = 1; i <= 1030; i++) {
      const billing = { title: 'Billing', summary: 'Invoices and payment.', bodyMd: `Invoices are exported monthly, run ${i}.\n${i > 1015 ? filler : ''}`, updatedAt: STAMP };
      const state: VersionState = { ...first, translations: new Map([...first.translations, ['billing', new Map([['en', billing]])]]) };
      await index.update('v1', state);
      assert.deepEqual(ranks(index, state, 'invoices').hits.map((h) => h.slug), ['billing'], `after edit ${i}`);
      assert.deepEqual(ranks(index, state, 'payment').hits.map((h) => h.slug), ['billing'], `after edit ${i}`);
    }
  });
});

describe('HELP_SEARCH_CACHE_MB sizes what ranked searches keep, without changing an answer', () => {
  const queries = ['reminder', 'slack', 'due dates', 'remindr', 'shar', 'project templates and labels', 'xyzzy'];
  const answers = async (s: TestServer) => {
    const out: unknown[] = [];
    // Each query twice: the second is answered from what the first kept, when anything is kept.
    for (const q of [...queries, ...queries]) out.push((await s.request('GET', `/versions/v1/search?q=${encodeURIComponent(q)}&order=relevance&limit=5`, { key: null })).body);
    return out;
  };

  test('0 keeps nothing, the default keeps what searches made, and the answers are the same', async () => {
    const none = await startTestServer({ sample: SAMPLE, env: { HELP_SEARCH_CACHE_MB: '0' } });
    let withNone: unknown[];
    try {
      withNone = await answers(none);
      assert.equal(searchCachesBytes(), 0);
    } finally {
      await none.close();
    }
    const usual = await startTestServer({ sample: SAMPLE });
    try {
      assert.deepEqual(await answers(usual), withNone);
      assert.ok(searchCachesBytes() > 0);
    } finally {
      await usual.close();
    }
  });

  test('the setting is a whole number of megabytes', () => {
    assert.equal(loadConfig({ HELP_SEARCH_CACHE_MB: '0' }).searchCacheBytes, 0);
    assert.equal(loadConfig({}).searchCacheBytes, 80 * 1024 * 1024);
    for (const bad of ['off', '-1', '1.5']) assert.throws(() => loadConfig({ HELP_SEARCH_CACHE_MB: bad }), (err: Error) => err instanceof ConfigError && /HELP_SEARCH_CACHE_MB/.test(err.message));
  });
});
