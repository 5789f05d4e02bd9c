import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from './helpers/assertions.ts';
import { comparable } from './helpers/content.ts';
import { changedFiles, changesOf } from './helpers/git.ts';
import { createNode, createVersion, exportOf, startTestServer, waitForKey, type ExportDoc, type TestResponse, type TestServer } from './helpers/server.ts';

/** POST /versions/{version}/import: JSON import documents, merge and replace, dry runs and invalid documents. */
describe('POST /versions/{version}/import', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const importInto = (version: string, body: Record<string, unknown>, key?: string | null) => s.request('POST', `/versions/${version}/import`, { body, key });

  describe('merge (the default mode)', () => {
    let original: ExportDoc;
    let res: TestResponse;
    let commits: number;
    before(async () => {
      await createVersion(s, 'mg');
      await createNode(s, 'mg', { slug: 'guide', kind: 'section' });
      await createNode(s, 'mg', { slug: 'install', parentSlug: 'guide', translations: { en: { title: 'Install', bodyMd: 'Old install body\n' }, de: { title: 'Installieren', bodyMd: 'Alter Text\n' } } });
      await createNode(s, 'mg', { slug: 'configure', parentSlug: 'guide', translations: { en: { title: 'Configure', summary: 'Settings', bodyMd: 'Configure body\n' } } });
      await createNode(s, 'mg', { slug: 'faq', translations: { en: { title: 'FAQ', bodyMd: 'Questions\n' } } });
      original = await exportOf(s, 'mg');
      commits = s.commitCount();
      res = await importInto('mg', {
        nodes: [
          { slug: 'install', parentSlug: 'guide', sortOrder: 0, translations: { en: { title: 'Install the app', bodyMd: 'New install body with quokkaberry\n' } } },
          { slug: 'configure', parentSlug: 'guide', sortOrder: 1, translations: { en: { title: 'Configure', summary: 'Settings', bodyMd: 'Configure body\n' } } },
          { slug: 'upgrade', kind: 'topic', parentSlug: 'guide', sortOrder: 2, icon: 'rocket', translations: { en: { title: 'Upgrade', bodyMd: 'Upgrade body\n' }, de: { title: 'Aktualisieren' } } },
        ],
      });
    });

    test('answers 200 with mode merge, dryRun false, the diff and the version object', () => {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.dryRun, false);
      assert.equal(res.body.mode, 'merge');
      assert.equal(res.body.version.slug, 'mg');
      assert.deepEqual(Object.keys(res.body.version).sort(), ['createdAt', 'hidden', 'isLatest', 'label', 'languages', 'slug', 'sortOrder', 'status', 'updatedAt', 'workingCopyOf']);
      assert.deepEqual(Object.keys(res.body.diff).sort(), ['created', 'deleted', 'deletedTranslations', 'unchanged', 'updated', 'updatedTranslations']);
    });

    test('creates new nodes, updates changed ones and reports unchanged ones', () => {
      assert.deepEqual(res.body.diff.created, ['upgrade']);
      assert.deepEqual(res.body.diff.updated, ['install']);
      assert.deepEqual(res.body.diff.unchanged, ['configure']);
      assert.deepEqual(res.body.diff.deleted, []);
      assert.deepEqual(sortPairs(res.body.diff.updatedTranslations), [
        { slug: 'install', language: 'en' },
        { slug: 'upgrade', language: 'de' },
        { slug: 'upgrade', language: 'en' },
      ]);
      assert.deepEqual(res.body.diff.deletedTranslations, []);
    });

    test('is exactly one commit by the key, touching only the changed files', () => {
      assert.equal(s.commitCount(), commits + 1);
      assert.match(s.git('log', '-1', '--format=%an|%s'), /^writer\|.*\bmg\b/);
      const files = changedFiles(s);
      assert.deepEqual(files, ['mg/de/upgrade.md', 'mg/en/install.md', 'mg/en/upgrade.md', 'mg/version.json']);
    });

    test('keeps nodes and translations the document does not mention', async () => {
      const after = await exportOf(s, 'mg');
      assert.deepEqual(after.nodes.map((n) => n.slug), ['guide', 'install', 'configure', 'upgrade', 'faq']);
      const install = after.nodes.find((n) => n.slug === 'install')!;
      assert.equal(install.translations.en.title, 'Install the app');
      assert.equal(install.translations.en.bodyMd, 'New install body with quokkaberry\n');
      assert.deepEqual(install.translations.de, original.nodes.find((n) => n.slug === 'install')!.translations.de, 'the de translation is kept as it was');
      for (const slug of ['guide', 'faq', 'configure']) {
        assert.deepEqual(after.nodes.find((n) => n.slug === slug), original.nodes.find((n) => n.slug === slug), `${slug} is untouched (fields and stamps)`);
      }
      const upgrade = after.nodes.find((n) => n.slug === 'upgrade')!;
      assert.equal(upgrade.parentSlug, 'guide');
      assert.equal(upgrade.sortOrder, 2);
      assert.equal(upgrade.icon, 'rocket');
      assert.equal(upgrade.kind, 'topic');
      assert.deepEqual(Object.keys(upgrade.translations).sort(), ['de', 'en']);
      assert.equal(upgrade.translations.de.bodyMd, '');
      assert.equal(upgrade.translations.de.summary, '');
    });

    test('the imported text is searchable at once', async () => {
      const hits = await s.request('GET', '/versions/mg/search?q=quokkaberry&lang=en');
      assert.equal(hits.status, 200);
      assert.deepEqual(hits.body.hits.map((h: { slug: string }) => h.slug), ['install']);
    });

    test('a node given without parentSlug and sortOrder keeps its place', async () => {
      await createVersion(s, 'mg-place');
      for (const slug of ['one', 'two', 'three']) await createNode(s, 'mg-place', { slug });
      const r = await importInto('mg-place', { nodes: [{ slug: 'one', translations: { en: { title: 'One, renamed' } } }] });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.diff.updated, ['one']);
      const after = await exportOf(s, 'mg-place');
      assert.deepEqual(after.nodes.map((n) => [n.slug, n.sortOrder]), [['one', 0], ['two', 1], ['three', 2]]);
      assert.equal(after.nodes[0].translations.en.title, 'One, renamed');
    });

    test('a node given only with its slug in merge mode keeps its translations', async () => {
      await createVersion(s, 'mg-bare');
      await createNode(s, 'mg-bare', { slug: 'root', kind: 'section' });
      await createNode(s, 'mg-bare', { slug: 'leaf' });
      const r = await importInto('mg-bare', { nodes: [{ slug: 'leaf', parentSlug: 'root' }] });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.diff.updated, ['leaf']);
      assert.deepEqual(r.body.diff.updatedTranslations, []);
      const after = await exportOf(s, 'mg-bare');
      const leaf = after.nodes.find((n) => n.slug === 'leaf')!;
      assert.equal(leaf.parentSlug, 'root');
      assert.equal(leaf.translations.en.title, 'Title leaf');
    });
  });

  describe('replace', () => {
    let res: TestResponse;
    let commits: number;
    before(async () => {
      await createVersion(s, 'rp');
      await createNode(s, 'rp', { slug: 'start', kind: 'section', translations: { en: { title: 'Start' }, de: { title: 'Start DE' } } });
      await createNode(s, 'rp', { slug: 'basics', parentSlug: 'start', translations: { en: { title: 'Basics', bodyMd: 'Basics\n' }, de: { title: 'Grundlagen', bodyMd: 'Grundlagen\n' } } });
      await createNode(s, 'rp', { slug: 'old', kind: 'section' });
      await createNode(s, 'rp', { slug: 'old-child', parentSlug: 'old' });
      await createNode(s, 'rp', { slug: 'stray' });
      commits = s.commitCount();
      res = await importInto('rp', {
        mode: 'replace',
        nodes: [
          { slug: 'start', kind: 'section', parentSlug: null, sortOrder: 0, translations: { en: { title: 'Start' }, de: { title: 'Start DE' } } },
          { slug: 'basics', kind: 'topic', parentSlug: 'start', sortOrder: 0, translations: { en: { title: 'Basics', bodyMd: 'Basics\n' } } },
          { slug: 'fresh', kind: 'topic', parentSlug: null, sortOrder: 1, translations: { en: { title: 'Fresh' } } },
        ],
      });
    });

    test('answers 200 with mode replace', () => {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.mode, 'replace');
      assert.equal(res.body.dryRun, false);
    });

    test('deletes the nodes the document leaves out, with their descendants (diff.deleted)', async () => {
      assert.deepEqual([...res.body.diff.deleted].sort(), ['old', 'old-child', 'stray']);
      assert.deepEqual(res.body.diff.created, ['fresh']);
      assert.deepEqual(res.body.diff.unchanged, ['start']);
      assert.deepEqual(res.body.diff.updated, ['basics']);
      const nodes = await s.request('GET', '/versions/rp/nodes');
      assert.deepEqual(nodes.body.nodes.map((n: { slug: string }) => n.slug), ['start', 'basics', 'fresh']);
      assert.equal((await s.request('GET', '/versions/rp/topics/stray')).status, 404);
    });

    test('deletes the translations the document leaves out (diff.deletedTranslations)', async () => {
      assert.ok(
        res.body.diff.deletedTranslations.some((t: Pair) => t.slug === 'basics' && t.language === 'de'),
        `basics/de in ${JSON.stringify(res.body.diff.deletedTranslations)}`,
      );
      assert.ok(!res.body.diff.deletedTranslations.some((t: Pair) => t.slug === 'start'), 'start keeps both translations');
      assert.deepEqual(res.body.diff.updatedTranslations, [{ slug: 'fresh', language: 'en' }]);
      const gone = await s.request('GET', '/versions/rp/topics/basics/translations/de');
      assert.equal(gone.status, 404);
      const kept = await s.request('GET', '/versions/rp/topics/start/translations/de');
      assert.equal(kept.status, 200);
    });

    test('is one commit that deletes the files of removed nodes and translations', () => {
      assert.equal(s.commitCount(), commits + 1);
      assert.deepEqual(changesOf(s), ['A\trp/en/fresh.md', 'D\trp/de/basics.md', 'D\trp/en/old-child.md', 'D\trp/en/old.md', 'D\trp/en/stray.md', 'M\trp/version.json']);
    });
  });

  describe('nodes or document', () => {
    let source: ExportDoc;
    before(async () => {
      await createVersion(s, 'src', { languages: ['en', 'de'] });
      await createNode(s, 'src', { slug: 'welcome', kind: 'section', icon: 'rocket', translations: { en: { title: 'Welcome', summary: 'Hello', bodyMd: '# Hi\n' }, de: { title: 'Willkommen' } } });
      await createNode(s, 'src', { slug: 'tour', parentSlug: 'welcome', translations: { en: { title: 'Tour', bodyMd: 'Take the tour.\n' } } });
      await createNode(s, 'src', { slug: 'help', translations: { en: { title: 'Help' } } });
      source = await exportOf(s, 'src');
    });

    test('an export document sent as it is (document: { nodes, version }) imports the same nodes', async () => {
      await createVersion(s, 'doc-target', { languages: ['en', 'de'] });
      const res = await importInto('doc-target', { mode: 'replace', document: source });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.diff.created, ['welcome', 'tour', 'help']);
      assert.equal(res.body.version.slug, 'doc-target', "the document's version object does not rename the target");
      const target = await exportOf(s, 'doc-target');
      assert.deepEqual(target.nodes.map(comparable), source.nodes.map(comparable));
      assert.equal(target.version.label, 'Version doc-target', "the document's version fields are ignored");
    });

    test('the nodes array alone imports the same nodes', async () => {
      await createVersion(s, 'nodes-target', { languages: ['en', 'de'] });
      const res = await importInto('nodes-target', { mode: 'merge', nodes: source.nodes });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await exportOf(s, 'nodes-target')).nodes.map(comparable), source.nodes.map(comparable));
    });

    test('both nodes and document is 400 and writes nothing', async () => {
      const commits = s.commitCount();
      const res = await importInto('src', { nodes: source.nodes, document: source });
      assertError(res, 400, 'validation_failed');
      assert.equal(s.commitCount(), commits);
    });

    test('neither nodes nor document is 400 and writes nothing', async () => {
      const commits = s.commitCount();
      const res = await importInto('src', { mode: 'merge' });
      assertError(res, 400, 'validation_failed');
      assert.equal(s.commitCount(), commits);
    });

    test('an unknown mode is 400 naming body/mode', async () => {
      const res = await importInto('src', { mode: 'upsert', nodes: [] });
      assertError(res, 400, 'validation_failed', { field: 'body/mode' });
    });

    test('an unknown body field is 400 naming it', async () => {
      const res = await importInto('src', { nodes: [], overwrite: true });
      assertError(res, 400, 'validation_failed', { field: 'body/overwrite' });
    });
  });

  describe('dry run', () => {
    before(async () => {
      await createVersion(s, 'dry');
      await createNode(s, 'dry', { slug: 'keep' });
      await createNode(s, 'dry', { slug: 'drop' });
    });

    test('answers the diff a real run would give and changes nothing (no commit, same content)', async () => {
      const before = await exportOf(s, 'dry');
      const commits = s.commitCount();
      const body = { mode: 'replace', nodes: [{ slug: 'keep', translations: { en: { title: 'Kept, changed' } } }, { slug: 'added', translations: { en: { title: 'Added' } } }] };
      const dry = await importInto('dry', { ...body, dryRun: true });
      assert.equal(dry.status, 200, dry.text);
      assert.equal(dry.body.dryRun, true);
      assert.equal(dry.body.mode, 'replace');
      assert.deepEqual(dry.body.diff.created, ['added']);
      assert.deepEqual(dry.body.diff.updated, ['keep']);
      assert.deepEqual(dry.body.diff.deleted, ['drop']);
      assert.equal(s.commitCount(), commits);
      assert.deepEqual(await exportOf(s, 'dry'), before);
      assert.equal((await s.request('GET', '/versions/dry/topics/added')).status, 404);

      const real = await importInto('dry', body);
      assert.equal(real.status, 200, real.text);
      assert.equal(real.body.dryRun, false);
      assert.deepEqual(real.body.diff, dry.body.diff, 'the real run does what the dry run announced');
      assert.equal(s.commitCount(), commits + 1);
    });

    test('an invalid document is refused in a dry run too', async () => {
      const res = await importInto('dry', { dryRun: true, nodes: [{ slug: 'x', parentSlug: 'nowhere', translations: { en: { title: 'X' } } }] });
      assertError(res, 400, 'invalid_document');
    });
  });

  describe('re-importing the same document', () => {
    test('reports every node unchanged and keeps every stamp', async () => {
      await createVersion(s, 'again', { languages: ['en', 'de'] });
      await createNode(s, 'again', { slug: 'sec', kind: 'section', icon: 'book-open', translations: { en: { title: 'Section', summary: 'S' }, de: { title: 'Abschnitt' } } });
      await createNode(s, 'again', { slug: 'child', parentSlug: 'sec', translations: { en: { title: 'Child', bodyMd: 'Body\n' } } });
      await createNode(s, 'again', { slug: 'other' });
      const doc = await exportOf(s, 'again');
      const commits = s.commitCount();
      for (const mode of ['replace', 'merge']) {
        const res = await importInto('again', { mode, document: doc });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.diff, {
          created: [],
          updated: [],
          unchanged: ['sec', 'child', 'other'],
          deleted: [],
          updatedTranslations: [],
          deletedTranslations: [],
        }, mode);
        assert.deepEqual(await exportOf(s, 'again'), doc, `${mode}: nodes, translations and stamps as before`);
      }
      assert.equal(s.commitCount(), commits, 'no file changes in git, so no commit');
    });
  });

  describe('invalid documents (400 invalid_document, nothing written)', () => {
    let original: ExportDoc;
    before(async () => {
      await createVersion(s, 'inv', { languages: ['en', 'de'] });
      await createNode(s, 'inv', { slug: 'home', kind: 'section' });
      await createNode(s, 'inv', { slug: 'page', parentSlug: 'home' });
      original = await exportOf(s, 'inv');
    });

    const en = (title: string) => ({ en: { title } });

    /** Sends the document and checks the refusal: 400 invalid_document, the offending pairs, no commit, no change. */
    async function refused(body: Record<string, unknown>, expected: Array<{ slug: string; language?: string }>, problem?: RegExp) {
      const commits = s.commitCount();
      const res = await importInto('inv', body);
      assertError(res, 400, 'invalid_document');
      const offending = res.body.error.offending as Array<{ slug: string; language?: string; problem: string }>;
      assert.ok(Array.isArray(offending), `offending in ${res.text}`);
      assert.deepEqual(
        sortPairs(offending.map((o) => (o.language === undefined ? { slug: o.slug } : { slug: o.slug, language: o.language }))),
        sortPairs(expected),
        res.text,
      );
      for (const o of offending) {
        assert.equal(typeof o.problem, 'string');
        if (problem) assert.match(o.problem, problem);
      }
      assert.equal(s.commitCount(), commits, 'no commit');
      assert.deepEqual(await exportOf(s, 'inv'), original, 'content unchanged');
      return res;
    }

    test('an unknown parent names the node', async () => {
      await refused({ nodes: [{ slug: 'lost', parentSlug: 'nowhere', translations: en('Lost') }] }, [{ slug: 'lost' }], /parent/i);
    });

    test('a duplicate slug names the slug', async () => {
      await refused({ nodes: [{ slug: 'twice', translations: en('One') }, { slug: 'twice', translations: en('Two') }] }, [{ slug: 'twice' }], /duplicate/i);
    });

    test('a cycle between two document nodes names both', async () => {
      await refused(
        { nodes: [{ slug: 'ping', parentSlug: 'pong', translations: en('Ping') }, { slug: 'pong', parentSlug: 'ping', translations: en('Pong') }] },
        [{ slug: 'ping' }, { slug: 'pong' }],
        /cycle/i,
      );
    });

    test('a cycle through an existing node (merge) names the nodes', async () => {
      await refused({ nodes: [{ slug: 'under', parentSlug: 'page', translations: en('Under') }, { slug: 'home', parentSlug: 'under' }] }, [{ slug: 'home' }, { slug: 'under' }], /cycle/i);
    });

    test('a language the version does not enable names the node and the language', async () => {
      await refused({ nodes: [{ slug: 'intl', translations: { en: { title: 'Intl' }, fr: { title: 'Intl FR' } } }] }, [{ slug: 'intl', language: 'fr' }], /fr/);
    });

    test('a new node without a translation in the primary language names the node and the primary language', async () => {
      await refused({ nodes: [{ slug: 'german-only', translations: { de: { title: 'Nur Deutsch' } } }] }, [{ slug: 'german-only', language: 'en' }]);
    });

    test('replace: every node needs the primary language, existing ones too', async () => {
      await refused(
        {
          mode: 'replace',
          nodes: [
            { slug: 'home', kind: 'section', translations: { de: { title: 'Heim' } } },
            { slug: 'page', parentSlug: 'home', translations: en('Page') },
          ],
        },
        [{ slug: 'home', language: 'en' }],
      );
    });

    test('replace: a parent that only the version has (not the document) is unknown', async () => {
      await refused({ mode: 'replace', nodes: [{ slug: 'page', parentSlug: 'home', translations: en('Page') }] }, [{ slug: 'page' }], /parent/i);
    });

    test('every problem is reported at once', async () => {
      await refused(
        {
          nodes: [
            { slug: 'lost', parentSlug: 'nowhere', translations: en('Lost') },
            { slug: 'twice', translations: en('One') },
            { slug: 'twice', translations: en('Two') },
            { slug: 'ping', parentSlug: 'pong', translations: en('Ping') },
            { slug: 'pong', parentSlug: 'ping', translations: en('Pong') },
            { slug: 'intl', translations: { en: { title: 'Intl' }, ja: { title: '国際' } } },
            { slug: 'german-only', translations: { de: { title: 'Nur Deutsch' } } },
          ],
        },
        [{ slug: 'lost' }, { slug: 'twice' }, { slug: 'ping' }, { slug: 'pong' }, { slug: 'intl', language: 'ja' }, { slug: 'german-only', language: 'en' }],
      );
    });
  });

  describe('node ids', () => {
    test('ids from the document are kept for new nodes', async () => {
      await createVersion(s, 'ids');
      const res = await importInto('ids', { nodes: [{ id: 'doc-id-0001', slug: 'first', translations: { en: { title: 'First' } } }] });
      assert.equal(res.status, 200, res.text);
      const doc = await exportOf(s, 'ids');
      assert.equal(doc.nodes.find((n) => n.slug === 'first')!.id, 'doc-id-0001');
      assert.match(s.git('show', 'HEAD:ids/version.json'), /"id": "doc-id-0001"/);
    });

    test('an id with control characters or white space at its ends is refused, naming it; any other text is an id', async () => {
      const commits = s.commitCount();
      for (const id of ['<b>\u0000\n', 'tab\there', ' padded', 'padded ', '\u0085next']) {
        const res = await importInto('ids', { nodes: [{ id, slug: 'odd', translations: { en: { title: 'Odd' } } }] });
        assertError(res, 400, 'validation_failed', { field: 'body/nodes/0/id' });
      }
      assert.equal(s.commitCount(), commits);
      const res = await importInto('ids', { nodes: [{ id: 'Ein Knoten ü/1', slug: 'odd', translations: { en: { title: 'Odd' } } }] });
      assert.equal(res.status, 200, res.text);
      assert.equal((await exportOf(s, 'ids')).nodes.find((n) => n.slug === 'odd')!.id, 'Ein Knoten ü/1');
    });

    test('an id another node of the version already has is not reused', async () => {
      const res = await importInto('ids', { nodes: [{ id: 'doc-id-0001', slug: 'second', translations: { en: { title: 'Second' } } }] });
      assert.equal(res.status, 200, res.text);
      const doc = await exportOf(s, 'ids');
      assert.equal(doc.nodes.find((n) => n.slug === 'first')!.id, 'doc-id-0001');
      const second = doc.nodes.find((n) => n.slug === 'second')!;
      assert.equal(typeof second.id, 'string');
      assert.notEqual(second.id, 'doc-id-0001');
    });

    test('importing an export into another version keeps the node ids', async () => {
      await createVersion(s, 'ids-copy');
      const source = await exportOf(s, 'ids');
      const res = await importInto('ids-copy', { mode: 'replace', document: source });
      assert.equal(res.status, 200, res.text);
      const copy = await exportOf(s, 'ids-copy');
      assert.deepEqual(copy.nodes.map((n) => [n.slug, n.id]), source.nodes.map((n) => [n.slug, n.id]));
    });
  });

  describe('access', () => {
    const body = { nodes: [{ slug: 'intruder', translations: { en: { title: 'Intruder' } } }] };
    before(async () => {
      await createVersion(s, 'acc');
    });

    test('without a key: 401 with WWW-Authenticate, nothing written', async () => {
      const commits = s.commitCount();
      const res = await importInto('acc', body, null);
      assertError(res, 401, 'unauthorized');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal(s.commitCount(), commits);
    });

    test('with an unknown key: 401', async () => {
      const res = await importInto('acc', body, 'help_this-key-does-not-exist');
      assertError(res, 401, 'unauthorized');
    });

    test('with a key without help:write: 403 insufficient_scope, nothing written', async () => {
      const reader = await s.createKey({ name: 'import-reader', scopes: 'help:read' });
      await waitForKey(s, reader);
      const commits = s.commitCount();
      const res = await importInto('acc', body, reader);
      assertError(res, 403, 'insufficient_scope');
      assert.equal(s.commitCount(), commits);
      assert.equal((await s.request('GET', '/versions/acc/topics/intruder')).status, 404);
    });

    test('into an unknown version: 404 naming the version, nothing written', async () => {
      const commits = s.commitCount();
      const res = await importInto('no-such-version', body);
      assertError(res, 404, 'not_found', { resource: 'version' });
      const dry = await importInto('no-such-version', { ...body, dryRun: true });
      assertError(dry, 404, 'not_found', { resource: 'version' });
      assert.equal(s.commitCount(), commits);
      assert.equal((await s.request('GET', '/versions/no-such-version/nodes')).status, 404);
    });
  });
});

interface Pair {
  slug: string;
  language?: string;
}

function sortPairs<T extends Pair>(pairs: T[]): T[] {
  return [...pairs].sort((a, b) => a.slug.localeCompare(b.slug) || (a.language ?? '').localeCompare(b.language ?? ''));
}
