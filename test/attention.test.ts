import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from './helpers/assertions.ts';
import { PROJECT, runProcess } from './helpers/process.ts';
import { Clients, content } from './helpers/mcp.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

// "What needs my attention in this version?": broken links, unhelpful pages, failed searches,
// outdated and missing translations, each with where to act.

describe('What needs attention in a version', () => {
  let s: TestServer;
  const clients = new Clients(() => s);
  const vote = (slug: string, helpful: boolean, language?: string) =>
    s.request('POST', `/versions/v1/topics/${slug}/feedback`, { key: null, body: { helpful, ...(language ? { language } : {}) } });

  before(async () => {
    s = await startTestServer({ env: { HELP_FEEDBACK_PER_HOUR: '1000' } });
    await createVersion(s, 'v1', { status: 'published', isLatest: true, languages: ['en', 'de'] });
    await createNode(s, 'v1', {
      slug: 'install',
      translations: {
        en: { title: 'Install', bodyMd: 'Get it.\n\nThen read [the setup](configure#missing-heading) and [billing](billing).\n' },
        de: { title: 'Installieren', bodyMd: 'Holen.\n' },
      },
    });
    await createNode(s, 'v1', { slug: 'configure', translations: { en: { title: 'Configure', bodyMd: '## Options\n\nSet it.\n' } } });
    await createNode(s, 'v1', { slug: 'faq', translations: { en: { title: 'FAQ', bodyMd: 'Answers.\n' }, de: { title: 'FAQ', bodyMd: 'Antworten.\n' } } });
    // The English text of the FAQ changes after its German translation was written.
    assert.equal((await putTranslation(s, 'v1', 'faq', 'en', { title: 'FAQ', bodyMd: 'Answers, now with more.\n' })).status, 200);
    // configure: 1 yes, 3 no (unhelpful); faq: 2 no only (too few votes); install: 3 yes, 1 no.
    for (const [slug, helpful, language] of [
      ['configure', true, 'en'], ['configure', false, 'en'], ['configure', false, 'en'], ['configure', false, 'de'],
      ['faq', false], ['faq', false],
      ['install', true], ['install', true], ['install', true], ['install', false],
    ] as const) assert.equal((await vote(slug, helpful, language)).status, 200);
    for (const q of ['zebra', 'Zebra', 'install']) assert.equal((await s.request('GET', `/versions/v1/search?q=${q}`, { key: null })).status, 200);
    assert.equal((await s.request('GET', '/versions/v1/search?q=quagga&lang=de', { key: null })).status, 200);
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
  });

  test('lists each kind, with where to act', async () => {
    const res = await s.request('GET', '/versions/v1/attention');
    assert.equal(res.status, 200, res.text);
    const a = res.body;
    assert.deepEqual([a.version, a.language], ['v1', null]);

    // The line of the file as a content repository holds it, front matter counted, as the links report says.
    const { line } = (await s.request('GET', '/versions/v1/links')).body.broken[0];
    assert.ok(line > 2);
    assert.deepEqual(
      a.brokenLinks.map((b: { slug: string; language: string; path: string; line: number; reason: string }) => `${b.path}:${b.line} ${b.slug} ${b.language} ${b.reason}`),
      [`en/install.md:${line} install en missing_anchor`, `en/install.md:${line} install en missing_topic`],
    );
    assert.equal(a.brokenLinks[0].portal, '/support/v1/install');
    assert.equal(a.brokenLinks[0].api, '/help/v1/versions/v1/topics/install/translations/en');
    assert.match(a.brokenLinks[1].message, /no topic or section "billing"/);

    assert.deepEqual(a.unhelpfulPages, [
      { slug: 'configure', yes: 1, no: 3, ratio: 0.25, comments: 0, portal: '/support/v1/configure', api: '/help/v1/versions/v1/topics/configure/translations/en', feedback: '/help/v1/feedback?version=v1&slug=configure' },
    ]);
    const listed = await s.request('GET', a.unhelpfulPages[0].feedback.slice('/help/v1'.length));
    assert.equal(listed.body.summary[0].no, 3, 'its feedback link lists its feedback');

    assert.deepEqual(
      a.failedSearches.map((f: { query: string; language: string; count: number; portal: string }) => `${f.query} ${f.language} ${f.count} ${f.portal}`),
      ['zebra en 2 /support/v1/search?q=zebra', 'quagga de 1 /support/v1/search?q=quagga&lang=de'],
    );

    assert.deepEqual(a.outdatedTranslations.map((t: { slug: string; language: string }) => `${t.slug} ${t.language}`), ['faq de']);
    assert.equal(a.outdatedTranslations[0].portal, '/support/v1/faq?lang=de');
    assert.equal(typeof a.outdatedTranslations[0].primaryUpdatedAt, 'string');
    assert.deepEqual(a.missingTranslations.map((t: { slug: string; language: string; api: string }) => `${t.slug} ${t.language} ${t.api}`), ['configure de /help/v1/versions/v1/topics/configure/translations/de']);
    assert.deepEqual(a.counts, { brokenLinks: 2, unhelpfulPages: 1, failedSearches: 2, outdatedTranslations: 1, missingTranslations: 1 });
  });

  test('lang keeps what concerns one language', async () => {
    const de = (await s.request('GET', '/versions/v1/attention?lang=de')).body;
    assert.equal(de.language, 'de');
    assert.deepEqual(de.brokenLinks, []);
    // Only one German vote on configure: too few to call it unhelpful in German.
    assert.deepEqual(de.unhelpfulPages, []);
    assert.deepEqual(de.failedSearches.map((f: { query: string }) => f.query), ['quagga']);
    assert.deepEqual([de.outdatedTranslations.length, de.missingTranslations.length], [1, 1]);
    const en = (await s.request('GET', '/versions/v1/attention?lang=en')).body;
    assert.deepEqual(en.unhelpfulPages.map((p: { slug: string; language: string; ratio: number }) => `${p.slug} ${p.language} ${p.ratio}`), ['configure en 0.333']);
    assert.deepEqual([en.outdatedTranslations, en.missingTranslations], [[], []], 'the primary language is the reference');
  });

  test('fixing what it lists takes it off', async () => {
    assert.equal((await putTranslation(s, 'v1', 'install', 'en', { title: 'Install', bodyMd: 'Get it.\n\nThen read [the setup](configure#options).\n' })).status, 200);
    assert.equal((await putTranslation(s, 'v1', 'configure', 'de', { title: 'Einrichten', bodyMd: 'Einstellen.\n' })).status, 200);
    const a = (await s.request('GET', '/versions/v1/attention')).body;
    assert.deepEqual([a.counts.brokenLinks, a.counts.missingTranslations], [0, 0]);
  });

  test('a draft is reported too, without portal links; for callers who may read drafts only', async () => {
    await createVersion(s, 'next', { languages: ['en'] });
    await createNode(s, 'next', { slug: 'new', translations: { en: { title: 'New', bodyMd: '[gone](old)\n' } } });
    const a = (await s.request('GET', '/versions/next/attention')).body;
    assert.deepEqual([a.brokenLinks.length, a.brokenLinks[0].portal, a.brokenLinks[0].api], [1, null, '/help/v1/versions/next/topics/new/translations/en']);
    assertError(await s.request('GET', '/versions/v1/attention', { key: null }), 401, 'unauthorized');
    assertError(await s.request('GET', '/versions/v9/attention'), 404, 'not_found');
    assertError(await s.request('GET', '/versions/v1/attention?lang=fr'), 400, 'language_not_enabled', { field: 'query/lang' });
  });

  test('the command line prints it for a person, or as JSON', async () => {
    const cli = (args: string[], env: Record<string, string> = { HELP_URL: s.url, HELP_KEY: s.key }) =>
      runProcess(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'attention', ...args], { cwd: PROJECT, env: { PATH: process.env.PATH, ...env }, timeout: 30_000 });
    const text = await cli(['--version', 'v1']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Version v1: \d+ things need attention\./);
    assert.match(text.stdout, /\nUnhelpful pages \(1\)\n  configure  1 yes, 3 no \(25 % helpful\), 0 comments  \/support\/v1\/configure\n/);
    assert.match(text.stdout, /\nSearches without results \(2\)\n  "zebra" \(en\)  2 searches/);
    const json = await cli(['--version', 'v1', '--lang', 'de', '--json']);
    assert.equal(JSON.parse(json.stdout).language, 'de');
    const refused = await cli(['--version', 'v9']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /404 not_found/);
    assert.equal((await cli([], { HELP_URL: s.url, HELP_KEY: s.key })).code, 2);
    const noKey = await cli(['--version', 'v1'], {});
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /HELP_URL .* and HELP_KEY/);
  });

  test('the tool server answers the same', async () => {
    const writer = await clients.connect(s.key);
    const viaTool = content(await writer.callTool({ name: 'get_attention', arguments: { version: 'v1' } }));
    const viaApi = (await s.request('GET', '/versions/v1/attention')).body;
    assert.deepEqual(viaTool, viaApi);
  });
});
