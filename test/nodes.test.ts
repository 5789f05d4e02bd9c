import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, ISO_MS } from './helpers/assertions.ts';
import { changesOf } from './helpers/git.ts';
import { createNode, createVersion, listNodes, startTestServer, waitForKey, type TestServer } from './helpers/server.ts';

/** Every content file path of the head commit below a folder (the service's .stamps/ files left out). */
function filesAt(s: TestServer, folder: string): string[] {
  return s.git('ls-tree', '-r', '--name-only', 'HEAD', `${folder}/`).trim().split('\n').filter((p) => p !== '' && !p.includes('/.stamps/')).sort();
}

/** The slugs listed in a version.json's nav, with their parents, in document order. */
function navOf(s: TestServer, version: string): Array<{ slug: string; parentSlug: string | null; kind: string; id: string }> {
  const doc = JSON.parse(s.git('show', `HEAD:${version}/version.json`)) as { nav: unknown[] };
  const out: Array<{ slug: string; parentSlug: string | null; kind: string; id: string }> = [];
  const walk = (entries: unknown[], parentSlug: string | null) => {
    for (const raw of entries) {
      const e = (typeof raw === 'string' ? { slug: raw } : raw) as { slug: string; kind?: string; id?: string; children?: unknown[] };
      out.push({ slug: e.slug, parentSlug, kind: e.kind ?? (e.children ? 'section' : 'topic'), id: e.id ?? '' });
      walk(e.children ?? [], e.slug);
    }
  };
  walk(doc.nav, null);
  return out;
}

describe('Nodes: POST /versions/{version}/nodes', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'c1');
  });
  after(() => s.close());

  test('creates a node and answers { id, slug, kind, parentSlug, icon, sortOrder, updatedAt, translations: { lang: { updatedAt } } }', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions/c1/nodes', {
      body: {
        slug: 'getting-started',
        kind: 'section',
        icon: 'rocket',
        translations: { en: { title: 'Getting started', summary: 'First steps', bodyMd: 'Hello\n' }, de: { title: 'Erste Schritte' } },
      },
    });
    assert.equal(res.status, 200, res.text);
    const b = res.body;
    assert.deepEqual(Object.keys(b).sort(), ['icon', 'id', 'kind', 'parentSlug', 'slug', 'sortOrder', 'translations', 'updatedAt']);
    assert.equal(typeof b.id, 'string');
    assert.ok(b.id.length > 0);
    assert.equal(b.slug, 'getting-started');
    assert.equal(b.kind, 'section');
    assert.equal(b.parentSlug, null);
    assert.equal(b.icon, 'rocket');
    assert.equal(b.sortOrder, 0);
    assert.match(b.updatedAt, ISO_MS);
    assert.deepEqual(Object.keys(b.translations).sort(), ['de', 'en']);
    for (const lang of ['en', 'de']) {
      assert.deepEqual(Object.keys(b.translations[lang]), ['updatedAt']);
      assert.match(b.translations[lang].updatedAt, ISO_MS);
      assert.ok(b.translations[lang].updatedAt <= b.updatedAt);
    }
    assert.equal(s.commitCount(), commits + 1);
    assert.match(s.git('log', '-1', '--format=%an'), /^writer$/m);
  });

  test('kind defaults to topic, icon to null, and a node without sortOrder is appended', async () => {
    const res = await s.request('POST', '/versions/c1/nodes', { body: { slug: 'second', translations: { en: { title: 'Second' } } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.kind, 'topic');
    assert.equal(res.body.icon, null);
    assert.equal(res.body.sortOrder, 1);
    assert.equal(res.body.parentSlug, null);
  });

  test('the node\'s files appear in git as <version>/<lang>/<slug>.md with frontmatter title and the body, and version.json lists it', async () => {
    await createVersion(s, 'files');
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions/files/nodes', {
      body: { slug: 'install', kind: 'topic', translations: { en: { title: 'Install guide', summary: 'How to install', bodyMd: '# Install\n\nRun the installer.\n' }, de: { title: 'Installation', bodyMd: 'Installieren.' } } },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(s.commitCount(), commits + 1);
    assert.deepEqual(changesOf(s), ['A\tfiles/de/install.md', 'A\tfiles/en/install.md', 'M\tfiles/version.json']);
    const en = s.git('show', 'HEAD:files/en/install.md');
    assert.ok(en.startsWith('---\n'), en);
    const close = en.indexOf('\n---\n', 3);
    assert.ok(close > 0, en);
    const frontmatter = en.slice(4, close);
    assert.match(frontmatter, /^title: ['"]?Install guide['"]?$/m);
    assert.match(frontmatter, /^summary: ['"]?How to install['"]?$/m);
    assert.equal(en.slice(close + 5), '# Install\n\nRun the installer.\n');
    const de = s.git('show', 'HEAD:files/de/install.md');
    assert.match(de, /^title: ['"]?Installation['"]?$/m);
    assert.ok(de.endsWith('\n---\nInstallieren.'), de);
    const nav = navOf(s, 'files');
    assert.deepEqual(nav.map((n) => [n.slug, n.parentSlug, n.kind]), [['install', null, 'topic']]);
    assert.equal(nav[0].id, res.body.id);
  });

  test('a child node is created under its parent and listed nested in version.json', async () => {
    await createVersion(s, 'nest');
    await createNode(s, 'nest', { slug: 'guide', kind: 'section' });
    const res = await s.request('POST', '/versions/nest/nodes', { body: { slug: 'intro', parentSlug: 'guide', translations: { en: { title: 'Intro' } } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.parentSlug, 'guide');
    assert.equal(res.body.sortOrder, 0);
    assert.deepEqual(navOf(s, 'nest').map((n) => [n.slug, n.parentSlug]), [['guide', null], ['intro', 'guide']]);
    assert.deepEqual(filesAt(s, 'nest'), ['nest/en/guide.md', 'nest/en/intro.md', 'nest/version.json']);
  });

  test('every returned updatedAt works as expectedUpdatedAt in a follow-up PATCH and PUT', async () => {
    await createVersion(s, 'stamps');
    const created = await createNode(s, 'stamps', {
      slug: 'page',
      translations: { en: { title: 'Page', bodyMd: 'x' }, de: { title: 'Seite', bodyMd: 'y' } },
    });
    const putEn = await s.request('PUT', '/versions/stamps/topics/page/translations/en', {
      body: { title: 'Page 2', expectedUpdatedAt: created.translations.en.updatedAt },
    });
    assert.equal(putEn.status, 200, putEn.text);
    const putDe = await s.request('PUT', '/versions/stamps/topics/page/translations/de', {
      body: { title: 'Seite 2', expectedUpdatedAt: created.translations.de.updatedAt },
    });
    assert.equal(putDe.status, 200, putDe.text);
    const nodes = await listNodes(s, 'stamps');
    const patch = await s.request('PATCH', '/versions/stamps/nodes/page', { body: { icon: 'book-open', expectedUpdatedAt: nodes[0].updatedAt } });
    assert.equal(patch.status, 200, patch.text);
    const patch2 = await s.request('PATCH', '/versions/stamps/nodes/page', { body: { icon: 'book', expectedUpdatedAt: patch.body.updatedAt } });
    assert.equal(patch2.status, 200, patch2.text);
    const patch3 = await s.request('PATCH', '/versions/stamps/nodes/page', {
      body: { translations: { en: { summary: 'S' } }, expectedUpdatedAt: patch2.body.updatedAt },
    });
    assert.equal(patch3.status, 200, patch3.text);
    const put3 = await s.request('PUT', '/versions/stamps/topics/page/translations/en', {
      body: { title: 'Page 3', expectedUpdatedAt: patch3.body.translations.en.updatedAt },
    });
    assert.equal(put3.status, 200, put3.text);
    const put4 = await s.request('PUT', '/versions/stamps/topics/page/translations/de', {
      body: { title: 'Seite 3', expectedUpdatedAt: patch3.body.translations.de.updatedAt },
    });
    assert.equal(put4.status, 200, put4.text);
  });

  test('the stamp of a fresh create works as expectedUpdatedAt in a PATCH', async () => {
    const created = await createNode(s, 'stamps', { slug: 'fresh' });
    const res = await s.request('PATCH', '/versions/stamps/nodes/fresh', { body: { kind: 'section', expectedUpdatedAt: created.updatedAt } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.kind, 'section');
    assert.ok(res.body.updatedAt > created.updatedAt);
  });

  test('a translation language not enabled on the version is 400 language_not_enabled and writes nothing', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions/c1/nodes', { body: { slug: 'french', translations: { en: { title: 'E' }, fr: { title: 'F' } } } });
    const err = assertError(res, 400, 'language_not_enabled');
    assert.equal(err.language, 'fr');
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/c1/topics/french')).status, 404);
  });

  test('a node without a translation in the primary language is 400 primary_language_required', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions/c1/nodes', { body: { slug: 'only-de', translations: { de: { title: 'Nur Deutsch' } } } });
    const err = assertError(res, 400, 'primary_language_required');
    assert.equal(err.language, 'en');
    await createVersion(s, 'de-first', { languages: ['de', 'en'] });
    const res2 = await s.request('POST', '/versions/de-first/nodes', { body: { slug: 'only-en', translations: { en: { title: 'English only' } } } });
    const err2 = assertError(res2, 400, 'primary_language_required');
    assert.equal(err2.language, 'de');
    assert.equal(s.commitCount(), commits + 1); // only the version create
  });

  test('a slug that exists is 409 conflict and writes nothing', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions/c1/nodes', { body: { slug: 'second', translations: { en: { title: 'Again' } } } });
    assertError(res, 409, 'conflict');
    assert.equal(s.commitCount(), commits);
    const topic = await s.request('GET', '/versions/c1/topics/second');
    assert.equal(topic.body.title, 'Second');
  });

  test('an unknown parentSlug is 400 unknown_parent and writes nothing', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions/c1/nodes', { body: { slug: 'orphan', parentSlug: 'no-such-parent', translations: { en: { title: 'Orphan' } } } });
    const err = assertError(res, 400, 'unknown_parent', { field: 'body/parentSlug' });
    assert.equal(err.parentSlug, 'no-such-parent');
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/c1/topics/orphan')).status, 404);
  });

  for (const slug of ['../x', 'Bad Slug', 'a/b', '', 'x'.repeat(101), '-lead', 'UPPER']) {
    test(`an invalid slug ${JSON.stringify(slug.length > 20 ? `${slug.slice(0, 10)}…(${slug.length})` : slug)} is 400 validation_failed naming body/slug`, async () => {
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions/c1/nodes', { body: { slug, translations: { en: { title: 'T' } } } });
      const err = assertError(res, 400, 'validation_failed');
      assert.equal(err.field, 'body/slug');
      assert.ok(Array.isArray(err.errors));
      assert.equal(s.commitCount(), commits);
    });
  }

  test('a title over 200 characters is 400 naming the field; 200 characters are accepted', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions/c1/nodes', { body: { slug: 'long-title', translations: { en: { title: 'x'.repeat(201) } } } });
    const err = assertError(res, 400, 'validation_failed');
    assert.equal(err.field, 'body/translations/en/title');
    assert.equal(s.commitCount(), commits);
    const ok = await s.request('POST', '/versions/c1/nodes', { body: { slug: 'long-title', translations: { en: { title: 'y'.repeat(200) } } } });
    assert.equal(ok.status, 200, ok.text);
  });

  test('a missing or blank title is 400 naming the field', async () => {
    const res = await s.request('POST', '/versions/c1/nodes', { body: { slug: 'no-title', translations: { en: { bodyMd: 'x' } } } });
    assert.equal(assertError(res, 400, 'validation_failed').field, 'body/translations/en/title');
    const blank = await s.request('POST', '/versions/c1/nodes', { body: { slug: 'no-title', translations: { en: { title: '   ' } } } });
    assert.equal(assertError(blank, 400, 'validation_failed').field, 'body/translations/en/title');
  });

  test('an unknown body field is 400 naming body/<field>', async () => {
    const res = await s.request('POST', '/versions/c1/nodes', { body: { slug: 'extra', color: 'red', translations: { en: { title: 'T' } } } });
    assert.equal(assertError(res, 400, 'validation_failed').field, 'body/color');
  });

  test("sortOrder is the client's sort key: stored and answered exactly as sent, siblings in ascending order of it", async () => {
    await createVersion(s, 'ins');
    for (const [slug, sortOrder] of [['c', 30], ['a', 10], ['b', 20]] as const) {
      const res = await s.request('POST', '/versions/ins/nodes', { body: { slug, sortOrder, translations: { en: { title: slug } } } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.sortOrder, sortOrder);
    }
    assert.deepEqual((await listNodes(s, 'ins')).map((n) => [n.slug, n.sortOrder]), [['a', 10], ['b', 20], ['c', 30]]);
    // Inserting between two keys needs no renumbering: nobody else's key changes.
    const x = await s.request('POST', '/versions/ins/nodes', { body: { slug: 'x', sortOrder: 15, translations: { en: { title: 'X' } } } });
    assert.equal(x.body.sortOrder, 15);
    const moved = await s.request('PATCH', '/versions/ins/nodes/c', { body: { sortOrder: 12.5 } });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.sortOrder, 12.5);
    // Negative keys go before the first sibling.
    const z = await s.request('POST', '/versions/ins/nodes', { body: { slug: 'z', sortOrder: -1, translations: { en: { title: 'Z' } } } });
    assert.equal(z.body.sortOrder, -1);
    const expected = [['z', -1], ['a', 10], ['c', 12.5], ['x', 15], ['b', 20]];
    assert.deepEqual((await listNodes(s, 'ins')).map((n) => [n.slug, n.sortOrder]), expected);
    assert.deepEqual(navOf(s, 'ins').map((n) => n.slug), ['z', 'a', 'c', 'x', 'b']);
    const tree = await s.request('GET', '/versions/ins/tree');
    assert.deepEqual(tree.body.tree.map((e: { slug: string; sortOrder: number }) => [e.slug, e.sortOrder]), expected);
    // The keys survive a restart: they are in the content files.
    s = await s.restart();
    assert.deepEqual((await listNodes(s, 'ins')).map((n) => [n.slug, n.sortOrder]), expected);
  });

  test('without sortOrder a node goes after its last sibling (largest key + 1, or 0); equal keys keep the earlier node first', async () => {
    await createVersion(s, 'ins2');
    await createNode(s, 'ins2', { slug: 'sec', kind: 'section' });
    const first = await createNode(s, 'ins2', { slug: 'k1', parentSlug: 'sec' });
    assert.equal(first.sortOrder, 0);
    for (const slug of ['k2']) await createNode(s, 'ins2', { slug, parentSlug: 'sec' });
    const mid = await s.request('POST', '/versions/ins2/nodes', { body: { slug: 'k0', parentSlug: 'sec', sortOrder: 0.5, translations: { en: { title: 'K0' } } } });
    assert.equal(mid.body.sortOrder, 0.5);
    const far = await s.request('POST', '/versions/ins2/nodes', { body: { slug: 'k9', parentSlug: 'sec', sortOrder: 50, translations: { en: { title: 'K9' } } } });
    assert.equal(far.status, 200, far.text);
    assert.equal(far.body.sortOrder, 50);
    const next = await createNode(s, 'ins2', { slug: 'k10', parentSlug: 'sec' });
    assert.equal(next.sortOrder, 51);
    const tie = await s.request('POST', '/versions/ins2/nodes', { body: { slug: 'k-tie', parentSlug: 'sec', sortOrder: 1, translations: { en: { title: 'Tie' } } } });
    assert.equal(tie.body.sortOrder, 1);
    const nodes = await listNodes(s, 'ins2');
    assert.deepEqual(nodes.map((n) => [n.slug, n.parentSlug, n.sortOrder]), [
      ['sec', null, 0], ['k1', 'sec', 0], ['k0', 'sec', 0.5], ['k2', 'sec', 1], ['k-tie', 'sec', 1], ['k9', 'sec', 50], ['k10', 'sec', 51],
    ]);
    s = await s.restart();
    assert.deepEqual((await listNodes(s, 'ins2')).map((n) => [n.slug, n.sortOrder]), nodes.map((n) => [n.slug, n.sortOrder]));
  });

  test('a created node is readable with GET /nodes, /topics and /translations', async () => {
    const created = await createNode(s, 'c1', { slug: 'readable', translations: { en: { title: 'Readable', summary: 'Sum', bodyMd: 'Body' }, de: { title: 'Lesbar' } } });
    const nodes = await listNodes(s, 'c1');
    const n = nodes.find((x) => x.slug === 'readable')!;
    assert.equal(n.id, created.id);
    assert.equal(n.updatedAt, created.updatedAt);
    assert.deepEqual(n.translations.en, { title: 'Readable', summary: 'Sum', updatedAt: created.translations.en.updatedAt, bodyChars: 4 });
    assert.deepEqual(n.translations.de, { title: 'Lesbar', summary: '', updatedAt: created.translations.de.updatedAt, bodyChars: 0 });
    const topic = await s.request('GET', '/versions/c1/topics/readable?language=de');
    assert.equal(topic.status, 200);
    assert.equal(topic.body.title, 'Lesbar');
    assert.equal(topic.body.id, created.id);
    const tr = await s.request('GET', '/versions/c1/topics/readable/translations/en');
    assert.equal(tr.body.bodyMd, 'Body');
  });

  test('an unknown version is 404 not_found (resource version)', async () => {
    const res = await s.request('POST', '/versions/nope/nodes', { body: { slug: 'x', translations: { en: { title: 'X' } } } });
    assert.equal(assertError(res, 404, 'not_found').resource, 'version');
  });

  test('without a credential it is 401; with a read-only key it is 403 insufficient_scope', async () => {
    const commits = s.commitCount();
    const anon = await s.request('POST', '/versions/c1/nodes', { key: null, body: { slug: 'anon', translations: { en: { title: 'A' } } } });
    assertError(anon, 401, 'unauthorized');
    assert.ok(anon.headers.get('www-authenticate'));
    const reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    await waitForKey(s, reader);
    const ro = await s.request('POST', '/versions/c1/nodes', { key: reader, body: { slug: 'ro', translations: { en: { title: 'R' } } } });
    assertError(ro, 403, 'insufficient_scope');
    assert.equal(s.commitCount(), commits);
  });
});

describe('Nodes: PATCH /versions/{version}/nodes/{slug}', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('a rename moves the files in git in one commit; reads by the new slug work, the old slug redirects to it, children keep their parent', async () => {
    await createVersion(s, 'r1');
    const sec = await createNode(s, 'r1', { slug: 'old', kind: 'section', translations: { en: { title: 'Old', bodyMd: 'Section body' }, de: { title: 'Alt', bodyMd: 'Abschnitt' } } });
    await createNode(s, 'r1', { slug: 'kid-a', parentSlug: 'old' });
    await createNode(s, 'r1', { slug: 'kid-b', parentSlug: 'old' });
    await createNode(s, 'r1', { slug: 'after' });
    const oldEn = s.git('show', 'HEAD:r1/en/old.md');
    const commits = s.commitCount();
    const res = await s.request('PATCH', '/versions/r1/nodes/old', { body: { slug: 'renamed' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.slug, 'renamed');
    assert.equal(res.body.id, sec.id);
    assert.equal(res.body.parentSlug, null);
    assert.equal(res.body.sortOrder, 0);
    assert.equal(s.commitCount(), commits + 1);
    assert.deepEqual(changesOf(s), ['A\tr1/de/renamed.md', 'A\tr1/en/renamed.md', 'D\tr1/de/old.md', 'D\tr1/en/old.md', 'M\tr1/version.json']);
    assert.deepEqual(filesAt(s, 'r1'), ['r1/de/renamed.md', 'r1/en/after.md', 'r1/en/kid-a.md', 'r1/en/kid-b.md', 'r1/en/renamed.md', 'r1/version.json']);
    assert.equal(s.git('show', 'HEAD:r1/en/renamed.md'), oldEn);
    assert.deepEqual(navOf(s, 'r1').map((n) => [n.slug, n.parentSlug]), [['renamed', null], ['kid-a', 'renamed'], ['kid-b', 'renamed'], ['after', null]]);

    const topic = await s.request('GET', '/versions/r1/topics/renamed?language=de');
    assert.equal(topic.status, 200);
    assert.equal(topic.body.title, 'Alt');
    assert.equal(topic.body.bodyMd, 'Abschnitt');
    const tr = await s.request('GET', '/versions/r1/topics/renamed/translations/en');
    assert.equal(tr.status, 200);
    assert.equal(tr.body.bodyMd, 'Section body');
    // The old slug answers 301 to the new one (test/redirects.test.ts); followed, it reads the node.
    const moved = await s.request('GET', '/versions/r1/topics/old');
    assert.equal(moved.status, 200);
    assert.equal(moved.body.slug, 'renamed');
    assert.equal((await s.request('GET', '/versions/r1/topics/old/translations/en')).body.slug, 'renamed');
    const nodes = await listNodes(s, 'r1');
    assert.deepEqual(nodes.map((n) => [n.slug, n.parentSlug, n.sortOrder]), [['renamed', null, 0], ['kid-a', 'renamed', 0], ['kid-b', 'renamed', 1], ['after', null, 1]]);
    const kid = await s.request('GET', '/versions/r1/topics/kid-a');
    assert.deepEqual(kid.body.breadcrumbs, [{ slug: 'renamed', kind: 'section', title: 'Old' }]);
  });

  test('a renamed node survives a restart under its new slug', async () => {
    s = await s.restart();
    const nodes = await listNodes(s, 'r1');
    assert.deepEqual(nodes.map((n) => [n.slug, n.parentSlug]), [['renamed', null], ['kid-a', 'renamed'], ['kid-b', 'renamed'], ['after', null]]);
    assert.equal((await s.request('GET', '/versions/r1/topics/old')).body.slug, 'renamed');
  });

  test('a rename to a taken slug is 409 conflict and writes nothing', async () => {
    const commits = s.commitCount();
    const res = await s.request('PATCH', '/versions/r1/nodes/kid-a', { body: { slug: 'kid-b' } });
    assertError(res, 409, 'conflict');
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/r1/topics/kid-a')).status, 200);
    assert.equal((await s.request('GET', '/versions/r1/topics/kid-b')).body.title, 'Title kid-b');
  });

  test('a rename to an invalid slug is 400 naming body/slug', async () => {
    const res = await s.request('PATCH', '/versions/r1/nodes/kid-a', { body: { slug: '../escape' } });
    assert.equal(assertError(res, 400, 'validation_failed').field, 'body/slug');
  });

  test('parentSlug moves a node under another parent (appended) and into the top level', async () => {
    await createVersion(s, 'mv');
    await createNode(s, 'mv', { slug: 'p1', kind: 'section' });
    await createNode(s, 'mv', { slug: 'p2', kind: 'section' });
    await createNode(s, 'mv', { slug: 'n1', parentSlug: 'p1' });
    await createNode(s, 'mv', { slug: 'n2', parentSlug: 'p1' });
    await createNode(s, 'mv', { slug: 'm1', parentSlug: 'p2' });
    const commits = s.commitCount();
    const res = await s.request('PATCH', '/versions/mv/nodes/n1', { body: { parentSlug: 'p2' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.parentSlug, 'p2');
    assert.equal(res.body.sortOrder, 1);
    assert.equal(s.commitCount(), commits + 1);
    assert.deepEqual(changesOf(s), ['M\tmv/version.json']);
    let nodes = await listNodes(s, 'mv');
    assert.deepEqual(nodes.map((n) => [n.slug, n.parentSlug, n.sortOrder]), [['p1', null, 0], ['n2', 'p1', 1], ['p2', null, 1], ['m1', 'p2', 0], ['n1', 'p2', 1]]);

    const withPos = await s.request('PATCH', '/versions/mv/nodes/n2', { body: { parentSlug: 'p2', sortOrder: 0 } });
    assert.equal(withPos.body.sortOrder, 0);
    // n2 takes m1's key: equal keys keep the node that was there first in front.
    const top = await s.request('PATCH', '/versions/mv/nodes/m1', { body: { parentSlug: null } });
    assert.equal(top.status, 200, top.text);
    assert.equal(top.body.parentSlug, null);
    assert.equal(top.body.sortOrder, 2);
    nodes = await listNodes(s, 'mv');
    assert.deepEqual(nodes.map((n) => [n.slug, n.parentSlug, n.sortOrder]), [['p1', null, 0], ['p2', null, 1], ['n2', 'p2', 0], ['n1', 'p2', 1], ['m1', null, 2]]);
    assert.deepEqual(navOf(s, 'mv').map((n) => [n.slug, n.parentSlug]), [['p1', null], ['p2', null], ['n2', 'p2'], ['n1', 'p2'], ['m1', null]]);
    // Sent to the parent it has without a key, a node keeps its key and its place.
    const same = await s.request('PATCH', '/versions/mv/nodes/n2', { body: { parentSlug: 'p2' } });
    assert.equal(same.body.sortOrder, 0);
    assert.deepEqual((await listNodes(s, 'mv')).map((n) => n.slug), ['p1', 'p2', 'n2', 'n1', 'm1']);
  });

  test('a topic can get children too (any node may be a parent)', async () => {
    const res = await s.request('PATCH', '/versions/mv/nodes/m1', { body: { parentSlug: 'n1' } });
    assert.equal(res.status, 200, res.text);
    const nodes = await listNodes(s, 'mv');
    assert.equal(nodes.find((n) => n.slug === 'n1')!.kind, 'topic');
    assert.equal(nodes.find((n) => n.slug === 'm1')!.parentSlug, 'n1');
  });

  test('moving a node into its own subtree is 400 cycle with no commit', async () => {
    await createVersion(s, 'cyc');
    await createNode(s, 'cyc', { slug: 'top', kind: 'section' });
    await createNode(s, 'cyc', { slug: 'mid', kind: 'section', parentSlug: 'top' });
    await createNode(s, 'cyc', { slug: 'leaf', parentSlug: 'mid' });
    const before = await listNodes(s, 'cyc');
    const commits = s.commitCount();
    for (const parentSlug of ['leaf', 'mid', 'top']) {
      const res = await s.request('PATCH', '/versions/cyc/nodes/top', { body: { parentSlug } });
      assertError(res, 400, 'cycle');
    }
    const midUnderLeaf = await s.request('PATCH', '/versions/cyc/nodes/mid', { body: { parentSlug: 'leaf' } });
    assertError(midUnderLeaf, 400, 'cycle', { field: 'body/parentSlug' });
    assert.equal(s.commitCount(), commits);
    assert.deepEqual(await listNodes(s, 'cyc'), before);
  });

  test('an unknown parentSlug is 400 unknown_parent with no commit', async () => {
    const commits = s.commitCount();
    const res = await s.request('PATCH', '/versions/cyc/nodes/leaf', { body: { parentSlug: 'ghost' } });
    assertError(res, 400, 'unknown_parent');
    assert.equal(s.commitCount(), commits);
  });

  test('a stale expectedUpdatedAt is 409 stale_write with currentUpdatedAt, and nothing is written', async () => {
    await createVersion(s, 'st');
    const created = await createNode(s, 'st', { slug: 'doc' });
    const first = await s.request('PATCH', '/versions/st/nodes/doc', { body: { icon: 'star', expectedUpdatedAt: created.updatedAt } });
    assert.equal(first.status, 200, first.text);
    const commits = s.commitCount();
    const stale = await s.request('PATCH', '/versions/st/nodes/doc', { body: { icon: 'moon', expectedUpdatedAt: created.updatedAt } });
    const err = assertError(stale, 409, 'stale_write');
    assert.equal(err.currentUpdatedAt, first.body.updatedAt);
    assert.equal(s.commitCount(), commits);
    const nodes = await listNodes(s, 'st');
    assert.equal(nodes[0].icon, 'star');
    const retry = await s.request('PATCH', '/versions/st/nodes/doc', { body: { icon: 'moon', expectedUpdatedAt: err.currentUpdatedAt } });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.body.icon, 'moon');
  });

  test('a translation change makes the node stale for an older expectedUpdatedAt', async () => {
    const nodes = await listNodes(s, 'st');
    const put = await s.request('PUT', '/versions/st/topics/doc/translations/de', { body: { title: 'Dok' } });
    assert.equal(put.status, 200, put.text);
    const res = await s.request('PATCH', '/versions/st/nodes/doc', { body: { icon: 'sun', expectedUpdatedAt: nodes[0].updatedAt } });
    const err = assertError(res, 409, 'stale_write');
    assert.equal(err.currentUpdatedAt, put.body.translation.updatedAt);
  });

  test('If-Unmodified-Since with an ISO stamp is compared to the millisecond', async () => {
    const nodes = await listNodes(s, 'st');
    const stamp = nodes[0].updatedAt;
    const commits = s.commitCount();
    const older = new Date(Date.parse(stamp) - 1).toISOString();
    const stale = await s.request('PATCH', '/versions/st/nodes/doc', { body: { icon: 'cloud' }, headers: { 'if-unmodified-since': older } });
    assert.equal(assertError(stale, 409, 'stale_write').currentUpdatedAt, stamp);
    assert.equal(s.commitCount(), commits);
    const ok = await s.request('PATCH', '/versions/st/nodes/doc', { body: { icon: 'cloud' }, headers: { 'if-unmodified-since': stamp } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(s.commitCount(), commits + 1);
  });

  test('If-Unmodified-Since with an HTTP-date: 5 s before the stamp is 409 stale_write, a date in the future is 200', async () => {
    const nodes = await listNodes(s, 'st');
    const stamp = nodes[0].updatedAt;
    const commits = s.commitCount();
    const past = new Date(Date.parse(stamp) - 5000).toUTCString();
    const stale = await s.request('PATCH', '/versions/st/nodes/doc', { body: { icon: 'rain' }, headers: { 'if-unmodified-since': past } });
    const err = assertError(stale, 409, 'stale_write');
    assert.equal(err.currentUpdatedAt, stamp);
    assert.equal(s.commitCount(), commits);
    const future = new Date(Date.parse(stamp) + 3_600_000).toUTCString();
    const ok = await s.request('PATCH', '/versions/st/nodes/doc', { body: { icon: 'rain' }, headers: { 'if-unmodified-since': future } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.icon, 'rain');
    assert.equal(s.commitCount(), commits + 1);
  });

  test('If-Unmodified-Since with an HTTP-date of the stamp\'s own second is not stale', async () => {
    const nodes = await listNodes(s, 'st');
    const sameSecond = new Date(Date.parse(nodes[0].updatedAt)).toUTCString();
    const res = await s.request('PATCH', '/versions/st/nodes/doc', { body: { icon: 'snow' }, headers: { 'if-unmodified-since': sameSecond } });
    assert.equal(res.status, 200, res.text);
  });

  test('an If-Unmodified-Since that is not a date is 400 naming header/if-unmodified-since', async () => {
    const commits = s.commitCount();
    const res = await s.request('PATCH', '/versions/st/nodes/doc', { body: { icon: 'fog' }, headers: { 'if-unmodified-since': 'yesterday-ish' } });
    assert.equal(assertError(res, 400, 'validation_failed').field, 'header/if-unmodified-since');
    assert.equal(s.commitCount(), commits);
  });

  test('translations are merged field by field; a new language needs a title', async () => {
    await createVersion(s, 'mg', { languages: ['en', 'de', 'fr'] });
    await createNode(s, 'mg', { slug: 'm', translations: { en: { title: 'T-en', summary: 'S-en', bodyMd: 'B-en' }, de: { title: 'T-de', summary: 'S-de', bodyMd: 'B-de' } } });
    const commits = s.commitCount();
    const res = await s.request('PATCH', '/versions/mg/nodes/m', { body: { translations: { en: { summary: 'S-en-2' } } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(s.commitCount(), commits + 1);
    const changed = changesOf(s);
    assert.ok(changed.includes('M\tmg/en/m.md'), changed.join(', '));
    assert.deepEqual(changed.filter((c) => c.endsWith('.md')), ['M\tmg/en/m.md']);
    const en = (await s.request('GET', '/versions/mg/topics/m/translations/en')).body;
    assert.deepEqual([en.title, en.summary, en.bodyMd], ['T-en', 'S-en-2', 'B-en']);
    assert.equal(en.updatedAt, res.body.translations.en.updatedAt);
    const de = (await s.request('GET', '/versions/mg/topics/m/translations/de')).body;
    assert.deepEqual([de.title, de.summary, de.bodyMd], ['T-de', 'S-de', 'B-de']);
    assert.ok(res.body.translations.de.updatedAt < res.body.translations.en.updatedAt);
    assert.equal(res.body.updatedAt, res.body.translations.en.updatedAt);

    const both = await s.request('PATCH', '/versions/mg/nodes/m', { body: { translations: { en: { title: 'T-en-2' }, de: { bodyMd: 'B-de-2' } } } });
    assert.equal(both.status, 200, both.text);
    const en2 = (await s.request('GET', '/versions/mg/topics/m/translations/en')).body;
    assert.deepEqual([en2.title, en2.summary, en2.bodyMd], ['T-en-2', 'S-en-2', 'B-en']);
    const de2 = (await s.request('GET', '/versions/mg/topics/m/translations/de')).body;
    assert.deepEqual([de2.title, de2.summary, de2.bodyMd], ['T-de', 'S-de', 'B-de-2']);

    const noTitle = await s.request('PATCH', '/versions/mg/nodes/m', { body: { translations: { fr: { bodyMd: 'corps' } } } });
    assert.equal(assertError(noTitle, 400, 'validation_failed').field, 'body/translations/fr/title');
    const fr = await s.request('PATCH', '/versions/mg/nodes/m', { body: { translations: { fr: { title: 'T-fr', bodyMd: 'corps' } } } });
    assert.equal(fr.status, 200, fr.text);
    assert.deepEqual(Object.keys(fr.body.translations).sort(), ['de', 'en', 'fr']);
    assert.equal(s.git('show', 'HEAD:mg/fr/m.md').endsWith('\n---\ncorps'), true);
    const frRead = (await s.request('GET', '/versions/mg/topics/m/translations/fr')).body;
    assert.deepEqual([frRead.title, frRead.summary, frRead.bodyMd], ['T-fr', '', 'corps']);
  });

  test('a translation in a language not enabled is 400 language_not_enabled with no commit', async () => {
    const commits = s.commitCount();
    const res = await s.request('PATCH', '/versions/mg/nodes/m', { body: { translations: { es: { title: 'T-es' } } } });
    assertError(res, 400, 'language_not_enabled');
    assert.equal(s.commitCount(), commits);
  });

  test('an unknown node is 404 not_found (resource node); an unknown version is 404 (resource version)', async () => {
    const res = await s.request('PATCH', '/versions/mg/nodes/ghost', { body: { icon: 'x' } });
    assert.equal(assertError(res, 404, 'not_found').resource, 'node');
    const v = await s.request('PATCH', '/versions/nope/nodes/m', { body: { icon: 'x' } });
    assert.equal(assertError(v, 404, 'not_found').resource, 'version');
  });

  test('an unknown body field is 400 naming body/<field>', async () => {
    const res = await s.request('PATCH', '/versions/mg/nodes/m', { body: { title: 'not here' } });
    assert.equal(assertError(res, 400, 'validation_failed').field, 'body/title');
  });
});

describe('Nodes: DELETE /versions/{version}/nodes/{slug}', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('deletes the node and its descendants: removed lists them in document order, all their files go in ONE commit', async () => {
    await createVersion(s, 'd1');
    await createNode(s, 'd1', { slug: 'keep-first' });
    await createNode(s, 'd1', { slug: 'sec', kind: 'section', translations: { en: { title: 'Sec' }, de: { title: 'Abschnitt' } } });
    await createNode(s, 'd1', { slug: 'a', parentSlug: 'sec', translations: { en: { title: 'A' }, de: { title: 'A-de' } } });
    await createNode(s, 'd1', { slug: 'a1', parentSlug: 'a' });
    await createNode(s, 'd1', { slug: 'a2', parentSlug: 'a' });
    await createNode(s, 'd1', { slug: 'b', parentSlug: 'sec' });
    await createNode(s, 'd1', { slug: 'b1', parentSlug: 'b', translations: { en: { title: 'B1' }, de: { title: 'B1-de' } } });
    await createNode(s, 'd1', { slug: 'keep-last' });
    // move a2 in front of a1 so document order differs from creation order
    await s.request('PATCH', '/versions/d1/nodes/a2', { body: { sortOrder: -1 } });
    const commits = s.commitCount();
    const res = await s.request('DELETE', '/versions/d1/nodes/sec');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { ok: true, removed: ['sec', 'a', 'a2', 'a1', 'b', 'b1'] });
    assert.equal(s.commitCount(), commits + 1);
    assert.deepEqual(changesOf(s), [
      'D\td1/de/a.md', 'D\td1/de/b1.md', 'D\td1/de/sec.md',
      'D\td1/en/a.md', 'D\td1/en/a1.md', 'D\td1/en/a2.md', 'D\td1/en/b.md', 'D\td1/en/b1.md', 'D\td1/en/sec.md',
      'M\td1/version.json',
    ]);
    assert.deepEqual(filesAt(s, 'd1'), ['d1/en/keep-first.md', 'd1/en/keep-last.md', 'd1/version.json']);
    assert.deepEqual(navOf(s, 'd1').map((n) => n.slug), ['keep-first', 'keep-last']);
    const nodes = await listNodes(s, 'd1');
    assert.deepEqual(nodes.map((n) => [n.slug, n.sortOrder]), [['keep-first', 0], ['keep-last', 2]]);
    for (const slug of ['sec', 'a', 'a1', 'a2', 'b', 'b1']) {
      assert.equal((await s.request('GET', `/versions/d1/topics/${slug}`)).status, 404, slug);
    }
    s.git('fsck', '--strict');
  });

  test('deleting a leaf removes just it', async () => {
    const res = await s.request('DELETE', '/versions/d1/nodes/keep-last');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { ok: true, removed: ['keep-last'] });
    assert.deepEqual(changesOf(s), ['D\td1/en/keep-last.md', 'M\td1/version.json']);
  });

  test('a deleted slug can be created again', async () => {
    const res = await s.request('POST', '/versions/d1/nodes', { body: { slug: 'sec', translations: { en: { title: 'Sec again' } } } });
    assert.equal(res.status, 200, res.text);
    assert.equal((await s.request('GET', '/versions/d1/topics/sec')).body.title, 'Sec again');
  });

  test('an unknown node is 404 not_found (resource node) with no commit; an unknown version is 404', async () => {
    const commits = s.commitCount();
    const res = await s.request('DELETE', '/versions/d1/nodes/ghost');
    assert.equal(assertError(res, 404, 'not_found').resource, 'node');
    const again = await s.request('DELETE', '/versions/d1/nodes/keep-last');
    assert.equal(assertError(again, 404, 'not_found').resource, 'node');
    const v = await s.request('DELETE', '/versions/nope/nodes/sec');
    assert.equal(assertError(v, 404, 'not_found').resource, 'version');
    assert.equal(s.commitCount(), commits);
  });

  test('a stale If-Unmodified-Since is 409 stale_write and keeps the node', async () => {
    const nodes = await listNodes(s, 'd1');
    const target = nodes.find((n) => n.slug === 'keep-first')!;
    await s.request('PUT', '/versions/d1/topics/keep-first/translations/en', { body: { title: 'Changed' } });
    const commits = s.commitCount();
    const res = await s.request('DELETE', '/versions/d1/nodes/keep-first', { headers: { 'if-unmodified-since': target.updatedAt } });
    assertError(res, 409, 'stale_write');
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/d1/topics/keep-first')).status, 200);
    const fresh = (await listNodes(s, 'd1')).find((n) => n.slug === 'keep-first')!;
    const ok = await s.request('DELETE', '/versions/d1/nodes/keep-first', { headers: { 'if-unmodified-since': fresh.updatedAt } });
    assert.equal(ok.status, 200, ok.text);
  });

  test('the deletion survives a restart', async () => {
    s = await s.restart();
    const nodes = await listNodes(s, 'd1');
    assert.deepEqual(nodes.map((n) => n.slug), ['sec']);
  });
});
