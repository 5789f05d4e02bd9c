import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from './helpers/assertions.ts';
import { md, versionJson as versionJsonText, type Problem } from './helpers/content.ts';
import type { ContentFile } from './helpers/generate.ts';
import { changedFiles } from './helpers/git.ts';
import { createNode, createVersion, listNodes, startTestServer, waitForKey, type ListedNode, type TestResponse, type TestServer } from './helpers/server.ts';

const versionJson = (doc: Record<string, unknown>): ContentFile => ({ path: 'version.json', content: versionJsonText(doc) });

/** A small hand-written set: no ids, no stamps. */
function handSet(extra: Record<string, unknown> = {}): ContentFile[] {
  return [
    versionJson({ label: 'Handbook', languages: ['en', 'de'], ...extra, nav: [{ slug: 'basics', icon: 'rocket', children: ['first-steps', 'install'] }, 'faq'] }),
    { path: 'en/basics.md', content: md('Basics', '') },
    { path: 'de/basics.md', content: md('Grundlagen', '') },
    { path: 'en/first-steps.md', content: md('First steps', '## Sign in\n\nOpen the app.\n', "summary: 'Start here: five minutes.'\n") },
    { path: 'de/first-steps.md', content: md('Erste Schritte', 'Öffnen Sie die App.\n') },
    { path: 'en/install.md', content: md('Install', 'Download the installer.\n') },
    { path: 'en/faq.md', content: md('FAQ', 'Questions and answers.\n') },
  ];
}

describe('POST /versions/{version}/import-files', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'old', { status: 'published', isLatest: true });
  });
  after(() => s.close());

  const importFiles = (version: string, body: unknown, opts: { query?: string; key?: string | null } = {}) =>
    s.request('POST', `/versions/${version}/import-files${opts.query ?? ''}`, { body, key: opts.key });

  describe('a hand-written set into a new version', () => {
    let res: TestResponse;
    let commits: number;
    before(async () => {
      commits = s.commitCount();
      res = await importFiles('hand', { files: handSet({ isLatest: true }) });
    });

    test('answers 200 with the summary and the version created, published and latest', () => {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.dryRun, false);
      assert.deepEqual(res.body.version, { slug: 'hand', exists: false, status: 'published', isLatest: true });
      assert.deepEqual(res.body.summary.created, 4);
      assert.deepEqual(res.body.summary.updated, 0);
      assert.deepEqual(res.body.summary.deleted, 0);
      assert.deepEqual(res.body.summary.unchanged, 0);
      assert.deepEqual([...res.body.summary.slugs.created].sort(), ['basics', 'faq', 'first-steps', 'install']);
      assert.deepEqual(res.body.summary.slugs.updated, []);
      assert.deepEqual(res.body.summary.slugs.deleted, []);
      // Taking the flag from another version is said, at the line that asks for it.
      const sent = handSet({ isLatest: true })[0].content;
      assert.deepEqual(res.body.warnings, [
        {
          path: 'version.json',
          line: sent.slice(0, sent.indexOf('"isLatest"')).split('\n').length,
          message: '"isLatest": true makes hand the latest version in place of old (pdf-bundle and the portal\'s latest follow it); set it to false to keep old latest',
        },
      ]);
      assert.equal(res.body.workingCopyDeleted, false);
      assert.equal(res.body.requestsImported, 0);
    });

    test('is one commit that writes the version and takes isLatest from the previous latest', () => {
      assert.equal(s.commitCount(), commits + 1);
      assert.match(s.git('log', '-1', '--format=%an|%s'), /^writer\|Import content files into hand: 4 created, 0 updated, 0 deleted; latest moves from old\n$/);
      assert.deepEqual(changedFiles(s), [
        'hand/de/basics.md',
        'hand/de/first-steps.md',
        'hand/en/basics.md',
        'hand/en/faq.md',
        'hand/en/first-steps.md',
        'hand/en/install.md',
        'hand/version.json',
        'old/version.json',
      ]);
    });

    test('the version is listed for anonymous readers, and only it is latest', async () => {
      const list = (await s.request('GET', '/versions', { key: null })).body as Array<{ slug: string; isLatest: boolean; status: string; label: string; languages: string[] }>;
      const hand = list.find((v) => v.slug === 'hand');
      assert.ok(hand, 'hand is listed');
      assert.equal(hand.status, 'published');
      assert.equal(hand.label, 'Handbook');
      assert.deepEqual(hand.languages, ['en', 'de']);
      assert.deepEqual(list.filter((v) => v.isLatest).map((v) => v.slug), ['hand']);
      assert.equal(list.find((v) => v.slug === 'old')!.isLatest, false);
    });

    test('nodes get ids, kinds, icons and places from version.json', async () => {
      const nodes = (await s.request('GET', '/versions/hand/nodes', { key: null })).body.nodes as ListedNode[];
      assert.deepEqual(nodes.map((n) => [n.slug, n.kind, n.parentSlug, n.sortOrder, n.icon]), [
        ['basics', 'section', null, 0, 'rocket'],
        ['first-steps', 'topic', 'basics', 0, null],
        ['install', 'topic', 'basics', 1, null],
        ['faq', 'topic', null, 1, null],
      ]);
      const ids = nodes.map((n) => n.id);
      assert.ok(ids.every((id) => typeof id === 'string' && id.length > 0));
      assert.equal(new Set(ids).size, ids.length, 'ids are unique');
      assert.deepEqual(Object.keys(nodes[1].translations).sort(), ['de', 'en']);
      assert.deepEqual(Object.keys(nodes[2].translations), ['en']);
    });

    test('bodies, titles and summaries are served exactly as written', async () => {
      const topic = await s.request('GET', '/versions/hand/topics/first-steps', { key: null });
      assert.equal(topic.status, 200, topic.text);
      assert.equal(topic.body.title, 'First steps');
      assert.equal(topic.body.summary, 'Start here: five minutes.');
      assert.equal(topic.body.bodyMd, '## Sign in\n\nOpen the app.\n');
      const de = await s.request('GET', '/versions/hand/topics/first-steps/translations/de', { key: null });
      assert.equal(de.body.bodyMd, 'Öffnen Sie die App.\n');
    });

    test('the stored version.json records ids; the stamps are in .stamps/, not in the files', async () => {
      const stored = JSON.parse(s.git('show', 'HEAD:hand/version.json'));
      assert.equal(stored.status, 'published');
      assert.equal(stored.isLatest, true);
      const basics = stored.nav[0];
      assert.equal(typeof basics.id, 'string');
      assert.equal(basics.updatedAt, undefined);
      assert.equal(stored.updatedAt, undefined);
      assert.equal(typeof basics.children[0].id, 'string');
      assert.equal(s.git('show', 'HEAD:hand/en/install.md'), '---\ntitle: Install\n---\nDownload the installer.\n');
      const nodes = (await s.request('GET', '/versions/hand/nodes')).body.nodes as ListedNode[];
      const stamps = JSON.parse(s.git('show', 'HEAD:hand/.stamps/nodes.json'));
      assert.match(stamps.nodes.basics, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(JSON.parse(s.git('show', 'HEAD:hand/.stamps/en.json')).install, nodes.find((n) => n.slug === 'install')!.translations.en.updatedAt);
    });
  });

  test('a version.json without isLatest leaves the latest version as it is', async () => {
    const before = (await s.request('GET', '/versions')).body.filter((v: { isLatest: boolean }) => v.isLatest).map((v: { slug: string }) => v.slug);
    const res = await importFiles('not-latest', { files: handSet() });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.version.isLatest, false);
    const now = (await s.request('GET', '/versions')).body.filter((v: { isLatest: boolean }) => v.isLatest).map((v: { slug: string }) => v.slug);
    assert.deepEqual(now, before);
    assert.deepEqual(changedFiles(s).filter((p) => !p.startsWith('not-latest/')), [], 'no other version touched');
  });

  describe('repository-relative paths', () => {
    let res: TestResponse;
    before(async () => {
      const files = handSet().map((f) => ({ ...f, path: `docs/v2/${f.path}` }));
      files.push(
        { path: 'README.md', content: '# Our docs\n' },
        { path: 'docs/v1/en/legacy.md', content: md('Legacy') },
        { path: 'docs/v2/notes.txt', content: 'not content' },
      );
      res = await importFiles('rel', { files });
    });

    test('the folder holding version.json is the version folder', async () => {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.summary.created, 4);
      const topic = await s.request('GET', '/versions/rel/topics/install');
      assert.equal(topic.body.bodyMd, 'Download the installer.\n');
      const tree = s.git('ls-tree', '-r', '--name-only', 'HEAD', 'rel').trim().split('\n').sort();
      assert.deepEqual(tree, ['rel/.stamps/de.json', 'rel/.stamps/en.json', 'rel/.stamps/nodes.json', 'rel/de/basics.md', 'rel/de/first-steps.md', 'rel/en/basics.md', 'rel/en/faq.md', 'rel/en/first-steps.md', 'rel/en/install.md', 'rel/version.json']);
      const root = s.git('ls-tree', '--name-only', 'HEAD').trim().split('\n');
      assert.ok(!root.includes('docs') && !root.includes('README.md'), `nothing outside the version folder: ${root.join(', ')}`);
    });

    test('files outside the folder and non-content files are warnings with the paths as sent', () => {
      const paths = (res.body.warnings as Problem[]).map((w) => w.path);
      for (const p of ['README.md', 'docs/v1/en/legacy.md', 'docs/v2/notes.txt']) assert.ok(paths.includes(p), `warning for ${p} in ${JSON.stringify(res.body.warnings)}`);
      for (const w of res.body.warnings as Problem[]) assert.equal(typeof w.message, 'string');
    });
  });

  describe('refused file sets (400 invalid_content, nothing written)', () => {
    /** Sends the set and checks the refusal: 400, invalid_content, no commit, the version not created. */
    async function refused(version: string, files: ContentFile[]): Promise<{ errors: Problem[]; warnings: Problem[] }> {
      const commits = s.commitCount();
      const tree = s.git('ls-tree', '-r', '--name-only', 'HEAD');
      const res = await importFiles(version, { files });
      assertError(res, 400, 'invalid_content');
      assert.ok(Array.isArray(res.body.error.errors) && res.body.error.errors.length > 0, res.text);
      assert.ok(Array.isArray(res.body.error.warnings), res.text);
      for (const e of res.body.error.errors as Problem[]) {
        assert.equal(typeof e.path, 'string');
        assert.equal(typeof e.message, 'string');
        if (e.line !== undefined) assert.ok(Number.isInteger(e.line) && e.line >= 1, `line ${e.line}`);
      }
      assert.equal(s.commitCount(), commits, 'no commit');
      assert.equal(s.git('ls-tree', '-r', '--name-only', 'HEAD'), tree, 'the repository is unchanged');
      assert.equal((await s.request('GET', `/versions/${version}/nodes`)).status, 404, 'the version was not created');
      return { errors: res.body.error.errors, warnings: res.body.error.warnings };
    }

    test('two version.json files', async () => {
      const files = [...handSet().map((f) => ({ ...f, path: `a/${f.path}` })), { ...versionJson({ languages: ['en'], nav: [] }), path: 'b/version.json' }];
      const { errors } = await refused('two', files);
      const paths = errors.map((e) => e.path);
      assert.ok(paths.includes('a/version.json') && paths.includes('b/version.json'), JSON.stringify(errors));
    });

    test('no version.json at all', async () => {
      const { errors } = await refused('none', handSet().filter((f) => f.path !== 'version.json'));
      assert.ok(errors.some((e) => /version\.json/.test(e.path + e.message)), JSON.stringify(errors));
    });

    for (const bad of ['en/../../outside.md', '../outside/en/faq.md', 'en/./faq.md', 'en\\..\\..\\outside.md', '/en/outside.md', '//srv/en/outside.md', '/etc/passwd']) {
      test(`a path with "." or ".." segments, or an absolute one (${bad}), is refused and nothing is written outside`, async () => {
        const files = [...handSet(), { path: bad, content: md('Escape') }];
        const { errors } = await refused('escape', files);
        assert.ok(errors.some((e) => e.path === bad), `error for ${bad} as sent: ${JSON.stringify(errors)}`);
        const root = s.git('ls-tree', '--name-only', 'HEAD').trim().split('\n');
        assert.ok(!root.includes('outside') && !root.includes('outside.md'));
      });
    }

    test('an id given to two nodes is reported on version.json at the line of the repeat, escapes and all', async () => {
      for (const id of ['same-id', 'odd "id"\twith escapes']) {
        const files = handSet();
        files[0] = versionJson({ languages: ['en', 'de'], nav: [{ slug: 'basics', id, children: ['first-steps', 'install'] }, { slug: 'faq', id }] });
        const { errors } = await refused('ids', files);
        const repeat = errors.find((e) => e.path === 'version.json' && /repeats id/.test(e.message));
        assert.ok(repeat, JSON.stringify(errors));
        const lines = files[0].content.split('\n');
        assert.equal(typeof repeat.line, 'number', JSON.stringify(repeat));
        assert.match(lines[repeat.line! - 1], /"id"/, `line ${repeat.line}: ${lines[repeat.line! - 1]}`);
        // The second appearance, under faq: not the first node's.
        assert.ok(lines.slice(0, repeat.line! - 1).some((l) => l.includes(JSON.stringify(id))), 'the first appearance comes before');
      }
    });

    test('a duplicate slug in nav is reported on version.json with its line', async () => {
      const files = handSet();
      files[0] = versionJson({ languages: ['en', 'de'], nav: [{ slug: 'basics', children: ['first-steps', 'install'] }, 'faq', 'install'] });
      const { errors } = await refused('dup', files);
      const dup = errors.find((e) => e.path === 'version.json' && /install/.test(e.message));
      assert.ok(dup, JSON.stringify(errors));
      assert.match(dup.message, /duplicate/i);
      assert.equal(typeof dup.line, 'number');
    });

    test('an invalid node slug in nav is reported on version.json', async () => {
      const files = handSet();
      files[0] = versionJson({ languages: ['en', 'de'], nav: [{ slug: 'basics', children: ['first-steps', 'install'] }, 'faq', 'Not A Slug'] });
      const { errors } = await refused('badslug', files);
      assert.ok(errors.some((e) => e.path === 'version.json' && e.message.includes('Not A Slug')), JSON.stringify(errors));
    });

    /** Problems in the Markdown files, under a folder, so paths as sent differ from paths in the version. */
    function brokenFiles(prefix: string, nav: unknown[]): ContentFile[] {
      return [
        { path: `${prefix}version.json`, content: `${JSON.stringify({ languages: ['en', 'de'], nav }, null, 2)}\n` },
        { path: `${prefix}en/intro.md`, content: md('Intro') },
        { path: `${prefix}en/broken.md`, content: '---\ntitle: Broken\nsummary: a: b\n---\nBody.\n' },
        { path: `${prefix}en/untitled.md`, content: '---\nsummary: No title here\n---\nBody.\n' },
        { path: `${prefix}fr/intro.md`, content: md('Introduction') },
        { path: `${prefix}en/orphan.md`, content: md('Orphan') },
        { path: `${prefix}en/chatty.md`, content: md('Chatty', 'Body.\n', 'author: someone\n') },
      ];
    }

    function assertMarkdownProblems(prefix: string, errors: Problem[], warnings: Problem[]) {
      const at = (path: string) => errors.filter((e) => e.path === `${prefix}${path}`);
      const broken = at('en/broken.md');
      assert.equal(broken.length, 1, `broken YAML: ${JSON.stringify(errors)}`);
      assert.equal(broken[0].line, 3, 'the line of the broken YAML, counted in the file');
      assert.match(broken[0].message, /YAML/i);
      assert.ok(at('en/untitled.md').some((e) => /title/.test(e.message)), `missing title: ${JSON.stringify(errors)}`);
      assert.ok(at('fr/intro.md').some((e) => /fr/.test(e.message)), `language folder not enabled: ${JSON.stringify(errors)}`);
      assert.ok(at('en/orphan.md').some((e) => /orphan/.test(e.message)), `.md without nav entry: ${JSON.stringify(errors)}`);
      assert.ok(at('version.json').some((e) => /no-file/.test(e.message)), `nav entry without a primary .md: ${JSON.stringify(errors)}`);
      assert.ok(warnings.some((w) => w.path === `${prefix}en/chatty.md` && /author/.test(w.message)), `the warnings come along: ${JSON.stringify(warnings)}`);
      for (const e of errors) assert.ok(e.path.startsWith(prefix), `paths as sent: ${e.path}`);
    }

    test('every problem of the Markdown files is reported at once, with the paths as sent', async () => {
      const prefix = 'site/docs/v3/';
      const { errors, warnings } = await refused('v3', brokenFiles(prefix, ['intro', 'broken', 'untitled', 'no-file', 'chatty']));
      assertMarkdownProblems(prefix, errors, warnings);
      assert.equal(errors.length, 5, JSON.stringify(errors));
    });

    test('every problem is reported at once, a duplicate nav slug together with the Markdown problems', async () => {
      const prefix = 'site/docs/v4/';
      const { errors, warnings } = await refused('v4', brokenFiles(prefix, ['intro', 'broken', 'untitled', 'no-file', 'chatty', 'intro']));
      assert.ok(errors.some((e) => e.path === `${prefix}version.json` && /duplicate/i.test(e.message) && /intro/.test(e.message)), `duplicate slug: ${JSON.stringify(errors)}`);
      assertMarkdownProblems(prefix, errors, warnings);
    });
  });

  test('warnings (unknown frontmatter key, empty topic body) do not block the import', async () => {
    const files: ContentFile[] = [
      versionJson({ languages: ['en'], nav: ['chatty', 'empty'] }),
      { path: 'en/chatty.md', content: md('Chatty', 'Body.\n', 'author: someone\ntags: [a, b]\n') },
      { path: 'en/empty.md', content: md('Empty', '') },
    ];
    const res = await importFiles('warned', { files });
    assert.equal(res.status, 200, res.text);
    const warnings = res.body.warnings as Problem[];
    assert.ok(warnings.some((w) => w.path === 'en/chatty.md' && /author/.test(w.message) && w.line === 3), JSON.stringify(warnings));
    assert.ok(warnings.some((w) => w.path === 'en/chatty.md' && /tags/.test(w.message)), JSON.stringify(warnings));
    assert.ok(warnings.some((w) => w.path === 'en/empty.md' && /empty/i.test(w.message)), JSON.stringify(warnings));
    const topic = await s.request('GET', '/versions/warned/topics/empty');
    assert.equal(topic.status, 200);
    assert.equal(topic.body.bodyMd, '');
    assert.doesNotMatch(s.git('show', 'HEAD:warned/en/chatty.md'), /author/, 'unknown keys are not stored');
  });

  describe('a "status" in version.json that the import overrides (an import publishes)', () => {
    const inRepo = (files: ContentFile[]) => files.map((f) => ({ path: `docs/x/${f.path}`, content: f.content }));
    const statusLine = (files: ContentFile[]) => files[0].content.split('\n').findIndex((l) => l.includes('"status"')) + 1;
    const overridden = (res: TestResponse, warnings: Problem[] = res.body.warnings) => warnings.filter((w) => w.path === 'docs/x/version.json' && /"status"/.test(w.message));

    for (const status of ['draft', 'archived']) {
      test(`"${status}": a warning on the line of "status", in a dry run and in the real run, which publishes`, async () => {
        const files = handSet({ status });
        const dry = await importFiles(`st-${status}`, { files: inRepo(files) }, { query: '?dryRun=true' });
        assert.equal(dry.status, 200, dry.text);
        const expected = [{ path: 'docs/x/version.json', line: statusLine(files), message: `"status" is "${status}", but importing these files publishes the version (its status becomes "published"); write "status": "published" to say so` }];
        assert.deepEqual(overridden(dry), expected);
        assert.equal(dry.body.version.status, 'published');
        const real = await importFiles(`st-${status}`, { files: inRepo(files) });
        assert.equal(real.status, 200, real.text);
        assert.deepEqual(overridden(real), expected);
        assert.equal(real.body.version.status, 'published');
        assert.equal((await s.request('GET', `/versions/st-${status}/tree`, { key: null })).status, 200, 'published: readable without a key');
      });
    }

    test('a refused set lists the warning with its errors', async () => {
      const files = [...handSet({ status: 'draft' }), { path: 'en/stray.md', content: md('Stray') }];
      const res = await importFiles('st-refused', { files: inRepo(files) }, { query: '?dryRun=true' });
      assert.equal(res.status, 400, res.text);
      assert.equal(overridden(res, res.body.error.warnings).length, 1, res.text);
    });

    test('no such warning when version.json says "published" or gives no status', async () => {
      for (const extra of [{ status: 'published' }, {}]) {
        const res = await importFiles('st-none', { files: inRepo(handSet(extra)) }, { query: '?dryRun=true' });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.warnings, []);
      }
    });
  });

  describe('dry run', () => {
    for (const [how, query, body] of [
      ['the query', '?dryRun=true', {}],
      ['the body', '', { dryRun: true }],
    ] as const) {
      test(`via ${how}: answers the summary and writes nothing`, async () => {
        const commits = s.commitCount();
        const version = `dry-${how === 'the query' ? 'q' : 'b'}`;
        const res = await importFiles(version, { files: handSet({ isLatest: true }), ...body }, { query });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.dryRun, true);
        assert.equal(res.body.summary.created, 4);
        assert.deepEqual([...res.body.summary.slugs.created].sort(), ['basics', 'faq', 'first-steps', 'install']);
        assert.deepEqual(res.body.version, { slug: version, exists: false, status: 'published', isLatest: true });
        assert.equal(s.commitCount(), commits, 'no commit');
        assert.equal((await s.request('GET', `/versions/${version}/nodes`)).status, 404, 'the version was not created');
        const latest = (await s.request('GET', '/versions')).body.filter((v: { isLatest: boolean }) => v.isLatest);
        assert.ok(!latest.some((v: { slug: string }) => v.slug === version), 'isLatest not moved');
      });
    }

    test('on an existing version: the summary of the changes, the content unchanged', async () => {
      const files = handSet();
      const first = await importFiles('dry-existing', { files });
      assert.equal(first.status, 200, first.text);
      const before = (await s.request('GET', '/versions/dry-existing/export')).body;
      const commits = s.commitCount();
      const changed = files.filter((f) => f.path !== 'en/faq.md').map((f) => (f.path === 'en/install.md' ? { ...f, content: md('Install', 'Changed.\n') } : f));
      changed[0] = versionJson({ label: 'Handbook', languages: ['en', 'de'], nav: [{ slug: 'basics', icon: 'rocket', children: ['first-steps', 'install'] }] });
      const res = await importFiles('dry-existing', { files: changed }, { query: '?dryRun=true' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.version.exists, true);
      assert.deepEqual(res.body.summary.slugs, { created: [], updated: ['install'], deleted: ['faq'] });
      assert.equal(s.commitCount(), commits);
      assert.deepEqual((await s.request('GET', '/versions/dry-existing/export')).body, before);
    });

    test('an invalid set is refused in a dry run too', async () => {
      const res = await importFiles('dry-bad', { files: [versionJson({ languages: ['en'], nav: ['x'] })] }, { query: '?dryRun=true' });
      assertError(res, 400, 'invalid_content');
    });
  });

  describe('limits', () => {
    test('2,001 files: 413 limit_exceeded naming the files limit', async () => {
      const commits = s.commitCount();
      const nav = Array.from({ length: 2000 }, (_, i) => `t${i}`);
      const files = [versionJson({ languages: ['en'], nav }), ...nav.map((slug) => ({ path: `en/${slug}.md`, content: md(slug) }))];
      assert.equal(files.length, 2001);
      const res = await importFiles('many', { files });
      assertError(res, 413, 'limit_exceeded', { limit: 'files', max: 2000 });
      assert.equal(s.commitCount(), commits);
      assert.equal((await s.request('GET', '/versions/many/nodes')).status, 404);
    });

    test('2,000 files are accepted', async () => {
      const nav = Array.from({ length: 1999 }, (_, i) => `t${i}`);
      const files = [versionJson({ languages: ['en'], nav }), ...nav.map((slug) => ({ path: `en/${slug}.md`, content: md(slug) }))];
      const res = await importFiles('many-ok', { files, dryRun: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.summary.created, 1999);
    });

    test('more than 10 MB of content (11 files of 1 MB): 413 limit_exceeded naming the bytes limit', async () => {
      const commits = s.commitCount();
      const nav = Array.from({ length: 11 }, (_, i) => `big${i}`);
      const mb = 'a'.repeat(1024 * 1024);
      const files = [versionJson({ languages: ['en'], nav }), ...nav.map((slug) => ({ path: `en/${slug}.md`, content: md(slug, mb) }))];
      const res = await importFiles('heavy', { files });
      assertError(res, 413, 'limit_exceeded', { limit: 'bytes', max: 10485760 });
      assert.equal(s.commitCount(), commits);
    });

    test('content is counted in UTF-8 bytes (3.6 million Japanese characters are 10.8 MB)', async () => {
      const nav = ['ja1', 'ja2', 'ja3', 'ja4'];
      const chunk = 'あ'.repeat(900_000);
      const files = [versionJson({ languages: ['en'], nav }), ...nav.map((slug) => ({ path: `en/${slug}.md`, content: md(slug, chunk) }))];
      const res = await importFiles('heavy-ja', { files });
      assertError(res, 413, 'limit_exceeded', { limit: 'bytes', max: 10485760 });
    });

    test('a raw body over 30 MB: 413 payload_too_large', async () => {
      const commits = s.commitCount();
      const raw = JSON.stringify({ files: [{ path: 'version.json', content: 'x'.repeat(31 * 1024 * 1024) }] });
      const res = await s.request('POST', '/versions/huge/import-files', { raw, headers: { 'content-type': 'application/json' } });
      assertError(res, 413, 'payload_too_large');
      assert.equal(typeof res.body.error.limit, 'number');
      assert.ok(res.body.error.limit >= 30 * 1024 * 1024, `limit ${res.body.error.limit}`);
      assert.equal(s.commitCount(), commits);
    });
  });

  describe('re-importing', () => {
    let exported: ContentFile[];
    before(async () => {
      const res = await importFiles('again', { files: handSet() });
      assert.equal(res.status, 200, res.text);
      exported = (await s.request('GET', '/versions/again/export?format=files')).body.files;
    });

    test('the same hand-written files: everything unchanged, ids and stamps kept, no commit', async () => {
      const before = await listNodes(s, 'again');
      const commits = s.commitCount();
      const res = await importFiles('again', { files: handSet() });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.version.exists, true);
      assert.deepEqual(res.body.summary, { created: 0, updated: 0, deleted: 0, unchanged: 4, slugs: { created: [], updated: [], deleted: [] }, renamed: [] });
      assert.deepEqual(await listNodes(s, 'again'), before);
      assert.equal(s.commitCount(), commits, 'nothing to change, so nothing is committed');
    });

    test('the exported files: everything unchanged, ids and stamps kept', async () => {
      const before = await listNodes(s, 'again');
      const res = await importFiles('again', { files: exported });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.summary, { created: 0, updated: 0, deleted: 0, unchanged: 4, slugs: { created: [], updated: [], deleted: [] }, renamed: [] });
      assert.deepEqual(await listNodes(s, 'again'), before);
    });

    test('the exported files again: no file changes in git, so no commit', async () => {
      const commits = s.commitCount();
      const res = await importFiles('again', { files: exported });
      assert.equal(res.status, 200, res.text);
      assert.equal(s.commitCount(), commits, 'the files the service exported are what it stores');
      assert.equal(s.git('show', 'HEAD:again/version.json'), exported.find((f) => f.path === 'version.json')!.content);
    });

    test('one changed file: only that node is updated and only that file changes in git', async () => {
      const before = await listNodes(s, 'again');
      const commits = s.commitCount();
      const files = exported.map((f) => (f.path === 'de/first-steps.md' ? { ...f, content: f.content.replace('Öffnen Sie die App.', 'Öffnen Sie zuerst die App.') } : f));
      assert.notDeepEqual(files, exported);
      const res = await importFiles('again', { files });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.summary, { created: 0, updated: 1, deleted: 0, unchanged: 3, slugs: { created: [], updated: ['first-steps'], deleted: [] }, renamed: [] });
      assert.equal(s.commitCount(), commits + 1);
      const after = await listNodes(s, 'again');
      for (const node of after) {
        const old = before.find((n) => n.slug === node.slug)!;
        assert.equal(node.id, old.id, `${node.slug} keeps its id`);
        if (node.slug !== 'first-steps') assert.deepEqual(node, old, `${node.slug} unchanged`);
      }
      const changed = after.find((n) => n.slug === 'first-steps')!;
      const old = before.find((n) => n.slug === 'first-steps')!;
      assert.ok(changed.translations.de.updatedAt > old.translations.de.updatedAt, 'the changed translation is restamped');
      assert.equal(changed.translations.en.updatedAt, old.translations.en.updatedAt, 'the other language keeps its stamp');
      assert.deepEqual(changedFiles(s, { stamps: true }), ['again/.stamps/de.json', 'again/de/first-steps.md']);
    });

    test('files with stamps (exported before the stamps moved to .stamps/) still import, and their stamps are read as before', async () => {
      const before = await listNodes(s, 'again');
      const files = (await s.request('GET', '/versions/again/export?format=files')).body.files as ContentFile[];
      // Stamped as the service wrote its files until then: in version.json, each nav entry and each front matter.
      const stamped = files.map((f) => {
        if (f.path === 'version.json') {
          const doc = JSON.parse(f.content);
          const stampNav = (entries: Array<Record<string, unknown>>) => entries.forEach((e) => {
            e.updatedAt = before.find((n) => n.slug === e.slug)!.updatedAt;
            stampNav((e.children ?? []) as Array<Record<string, unknown>>);
          });
          stampNav(doc.nav);
          return { ...f, content: JSON.stringify({ ...doc, createdAt: '2020-01-01T00:00:00.000Z', updatedAt: '2020-01-02T00:00:00.000Z' }, null, 2) };
        }
        const [language, name] = f.path.split('/');
        const t = before.find((n) => `${n.slug}.md` === name)!.translations[language];
        return { ...f, content: f.content.replace(/\n---\n/, `\nupdatedAt: '${t.updatedAt}'\n---\n`) };
      });
      assert.ok(stamped.every((f) => /updatedAt/.test(f.content)));
      const commits = s.commitCount();
      const same = await importFiles('again', { files: stamped });
      assert.equal(same.status, 200, same.text);
      assert.deepEqual(same.body.warnings, []);
      assert.equal(same.body.summary.unchanged, 4);
      assert.equal(s.commitCount(), commits, 'the same content: nothing to write');
      // A changed file whose stamp is later than the service's (and not in the future) keeps it, as before.
      const old = before.find((n) => n.slug === 'install')!.translations.en.updatedAt;
      const later = new Date(Date.parse(old) + 1).toISOString();
      const edited = stamped.map((f) => (f.path === 'en/install.md' ? { ...f, content: `---\ntitle: Install\nupdatedAt: '${later}'\n---\nDownload it.\n` } : f));
      const res = await importFiles('again', { files: edited });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.summary.slugs.updated, ['install']);
      assert.equal((await listNodes(s, 'again')).find((n) => n.slug === 'install')!.translations.en.updatedAt, later);
      assert.equal(s.git('show', 'HEAD:again/en/install.md'), '---\ntitle: Install\n---\nDownload it.\n', 'stored without the stamp');
      assert.equal(JSON.parse(s.git('show', 'HEAD:again/.stamps/en.json')).install, later);
    });
  });

  test('a .stamps/ file sent with the files (a clone of the service\'s repository) is read as stamps in the files are', async () => {
    const res = await importFiles('cloned', { files: [...handSet(), { path: '.stamps/en.json', content: '{ "install": "2025-03-04T05:06:07.089Z", "gone": "2025-03-04T05:06:07.089Z" }\n' }] });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.warnings, []);
    const nodes = await listNodes(s, 'cloned');
    assert.equal(nodes.find((n) => n.slug === 'install')!.translations.en.updatedAt, '2025-03-04T05:06:07.089Z');
    assert.notEqual(nodes.find((n) => n.slug === 'faq')!.translations.en.updatedAt, '2025-03-04T05:06:07.089Z');
    const broken = await importFiles('cloned-broken', { files: [...handSet(), { path: '.stamps/en.json', content: '{ "install": ' }] });
    assert.equal(broken.status, 200, broken.text);
    assert.deepEqual(broken.body.warnings, [{ path: '.stamps/en.json', message: "the service's stamps file is not JSON; its stamps are ignored" }]);
  });

  test("the summary's slugs list what was created, updated and deleted; deleted nodes' files leave git", async () => {
    await importFiles('sum', { files: handSet() });
    const files = handSet()
      .filter((f) => f.path !== 'en/faq.md')
      .map((f) => (f.path === 'en/install.md' ? { ...f, content: md('Install the app') } : f));
    files[0] = versionJson({ label: 'Handbook', languages: ['en', 'de'], nav: [{ slug: 'basics', icon: 'rocket', children: ['first-steps', 'install'] }, 'news'] });
    files.push({ path: 'en/news.md', content: md('News') });
    const res = await importFiles('sum', { files });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.summary, { created: 1, updated: 1, deleted: 1, unchanged: 2, slugs: { created: ['news'], updated: ['install'], deleted: ['faq'] }, renamed: [] });
    assert.equal((await s.request('GET', '/versions/sum/topics/faq')).status, 404);
    const status = s.git('show', '--name-status', '--format=', 'HEAD').trim().split('\n');
    assert.ok(status.includes('D\tsum/en/faq.md'), status.join(', '));
    assert.ok(status.includes('A\tsum/en/news.md'), status.join(', '));
    assert.ok(status.includes('M\tsum/en/install.md'), status.join(', '));
  });

  describe('node ids', () => {
    test('nodes without an id in version.json keep the id of the same slug in the version', async () => {
      await createVersion(s, 'api-made');
      await createNode(s, 'api-made', { slug: 'basics', kind: 'section' });
      await createNode(s, 'api-made', { slug: 'faq' });
      const before = await listNodes(s, 'api-made');
      const res = await importFiles('api-made', {
        files: [versionJson({ languages: ['en', 'de'], nav: [{ slug: 'basics', children: [] }, 'faq', 'extra'] }), { path: 'en/basics.md', content: md('Basics') }, { path: 'en/faq.md', content: md('FAQ') }, { path: 'en/extra.md', content: md('Extra') }],
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.version.exists, true);
      assert.equal(res.body.version.status, 'published', 'the draft is published by the import');
      const listed = (await s.request('GET', '/versions', { key: null })).body as Array<{ slug: string; status: string }>;
      assert.equal(listed.find((v) => v.slug === 'api-made')?.status, 'published');
      const after = await listNodes(s, 'api-made');
      for (const slug of ['basics', 'faq']) assert.equal(after.find((n) => n.slug === slug)!.id, before.find((n) => n.slug === slug)!.id, slug);
      const extra = after.find((n) => n.slug === 'extra')!;
      assert.ok(typeof extra.id === 'string' && !before.some((n) => n.id === extra.id));
    });

    test('ids in version.json are kept (exported files into another version)', async () => {
      const files = (await s.request('GET', '/versions/hand/export?format=files')).body.files as ContentFile[];
      const res = await importFiles('hand-copy', { files });
      assert.equal(res.status, 200, res.text);
      const source = await listNodes(s, 'hand');
      const copy = await listNodes(s, 'hand-copy');
      assert.deepEqual(copy.map((n) => [n.slug, n.id]), source.map((n) => [n.slug, n.id]));
    });
  });

  describe('sort keys in version.json', () => {
    const three = (nav: unknown[]): ContentFile[] => [versionJson({ languages: ['en'], nav }), ...['a', 'b', 'c', 'd'].map((slug) => ({ path: `en/${slug}.md`, content: md(slug.toUpperCase()) }))];
    const keysOf = async (version: string) => (await listNodes(s, version)).map((n) => [n.slug, n.sortOrder]);

    test('keys in nav are kept exactly as written; an entry without one gets its index, or the key before it + 1', async () => {
      const res = await importFiles('keys', { files: three([{ slug: 'a', sortOrder: -2 }, { slug: 'b', sortOrder: 12.5 }, 'c', { slug: 'd', sortOrder: 1e6 }]) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.warnings, []);
      assert.deepEqual(await keysOf('keys'), [['a', -2], ['b', 12.5], ['c', 13.5], ['d', 1e6]]);
      // Stored keys are written back where they differ from the entry's index, so a clone reads the same.
      const nav = JSON.parse(s.git('show', 'HEAD:keys/version.json')).nav as Array<{ slug: string; sortOrder?: number }>;
      assert.deepEqual(nav.map((e) => [e.slug, e.sortOrder]), [['a', -2], ['b', 12.5], ['c', 13.5], ['d', 1e6]]);
      s = await s.restart();
      assert.deepEqual(await keysOf('keys'), [['a', -2], ['b', 12.5], ['c', 13.5], ['d', 1e6]]);
    });

    test('an entry moved by hand: nav order wins, only the entry that disagrees is renumbered, with a warning naming its line', async () => {
      const first = await importFiles('moved', { files: three([{ slug: 'a', sortOrder: 10 }, { slug: 'b', sortOrder: 20 }, { slug: 'c', sortOrder: 30 }, { slug: 'd', sortOrder: 40 }]) });
      assert.equal(first.status, 200, first.text);
      // The writer exports the files, moves "c" above "b" in nav, and sends them back.
      const files = (await s.request('GET', '/versions/moved/export?format=files')).body.files as ContentFile[];
      const doc = JSON.parse(files[0].content);
      doc.nav = [doc.nav[0], doc.nav[2], doc.nav[1], doc.nav[3]];
      const text = `${JSON.stringify(doc, null, 2)}\n`;
      const edited = [{ path: 'docs/moved/version.json', content: text }, ...files.slice(1).map((f) => ({ ...f, path: `docs/moved/${f.path}` }))];
      const line = text.split('\n').findIndex((l) => l.includes('"c"')) + 1;

      const dry = await importFiles('moved', { files: edited }, { query: '?dryRun=true' });
      assert.equal(dry.status, 200, dry.text);
      const expectedWarning = { path: 'docs/moved/version.json', line, message: 'nav[1].sortOrder 30 disagrees with the order nav lists the entries in; it is read as 11' };
      assert.deepEqual(dry.body.warnings, [expectedWarning]);
      assert.deepEqual(dry.body.summary.slugs.updated, ['c']);
      assert.deepEqual(await keysOf('moved'), [['a', 10], ['b', 20], ['c', 30], ['d', 40]], 'a dry run changes nothing');

      const real = await importFiles('moved', { files: edited });
      assert.equal(real.status, 200, real.text);
      assert.deepEqual(real.body.warnings, [expectedWarning]);
      assert.deepEqual(real.body.summary.slugs.updated, ['c']);
      assert.equal(real.body.summary.unchanged, 3);
      assert.deepEqual(await keysOf('moved'), [['a', 10], ['c', 11], ['b', 20], ['d', 40]]);
    });

    test('a nav without keys is ordered by its entries alone: moving lines by hand needs no numbers and gives no warning', async () => {
      assert.equal((await importFiles('plain', { files: three(['a', 'b', 'c', 'd']) })).status, 200);
      const res = await importFiles('plain', { files: three(['d', 'a', 'c', 'b']) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.warnings, []);
      assert.deepEqual(await keysOf('plain'), [['d', 0], ['a', 1], ['c', 2], ['b', 3]]);
      assert.equal(JSON.parse(s.git('show', 'HEAD:plain/version.json')).nav.filter((e: { sortOrder?: number }) => e.sortOrder !== undefined).length, 0);
    });

    test('a sortOrder that is not a number is an error on version.json with its line', async () => {
      const files = three([{ slug: 'a', sortOrder: '10' }, 'b', 'c', 'd']);
      const line = files[0].content.split('\n').findIndex((l) => l.includes('"a"')) + 1;
      const err = assertError(await importFiles('bad-key', { files }), 400, 'invalid_content');
      assert.deepEqual(err.errors, [{ path: 'version.json', line, message: 'nav[0].sortOrder must be a number' }]);
    });
  });

  describe('access', () => {
    test('without a key: 401, nothing written', async () => {
      const commits = s.commitCount();
      const res = await importFiles('anon', { files: handSet() }, { key: null });
      assertError(res, 401, 'unauthorized');
      assert.equal(s.commitCount(), commits);
    });

    test('with a key without help:write: 403 insufficient_scope, nothing written', async () => {
      const reader = await s.createKey({ name: 'files-reader', scopes: 'help:read' });
      await waitForKey(s, reader);
      const commits = s.commitCount();
      const res = await importFiles('readonly', { files: handSet() }, { key: reader });
      assertError(res, 403, 'insufficient_scope');
      assert.equal(s.commitCount(), commits);
      assert.equal((await s.request('GET', '/versions/readonly/nodes')).status, 404);
    });

    test('a body without files is 400 validation_failed naming body/files', async () => {
      const res = await importFiles('nofiles', { dryRun: true });
      assertError(res, 400, 'validation_failed', { field: 'body/files' });
    });
  });
});
