import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KeyFile } from '../src/auth/key-file.ts';
import { createKey } from '../src/cli/keys.ts';
import { afterDelete, afterRename, NO_REDIRECTS, settleRedirects, type RedirectProblem } from '../src/domain/redirects.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { fetchPushScript, lines, run } from './helpers/push-script.ts';
import { md, versionJson, writeFiles } from './helpers/content.ts';
import { checkContract } from './helpers/contract.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

/** A GET that does not follow redirects (the 301 is the answer under test), checked against openapi.json when it is the API's. */
async function get(s: TestServer, path: string, opts: { key?: string | null; headers?: Record<string, string> } = {}) {
  const origin = new URL(s.url).origin;
  const url = path.startsWith('/support') ? `${origin}${path}` : `${s.url}${path}`;
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? s.key : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const res = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const answer = { status: res.status, headers: res.headers, body, text };
  await checkContract(url, 'GET', answer);
  return answer;
}

const apiBase = (s: TestServer) => new URL(s.url).pathname;

/** version.json of a version as the repository's last commit holds it, read with the system git. */
const storedVersionFile = (s: TestServer, version: string) => JSON.parse(s.git('show', `HEAD:${version}/version.json`));

async function patch(s: TestServer, version: string, slug: string, body: Record<string, unknown>) {
  const res = await s.request('PATCH', `/versions/${version}/nodes/${slug}`, { body });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Every file below `dir`, as import-files takes them (paths relative to `dir`). */
function filesOf(dir: string): Array<{ path: string; content: string }> {
  const out: Array<{ path: string; content: string }> = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push({ path: relative(dir, full).split('\\').join('/'), content: readFileSync(full, 'utf8') });
    }
  };
  walk(dir);
  return out;
}

describe('redirects after renames', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { status: 'published', isLatest: true });
    await createNode(s, 'v1', { slug: 'setup', translations: { en: { title: 'Setup', bodyMd: 'Install the app.\n' }, de: { title: 'Einrichtung', bodyMd: 'Installieren.\n' } } });
    await createNode(s, 'v1', { slug: 'faq', translations: { en: { title: 'FAQ', bodyMd: 'Questions.\n' }, de: { title: 'Fragen', bodyMd: 'Fragen.\n' } } });
    await createNode(s, 'v1', { slug: 'billing', translations: { en: { title: 'Billing', bodyMd: 'Invoices.\n' } } });
  });
  after(() => s.close());

  describe('a rename through PATCH', () => {
    before(() => patch(s, 'v1', 'setup', { slug: 'install' }));

    test('a read of the old slug answers 301 to the new URL, with the same query string, and a body naming the new slug', async () => {
      const res = await get(s, '/versions/v1/topics/setup?language=de', { key: null });
      assert.equal(res.status, 301, res.text);
      const location = `${apiBase(s)}/versions/v1/topics/install?language=de`;
      assert.equal(res.headers.get('location'), location);
      assert.deepEqual(res.body, { redirect: { version: 'v1', from: 'setup', to: 'install', location } });
      const followed = await s.request('GET', '/versions/v1/topics/setup?language=de', { key: null });
      assert.equal(followed.status, 200);
      assert.equal(followed.body.slug, 'install');
      assert.equal(followed.body.title, 'Einrichtung');
    });

    test('a read of a translation under the old slug answers 301 to the translation under the new one', async () => {
      const res = await get(s, '/versions/v1/topics/setup/translations/de');
      assert.equal(res.status, 301, res.text);
      assert.equal(res.headers.get('location'), `${apiBase(s)}/versions/v1/topics/install/translations/de`);
      assert.equal(res.body.redirect.to, 'install');
    });

    test('version.json in the repository records the old slug', () => {
      assert.deepEqual(storedVersionFile(s, 'v1').redirects, { setup: 'install' });
      assert.match(s.git('log', '-1', '--format=%s'), /install|setup/);
    });
  });

  describe('a chain of renames', () => {
    before(() => patch(s, 'v1', 'install', { slug: 'installation' }));

    test('resolves in one hop from every old slug', async () => {
      for (const old of ['setup', 'install']) {
        const res = await get(s, `/versions/v1/topics/${old}`, { key: null });
        assert.equal(res.status, 301);
        assert.equal(res.headers.get('location'), `${apiBase(s)}/versions/v1/topics/installation`);
        assert.equal(res.body.redirect.from, old);
      }
      assert.deepEqual(storedVersionFile(s, 'v1').redirects, { install: 'installation', setup: 'installation' });
    });

    test('renaming back to an old slug leaves no loop', async () => {
      await patch(s, 'v1', 'installation', { slug: 'install' });
      assert.deepEqual(storedVersionFile(s, 'v1').redirects, { installation: 'install', setup: 'install' });
      assert.equal((await get(s, '/versions/v1/topics/install')).status, 200);
      await patch(s, 'v1', 'install', { slug: 'installation' });
      assert.deepEqual(storedVersionFile(s, 'v1').redirects, { install: 'installation', setup: 'installation' });
    });
  });

  describe('the portal', () => {
    before(() => patch(s, 'v1', 'faq', { slug: 'questions' }));

    test('answers 301 from an old page to the new one, keeping the query string', async () => {
      const res = await get(s, '/support/v1/faq?lang=de', { key: null });
      assert.equal(res.status, 301);
      assert.equal(res.headers.get('location'), '/support/v1/questions?lang=de');
      const latest = await get(s, '/support/latest/setup', { key: null });
      assert.equal(latest.status, 301);
      assert.equal(latest.headers.get('location'), '/support/latest/installation');
    });

    test('answers 301 from an old Markdown twin to the new twin', async () => {
      const res = await get(s, '/support/v1/faq.md', { key: null });
      assert.equal(res.status, 301);
      assert.equal(res.headers.get('location'), '/support/v1/questions.md');
    });

    test('search, the sitemap and llms.txt list only live slugs', async () => {
      const sitemap = (await get(s, '/support/sitemap.xml', { key: null })).text;
      assert.match(sitemap, /\/support\/v1\/questions</);
      assert.doesNotMatch(sitemap, /\/support\/v1\/(faq|setup|install)</);
      const llms = (await get(s, '/support/v1/llms.txt', { key: null })).text;
      assert.match(llms, /questions\.md/);
      assert.doesNotMatch(llms, /\/(faq|setup|install)\.md/);
      const found = await s.request('GET', '/versions/v1/search?q=questions', { key: null });
      assert.equal(found.status, 200, found.text);
      const slugs = JSON.stringify(found.body);
      assert.doesNotMatch(slugs, /"(faq|setup|install)"/);
    });
  });

  describe('a new node taking an old slug', () => {
    before(() => createNode(s, 'v1', { slug: 'setup', translations: { en: { title: 'Setup again', bodyMd: 'New page.\n' } } }));

    test('wins over the redirect, which is dropped from version.json', async () => {
      const res = await get(s, '/versions/v1/topics/setup', { key: null });
      assert.equal(res.status, 200);
      assert.equal(res.body.title, 'Setup again');
      assert.equal((await get(s, '/support/v1/setup', { key: null })).status, 200);
      assert.deepEqual(storedVersionFile(s, 'v1').redirects, { faq: 'questions', install: 'installation' });
    });
  });

  describe('duplicating a version', () => {
    test('keeps its redirects', async () => {
      const res = await s.request('POST', '/versions/v1/duplicate', { body: { slug: 'v1-copy' } });
      assert.equal(res.status, 200, res.text);
      const moved = await get(s, '/versions/v1-copy/topics/faq');
      assert.equal(moved.status, 301);
      assert.equal(moved.headers.get('location'), `${apiBase(s)}/versions/v1-copy/topics/questions`);
      assert.deepEqual(storedVersionFile(s, 'v1-copy').redirects, { faq: 'questions', install: 'installation' });
    });
  });

  describe('export and import', () => {
    let exported: any;
    before(async () => {
      exported = (await s.request('GET', '/versions/v1/export')).body;
    });

    test('the export document carries the redirects as [{ from, to }], sorted', () => {
      assert.deepEqual(exported.redirects, [
        { from: 'faq', to: 'questions' },
        { from: 'install', to: 'installation' },
      ]);
    });

    test('an import of the document into another version round-trips them', async () => {
      await createVersion(s, 'v2');
      const res = await s.request('POST', '/versions/v2/import', { body: { document: exported, mode: 'replace' } });
      assert.equal(res.status, 200, res.text);
      const again = (await s.request('GET', '/versions/v2/export')).body;
      assert.deepEqual(again.redirects, exported.redirects);
      assert.equal((await get(s, '/versions/v2/topics/install')).headers.get('location'), `${apiBase(s)}/versions/v2/topics/installation`);
    });

    test('a node imported (replace) with the same id under a new slug is a rename', async () => {
      const nodes = exported.nodes.map((n: { slug: string }) => (n.slug === 'questions' ? { ...n, slug: 'answers' } : n));
      const res = await s.request('POST', '/versions/v2/import', { body: { mode: 'replace', nodes } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.diff.renamed, [{ from: 'questions', to: 'answers' }]);
      assert.ok(res.body.diff.updated.includes('answers'));
      assert.deepEqual(res.body.diff.created, []);
      for (const old of ['faq', 'questions']) assert.equal((await get(s, `/versions/v2/topics/${old}`)).headers.get('location'), `${apiBase(s)}/versions/v2/topics/answers`);
      assert.deepEqual(storedVersionFile(s, 'v2').redirects, { faq: 'answers', install: 'installation', questions: 'answers' });
    });

    test('a redirect that loops is refused with 400, naming the field', async () => {
      const res = await s.request('POST', '/versions/v2/import', {
        body: { nodes: [], redirects: [{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }] },
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'invalid_document');
      assert.equal(res.body.error.offending[0].field, 'body/redirects/0/from');
      assert.match(res.body.error.offending[0].problem, /loops/);
    });

    test('a redirect from something that is no slug is refused with 400, naming the field', async () => {
      const res = await s.request('POST', '/versions/v2/import', { body: { nodes: [], redirects: [{ from: 'Not A Slug', to: 'answers' }] } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.field, 'body/redirects/0/from');
    });
  });

  describe('deleting a node', () => {
    before(async () => {
      const res = await s.request('DELETE', '/versions/v1/nodes/installation');
      assert.equal(res.status, 200, res.text);
    });

    test('keeps no redirect to it, and records it and its old slugs as removed', () => {
      const file = storedVersionFile(s, 'v1');
      assert.deepEqual(file.redirects, { faq: 'questions' });
      assert.deepEqual(file.removed, ['install', 'installation']);
    });

    test('the API answers 404 for it and its old slugs', async () => {
      assert.equal((await get(s, '/versions/v1/topics/installation', { key: null })).status, 404);
      assert.equal((await get(s, '/versions/v1/topics/install', { key: null })).status, 404);
    });

    test('the portal answers 410 Gone with a page leading to the version home', async () => {
      const res = await get(s, '/support/v1/installation', { key: null });
      assert.equal(res.status, 410);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      assert.match(res.text, /<h1>This page was removed<\/h1>/);
      assert.match(res.text, /<a href="\/support\/v1">/);
      const old = await get(s, '/support/v1/install.md', { key: null });
      assert.equal(old.status, 410);
      assert.match(old.text, /^Gone: /);
      // A page that never existed is still 404.
      assert.equal((await get(s, '/support/v1/never-was', { key: null })).status, 404);
    });
  });

  describe('content files', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'help-redirects-'));
      writeFiles(dir, {
        'version.json': versionJson({ label: 'Files', languages: ['en'], nav: [{ slug: 'start', id: 'id-start' }, { slug: 'old-name', id: 'id-old' }] }),
        'en/start.md': md('Start'),
        'en/old-name.md': md('Renamed later'),
      });
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    test('import-files of a file renamed under the same id records the old slug, and its summary lists the rename', async () => {
      const first = await s.request('POST', '/versions/files/import-files', { body: { files: filesOf(dir) } });
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.body.summary.renamed, []);
      renameSync(join(dir, 'en/old-name.md'), join(dir, 'en/new-name.md'));
      writeFileSync(join(dir, 'version.json'), versionJson({ label: 'Files', languages: ['en'], nav: [{ slug: 'start', id: 'id-start' }, { slug: 'new-name', id: 'id-old' }] }));
      const res = await s.request('POST', '/versions/files/import-files', { body: { files: filesOf(dir) } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.summary.slugs, { created: [], updated: ['new-name'], deleted: [] });
      assert.deepEqual(res.body.summary.renamed, [{ from: 'old-name', to: 'new-name' }]);
      assert.deepEqual(storedVersionFile(s, 'files').redirects, { 'old-name': 'new-name' });
      const moved = await get(s, '/versions/files/topics/old-name', { key: null });
      assert.equal(moved.headers.get('location'), `${apiBase(s)}/versions/files/topics/new-name`);
    });

    test('redirects written in version.json are read, chains resolved to one hop', async () => {
      writeFileSync(join(dir, 'version.json'), versionJson({ label: 'Files', languages: ['en'], nav: [{ slug: 'start', id: 'id-start' }, { slug: 'new-name', id: 'id-old' }], redirects: { intro: 'welcome', welcome: 'start' } }));
      const res = await s.request('POST', '/versions/files/import-files', { body: { files: filesOf(dir) } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(storedVersionFile(s, 'files').redirects, { intro: 'start', 'old-name': 'new-name', welcome: 'start' });
      assert.equal((await get(s, '/support/files/intro', { key: null })).headers.get('location'), '/support/files/start');
    });

    test('a redirect in version.json that loops, or whose old slug is no slug, is an error at its line', async () => {
      const text = versionJson({ label: 'Files', languages: ['en'], nav: ['start', 'new-name'], redirects: { a: 'b', b: 'a', 'Bad Slug': 'start' } });
      const files = [{ path: 'version.json', content: text }, { path: 'en/start.md', content: md('Start') }, { path: 'en/new-name.md', content: md('New') }];
      const res = await s.request('POST', '/versions/files/import-files', { body: { files } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'invalid_content');
      const lineOf = (needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;
      const errors = res.body.error.errors as Array<{ path: string; line?: number; message: string }>;
      assert.ok(errors.some((e) => e.path === 'version.json' && e.line === lineOf('"Bad Slug"') && /not a valid node slug/.test(e.message)), JSON.stringify(errors));
      assert.ok(errors.some((e) => e.path === 'version.json' && e.line === lineOf('"a": "b"') && /loops/.test(e.message)), JSON.stringify(errors));
    });

    test('export as files carries them in version.json, and a start from the repository keeps them', async () => {
      const files = (await s.request('GET', '/versions/files/export?format=files')).body.files as Array<{ path: string; content: string }>;
      assert.deepEqual(JSON.parse(files.find((f) => f.path === 'version.json')!.content).redirects, { intro: 'start', 'old-name': 'new-name', welcome: 'start' });
      s = await s.restart();
      assert.equal((await get(s, '/versions/files/topics/old-name', { key: null })).status, 301);
      assert.equal((await get(s, '/support/v1/installation', { key: null })).status, 410);
    });

    test('files that delete a published node drop the redirects to it and keep its addresses as removed', async () => {
      rmSync(join(dir, 'en/start.md'));
      writeFileSync(join(dir, 'version.json'), versionJson({ label: 'Files', languages: ['en'], nav: [{ slug: 'new-name', id: 'id-old' }] }));
      const res = await s.request('POST', '/versions/files/import-files', { body: { files: filesOf(dir) } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.summary.slugs.deleted, ['start']);
      const file = storedVersionFile(s, 'files');
      assert.deepEqual(file.redirects, { 'old-name': 'new-name' });
      assert.deepEqual(file.removed, ['intro', 'start', 'welcome']);
      assert.equal((await get(s, '/support/files/intro', { key: null })).status, 410);
    });
  });
});

describe('redirects through a publish request', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  before(async () => {
    gh = await new FakeGitHub().start();
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    publisher = (await createKey(new KeyFile(dataDir), { name: 'release-bot', publisher: true })).key;
    s = await startTestServer({
      dataDir,
      env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url, HELP_GITHUB_WEBHOOK_SECRET: 'whsec-redirects' },
    });
    await createVersion(s, 'v1');
    await createNode(s, 'v1', { slug: 'intro' });
    await createNode(s, 'v1', { slug: 'setup' });
    await createNode(s, 'v1', { slug: 'legacy' });
    const published = await s.request('PATCH', '/versions/v1', { body: { status: 'published', isLatest: true }, key: publisher });
    assert.equal(published.status, 200, published.text);
  });
  after(async () => {
    await s.close();
    await gh.stop();
  });

  test("a working copy's renames and deletions go into the pull request's version.json, and live once it is published", async () => {
    assert.equal((await s.request('POST', '/versions/v1/working-copy')).status, 201);
    await patch(s, 'v1-wip', 'setup', { slug: 'install' });
    assert.equal((await s.request('DELETE', '/versions/v1-wip/nodes/legacy')).status, 200);
    const opened = await s.request('POST', '/versions/v1-wip/publish-request');
    assert.equal(opened.status, 201, opened.text);
    const files = gh.files(opened.body.request.branch);
    const versionFile = JSON.parse([...files].find(([path]) => path.endsWith('v1/version.json'))![1]);
    assert.deepEqual(versionFile.redirects, { setup: 'install' });
    assert.deepEqual(versionFile.removed, ['legacy']);
    // The same files, imported as a content repository's workflow posts them once the pull request is merged.
    const posted = [...files].filter(([path]) => path.includes('v1/')).map(([path, content]) => ({ path, content }));
    const imported = await s.request('POST', '/versions/v1/import-files', { body: { files: posted }, key: publisher });
    assert.equal(imported.status, 200, imported.text);
    assert.equal((await get(s, '/versions/v1/topics/setup', { key: null })).headers.get('location'), `${apiBase(s)}/versions/v1/topics/install`);
    assert.equal((await get(s, '/support/v1/legacy', { key: null })).status, 410);
    assert.deepEqual(storedVersionFile(s, 'v1').redirects, { setup: 'install' });
  });
});

describe('redirects through the push script', () => {
  let s: TestServer;
  let repo: string;
  let script: string;
  before(async () => {
    s = await startTestServer();
    script = await fetchPushScript(s.url);
    repo = mkdtempSync(join(tmpdir(), 'help-content-repo-'));
    writeFiles(join(repo, 'docs/v9'), {
      'version.json': versionJson({ label: 'Nine', languages: ['en'], nav: ['start', 'install'], redirects: { setup: 'install' }, removed: ['legacy'] }),
      'en/start.md': md('Start'),
      'en/install.md': md('Install'),
    });
    writeFiles(join(repo, 'docs/loop'), {
      'version.json': versionJson({ label: 'Loop', languages: ['en'], nav: ['start'], redirects: { a: 'b', b: 'a' } }),
      'en/start.md': md('Start'),
    });
  });
  after(async () => {
    await s.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(join(script, '..'), { recursive: true, force: true });
  });

  test("a pushed folder's version.json redirects are live on the service", async () => {
    const r = await run(process.execPath, [script, 'push', '--dir', 'docs/v9', '--version', 'v9'], { cwd: repo, env: { HELP_URL: s.url, HELP_KEY: s.key } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await get(s, '/versions/v9/topics/setup', { key: null })).headers.get('location'), `${apiBase(s)}/versions/v9/topics/install`);
    assert.equal((await get(s, '/support/v9/legacy', { key: null })).status, 410);
    assert.deepEqual(storedVersionFile(s, 'v9').removed, ['legacy']);
  });

  test('a looping redirect is refused by the offline check, at its line of version.json', async () => {
    const r = await run(process.execPath, [script, 'push', '--dir', 'docs/loop', '--version', 'loop', '--offline'], { cwd: repo, env: {} });
    assert.equal(r.code, 1, r.stderr);
    assert.ok(lines(r.stderr).some((l) => /^docs\/loop\/version\.json:\d+: .*loops/.test(l)), r.stderr);
  });
});

describe('the rules of old addresses (domain/redirects.ts)', () => {
  test('a chain of renames is one hop from every old slug; renaming back leaves no loop', () => {
    let r = afterRename(NO_REDIRECTS, 'a', 'b');
    r = afterRename(r, 'b', 'c');
    assert.deepEqual([...r.moved], [['a', 'c'], ['b', 'c']]);
    r = afterRename(r, 'c', 'a');
    assert.deepEqual([...r.moved], [['b', 'a'], ['c', 'a']]);
  });

  test('deleting a node drops the redirects to it; in a published version its addresses are kept as removed', () => {
    const r = afterRename(afterRename(NO_REDIRECTS, 'x', 'y'), 'p', 'q');
    assert.deepEqual(afterDelete(r, ['y'], false), { moved: new Map([['p', 'q']]), removed: [] });
    assert.deepEqual(afterDelete(r, ['y'], true), { moved: new Map([['p', 'q']]), removed: ['x', 'y'] });
  });

  test('given redirects: chains resolved, loops and dead ends reported, live slugs dropped, a long chain settled in one pass', () => {
    const problems: RedirectProblem[] = [];
    const nodes = new Set(['start', 'live']);
    const given = [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'start' },
      { from: 'l1', to: 'l2' },
      { from: 'l2', to: 'l1' },
      { from: 'dead', to: 'nowhere' },
      { from: 'live', to: 'start' },
    ];
    const r = settleRedirects(given, ['live', 'gone'], (slug) => nodes.has(slug), (p) => problems.push(p));
    assert.deepEqual([...r.moved], [['a', 'start'], ['b', 'start']]);
    assert.deepEqual(r.removed, ['gone']);
    assert.deepEqual(problems.map((p) => [given[p.index].from, p.kind]), [['l1', 'loop'], ['l2', 'loop'], ['dead', 'no_target'], ['live', 'live']]);
    // 50,000 slugs in one chain: each is walked once.
    const chain = Array.from({ length: 50_000 }, (_, i) => ({ from: `s${i}`, to: i === 49_999 ? 'start' : `s${i + 1}` }));
    const long = settleRedirects(chain, [], (slug) => nodes.has(slug), () => assert.fail('no problem'));
    assert.equal(long.moved.size, 50_000);
    assert.ok([...long.moved.values()].every((to) => to === 'start'));
  });
});
