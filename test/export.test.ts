import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import yaml from 'js-yaml';
import { comparable } from './helpers/content.ts';
import type { ContentFile } from './helpers/generate.ts';
import { createNode, createVersion, exportOf, startTestServer, type ExportNode, type ExportTranslation, type TestServer } from './helpers/server.ts';

const NODE_FIELDS = ['icon', 'id', 'kind', 'parentSlug', 'slug', 'sortOrder', 'translations', 'updatedAt'];
const TRANSLATION_FIELDS = ['bodyMd', 'summary', 'title', 'updatedAt'];
const VERSION_FIELDS = ['createdAt', 'hidden', 'isLatest', 'label', 'languages', 'slug', 'sortOrder', 'status', 'updatedAt', 'workingCopyOf'];

/** Splits a content file into its YAML frontmatter (parsed) and its body. */
function parseMarkdown(content: string): { data: Record<string, unknown>; body: string } {
  const m = /^---\n([\s\S]*?\n)?---\n/.exec(content);
  assert.ok(m, `frontmatter in ${JSON.stringify(content.slice(0, 80))}`);
  return { data: (yaml.load(m[1] ?? '') ?? {}) as Record<string, unknown>, body: content.slice(m[0].length) };
}

describe('GET /versions/{version}/export', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'ex', { status: 'published' });
    await createNode(s, 'ex', {
      slug: 'ex-sec',
      kind: 'section',
      icon: 'book-open',
      translations: { en: { title: 'Getting started', summary: 'First steps', bodyMd: '' }, de: { title: 'Erste Schritte', summary: 'Anfang', bodyMd: '' } },
    });
    await createNode(s, 'ex', {
      slug: 'ex-a',
      parentSlug: 'ex-sec',
      translations: {
        en: { title: `Yes: #1 — "quoted" 'single'`, summary: 'Line one: with colon\nLine two', bodyMd: '# Heading\n\nText 😀 with `code` and **bold**.\n' },
      },
    });
    await createNode(s, 'ex', {
      slug: 'ex-b',
      parentSlug: 'ex-sec',
      translations: { en: { title: '123', bodyMd: 'No newline at the end' }, de: { title: 'true', summary: 'null', bodyMd: 'Umlaute: äöü ß\n' } },
    });
    await createNode(s, 'ex', {
      slug: 'ex-c',
      translations: { en: { title: 'Plain', bodyMd: '---\nlooks: like frontmatter\n---\n\nafter\n' } },
    });
    await createNode(s, 'ex', { slug: 'ex-first', icon: 'rocket', sortOrder: -1, translations: { en: { title: 'First', bodyMd: '\nStarts with a blank line.\n' } } });
    await createNode(s, 'ex', { slug: 'ex-crlf', parentSlug: 'ex-c', translations: { en: { title: 'Windows', bodyMd: 'line one\r\nline two\r\n' } } });
  });
  after(() => s.close());

  async function exportFiles(version: string): Promise<ContentFile[]> {
    const res = await s.request('GET', `/versions/${version}/export?format=files`);
    assert.equal(res.status, 200, res.text.slice(0, 500));
    assert.deepEqual(Object.keys(res.body), ['files']);
    return res.body.files;
  }

  /**
   * The content files git holds for a version on main: path relative to the version folder → bytes
   * (read with one git process). The service's stamps (`.stamps/`) are left out, as export leaves them out.
   */
  function gitFiles(version: string, withStamps = false): Map<string, Buffer> {
    const entries = s
      .git('ls-tree', '-r', '--full-tree', 'main', `${version}/`)
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [info, path] = line.split('\t');
        return { blob: info.split(' ')[2], path };
      })
      .filter((e) => withStamps || !e.path.startsWith(`${version}/.stamps/`));
    const out = new Map<string, Buffer>();
    if (entries.length === 0) return out;
    const batch = execFileSync('git', ['cat-file', '--batch'], { cwd: s.gitdir, input: entries.map((e) => e.blob).join('\n') + '\n', maxBuffer: 256 * 1024 * 1024 });
    let at = 0;
    for (const e of entries) {
      const eol = batch.indexOf(0x0a, at);
      const [blob, type, size] = batch.subarray(at, eol).toString('utf8').split(' ');
      assert.equal(blob, e.blob);
      assert.equal(type, 'blob');
      out.set(e.path.slice(version.length + 1), batch.subarray(eol + 1, eol + 1 + Number(size)));
      at = eol + 1 + Number(size) + 1;
    }
    return out;
  }

  const EX_ORDER = ['ex-first', 'ex-sec', 'ex-a', 'ex-b', 'ex-c', 'ex-crlf'];

  describe('the export document', () => {
    test('is { version, nodes } with the version object as GET /versions shows it', async () => {
      const res = await s.request('GET', '/versions/ex/export');
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(res.body).sort(), ['nodes', 'version']);
      assert.deepEqual(Object.keys(res.body.version).sort(), VERSION_FIELDS);
      const list = (await s.request('GET', '/versions')).body as Array<Record<string, unknown>>;
      assert.deepEqual(res.body.version, list.find((v) => v.slug === 'ex'));
    });

    test('format=json is the same document', async () => {
      const plain = await s.request('GET', '/versions/ex/export');
      const json = await s.request('GET', '/versions/ex/export?format=json');
      assert.equal(json.status, 200);
      assert.deepEqual(json.body, plain.body);
    });

    test('nodes come in document order with slug, kind, parentSlug, icon and sortOrder', async () => {
      const doc = await exportOf(s, 'ex');
      assert.deepEqual(doc.nodes.map((n) => n.slug), EX_ORDER);
      for (const n of doc.nodes) assert.deepEqual(Object.keys(n).sort(), NODE_FIELDS);
      const shape = doc.nodes.map((n) => ({ slug: n.slug, kind: n.kind, parentSlug: n.parentSlug, icon: n.icon, sortOrder: n.sortOrder }));
      assert.deepEqual(shape, [
        { slug: 'ex-first', kind: 'topic', parentSlug: null, icon: 'rocket', sortOrder: -1 },
        { slug: 'ex-sec', kind: 'section', parentSlug: null, icon: 'book-open', sortOrder: 0 },
        { slug: 'ex-a', kind: 'topic', parentSlug: 'ex-sec', icon: null, sortOrder: 0 },
        { slug: 'ex-b', kind: 'topic', parentSlug: 'ex-sec', icon: null, sortOrder: 1 },
        { slug: 'ex-c', kind: 'topic', parentSlug: null, icon: null, sortOrder: 1 },
        { slug: 'ex-crlf', kind: 'topic', parentSlug: 'ex-c', icon: null, sortOrder: 0 },
      ]);
    });

    test('every translation is there with title, summary, body and stamp', async () => {
      const doc = await exportOf(s, 'ex');
      const bySlug = new Map(doc.nodes.map((n) => [n.slug, n]));
      // A translation other than the primary one also carries the English text it follows (basedOn).
      for (const n of doc.nodes) for (const [l, t] of Object.entries(n.translations)) assert.deepEqual(Object.keys(t).sort(), l === 'en' ? TRANSLATION_FIELDS : ['basedOn', ...TRANSLATION_FIELDS]);
      assert.deepEqual(Object.keys(bySlug.get('ex-sec')!.translations).sort(), ['de', 'en']);
      assert.deepEqual(Object.keys(bySlug.get('ex-a')!.translations), ['en']);
      const a = bySlug.get('ex-a')!.translations.en;
      assert.equal(a.title, `Yes: #1 — "quoted" 'single'`);
      assert.equal(a.summary, 'Line one: with colon\nLine two');
      assert.equal(a.bodyMd, '# Heading\n\nText 😀 with `code` and **bold**.\n');
      const b = bySlug.get('ex-b')!.translations;
      assert.deepEqual({ title: b.en.title, summary: b.en.summary, bodyMd: b.en.bodyMd }, { title: '123', summary: '', bodyMd: 'No newline at the end' });
      assert.deepEqual({ title: b.de.title, summary: b.de.summary, bodyMd: b.de.bodyMd }, { title: 'true', summary: 'null', bodyMd: 'Umlaute: äöü ß\n' });
      assert.equal(bySlug.get('ex-c')!.translations.en.bodyMd, '---\nlooks: like frontmatter\n---\n\nafter\n');
      assert.equal(bySlug.get('ex-first')!.translations.en.bodyMd, '\nStarts with a blank line.\n');
      assert.equal(bySlug.get('ex-crlf')!.translations.en.bodyMd, 'line one\r\nline two\r\n');
    });

    test('ids, stamps and bodies agree with what the read endpoints show', async () => {
      const doc = await exportOf(s, 'ex');
      const listed = (await s.request('GET', '/versions/ex/nodes?include=bodies')).body.nodes as Array<ExportNode & { translations: Record<string, ExportTranslation & { bodyChars: number }> }>;
      assert.deepEqual(doc.nodes.map((n) => n.slug), listed.map((n) => n.slug));
      for (const [i, n] of doc.nodes.entries()) {
        const l = listed[i];
        assert.equal(n.id, l.id);
        assert.equal(n.updatedAt, l.updatedAt, `updatedAt of ${n.slug}`);
        assert.equal(n.sortOrder, l.sortOrder);
        for (const [language, t] of Object.entries(n.translations)) {
          assert.equal(t.updatedAt, l.translations[language].updatedAt);
          assert.equal(t.bodyMd, l.translations[language].bodyMd);
          assert.equal(t.title, l.translations[language].title);
        }
        assert.deepEqual(Object.keys(n.translations).sort(), Object.keys(l.translations).sort());
      }
    });

    test("a node's updatedAt is the newest of its own and its translations' stamps", async () => {
      await createVersion(s, 'ex-stamp', { status: 'published' });
      await createNode(s, 'ex-stamp', { slug: 'page', translations: { en: { title: 'Page', bodyMd: 'Old.\n' } } });
      const put = await s.request('PUT', '/versions/ex-stamp/topics/page/translations/de', { body: { title: 'Seite', bodyMd: 'Neu.\n' } });
      assert.equal(put.status, 200, put.text);
      const stamp = put.body.translation.updatedAt as string;
      const [node] = (await exportOf(s, 'ex-stamp')).nodes;
      assert.equal(node.translations.de.updatedAt, stamp);
      assert.equal(node.updatedAt, stamp);
      // the export's stamp is usable as expectedUpdatedAt
      const patch = await s.request('PATCH', '/versions/ex-stamp/nodes/page', { body: { icon: 'rocket', expectedUpdatedAt: node.updatedAt } });
      assert.equal(patch.status, 200, patch.text);
    });

    test('the export follows writes', async () => {
      await createVersion(s, 'ex-live', { status: 'published' });
      await createNode(s, 'ex-live', { slug: 'one', translations: { en: { title: 'One', bodyMd: 'First.\n' } } });
      await createNode(s, 'ex-live', { slug: 'two', translations: { en: { title: 'Two', bodyMd: 'Second.\n' } } });
      const put = await s.request('PUT', '/versions/ex-live/topics/one/translations/en', { body: { title: 'One again', bodyMd: 'Changed.\n' } });
      assert.equal(put.status, 200);
      const del = await s.request('DELETE', '/versions/ex-live/nodes/two');
      assert.equal(del.status, 200);
      const doc = await exportOf(s, 'ex-live');
      assert.deepEqual(doc.nodes.map(comparable), [{ slug: 'one', kind: 'topic', parentSlug: null, icon: null, sortOrder: 0, translations: { en: { title: 'One again', summary: '', bodyMd: 'Changed.\n' } } }]);
    });

    test('a version without nodes exports an empty node list', async () => {
      await createVersion(s, 'ex-empty', { status: 'published' });
      const doc = await exportOf(s, 'ex-empty');
      assert.equal(doc.version.slug, 'ex-empty');
      assert.deepEqual(doc.nodes, []);
      const files = await exportFiles('ex-empty');
      assert.deepEqual(files.map((f) => f.path), ['version.json']);
    });

    test('an unknown format is 400 validation_failed naming query/format', async () => {
      const res = await s.request('GET', '/versions/ex/export?format=xml');
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.field, 'query/format');
    });
  });

  describe('format=files', () => {
    const EX_PATHS = ['version.json', 'en/ex-first.md', 'en/ex-sec.md', 'de/ex-sec.md', 'en/ex-a.md', 'en/ex-b.md', 'de/ex-b.md', 'en/ex-c.md', 'en/ex-crlf.md'];

    test('version.json comes first, then {lang}/{slug}.md in document order', async () => {
      const files = await exportFiles('ex');
      for (const f of files) assert.deepEqual(Object.keys(f).sort(), ['content', 'path']);
      assert.deepEqual(files.map((f) => f.path), EX_PATHS);
    });

    test('version.json describes the version and its navigation', async () => {
      const [first] = await exportFiles('ex');
      const v = JSON.parse(first.content);
      assert.equal(v.label, 'Version ex');
      assert.equal(v.status, 'published');
      assert.deepEqual(v.languages, ['en', 'de']);
      const slugs = (entries: Array<{ slug: string; children?: unknown[] }>): string[] => entries.flatMap((e) => [e.slug, ...slugs((e.children ?? []) as Array<{ slug: string }>)]);
      assert.deepEqual(slugs(v.nav), EX_ORDER);
      // A node's sort key is written where it differs from the entry's index among its siblings.
      type Entry = { slug: string; sortOrder?: number; children?: Entry[] };
      const keys = (entries: Entry[]): Array<[string, number | undefined]> => entries.flatMap((e) => [[e.slug, e.sortOrder] as [string, number | undefined], ...keys(e.children ?? [])]);
      assert.deepEqual(keys(v.nav), [['ex-first', -1], ['ex-sec', 0], ['ex-a', undefined], ['ex-b', undefined], ['ex-c', 1], ['ex-crlf', undefined]]);
    });

    test('each Markdown file parses back: frontmatter title and summary, body as stored', async () => {
      const files = await exportFiles('ex');
      const doc = await exportOf(s, 'ex');
      const bySlug = new Map(doc.nodes.map((n) => [n.slug, n]));
      for (const f of files.slice(1)) {
        const [language, name] = f.path.split('/');
        const t = bySlug.get(name.replace(/\.md$/, ''))!.translations[language];
        const { data, body } = parseMarkdown(f.content);
        assert.equal(data.title, t.title, `title of ${f.path}`);
        assert.equal(data.summary ?? '', t.summary, `summary of ${f.path}`);
        assert.equal(body, t.bodyMd, `body of ${f.path}`);
      }
    });

    test('the files are exactly the files git holds for the version, byte for byte', async () => {
      const files = await exportFiles('ex');
      const inGit = gitFiles('ex');
      assert.deepEqual(files.map((f) => f.path).sort(), [...inGit.keys()].sort());
      for (const f of files) assert.ok(Buffer.from(f.content, 'utf8').equals(inGit.get(f.path)!), `content of ${f.path} equals git's`);
    });

    test('after writes the files still equal what git holds', async () => {
      const files = await exportFiles('ex-live');
      const inGit = gitFiles('ex-live');
      assert.deepEqual(files.map((f) => f.path).sort(), [...inGit.keys()].sort());
      for (const f of files) assert.ok(Buffer.from(f.content, 'utf8').equals(inGit.get(f.path)!), `content of ${f.path} equals git's`);
    });

    test('no exported file carries a stamp: the stamps are in git, in .stamps/, which export leaves out', async () => {
      const doc = await exportOf(s, 'ex');
      for (const version of ['ex', 'ex-live']) {
        const files = await exportFiles(version);
        for (const f of files) assert.doesNotMatch(f.content, /updatedAt|createdAt/, `${version}/${f.path}`);
        assert.ok(files.every((f) => !f.path.startsWith('.stamps/')));
        const stamps = [...gitFiles(version, true).keys()].filter((p) => p.startsWith('.stamps/')).sort();
        assert.deepEqual(stamps, version === 'ex' ? ['.stamps/de.json', '.stamps/en.json', '.stamps/nodes.json'] : stamps);
      }
      // The stamps the API answers are the ones git keeps beside the files.
      const kept = JSON.parse(gitFiles('ex', true).get('.stamps/en.json')!.toString('utf8')) as Record<string, string>;
      for (const n of doc.nodes) if (n.translations.en) assert.equal(kept[n.slug], n.translations.en.updatedAt, n.slug);
      const nodes = JSON.parse(gitFiles('ex', true).get('.stamps/nodes.json')!.toString('utf8'));
      assert.equal(nodes.version.updatedAt, doc.version.updatedAt);
    });
  });

  describe('visibility', () => {
    before(async () => {
      await createVersion(s, 'ex-draft');
      await createNode(s, 'ex-draft', { slug: 'secret' });
      await createVersion(s, 'ex-arch', { status: 'archived' });
    });

    test('anonymous export of a draft version is 404 not_found', async () => {
      for (const path of ['/versions/ex-draft/export', '/versions/ex-draft/export?format=files', '/versions/ex-arch/export']) {
        const res = await s.request('GET', path, { key: null });
        assert.equal(res.status, 404, path);
        assert.equal(res.body.error.code, 'not_found');
        assert.equal(res.body.error.resource, 'version');
      }
    });

    test('with a key, a draft version is exported', async () => {
      const doc = await exportOf(s, 'ex-draft');
      assert.equal(doc.version.status, 'draft');
      assert.deepEqual(doc.nodes.map((n) => n.slug), ['secret']);
      const files = await exportFiles('ex-draft');
      assert.deepEqual(files.map((f) => f.path), ['version.json', 'en/secret.md']);
    });

    test('anonymous export of a published version is 200', async () => {
      const res = await s.request('GET', '/versions/ex/export', { key: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.nodes.map((n: ExportNode) => n.slug), EX_ORDER);
    });

    test('an unknown version is 404 not_found', async () => {
      for (const key of [undefined, null]) {
        for (const path of ['/versions/nope/export', '/versions/nope/export?format=files']) {
          const res = await s.request('GET', path, { key });
          assert.equal(res.status, 404, path);
          assert.equal(res.body.error.code, 'not_found');
          assert.equal(res.body.error.resource, 'version');
        }
      }
    });
  });

  describe('a large version (3,000 nodes)', () => {
    const SECTIONS = 30;
    const PER_SECTION = 99;
    const expectedOrder: string[] = [];
    let germanCount = 0;

    before(async () => {
      await createVersion(s, 'big', { status: 'published' });
      const nodes: unknown[] = [];
      for (let i = 0; i < SECTIONS; i++) {
        const sec = `sec-${i}`;
        expectedOrder.push(sec);
        nodes.push({ slug: sec, kind: 'section', icon: i % 2 === 0 ? 'book-open' : null, translations: { en: { title: `Section ${i}`, summary: `Section summary ${i}` } } });
        for (let j = 0; j < PER_SECTION; j++) {
          const slug = `t-${i}-${j}`;
          expectedOrder.push(slug);
          const translations: Record<string, unknown> = { en: { title: `Topic ${i}.${j}`, summary: `About ${i}.${j}`, bodyMd: `# Topic ${i}.${j}\n\nSome **body** text for topic ${i}.${j}.\n` } };
          if (j % 3 === 0) {
            translations.de = { title: `Thema ${i}.${j}`, bodyMd: `Text für Thema ${i}.${j}.\n` };
            germanCount++;
          }
          nodes.push({ slug, kind: 'topic', parentSlug: sec, translations });
        }
      }
      assert.equal(nodes.length, 3000);
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions/big/import', { body: { nodes } });
      assert.equal(res.status, 200, res.text.slice(0, 500));
      assert.equal(res.body.diff.created.length, 3000);
      assert.equal(s.commitCount(), commits + 1);
    });

    test('exports completely, in document order, and parses', async () => {
      const res = await s.request('GET', '/versions/big/export');
      assert.equal(res.status, 200);
      const nodes = JSON.parse(res.text).nodes as ExportNode[];
      assert.equal(nodes.length, 3000);
      assert.deepEqual(nodes.map((n) => n.slug), expectedOrder);
      assert.equal(nodes.filter((n) => n.kind === 'section').length, SECTIONS);
      assert.equal(nodes.filter((n) => 'de' in n.translations).length, germanCount);
      assert.equal(nodes.filter((n) => n.icon === 'book-open').length, SECTIONS / 2);
      const last = nodes[nodes.length - 1];
      assert.deepEqual(comparable(last), {
        slug: `t-${SECTIONS - 1}-${PER_SECTION - 1}`,
        kind: 'topic',
        parentSlug: `sec-${SECTIONS - 1}`,
        icon: null,
        sortOrder: PER_SECTION - 1,
        translations: { en: { title: `Topic ${SECTIONS - 1}.${PER_SECTION - 1}`, summary: `About ${SECTIONS - 1}.${PER_SECTION - 1}`, bodyMd: `# Topic ${SECTIONS - 1}.${PER_SECTION - 1}\n\nSome **body** text for topic ${SECTIONS - 1}.${PER_SECTION - 1}.\n` } },
      });
      assert.ok(nodes.every((n) => n.translations.en.bodyMd.length > 0 || n.kind === 'section'));
    });

    test('exports completely as files, and they equal what git holds', async () => {
      const files = await exportFiles('big');
      assert.equal(files.length, 1 + 3000 + germanCount);
      assert.equal(files[0].path, 'version.json');
      const nav = JSON.parse(files[0].content).nav as Array<{ slug: string; children?: Array<{ slug: string }> }>;
      assert.equal(nav.length, SECTIONS);
      assert.equal(nav.reduce((sum, e) => sum + 1 + (e.children?.length ?? 0), 0), 3000);
      const inGit = gitFiles('big');
      assert.equal(inGit.size, files.length);
      for (const f of files) assert.ok(Buffer.from(f.content, 'utf8').equals(inGit.get(f.path)!), `content of ${f.path} equals git's`);
    });

    test('export → import (replace) into another version → export gives the same nodes', async () => {
      const source = await exportOf(s, 'big');
      await createVersion(s, 'big-copy', { languages: ['en', 'de'] });
      await createNode(s, 'big-copy', { slug: 'stale', translations: { en: { title: 'Stale', bodyMd: 'Goes away.\n' } } });
      await createNode(s, 'big-copy', { slug: 't-0-0', translations: { en: { title: 'Old title', bodyMd: 'Old.\n' } } });
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions/big-copy/import', { body: { mode: 'replace', document: source } });
      assert.equal(res.status, 200, res.text.slice(0, 500));
      assert.deepEqual(res.body.diff.deleted, ['stale']);
      assert.equal(res.body.diff.created.length, 2999);
      assert.equal(s.commitCount(), commits + 1);
      const copy = await exportOf(s, 'big-copy');
      assert.equal(copy.nodes.length, 3000);
      assert.deepEqual(copy.nodes.map(comparable), source.nodes.map(comparable));
    });
  });

  describe('round trip through content files', () => {
    test('export?format=files → import-files into a new version → export gives the same nodes', async () => {
      const source = await exportOf(s, 'ex');
      const files = await exportFiles('ex');
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions/ex-files/import-files', { body: { files } });
      assert.equal(res.status, 200, res.text.slice(0, 1000));
      assert.equal(res.body.dryRun, false);
      assert.deepEqual(res.body.warnings, []);
      assert.deepEqual(res.body.version, { slug: 'ex-files', exists: false, status: 'published', isLatest: false });
      assert.equal(res.body.summary.created, EX_ORDER.length);
      assert.equal(s.commitCount(), commits + 1);
      const copy = await exportOf(s, 'ex-files');
      assert.deepEqual(copy.nodes.map(comparable), source.nodes.map(comparable));
      assert.equal(copy.version.label, source.version.label);
      assert.deepEqual(copy.version.languages, source.version.languages);
    });

    test('the round trip holds for a draft with more languages and a nested section', async () => {
      await createVersion(s, 'ex-multi', { languages: ['en', 'de', 'ja', 'pt-BR'] });
      await createNode(s, 'ex-multi', {
        slug: 'welcome',
        icon: 'rocket',
        translations: {
          en: { title: 'Welcome', summary: 'Start here', bodyMd: 'Hello.\n' },
          ja: { title: 'ようこそ', bodyMd: 'アカウントの設定を変更します。\n' },
          'pt-BR': { title: 'Bem-vindo', summary: 'Comece aqui: agora', bodyMd: 'Olá!\n' },
        },
      });
      await createNode(s, 'ex-multi', { slug: 'grp', kind: 'section', translations: { en: { title: 'Group' }, de: { title: 'Gruppe' } } });
      await createNode(s, 'ex-multi', { slug: 'inner', parentSlug: 'grp', translations: { en: { title: '- dash: title', bodyMd: 'Inner.\n' } } });
      const source = await exportOf(s, 'ex-multi');
      const files = await exportFiles('ex-multi');
      assert.deepEqual(files.map((f) => f.path), ['version.json', 'en/welcome.md', 'ja/welcome.md', 'pt-BR/welcome.md', 'en/grp.md', 'de/grp.md', 'en/inner.md']);
      const res = await s.request('POST', '/versions/ex-multi-files/import-files', { body: { files } });
      assert.equal(res.status, 200, res.text.slice(0, 1000));
      const copy = await exportOf(s, 'ex-multi-files');
      assert.deepEqual(copy.nodes.map(comparable), source.nodes.map(comparable));
      assert.deepEqual(copy.version.languages, ['en', 'de', 'ja', 'pt-BR']);
      // and the copy's files equal git's
      const copyFiles = await exportFiles('ex-multi-files');
      const inGit = gitFiles('ex-multi-files');
      assert.deepEqual(copyFiles.map((f) => f.path).sort(), [...inGit.keys()].sort());
      for (const f of copyFiles) assert.ok(Buffer.from(f.content, 'utf8').equals(inGit.get(f.path)!), `content of ${f.path} equals git's`);
    });

    test('re-importing the exported files into the same version changes nothing', async () => {
      const before = await exportOf(s, 'ex-files');
      const files = await exportFiles('ex-files');
      const res = await s.request('POST', '/versions/ex-files/import-files', { body: { files } });
      assert.equal(res.status, 200, res.text.slice(0, 1000));
      assert.equal(res.body.summary.unchanged, EX_ORDER.length);
      assert.equal(res.body.summary.created + res.body.summary.updated + res.body.summary.deleted, 0);
      const after = await exportOf(s, 'ex-files');
      assert.deepEqual(after.nodes, before.nodes);
    });
  });
});

describe('An export streamed uncompressed', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s.close();
  });

  test('is the compressed export\'s text character for character, long bodies (sent in slices) included', async () => {
    await createVersion(s, 'long', { languages: ['en', 'ja'] });
    // An emoji (a surrogate pair) across the 8,192nd character, where a body is cut into slices; quotes,
    // backslashes and control characters that JSON escapes on both sides of it.
    const english = `${'a "quoted" path\\to\\file\tand more\n'.repeat(300).slice(0, 8191)}😀${'after the cut \u0001 "x"\n'.repeat(1500)}`;
    assert.equal(english.codePointAt(8191), 0x1f600, 'the pair spans the cut');
    const japanese = '検索の設定を変更します。'.repeat(4000);
    await createNode(s, 'long', { slug: 'big', translations: { en: { title: 'Big "one"', bodyMd: english }, ja: { title: '大きい', bodyMd: japanese } } });
    await createNode(s, 'long', { slug: 'small', translations: { en: { title: 'Small', bodyMd: 'short' } } });
    const url = `${s.url}/versions/long/export`;
    const auth = { authorization: `Bearer ${s.key}` };
    const plain = await fetch(url, { headers: { ...auth, 'accept-encoding': 'identity' } });
    assert.equal(plain.headers.get('content-encoding'), null);
    const compressed = await fetch(url, { headers: { ...auth, 'accept-encoding': 'gzip' } });
    assert.equal(compressed.headers.get('content-encoding'), 'gzip');
    const text = await plain.text();
    assert.equal(text, await compressed.text());
    const document = JSON.parse(text) as { nodes: Array<{ slug: string; translations: Record<string, { bodyMd: string }> }> };
    const big = document.nodes.find((n) => n.slug === 'big')!;
    assert.equal(big.translations.en.bodyMd, english);
    assert.equal(big.translations.ja.bodyMd, japanese);
  });
});
