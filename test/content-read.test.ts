import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, isIso } from './helpers/assertions.ts';
import { createNode, createVersion, startTestServer, waitForKey, type ListedNode, type TestServer } from './helpers/server.ts';

/**
 * Reading content: tree, topic, node list and single translation.
 *
 * Version r1 (published; languages en, de, fr), in document order:
 *   start (section, icon rocket; en, de)
 *     install (topic; en, de)      — created after configure, with a smaller sortOrder (2.5 < 10)
 *     configure (topic; en only)
 *   guides (section; en)
 *     advanced (section; en, de)
 *       tuning (topic; en, de)
 *   faq (topic, icon help-circle; en, fr)
 */
describe('Reading content', () => {
  let s: TestServer;
  let reader: string;
  const INSTALL_EN = '# Install\n\nRun the installer.\n';
  const INSTALL_DE = 'Grüße aus Köln\n';

  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'r1', { label: 'Release 1', status: 'published', languages: ['en', 'de', 'fr'] });
    const make = async (node: Record<string, unknown> & { slug: string }) => {
      ids[node.slug] = (await createNode(s, 'r1', node)).id;
    };
    await make({ slug: 'start', kind: 'section', icon: 'rocket', translations: { en: { title: 'Start', summary: 'Begin here' }, de: { title: 'Anfang', summary: 'Hier beginnen' } } });
    await make({ slug: 'configure', parentSlug: 'start', sortOrder: 10, translations: { en: { title: 'Configure', bodyMd: 'Set it up.\n' } } });
    await make({ slug: 'install', parentSlug: 'start', sortOrder: 2.5, translations: { en: { title: 'Install', summary: 'Get it', bodyMd: INSTALL_EN }, de: { title: 'Installieren', bodyMd: INSTALL_DE } } });
    await make({ slug: 'guides', kind: 'section', translations: { en: { title: 'Guides' } } });
    await make({ slug: 'advanced', kind: 'section', parentSlug: 'guides', translations: { en: { title: 'Advanced' }, de: { title: 'Fortgeschritten' } } });
    await make({ slug: 'tuning', parentSlug: 'advanced', translations: { en: { title: 'Tuning', bodyMd: 'Faster.\n' }, de: { title: 'Feinabstimmung', bodyMd: 'Schneller.\n' } } });
    await make({ slug: 'faq', icon: 'help-circle', translations: { en: { title: 'FAQ', bodyMd: 'Questions.\n' }, fr: { title: 'Questions fréquentes', bodyMd: 'Des questions.\n' } } });

    // Primary language German: fallback goes requested → en → primary.
    await createVersion(s, 'r-de', { status: 'published', languages: ['de', 'en', 'fr'] });
    await createNode(s, 'r-de', { slug: 'only-de', translations: { de: { title: 'Nur Deutsch', bodyMd: 'Deutsch.\n' } } });
    await createNode(s, 'r-de', { slug: 'de-en', translations: { de: { title: 'Deutsch', bodyMd: 'Deutsch.\n' }, en: { title: 'English', bodyMd: 'English.\n' } } });
    await createNode(s, 'r-de', { slug: 'de-fr', translations: { de: { title: 'Deutsch und Französisch' }, fr: { title: 'Français' } } });

    await createVersion(s, 'r-draft');
    await createNode(s, 'r-draft', { slug: 'secret', translations: { en: { title: 'Secret', bodyMd: 'Not yet.\n' } } });
    await createVersion(s, 'r-arch', { status: 'published' });
    await createNode(s, 'r-arch', { slug: 'old', translations: { en: { title: 'Old' } } });
    const archived = await s.request('PATCH', '/versions/r-arch', { body: { status: 'archived' } });
    assert.equal(archived.status, 200);
    await createVersion(s, 'r-empty', { status: 'published' });

    reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    await waitForKey(s, reader);
  });
  after(() => s.close());

  describe('GET /versions/{version}/tree', () => {
    test('nested sections and topics in sortOrder with titles in English by default', async () => {
      const res = await s.request('GET', '/versions/r1/tree', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.language, 'en');
      const listed = ((await s.request('GET', '/versions', { key: null })).body as Array<{ slug: string }>).find((v) => v.slug === 'r1');
      assert.deepEqual(res.body.version, listed);
      assert.deepEqual(res.body.tree, [
        entry('start', 'section', 'rocket', 0, 'Start', 'Begin here', 'en', [
          entry('install', 'topic', null, 2.5, 'Install', 'Get it', 'en', []),
          entry('configure', 'topic', null, 10, 'Configure', '', 'en', []),
        ]),
        entry('guides', 'section', null, 1, 'Guides', '', 'en', [
          entry('advanced', 'section', null, 0, 'Advanced', '', 'en', [entry('tuning', 'topic', null, 0, 'Tuning', '', 'en', [])]),
        ]),
        entry('faq', 'topic', 'help-circle', 2, 'FAQ', '', 'en', []),
      ]);
    });

    test('titles come in the requested language; each entry\'s language shows where it fell back', async () => {
      const res = await s.request('GET', '/versions/r1/tree?language=de', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.language, 'de');
      assert.deepEqual(res.body.tree, [
        entry('start', 'section', 'rocket', 0, 'Anfang', 'Hier beginnen', 'de', [
          entry('install', 'topic', null, 2.5, 'Installieren', '', 'de', []),
          entry('configure', 'topic', null, 10, 'Configure', '', 'en', []),
        ]),
        entry('guides', 'section', null, 1, 'Guides', '', 'en', [
          entry('advanced', 'section', null, 0, 'Fortgeschritten', '', 'de', [entry('tuning', 'topic', null, 0, 'Feinabstimmung', '', 'de', [])]),
        ]),
        entry('faq', 'topic', 'help-circle', 2, 'FAQ', '', 'en', []),
      ]);
      const fr = (await s.request('GET', '/versions/r1/tree?language=fr', { key: null })).body;
      assert.deepEqual(fr.tree.map((e: TreeEntry) => [e.slug, e.title, e.language]), [
        ['start', 'Start', 'en'],
        ['guides', 'Guides', 'en'],
        ['faq', 'Questions fréquentes', 'fr'],
      ]);
    });

    test('a missing language falls back to English, then to the primary language', async () => {
      const res = await s.request('GET', '/versions/r-de/tree?language=fr', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.tree.map((e: TreeEntry) => [e.slug, e.title, e.language]), [
        ['only-de', 'Nur Deutsch', 'de'],
        ['de-en', 'English', 'en'],
        ['de-fr', 'Français', 'fr'],
      ]);
    });

    test('the language query is canonicalized', async () => {
      const res = await s.request('GET', '/versions/r1/tree?language=DE', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.language, 'de');
      assert.equal(res.body.tree[0].title, 'Anfang');
    });

    test('a version without nodes has an empty tree', async () => {
      const res = await s.request('GET', '/versions/r-empty/tree', { key: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.tree, []);
    });

    test('an unpublished version is 404 for anonymous callers and 200 with a key', async () => {
      for (const slug of ['r-draft', 'r-arch']) {
        assertError(await s.request('GET', `/versions/${slug}/tree`, { key: null }), 404, 'not_found', { resource: 'version' });
        for (const key of [s.key, reader]) {
          const res = await s.request('GET', `/versions/${slug}/tree`, { key });
          assert.equal(res.status, 200, res.text);
          assert.equal(res.body.tree.length, 1);
        }
      }
      const draft = (await s.request('GET', '/versions/r-draft/tree')).body;
      assert.equal(draft.version.status, 'draft');
      assert.equal(draft.tree[0].title, 'Secret');
    });

    test('an unknown version is 404 not_found (resource version)', async () => {
      assertError(await s.request('GET', '/versions/nowhere/tree', { key: null }), 404, 'not_found', { resource: 'version' });
      assertError(await s.request('GET', '/versions/nowhere/tree'), 404, 'not_found', { resource: 'version' });
    });

    test('an invalid language query is 400 naming query/language', async () => {
      for (const language of ['english', 'en_US', '12', 'x']) {
        assertError(await s.request('GET', `/versions/r1/tree?language=${language}`, { key: null }), 400, 'validation_failed', { field: 'query/language' });
      }
    });
  });

  describe('GET /versions/{version}/topics/{slug}', () => {
    test('a topic with its Markdown body, breadcrumbs, neighbours and versionStatus', async () => {
      const res = await s.request('GET', '/versions/r1/topics/install', { key: null });
      assert.equal(res.status, 200, res.text);
      const en = (await s.request('GET', '/versions/r1/topics/install/translations/en', { key: null })).body;
      assert.deepEqual(Object.keys(res.body).sort(), TOPIC_FIELDS);
      assert.deepEqual(
        { ...res.body, availableLanguages: [...res.body.availableLanguages].sort() },
        {
          version: 'r1',
          versionStatus: 'published',
          id: ids.install,
          slug: 'install',
          kind: 'topic',
          parentSlug: 'start',
          icon: null,
          language: 'en',
          requestedLanguage: 'en',
          fallback: false,
          title: 'Install',
          summary: 'Get it',
          bodyMd: INSTALL_EN,
          updatedAt: en.updatedAt,
          availableLanguages: ['de', 'en'],
          breadcrumbs: [{ slug: 'start', kind: 'section', title: 'Start' }],
          neighbours: { previous: null, next: { slug: 'configure', kind: 'topic', title: 'Configure' } },
        },
      );
    });

    test('the requested language is served, with breadcrumbs and neighbours in it where they have it', async () => {
      const res = await s.request('GET', '/versions/r1/topics/install?language=de', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.language, 'de');
      assert.equal(res.body.requestedLanguage, 'de');
      assert.equal(res.body.fallback, false);
      assert.equal(res.body.title, 'Installieren');
      assert.equal(res.body.summary, '');
      assert.equal(res.body.bodyMd, INSTALL_DE);
      const de = (await s.request('GET', '/versions/r1/topics/install/translations/de', { key: null })).body;
      assert.equal(res.body.updatedAt, de.updatedAt);
      assert.deepEqual(res.body.breadcrumbs, [{ slug: 'start', kind: 'section', title: 'Anfang' }]);
      assert.deepEqual(res.body.neighbours.next, { slug: 'configure', kind: 'topic', title: 'Configure' });
    });

    test('a missing language falls back to English with fallback: true', async () => {
      const res = await s.request('GET', '/versions/r1/topics/configure?language=de', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.language, 'en');
      assert.equal(res.body.requestedLanguage, 'de');
      assert.equal(res.body.fallback, true);
      assert.equal(res.body.title, 'Configure');
      assert.equal(res.body.bodyMd, 'Set it up.\n');
      assert.deepEqual(res.body.availableLanguages, ['en']);
      const en = (await s.request('GET', '/versions/r1/topics/configure/translations/en', { key: null })).body;
      assert.equal(res.body.updatedAt, en.updatedAt);
    });

    test('a valid language the version does not enable also falls back to English', async () => {
      const res = await s.request('GET', '/versions/r1/topics/install?language=it', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.language, 'en');
      assert.equal(res.body.requestedLanguage, 'it');
      assert.equal(res.body.fallback, true);
      assert.equal(res.body.title, 'Install');
    });

    test('without English the primary language is served', async () => {
      const onlyDe = (await s.request('GET', '/versions/r-de/topics/only-de?language=fr', { key: null })).body;
      assert.deepEqual([onlyDe.language, onlyDe.requestedLanguage, onlyDe.fallback, onlyDe.title], ['de', 'fr', true, 'Nur Deutsch']);
      const byDefault = (await s.request('GET', '/versions/r-de/topics/only-de', { key: null })).body;
      assert.deepEqual([byDefault.language, byDefault.requestedLanguage, byDefault.fallback], ['de', 'en', true]);
      const deEn = (await s.request('GET', '/versions/r-de/topics/de-en?language=fr', { key: null })).body;
      assert.deepEqual([deEn.language, deEn.fallback, deEn.title, deEn.bodyMd], ['en', true, 'English', 'English.\n']);
      const deFr = (await s.request('GET', '/versions/r-de/topics/de-fr?language=fr', { key: null })).body;
      assert.deepEqual([deFr.language, deFr.fallback, deFr.title], ['fr', false, 'Français']);
    });

    test('neighbours are the nearest topics in document order, skipping sections', async () => {
      const expected: Record<string, [string | null, string | null]> = {
        start: [null, 'install'],
        install: [null, 'configure'],
        configure: ['install', 'tuning'],
        guides: ['configure', 'tuning'],
        advanced: ['configure', 'tuning'],
        tuning: ['configure', 'faq'],
        faq: ['tuning', null],
      };
      for (const [slug, [previous, next]] of Object.entries(expected)) {
        const res = await s.request('GET', `/versions/r1/topics/${slug}`, { key: null });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual([res.body.neighbours.previous?.slug ?? null, res.body.neighbours.next?.slug ?? null], [previous, next], slug);
        for (const n of [res.body.neighbours.previous, res.body.neighbours.next]) if (n) assert.equal(n.kind, 'topic');
      }
    });

    test('breadcrumbs list the ancestors outermost first; a top-level node has none', async () => {
      const tuning = (await s.request('GET', '/versions/r1/topics/tuning?language=de', { key: null })).body;
      assert.equal(tuning.parentSlug, 'advanced');
      assert.deepEqual(tuning.breadcrumbs, [
        { slug: 'guides', kind: 'section', title: 'Guides' },
        { slug: 'advanced', kind: 'section', title: 'Fortgeschritten' },
      ]);
      assert.deepEqual(tuning.neighbours, { previous: { slug: 'configure', kind: 'topic', title: 'Configure' }, next: { slug: 'faq', kind: 'topic', title: 'FAQ' } });
      const faq = (await s.request('GET', '/versions/r1/topics/faq', { key: null })).body;
      assert.equal(faq.parentSlug, null);
      assert.equal(faq.icon, 'help-circle');
      assert.deepEqual(faq.breadcrumbs, []);
      assert.equal(faq.neighbours.next, null);
    });

    test('a section can be read as a topic', async () => {
      const res = await s.request('GET', '/versions/r1/topics/start?language=de', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.kind, 'section');
      assert.equal(res.body.icon, 'rocket');
      assert.equal(res.body.title, 'Anfang');
      assert.equal(res.body.summary, 'Hier beginnen');
      assert.equal(res.body.bodyMd, '');
      assert.equal(res.body.id, ids.start);
    });

    test('an unpublished version is 404 for anonymous callers; with a key versionStatus says draft or archived', async () => {
      assertError(await s.request('GET', '/versions/r-draft/topics/secret', { key: null }), 404, 'not_found', { resource: 'version' });
      assertError(await s.request('GET', '/versions/r-arch/topics/old', { key: null }), 404, 'not_found', { resource: 'version' });
      for (const key of [s.key, reader]) {
        const draft = await s.request('GET', '/versions/r-draft/topics/secret', { key });
        assert.equal(draft.status, 200, draft.text);
        assert.equal(draft.body.versionStatus, 'draft');
        assert.equal(draft.body.bodyMd, 'Not yet.\n');
        const archived = await s.request('GET', '/versions/r-arch/topics/old', { key });
        assert.equal(archived.status, 200);
        assert.equal(archived.body.versionStatus, 'archived');
      }
    });

    test('an unknown node is 404 (resource node); an unknown version is 404 (resource version)', async () => {
      assertError(await s.request('GET', '/versions/r1/topics/nothing-here', { key: null }), 404, 'not_found', { resource: 'node' });
      assertError(await s.request('GET', '/versions/nowhere/topics/install', { key: null }), 404, 'not_found', { resource: 'version' });
    });

    test('an invalid language query is 400 naming query/language', async () => {
      for (const language of ['english', 'en_US', '1']) {
        assertError(await s.request('GET', `/versions/r1/topics/install?language=${language}`, { key: null }), 400, 'validation_failed', { field: 'query/language' });
      }
    });

    test('unknown query parameters are ignored', async () => {
      const plain = await s.request('GET', '/versions/r1/topics/install', { key: null });
      const res = await s.request('GET', '/versions/r1/topics/install?foo=bar', { key: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, plain.body);
    });
  });

  describe('GET /versions/{version}/nodes', () => {
    test('every node in document order with its fields and per-language title, summary, stamp and body length', async () => {
      const res = await s.request('GET', '/versions/r1/nodes', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['nodes', 'status', 'version']);
      assert.equal(res.body.version, 'r1');
      assert.equal(res.body.status, 'published');
      const nodes = res.body.nodes as ListedNode[];
      assert.deepEqual(
        nodes.map((n) => [n.slug, n.kind, n.parentSlug, n.sortOrder, n.icon, n.id]),
        [
          ['start', 'section', null, 0, 'rocket', ids.start],
          ['install', 'topic', 'start', 2.5, null, ids.install],
          ['configure', 'topic', 'start', 10, null, ids.configure],
          ['guides', 'section', null, 1, null, ids.guides],
          ['advanced', 'section', 'guides', 0, null, ids.advanced],
          ['tuning', 'topic', 'advanced', 0, null, ids.tuning],
          ['faq', 'topic', null, 2, 'help-circle', ids.faq],
        ],
      );
      for (const n of nodes) assert.deepEqual(Object.keys(n).sort(), ['icon', 'id', 'kind', 'parentSlug', 'slug', 'sortOrder', 'translations', 'updatedAt']);
      const install = nodes.find((n) => n.slug === 'install')!;
      assert.deepEqual(Object.keys(install.translations).sort(), ['de', 'en']);
      const en = (await s.request('GET', '/versions/r1/topics/install/translations/en', { key: null })).body;
      const de = (await s.request('GET', '/versions/r1/topics/install/translations/de', { key: null })).body;
      assert.deepEqual(install.translations.en, { title: 'Install', summary: 'Get it', updatedAt: en.updatedAt, bodyChars: INSTALL_EN.length });
      assert.deepEqual(install.translations.de, { title: 'Installieren', summary: '', updatedAt: de.updatedAt, bodyChars: 15 });
      assert.deepEqual(nodes.find((n) => n.slug === 'guides')!.translations.en, { title: 'Guides', summary: '', updatedAt: nodes.find((n) => n.slug === 'guides')!.translations.en.updatedAt, bodyChars: 0 });
      assert.ok(!JSON.stringify(res.body).includes('Run the installer'), 'no bodies without include=bodies');
    });

    test('a node\'s updatedAt is the newest of its own and its translations\' stamps', async () => {
      await createVersion(s, 'r-stamp', { status: 'published' });
      const created = await createNode(s, 'r-stamp', { slug: 'page', translations: { en: { title: 'Page' }, de: { title: 'Seite' } } });
      const put = await s.request('PUT', '/versions/r-stamp/topics/page/translations/de', { body: { title: 'Seite 2' } });
      assert.equal(put.status, 200, put.text);
      assert.ok(put.body.translation.updatedAt > created.updatedAt);
      const node = ((await s.request('GET', '/versions/r-stamp/nodes', { key: null })).body.nodes as ListedNode[])[0];
      assert.equal(node.updatedAt, put.body.translation.updatedAt);
      assert.equal(node.translations.de.updatedAt, put.body.translation.updatedAt);
      assert.equal(node.translations.en.updatedAt, created.translations.en.updatedAt);
    });

    test('include=bodies adds bodyMd to every translation for a caller with a credential', async () => {
      for (const key of [s.key, reader]) {
        const res = await s.request('GET', '/versions/r1/nodes?include=bodies', { key });
        assert.equal(res.status, 200, res.text);
        const nodes = res.body.nodes as ListedNode[];
        const install = nodes.find((n) => n.slug === 'install')!;
        assert.equal(install.translations.en.bodyMd, INSTALL_EN);
        assert.equal(install.translations.de.bodyMd, INSTALL_DE);
        assert.equal(install.translations.de.bodyChars, INSTALL_DE.length);
        for (const n of nodes) for (const t of Object.values(n.translations)) assert.equal(typeof t.bodyMd, 'string', n.slug);
        assert.equal(nodes.find((n) => n.slug === 'guides')!.translations.en.bodyMd, '');
      }
    });

    test('include=bodies is ignored for anonymous callers (still 200, no bodies)', async () => {
      const plain = await s.request('GET', '/versions/r1/nodes', { key: null });
      const res = await s.request('GET', '/versions/r1/nodes?include=bodies', { key: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, plain.body);
      for (const n of res.body.nodes as ListedNode[]) for (const t of Object.values(n.translations)) assert.equal(t.bodyMd, undefined);
    });

    test('an invalid include value is 400 naming query/include; unknown parameters are ignored', async () => {
      assertError(await s.request('GET', '/versions/r1/nodes?include=everything'), 400, 'validation_failed', { field: 'query/include' });
      const plain = await s.request('GET', '/versions/r1/nodes', { key: null });
      const res = await s.request('GET', '/versions/r1/nodes?sort=desc', { key: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, plain.body);
    });

    test('a version without nodes lists none', async () => {
      const res = await s.request('GET', '/versions/r-empty/nodes', { key: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { version: 'r-empty', status: 'published', nodes: [] });
    });

    test('an unpublished version is 404 for anonymous callers; with a key its status is shown', async () => {
      assertError(await s.request('GET', '/versions/r-draft/nodes', { key: null }), 404, 'not_found', { resource: 'version' });
      assertError(await s.request('GET', '/versions/r-arch/nodes?include=bodies', { key: null }), 404, 'not_found', { resource: 'version' });
      const draft = await s.request('GET', '/versions/r-draft/nodes', { key: reader });
      assert.equal(draft.status, 200);
      assert.equal(draft.body.status, 'draft');
      assert.deepEqual((draft.body.nodes as ListedNode[]).map((n) => n.slug), ['secret']);
      const archived = await s.request('GET', '/versions/r-arch/nodes');
      assert.equal(archived.status, 200);
      assert.equal(archived.body.status, 'archived');
    });

    test('an unknown version is 404 not_found (resource version)', async () => {
      assertError(await s.request('GET', '/versions/nowhere/nodes'), 404, 'not_found', { resource: 'version' });
    });
  });

  describe('GET /versions/{version}/topics/{slug}/translations/{lang}', () => {
    test('one translation with title, summary, body, stamp and the node\'s available languages', async () => {
      const res = await s.request('GET', '/versions/r1/topics/install/translations/de', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['availableLanguages', 'bodyMd', 'language', 'slug', 'summary', 'title', 'updatedAt']);
      assert.equal(res.body.slug, 'install');
      assert.equal(res.body.language, 'de');
      assert.equal(res.body.title, 'Installieren');
      assert.equal(res.body.summary, '');
      assert.equal(res.body.bodyMd, INSTALL_DE);
      assert.ok(isIso(res.body.updatedAt), res.body.updatedAt);
      assert.deepEqual([...res.body.availableLanguages].sort(), ['de', 'en']);
      const listed = ((await s.request('GET', '/versions/r1/nodes', { key: null })).body.nodes as ListedNode[]).find((n) => n.slug === 'install')!;
      assert.equal(res.body.updatedAt, listed.translations.de.updatedAt);
    });

    test('a section\'s translation can be read', async () => {
      const res = await s.request('GET', '/versions/r1/topics/start/translations/en', { key: null });
      assert.equal(res.status, 200);
      assert.equal(res.body.title, 'Start');
      assert.equal(res.body.summary, 'Begin here');
      assert.equal(res.body.bodyMd, '');
    });

    test('a missing language is 404 (resource translation), without fallback', async () => {
      for (const lang of ['fr', 'de', 'it']) {
        const res = await s.request('GET', `/versions/r1/topics/configure/translations/${lang}`, { key: null });
        assertError(res, 404, 'not_found', { resource: 'translation' });
      }
      assertError(await s.request('GET', '/versions/r1/topics/install/translations/fr'), 404, 'not_found', { resource: 'translation' });
    });

    test('the language in the path is canonicalized', async () => {
      const res = await s.request('GET', '/versions/r1/topics/install/translations/DE', { key: null });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.language, 'de');
      assert.equal(res.body.title, 'Installieren');
    });

    test('an invalid language in the path is 400 naming path/lang', async () => {
      for (const lang of ['english', 'en_US', '1']) {
        assertError(await s.request('GET', `/versions/r1/topics/install/translations/${lang}`, { key: null }), 400, 'validation_failed', { field: 'path/lang' });
      }
    });

    test('an unknown node is 404 (resource node); an unknown version is 404 (resource version)', async () => {
      assertError(await s.request('GET', '/versions/r1/topics/nothing-here/translations/en', { key: null }), 404, 'not_found', { resource: 'node' });
      assertError(await s.request('GET', '/versions/nowhere/topics/install/translations/en', { key: null }), 404, 'not_found', { resource: 'version' });
    });

    test('an unpublished version is 404 for anonymous callers and readable with a key', async () => {
      assertError(await s.request('GET', '/versions/r-draft/topics/secret/translations/en', { key: null }), 404, 'not_found', { resource: 'version' });
      const res = await s.request('GET', '/versions/r-draft/topics/secret/translations/en', { key: reader });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.bodyMd, 'Not yet.\n');
      assert.deepEqual(res.body.availableLanguages, ['en']);
    });
  });

  test('reads answer the same after a restart', async () => {
    const paths = ['/versions/r1/tree?language=de', '/versions/r1/topics/tuning?language=de', '/versions/r1/nodes?include=bodies', '/versions/r1/topics/install/translations/de', '/versions/r-de/topics/only-de?language=fr'];
    const before = await Promise.all(paths.map((p) => s.request('GET', p)));
    s = await s.restart();
    // The order of availableLanguages is not part of the contract; compare it as a set.
    const normalized = (body: Record<string, unknown>) => (Array.isArray(body.availableLanguages) ? { ...body, availableLanguages: [...body.availableLanguages].sort() } : body);
    for (const [i, p] of paths.entries()) {
      const res = await s.request('GET', p);
      assert.equal(res.status, 200, p);
      assert.deepEqual(normalized(res.body), normalized(before[i].body), p);
    }
  });
});

const TOPIC_FIELDS = ['availableLanguages', 'breadcrumbs', 'bodyMd', 'fallback', 'icon', 'id', 'kind', 'language', 'neighbours', 'parentSlug', 'requestedLanguage', 'slug', 'summary', 'title', 'updatedAt', 'version', 'versionStatus'].sort();

interface TreeEntry {
  slug: string;
  title: string;
  language: string;
}

/** Node ids of version r1, as node creation returned them. */
const ids: Record<string, string> = {};

/** A tree entry as expected. */
function entry(slug: string, kind: string, icon: string | null, sortOrder: number, title: string, summary: string, language: string, children: unknown[]) {
  return { id: ids[slug], slug, kind, icon, sortOrder, title, summary, language, children };
}

