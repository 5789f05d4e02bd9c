import assert from 'node:assert/strict';
import markdownIt from 'markdown-it';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KeyFile } from '../src/auth/key-file.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createKey } from '../src/cli/keys.ts';
import { assertError } from './helpers/assertions.ts';
import { writeFiles } from './helpers/content.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import type { ContentFile } from './helpers/generate.ts';
import { runProcess, type Run } from './helpers/process.ts';
import { fetchPushScript } from './helpers/push-script.ts';
import { createNode, createVersion, startTestServer, type TestResponse, type TestServer } from './helpers/server.ts';

const SECRET = 'whsec-publishing-test';

interface RequestObj {
  id: string;
  targetSlug: string;
  sourceSlug: string;
  prNumber: number | null;
  prUrl: string | null;
  branch: string;
  status: string;
  summary: any;
  counts: Record<string, number>;
  author: string;
  createdAt: string;
  updatedAt: string;
  mergedAt: string | null;
  closedAt: string | null;
  importedAt: string | null;
  failure: string | null;
}

const publishingEnv = (gh: FakeGitHub, extra: Record<string, string> = {}) => ({
  HELP_PUBLISH_VIA_PR: 'on',
  HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`,
  HELP_GITHUB_TOKEN: gh.token,
  HELP_GITHUB_API_URL: gh.url,
  HELP_GITHUB_WEBHOOK_SECRET: SECRET,
  ...extra,
});

describe('Publishing through pull requests: the whole cycle', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  before(async () => {
    gh = await new FakeGitHub().start();
    ({ s, publisher } = await startWithPublisher(publishingEnv(gh), 'release-bot'));
    // v1: a published, latest version whose files are already on the content repository's main branch.
    await createVersion(s, 'v1', { languages: ['en', 'de'] });
    await createNode(s, 'v1', { slug: 'intro', translations: { en: { title: 'Introduction', bodyMd: 'Welcome.\n' }, de: { title: 'Einführung', bodyMd: 'Willkommen.\n' } } });
    await createNode(s, 'v1', { slug: 'setup', kind: 'section', translations: { en: { title: 'Setup', bodyMd: '' }, de: { title: 'Einrichtung', bodyMd: '' } } });
    await createNode(s, 'v1', { slug: 'install', parentSlug: 'setup', translations: { en: { title: 'Install', bodyMd: 'Run the installer.\n' }, de: { title: 'Installieren', bodyMd: 'Starten Sie das Installationsprogramm.\n' } } });
    await createNode(s, 'v1', { slug: 'old-topic', translations: { en: { title: 'Old topic', bodyMd: 'Outdated.\n' }, de: { title: 'Altes Thema', bodyMd: 'Veraltet.\n' } } });
    const published = await s.request('PATCH', '/versions/v1', { body: { status: 'published', isLatest: true }, key: publisher });
    assert.equal(published.status, 200, published.text);
    const exported = await s.request('GET', '/versions/v1/export?format=files');
    assert.equal(exported.status, 200, exported.text);
    await seedMain(gh, (exported.body.files as ContentFile[]).map((f) => ({ path: `docs/v1/${f.path}`, content: f.content })));
  });
  after(async () => {
    await s.close();
    await gh.stop();
  });

  test('a working copy is edited, published through a reviewed pull request, merged and imported', async () => {
    // The lock is on.
    const who = await s.request('GET', '/whoami');
    assert.equal(who.status, 200, who.text);
    assert.equal(who.body.publishViaPr, true);
    assert.equal(who.body.canWritePublished, false);

    // A normal key cannot change the published version.
    const commitsBefore = s.commitCount();
    const refused = await s.request('PUT', '/versions/v1/topics/intro/translations/en', { body: { title: 'Introduction', bodyMd: 'Changed directly.\n' } });
    assertError(refused, 403, 'published_read_only');
    assert.equal(s.commitCount(), commitsBefore, 'a refused write makes no commit');

    // The working copy.
    const wc = await s.request('POST', '/versions/v1/working-copy');
    assert.equal(wc.status, 201, wc.text);
    assert.equal(wc.body.existed, false);
    assert.equal(wc.body.version.slug, 'v1-wip');
    assert.equal(wc.body.version.hidden, true);
    assert.equal(wc.body.version.workingCopyOf, 'v1');
    assert.equal(wc.body.version.status, 'draft');

    // Edits in the copy: a changed translation in each language, a new node, a deleted node.
    const put = await s.request('PUT', '/versions/v1-wip/topics/intro/translations/en', { body: { title: 'Introduction', bodyMd: 'Welcome to the edited help.\n' } });
    assert.equal(put.status, 200, put.text);
    const putDe = await s.request('PUT', '/versions/v1-wip/topics/install/translations/de', { body: { title: 'Installation', bodyMd: 'Neu geschrieben.\n' } });
    assert.equal(putDe.status, 200, putDe.text);
    // A title that, as Markdown, would hide the rest of the pull request's description from its reviewers.
    await createNode(s, 'v1-wip', { slug: 'new-topic', translations: { en: { title: 'New topic <!-- hidden', bodyMd: 'Brand new.\n' }, de: { title: 'Neues Thema', bodyMd: 'Ganz neu.\n' } } });
    const del = await s.request('DELETE', '/versions/v1-wip/nodes/old-topic');
    assert.equal(del.status, 200, del.text);
    // The published version is untouched meanwhile.
    const liveBefore = await s.request('GET', '/versions/v1/topics/intro?language=en', { key: null });
    assert.equal(liveBefore.body.bodyMd, 'Welcome.\n');

    // Dry run: the summary per language and the files, without a word to GitHub.
    const callsBeforeDry = gh.calls.length;
    const dry = await s.request('POST', '/versions/v1-wip/publish-request?dryRun=true');
    assert.equal(dry.status, 200, dry.text);
    assert.equal(gh.calls.length, callsBeforeDry, 'a dry run does not call the repository host');
    assert.equal(dry.body.dryRun, true);
    assert.equal(dry.body.targetSlug, 'v1');
    const summary = dry.body.summary;
    assert.equal(summary.created, 1);
    assert.equal(summary.updated, 2);
    assert.equal(summary.deleted, 1);
    assert.equal(summary.unchanged, 1);
    assert.deepEqual(summary.slugs.created, ['new-topic']);
    assert.deepEqual([...summary.slugs.updated].sort(), ['install', 'intro']);
    assert.deepEqual(summary.slugs.deleted, ['old-topic']);
    assert.deepEqual(summary.languages, {
      en: { created: ['new-topic'], updated: ['intro'], deleted: ['old-topic'] },
      de: { created: ['new-topic'], updated: ['install'], deleted: ['old-topic'] },
    });
    assert.ok(Array.isArray(dry.body.warnings));
    const dryFiles = dry.body.files as ContentFile[];
    const dryPaths = dryFiles.map((f) => f.path).sort();
    assert.deepEqual(dryPaths, [
      'docs/v1/de/install.md',
      'docs/v1/de/intro.md',
      'docs/v1/de/new-topic.md',
      'docs/v1/de/setup.md',
      'docs/v1/en/install.md',
      'docs/v1/en/intro.md',
      'docs/v1/en/new-topic.md',
      'docs/v1/en/setup.md',
      'docs/v1/version.json',
    ]);
    assert.match(dryFiles.find((f) => f.path === 'docs/v1/en/intro.md')!.content, /Welcome to the edited help\./);

    // The real request.
    const opened = await s.request('POST', '/versions/v1-wip/publish-request');
    assert.equal(opened.status, 201, opened.text);
    assert.equal(opened.body.dryRun, false);
    const request = opened.body.request as RequestObj;
    assert.equal(request.status, 'open');
    assert.equal(request.targetSlug, 'v1');
    assert.equal(request.sourceSlug, 'v1-wip');
    assert.equal(typeof request.prNumber, 'number');
    assert.equal(typeof request.prUrl, 'string');
    assert.match(request.branch, /^publish\/v1\/[0-9A-Za-z._-]+$/);
    assert.equal(request.author, 'writer');
    assert.equal(request.summary.created, 1);
    assert.equal(request.counts.files, dryFiles.length);

    // What GitHub got: a branch with the files, the removed topic's files deleted, a pull request.
    assert.ok(gh.hasBranch(request.branch), `branch ${request.branch} exists`);
    const branchFiles = gh.files(request.branch);
    const underFolder = [...branchFiles.keys()].filter((p) => p.startsWith('docs/v1/')).sort();
    assert.deepEqual(underFolder, dryPaths, 'the folder holds exactly the new content');
    assert.ok(gh.files('main').has('docs/v1/en/old-topic.md'), 'main had the removed topic');
    assert.equal(branchFiles.has('docs/v1/en/old-topic.md'), false, 'the deleted node\'s English file is deleted');
    assert.equal(branchFiles.has('docs/v1/de/old-topic.md'), false, 'the deleted node\'s German file is deleted');
    assert.equal(branchFiles.get('README.md'), '# Help content\n', 'files outside the folder stay');
    for (const f of dryFiles) assert.equal(branchFiles.get(f.path), f.content, `${f.path} as the dry run showed it`);
    assert.match(branchFiles.get('docs/v1/en/intro.md')!, /Welcome to the edited help\./);
    assert.match(branchFiles.get('docs/v1/de/install.md')!, /Neu geschrieben\./);
    const versionJson = JSON.parse(branchFiles.get('docs/v1/version.json')!);
    assert.equal(versionJson.status, 'published');
    assert.equal(versionJson.isLatest, true, 'the target stays latest');
    assert.equal('hidden' in versionJson, false, 'no hidden flag in the published files');
    assert.equal('workingCopyOf' in versionJson, false, 'no workingCopyOf in the published files');
    const pr = gh.pull(request.prNumber!)!;
    assert.equal(pr.title, 'Publish v1');
    assert.equal(pr.head, request.branch);
    assert.equal(pr.base, 'main');
    assert.equal(pr.state, 'open');
    const sections = bodySections(pr.body);
    assert.ok(sections.en, `the body has a part for English: ${pr.body}`);
    assert.ok(sections.de, `the body has a part for German: ${pr.body}`);
    for (const slug of ['intro', 'new-topic', 'old-topic']) assert.match(sections.en, new RegExp(`\\b${slug}\\b`), `en names ${slug}`);
    // As GitHub renders it (HTML allowed): the title is text, and the deletion after it is there to read.
    const rendered = markdownIt({ html: true }).render(pr.body);
    assert.doesNotMatch(rendered, /<!--/, rendered);
    assert.match(rendered, /<code>New topic &lt;!-- hidden<\/code>/);
    assert.match(rendered.slice(rendered.indexOf('hidden')), /old-topic\.md/);
    assert.doesNotMatch(sections.en, /\binstall\b/, 'install changed only in German');
    for (const slug of ['install', 'new-topic', 'old-topic']) assert.match(sections.de, new RegExp(`\\b${slug}\\b`), `de names ${slug}`);
    assert.doesNotMatch(sections.de, /\bintro\b/, 'intro changed only in English');

    // One open request per target; the copy cannot be discarded while it is open.
    const second = await s.request('POST', '/versions/v1-wip/publish-request');
    assertError(second, 409, 'request_open');
    const discard = await s.request('DELETE', '/versions/v1-wip/working-copy');
    assertError(discard, 409, 'request_open');
    const discardByOriginal = await s.request('DELETE', '/versions/v1/working-copy');
    assertError(discardByOriginal, 409, 'request_open');
    // Nor deleted as a version, by its own slug or with its original (a publisher key passes the lock, not this).
    for (const slug of ['v1-wip', 'v1']) {
      const deleted = await s.request('DELETE', `/versions/${slug}`, { key: publisher });
      assertError(deleted, 409, 'request_open', { request: request.id });
      assert.equal(deleted.body.error.message, `Publish request ${request.id} from v1-wip is open (pull request #${request.prNumber}); deleting ${slug} waits until it is merged, closed or cancelled (DELETE /publish-requests/${request.id})`);
    }

    // Merged on GitHub; the webhook tells the service.
    gh.merge(request.prNumber!);
    const hook = await deliver(s, gh.webhookDelivery(request.prNumber!, SECRET));
    assert.equal(hook.status, 200, hook.text);
    const merged = await findRequest(s, request.id);
    assert.equal(merged.status, 'merged');
    assert.equal(typeof merged.mergedAt, 'string');

    // The content repository's automation pushes the merged files with the publisher key.
    const checkout = writeFolder(gh.files('main'));
    const script = await fetchPushScript(s.url);
    try {
      const run = await runNode([script, 'push', '--dir', 'docs/v1', '--version', 'v1'], { cwd: checkout, env: { HELP_URL: s.url, HELP_KEY: publisher } });
      assert.equal(run.code, 0, `push: ${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, /1 created/);
      assert.match(run.stdout, /1 deleted/);
    } finally {
      rmSync(checkout, { recursive: true, force: true });
      rmSync(dirname(script), { recursive: true, force: true });
    }

    // Live for anonymous readers.
    const intro = await s.request('GET', '/versions/v1/topics/intro?language=en', { key: null });
    assert.equal(intro.status, 200, intro.text);
    assert.equal(intro.body.bodyMd, 'Welcome to the edited help.\n');
    const install = await s.request('GET', '/versions/v1/topics/install?language=de', { key: null });
    assert.equal(install.body.title, 'Installation');
    assert.equal(install.body.bodyMd, 'Neu geschrieben.\n');
    const created = await s.request('GET', '/versions/v1/topics/new-topic?language=de', { key: null });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.title, 'Neues Thema');
    const gone = await s.request('GET', '/versions/v1/topics/old-topic', { key: null });
    assert.equal(gone.status, 404);
    const versions = (await s.request('GET', '/versions', { key: null })).body as Array<{ slug: string; status: string; isLatest: boolean }>;
    assert.deepEqual(versions.filter((v) => v.slug === 'v1').map((v) => [v.status, v.isLatest]), [['published', true]]);

    // The working copy is gone; the request is imported.
    const withCopies = (await s.request('GET', '/versions?includeWorkingCopies=true')).body as Array<{ slug: string }>;
    assert.equal(withCopies.some((v) => v.slug === 'v1-wip'), false, 'the working copy is deleted');
    const imported = await findRequest(s, request.id);
    assert.equal(imported.status, 'imported');
    assert.equal(typeof imported.importedAt, 'string');

    // One commit by the publisher imports the content and deletes the working copy's folder.
    const [author, ...changes] = s.git('show', '--name-status', '--no-renames', '--format=%an', 'HEAD').trim().split('\n').filter((l) => l !== '');
    assert.equal(author, 'release-bot');
    assert.ok(changes.includes('D\tv1-wip/version.json'), `the working copy's version.json is deleted: ${changes.join(', ')}`);
    assert.ok(changes.includes('D\tv1-wip/en/intro.md'), `the working copy's files are deleted: ${changes.join(', ')}`);
    assert.ok(changes.includes('M\tv1/en/intro.md'), `the edited file: ${changes.join(', ')}`);
    assert.ok(changes.includes('A\tv1/de/new-topic.md'), `the new file: ${changes.join(', ')}`);
    assert.ok(changes.includes('D\tv1/en/old-topic.md'), `the removed file: ${changes.join(', ')}`);
    const tree = s.git('ls-tree', '-r', '--name-only', 'HEAD').split('\n');
    assert.equal(tree.some((p) => p.startsWith('v1-wip/')), false, 'no working copy folder remains');
  });
});

describe('The lock on published versions', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  before(async () => {
    gh = await new FakeGitHub().start();
    ({ s, publisher } = await startWithPublisher(publishingEnv(gh), 'publisher'));
    for (const slug of ['p1', 'p-del', 'p-arch']) {
      await createVersion(s, slug);
      await createNode(s, slug, { slug: 'a', translations: { en: { title: 'A', bodyMd: 'A.\n' }, de: { title: 'A de', bodyMd: 'A.\n' } } });
      await createNode(s, slug, { slug: 'b' });
      await createNode(s, slug, { slug: 'c' });
      const res = await s.request('PATCH', `/versions/${slug}`, { body: { status: 'published' }, key: publisher });
      assert.equal(res.status, 200, res.text);
    }
    await createVersion(s, 'd1');
    await createNode(s, 'd1', { slug: 'x' });
    await createNode(s, 'd1', { slug: 'y' });
    await createVersion(s, 'd2');
    await createNode(s, 'd2', { slug: 'x' });
  });
  after(async () => {
    await s.close();
    await gh.stop();
  });

  test('whoami of a publisher key says canWritePublished and publishViaPr', async () => {
    const who = await s.request('GET', '/whoami', { key: publisher });
    assert.equal(who.status, 200, who.text);
    assert.equal(who.body.canWritePublished, true);
    assert.equal(who.body.publishViaPr, true);
  });

  const cases: Array<{ name: string; method: string; path: string; body?: unknown; check?: (s: TestServer) => Promise<void> }> = [
    {
      name: 'PUT translation',
      method: 'PUT',
      path: '/versions/p1/topics/a/translations/en',
      body: { title: 'A, changed', bodyMd: 'Changed.\n' },
      check: async (s) => assert.equal((await s.request('GET', '/versions/p1/topics/a?language=en', { key: null })).body.title, 'A, changed'),
    },
    {
      name: 'PATCH node',
      method: 'PATCH',
      path: '/versions/p1/nodes/a',
      body: { icon: 'rocket' },
      check: async (s) => assert.equal((await s.request('GET', '/versions/p1/topics/a', { key: null })).body.icon, 'rocket'),
    },
    { name: 'POST node', method: 'POST', path: '/versions/p1/nodes', body: { slug: 'added', translations: { en: { title: 'Added', bodyMd: 'New.\n' } } } },
    {
      name: 'reorder',
      method: 'POST',
      path: '/versions/p1/reorder',
      body: { items: [{ slug: 'c', parentSlug: null, sortOrder: -1 }] },
      check: async (s) => {
        const tree = (await s.request('GET', '/versions/p1/tree', { key: null })).body.tree as Array<{ slug: string }>;
        assert.deepEqual(tree.map((n) => n.slug), ['c', 'a', 'b', 'added']);
      },
    },
    {
      name: 'PATCH version label',
      method: 'PATCH',
      path: '/versions/p1',
      body: { label: 'Relabelled' },
      check: async (s) => assert.equal(((await s.request('GET', '/versions', { key: null })).body as Array<{ slug: string; label: string }>).find((v) => v.slug === 'p1')!.label, 'Relabelled'),
    },
    {
      name: 'import',
      method: 'POST',
      path: '/versions/p1/import',
      body: { mode: 'merge', nodes: [{ slug: 'imported', translations: { en: { title: 'Imported', bodyMd: 'From import.\n' } } }] },
      check: async (s) => assert.equal((await s.request('GET', '/versions/p1/topics/imported', { key: null })).status, 200),
    },
    {
      name: 'DELETE translation',
      method: 'DELETE',
      path: '/versions/p1/topics/a/translations/de',
    },
    {
      name: 'DELETE node',
      method: 'DELETE',
      path: '/versions/p1/nodes/b',
      check: async (s) => assert.equal((await s.request('GET', '/versions/p1/topics/b', { key: null })).status, 404),
    },
    {
      name: 'PATCH a draft to published',
      method: 'PATCH',
      path: '/versions/d2',
      body: { status: 'published' },
      check: async (s) => assert.equal((await s.request('GET', '/versions/d2/tree', { key: null })).status, 200),
    },
    {
      name: 'POST /versions with status published',
      method: 'POST',
      path: '/versions',
      body: { slug: 'born-published', label: 'Born published', languages: ['en'], status: 'published' },
    },
    {
      name: 'import-files real run',
      method: 'POST',
      path: '/versions/p1/import-files',
      body: {
        files: [
          { path: 'version.json', content: `${JSON.stringify({ label: 'From files', languages: ['en'], nav: ['only'] })}\n` },
          { path: 'en/only.md', content: '---\ntitle: Only\n---\nThe only topic.\n' },
        ],
      },
      check: async (s) => assert.equal((await s.request('GET', '/versions/p1/topics/only', { key: null })).body.bodyMd, 'The only topic.\n'),
    },
    {
      name: 'PATCH a published version to archived',
      method: 'PATCH',
      path: '/versions/p-arch',
      body: { status: 'archived' },
      check: async (s) => assert.equal((await s.request('GET', '/versions/p-arch/tree', { key: null })).status, 404),
    },
    {
      name: 'DELETE version',
      method: 'DELETE',
      path: '/versions/p-del',
      check: async (s) => assert.equal((await s.request('GET', '/versions/p-del/tree')).status, 404),
    },
  ];

  test('a change that would publish a version not yet published says so, and points at a publish request, not at a working copy', async () => {
    const created = await s.request('POST', '/versions', { body: { slug: 'p-new', status: 'published' } });
    assertError(created, 403, 'published_read_only', { version: 'p-new', hint: 'keep it a draft (status "draft"), then POST /versions/p-new/publish-request' });
    assert.match(created.body.error.message, /^Version "p-new" would be published by this change/);
    const published = await s.request('PATCH', '/versions/p1', { body: { label: 'P1, renamed' } });
    assertError(published, 403, 'published_read_only', { hint: 'POST /versions/p1/working-copy, edit the copy, then POST /versions/p1-wip/publish-request' });
  });

  for (const c of cases) {
    test(`locked write, ${c.name}: 403 published_read_only for a normal key, done with a publisher key`, async () => {
      const commits = s.commitCount();
      const refused = await s.request(c.method, c.path, { body: c.body });
      assertError(refused, 403, 'published_read_only');
      assert.equal(s.commitCount(), commits, 'the refused write makes no commit');
      const done = await s.request(c.method, c.path, { body: c.body, key: publisher });
      assert.equal(done.status, 200, done.text);
      assert.equal(s.commitCount(), commits + 1, 'the publisher\'s write is one commit');
      assert.equal(s.git('log', '-1', '--format=%an').trim(), 'publisher');
      await c.check?.(s);
    });
  }

  test('a dry run of import-files on a published version is allowed for a normal key and writes nothing', async () => {
    const commits = s.commitCount();
    const files = [
      { path: 'version.json', content: `${JSON.stringify({ label: 'Dry', languages: ['en'], nav: ['dry'] })}\n` },
      { path: 'en/dry.md', content: '---\ntitle: Dry\n---\nDry.\n' },
    ];
    const res = await s.request('POST', '/versions/p1/import-files?dryRun=true', { body: { files } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.dryRun, true);
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/p1/topics/dry', { key: null })).status, 404);
  });

  test('drafts stay editable with a normal key', async () => {
    const commits = s.commitCount();
    const put = await s.request('PUT', '/versions/d1/topics/x/translations/en', { body: { title: 'X, edited', bodyMd: 'Edited.\n' } });
    assert.equal(put.status, 200, put.text);
    const patch = await s.request('PATCH', '/versions/d1/nodes/x', { body: { icon: 'rocket' } });
    assert.equal(patch.status, 200, patch.text);
    const node = await s.request('POST', '/versions/d1/nodes', { body: { slug: 'z', translations: { en: { title: 'Z', bodyMd: 'Z.\n' } } } });
    assert.equal(node.status, 200, node.text);
    const reorder = await s.request('POST', '/versions/d1/reorder', { body: { items: [{ slug: 'z', parentSlug: null, sortOrder: 0 }] } });
    assert.equal(reorder.status, 200, reorder.text);
    const label = await s.request('PATCH', '/versions/d1', { body: { label: 'Draft, relabelled' } });
    assert.equal(label.status, 200, label.text);
    const del = await s.request('DELETE', '/versions/d1/nodes/y');
    assert.equal(del.status, 200, del.text);
    assert.equal(s.commitCount(), commits + 6);
    const topic = await s.request('GET', '/versions/d1/topics/x?language=en');
    assert.equal(topic.body.title, 'X, edited');
  });

  test('a duplicate of a published version (a new draft) is allowed for a normal key', async () => {
    const res = await s.request('POST', '/versions/p1/duplicate', { body: { slug: 'p1-copy' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.version.status, 'draft');
    // (p1 holds the single topic "only" since the import-files case above.)
    const edit = await s.request('PUT', '/versions/p1-copy/topics/only/translations/en', { body: { title: 'Copy edited' } });
    assert.equal(edit.status, 200, edit.text);
  });
});

describe('Publishing switched off', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'pub', { status: 'published' });
    await createNode(s, 'pub', { slug: 'a' });
    await createVersion(s, 'draft');
    await createNode(s, 'draft', { slug: 'a' });
  });
  after(() => s.close());

  test('whoami says publishViaPr false', async () => {
    const who = await s.request('GET', '/whoami');
    assert.equal(who.status, 200, who.text);
    assert.equal(who.body.publishViaPr, false);
  });

  test('POST working-copy is 409 publishing_disabled and creates nothing', async () => {
    const commits = s.commitCount();
    assertError(await s.request('POST', '/versions/pub/working-copy'), 409, 'publishing_disabled');
    assert.equal(s.commitCount(), commits);
    const all = (await s.request('GET', '/versions?includeWorkingCopies=true')).body as Array<{ slug: string }>;
    assert.equal(all.some((v) => v.slug === 'pub-wip'), false);
  });

  test('POST publish-request (and its dry run) is 409 publishing_disabled', async () => {
    assertError(await s.request('POST', '/versions/draft/publish-request'), 409, 'publishing_disabled');
    assertError(await s.request('POST', '/versions/draft/publish-request?dryRun=true'), 409, 'publishing_disabled');
  });

  test('published versions are writable with a normal key', async () => {
    const res = await s.request('PUT', '/versions/pub/topics/a/translations/en', { body: { title: 'Changed directly' } });
    assert.equal(res.status, 200, res.text);
  });

  test('the webhook answers 409 publishing_disabled', async () => {
    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const res = await postWebhook(s, body, { 'x-github-event': 'ping', 'x-hub-signature-256': sign(SECRET, body) });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'publishing_disabled');
  });
});

describe('Working copies and publish requests', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  let reader: string;
  before(async () => {
    gh = await new FakeGitHub().start();
    ({ s, publisher, reader } = await startWithPublisher(publishingEnv(gh), 'publisher'));
    await createVersion(s, 'live');
    await createNode(s, 'live', { slug: 'a' });
    assert.equal((await s.request('PATCH', '/versions/live', { body: { status: 'published' }, key: publisher })).status, 200);
    for (const slug of ['d-pulls', 'd-refs', 'd-base', 'd-cancel', 'd-hook', 'd-other', 'd-race']) {
      await createVersion(s, slug);
      await createNode(s, slug, { slug: 'a' });
    }
  });
  after(async () => {
    await s.close();
    await gh.stop();
  });

  describe('POST /versions/{version}/working-copy', () => {
    test('creates the hidden copy once, then returns it with existed true', async () => {
      const first = await s.request('POST', '/versions/live/working-copy');
      assert.equal(first.status, 201, first.text);
      assert.equal(first.body.version.slug, 'live-wip');
      const again = await s.request('POST', '/versions/live/working-copy');
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.existed, true);
      assert.equal(again.body.version.slug, 'live-wip');
      assert.equal(again.body.version.workingCopyOf, 'live');
    });

    test('the copy is listed with includeWorkingCopies=true for authenticated callers only', async () => {
      const withCopies = (await s.request('GET', '/versions?includeWorkingCopies=true')).body as Array<{ slug: string; hidden: boolean }>;
      assert.equal(withCopies.find((v) => v.slug === 'live-wip')?.hidden, true);
      const plain = (await s.request('GET', '/versions')).body as Array<{ slug: string }>;
      assert.equal(plain.some((v) => v.slug === 'live-wip'), false, 'not without the parameter');
      const anonymous = await s.request('GET', '/versions?includeWorkingCopies=true', { key: null });
      assert.equal(anonymous.status, 200);
      assert.equal((anonymous.body as Array<{ slug: string }>).some((v) => v.slug === 'live-wip'), false, 'never for anonymous callers');
      assert.equal((await s.request('GET', '/versions/live-wip/tree', { key: null })).status, 404);
    });

    test('of a draft is 409 invalid_state; of an unknown version 404', async () => {
      assertError(await s.request('POST', '/versions/d-other/working-copy'), 409, 'invalid_state');
      assertError(await s.request('POST', '/versions/no-such-version/working-copy'), 404, 'not_found');
    });

    test('DELETE working-copy discards it; then 404', async () => {
      await createVersion(s, 'live2');
      await createNode(s, 'live2', { slug: 'a' });
      assert.equal((await s.request('PATCH', '/versions/live2', { body: { status: 'published' }, key: publisher })).status, 200);
      assert.equal((await s.request('POST', '/versions/live2/working-copy')).status, 201);
      const commits = s.commitCount();
      const res = await s.request('DELETE', '/versions/live2/working-copy');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { ok: true, discarded: 'live2-wip' });
      assert.equal(s.commitCount(), commits + 1);
      const all = (await s.request('GET', '/versions?includeWorkingCopies=true')).body as Array<{ slug: string }>;
      assert.equal(all.some((v) => v.slug === 'live2-wip'), false);
      assertError(await s.request('DELETE', '/versions/live2/working-copy'), 404, 'not_found');
      assert.equal((await s.request('GET', '/versions/live2/tree', { key: null })).status, 200, 'the original stays');
    });
  });

  test('a publish request from a published version is 409 invalid_state', async () => {
    const calls = gh.calls.length;
    assertError(await s.request('POST', '/versions/live/publish-request'), 409, 'invalid_state');
    assert.equal(gh.calls.length, calls);
  });

  test('a publish request for an unknown version is 404', async () => {
    assertError(await s.request('POST', '/versions/no-such-version/publish-request'), 404, 'not_found');
  });

  for (const [what, method, path] of [
    ['opening the pull request', 'POST', /\/pulls$/],
    ['creating the branch', 'POST', /\/git\/refs$/],
  ] as const) {
    test(`GitHub refusing ${what} is 502 upstream_failed, the request is recorded as failed, and a new request then succeeds`, async () => {
      const target = path.source.includes('pulls') ? 'd-pulls' : 'd-refs';
      gh.failNext(method, path, 422, `Refused for the test (${target})`);
      const refused = await s.request('POST', `/versions/${target}/publish-request`);
      assertError(refused, 502, 'upstream_failed');
      const listed = (await s.request('GET', `/publish-requests?target=${target}`)).body.requests as RequestObj[];
      assert.equal(listed.length, 1);
      assert.equal(listed[0].status, 'failed');
      // No branch is left behind for a request that failed (pushed before the pull request was refused, it is deleted).
      assert.equal(gh.hasBranch(listed[0].branch), false);
      assert.equal(typeof listed[0].failure, 'string');
      assert.match(listed[0].failure!, new RegExp(`Refused for the test \\(${target}\\)`));
      // The call that failed is named: reading or branching is not opening the pull request.
      assert.match(refused.body.error.message, new RegExp(`^The pull request could not be opened on the repository host: POST /repos/[^ ]+${target.includes('pulls') ? '/pulls' : '/git/refs'} answered HTTP 422: `));
      const retry = await s.request('POST', `/versions/${target}/publish-request`);
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.body.request.status, 'open');
      assert.equal(gh.pull(retry.body.request.prNumber)?.state, 'open');
      const after = (await s.request('GET', `/publish-requests?target=${target}`)).body.requests as RequestObj[];
      assert.deepEqual(after.map((r) => r.status), ['open', 'failed'], 'newest first');
    });
  }

  test('GitHub not finding the base branch: the message names the call and what to check', async () => {
    gh.failNext('GET', /\/git\/ref\/heads/, 404, 'Not Found');
    const refused = await s.request('POST', '/versions/d-base/publish-request');
    assertError(refused, 502, 'upstream_failed');
    assert.match(refused.body.error.message, /: GET \/repos\/[^ ]+\/git\/ref\/heads\/main answered HTTP 404: Not Found[^(]* \(check HELP_GITHUB_REPO \(owner\/name\) and HELP_GITHUB_BASE_BRANCH, and that the token can see the repository\)$/);
  });

  describe('DELETE /publish-requests/{id}', () => {
    let request: RequestObj;
    before(async () => {
      const res = await s.request('POST', '/versions/d-cancel/publish-request');
      assert.equal(res.status, 201, res.text);
      request = res.body.request;
    });

    test('cancels an open request: closed, the pull request closed, the branch deleted', async () => {
      assert.ok(gh.hasBranch(request.branch));
      const res = await s.request('DELETE', `/publish-requests/${request.id}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.request.id, request.id);
      assert.equal(res.body.request.status, 'closed');
      assert.equal(typeof res.body.request.closedAt, 'string');
      assert.equal(gh.pull(request.prNumber!)!.state, 'closed');
      assert.equal(gh.pull(request.prNumber!)!.merged, false);
      assert.equal(gh.hasBranch(request.branch), false);
      assert.equal((await findRequest(s, request.id)).status, 'closed');
    });

    test('again is 409 request_not_open', async () => {
      assertError(await s.request('DELETE', `/publish-requests/${request.id}`), 409, 'request_not_open');
    });

    test('an unknown id is 404', async () => {
      assertError(await s.request('DELETE', `/publish-requests/${randomUUID()}`), 404, 'not_found');
    });

    test('after a cancel a new request for the target is allowed', async () => {
      const res = await s.request('POST', '/versions/d-cancel/publish-request');
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.request.status, 'open');
    });
  });

  describe('POST /webhooks/github', () => {
    let request: RequestObj;
    before(async () => {
      const res = await s.request('POST', '/versions/d-hook/publish-request');
      assert.equal(res.status, 201, res.text);
      request = res.body.request;
    });

    test('a pull_request event other than closed is acknowledged and changes nothing', async () => {
      const body = JSON.stringify({ action: 'synchronize', number: request.prNumber, pull_request: { number: request.prNumber, state: 'open', merged: false, merged_at: null, closed_at: null }, repository: { full_name: `${gh.owner}/${gh.repo}` } });
      const res = await postWebhook(s, body, { 'x-github-event': 'pull_request', 'x-hub-signature-256': sign(SECRET, body) });
      assert.equal(res.status, 200, res.text);
      assert.equal((await findRequest(s, request.id)).status, 'open');
    });

    test('a bad signature is 401 and changes nothing', async () => {
      gh.merge(request.prNumber!);
      const delivery = gh.webhookDelivery(request.prNumber!, 'not-the-secret');
      const res = await deliver(s, delivery);
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.error.code, 'invalid_signature');
      assert.equal((await findRequest(s, request.id)).status, 'open');
    });

    test('a delivery sent as a form (GitHub\'s default content type) is 415 naming the webhook setting to change', async () => {
      const delivery = gh.webhookDelivery(request.prNumber!, SECRET);
      const res = await postWebhook(s, `payload=${encodeURIComponent(delivery.body)}`, { ...delivery.headers, 'content-type': 'application/x-www-form-urlencoded' });
      assertError(res, 415, 'unsupported_media_type');
      assert.match(res.body.error.message, /in the webhook's settings on GitHub, set "Content type" to application\/json$/);
    });

    test('a delivery without a signature is 401', async () => {
      const delivery = gh.webhookDelivery(request.prNumber!, SECRET);
      const { 'x-hub-signature-256': _, ...headers } = delivery.headers;
      const res = await postWebhook(s, delivery.body, headers);
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.error.code, 'invalid_signature');
      assert.equal((await findRequest(s, request.id)).status, 'open');
    });

    test('a signed delivery about another repository\'s pull request of the same number is ignored', async () => {
      // One secret for an organization's webhook: its other repositories' pull requests are no concern of ours.
      const body = JSON.stringify({ action: 'closed', number: request.prNumber, pull_request: { number: request.prNumber, merged: false, merged_at: null, closed_at: '1999-01-01T00:00:00Z' }, repository: { full_name: 'someone-else/other-repo' } });
      const res = await postWebhook(s, body, { 'x-github-event': 'pull_request', 'x-hub-signature-256': sign(SECRET, body) });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.handled, null);
      assert.match(res.body.ignored, /someone-else\/other-repo/);
      assert.equal((await findRequest(s, request.id)).status, 'open');
    });

    test('an unsigned body is 401 whatever its shape: its signature is checked before its fields', async () => {
      for (const body of ['{"pull_request":"x"}', '{"action":5}', '[]']) {
        const res = await postWebhook(s, body, { 'x-github-event': 'pull_request' });
        assert.equal(res.status, 401, `${body}: ${res.text}`);
        assert.equal(res.body.error.code, 'invalid_signature');
      }
    });

    test('a signed body that was altered is 401', async () => {
      const delivery = gh.webhookDelivery(request.prNumber!, SECRET);
      const res = await postWebhook(s, delivery.body.replace('"merged":true', '"merged":false'), delivery.headers);
      assert.equal(res.status, 401, res.text);
    });

    test('ping is 200', async () => {
      // Signed over the exact bytes: pretty-printed, with non-ASCII text.
      const body = JSON.stringify({ zen: 'Design for failure — ünïcödé.', hook_id: 12345, hook: { type: 'Repository', events: ['pull_request'] }, repository: { full_name: `${gh.owner}/${gh.repo}` } }, null, 2);
      const res = await postWebhook(s, body, { 'x-github-event': 'ping', 'x-hub-signature-256': sign(SECRET, body), 'x-github-delivery': randomUUID() });
      assert.equal(res.status, 200, res.text);
    });

    test('pull_request closed and merged marks the request merged', async () => {
      const res = await deliver(s, gh.webhookDelivery(request.prNumber!, SECRET));
      assert.equal(res.status, 200, res.text);
      const r = await findRequest(s, request.id);
      assert.equal(r.status, 'merged');
      assert.equal(typeof r.mergedAt, 'string');
    });

    test('pull_request closed without merge marks the request closed', async () => {
      const opened = await s.request('POST', '/versions/d-other/publish-request');
      assert.equal(opened.status, 201, opened.text);
      const r0 = opened.body.request as RequestObj;
      await githubApi(gh, 'PATCH', `/pulls/${r0.prNumber}`, { state: 'closed' });
      const res = await deliver(s, gh.webhookDelivery(r0.prNumber!, SECRET));
      assert.equal(res.status, 200, res.text);
      const r = await findRequest(s, r0.id);
      assert.equal(r.status, 'closed');
      assert.equal(typeof r.closedAt, 'string');
      assert.equal(r.mergedAt, null);
    });
  });

  describe('GET /publish-requests', () => {
    test('needs a credential', async () => {
      assertError(await s.request('GET', '/publish-requests', { key: null }), 401, 'unauthorized');
    });

    test('needs help:write: a read-only key gets 403 insufficient_scope (also on the other publishing writes)', async () => {
      assertError(await s.request('GET', '/publish-requests', { key: reader }), 403, 'insufficient_scope');
      assertError(await s.request('POST', '/versions/d-other/publish-request?dryRun=true', { key: reader }), 403, 'insufficient_scope');
      assertError(await s.request('POST', '/versions/live/working-copy', { key: reader }), 403, 'insufficient_scope');
    });

    test('lists every request newest first, with the documented fields', async () => {
      const res = await s.request('GET', '/publish-requests');
      assert.equal(res.status, 200, res.text);
      const list = res.body.requests as RequestObj[];
      assert.ok(list.length >= 8, `all requests: ${list.length}`);
      for (let i = 1; i < list.length; i++) assert.ok(list[i - 1].createdAt >= list[i].createdAt, `newest first at ${i}: ${list[i - 1].createdAt} < ${list[i].createdAt}`);
      for (const r of list) {
        for (const field of ['id', 'targetSlug', 'prNumber', 'prUrl', 'status', 'summary', 'createdAt', 'updatedAt']) assert.ok(field in r, `${field} in ${JSON.stringify(r)}`);
      }
      const statuses = new Set(list.map((r) => r.status));
      for (const st of ['open', 'failed', 'closed', 'merged']) assert.ok(statuses.has(st), `a ${st} request is listed`);
    });

    test('?target= lists the requests of one target only', async () => {
      const res = await s.request('GET', '/publish-requests?target=d-cancel');
      assert.equal(res.status, 200, res.text);
      const list = res.body.requests as RequestObj[];
      assert.deepEqual(list.map((r) => [r.targetSlug, r.status]), [['d-cancel', 'open'], ['d-cancel', 'closed']]);
      const none = await s.request('GET', '/publish-requests?target=no-such-version');
      assert.deepEqual(none.body, { requests: [] });
    });
  });

  test('GitHub refusing to close the pull request: 502 upstream_failed and the request stays open', async () => {
    const [open] = ((await s.request('GET', '/publish-requests?target=d-cancel')).body.requests as RequestObj[]).filter((r) => r.status === 'open');
    assert.ok(open, 'd-cancel has an open request');
    gh.failNext('PATCH', /\/pulls\/\d+$/, 500, 'Server Error');
    assertError(await s.request('DELETE', `/publish-requests/${open.id}`), 502, 'upstream_failed');
    assert.equal((await findRequest(s, open.id)).status, 'open');
    assert.equal(gh.pull(open.prNumber!)!.state, 'open');
    const retry = await s.request('DELETE', `/publish-requests/${open.id}`);
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.body.request.status, 'closed');
  });

  test('two simultaneous publish requests for one target: one is opened, the other is 409 request_open', async () => {
    const answers = await Promise.all([s.request('POST', '/versions/d-race/publish-request'), s.request('POST', '/versions/d-race/publish-request')]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 409], answers.map((r) => r.text).join('\n'));
    assert.equal(answers.find((r) => r.status === 409)!.body.error.code, 'request_open');
    const listed = (await s.request('GET', '/publish-requests?target=d-race')).body.requests as RequestObj[];
    assert.deepEqual(listed.map((r) => r.status), ['open']);
    assert.equal(gh.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/pulls') && c.body?.title === 'Publish d-race').length, 1, 'one pull request');
  });

  test('a working copy that changes nothing is refused a request, and its dry run says so', async () => {
    // live-wip is fresh here: made from live, not edited.
    assert.equal((await s.request('POST', '/versions/live/working-copy')).status < 300, true);
    const dry = await s.request('POST', '/versions/live-wip/publish-request?dryRun=true');
    assert.equal(dry.status, 200, dry.text);
    assert.ok(dry.body.warnings.some((w: { message: string }) => w.message === 'nothing to publish: live-wip holds what live has, and a request would be refused'), dry.text);
    const calls = gh.calls.length;
    const res = await s.request('POST', '/versions/live-wip/publish-request');
    assertError(res, 409, 'invalid_state', { version: 'live-wip' });
    assert.match(res.body.error.message, /holds what live has: there is nothing to publish/);
    assert.equal(gh.calls.length, calls, 'GitHub is not called');
  });

  test('cancelling a request whose pull request the host no longer has closes it, saying so, instead of blocking its target', async () => {
    const [open] = ((await s.request('GET', '/publish-requests?target=d-race')).body.requests as RequestObj[]).filter((r) => r.status === 'open');
    gh.failNext('PATCH', /\/pulls\/\d+$/, 404, 'Not Found');
    const res = await s.request('DELETE', `/publish-requests/${open.id}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.request.status, 'closed');
    assert.equal(res.body.request.failure, `pull request #${open.prNumber} was not found on the repository host when cancelled`);
    const again = await s.request('POST', '/versions/d-race/publish-request?dryRun=true');
    assert.equal(again.status, 200, 'the target takes a new request');
  });

  test('a real import-files run of the target, once the pull request is merged, deletes its working copy in the same commit and marks the request imported', async () => {
    const edit = await s.request('PUT', '/versions/live-wip/topics/a/translations/en', { body: { title: 'A, reviewed', bodyMd: 'Reviewed.\n' } });
    assert.equal(edit.status, 200, edit.text);
    const opened = await s.request('POST', '/versions/live-wip/publish-request');
    assert.equal(opened.status, 201, opened.text);
    const request = opened.body.request as RequestObj;
    const files = [...gh.files(request.branch)].filter(([p]) => p.startsWith('docs/live/')).map(([path, content]) => ({ path, content }));

    const commits = s.commitCount();
    assertError(await s.request('POST', '/versions/live/import-files', { body: { files } }), 403, 'published_read_only');
    assert.equal(s.commitCount(), commits);
    assert.equal((await findRequest(s, request.id)).status, 'open');

    // While the pull request is open, an import completes nothing and keeps the copy (a dry run tells).
    const early = await s.request('POST', '/versions/live/import-files?dryRun=true', { body: { files }, key: publisher });
    assert.equal(early.status, 200, early.text);
    assert.equal(early.body.requestsImported, 0);
    assert.equal(early.body.workingCopyDeleted, false);
    assert.ok(early.body.warnings.some((w: { message: string }) => /^working copy live-wip is kept: this import completes no publish request made from it/.test(w.message)), early.text);
    gh.merge(request.prNumber!);
    // Merged (the webhook has not said so yet: the host is asked), a dry run says what the import will do.
    const dry = await s.request('POST', '/versions/live/import-files?dryRun=true', { body: { files }, key: publisher });
    assert.deepEqual([dry.body.requestsImported, dry.body.workingCopyDeleted, dry.body.warnings], [1, true, []]);

    const res = await s.request('POST', '/versions/live/import-files', { body: { files }, key: publisher });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.dryRun, false);
    assert.equal(res.body.workingCopyDeleted, true);
    assert.equal(res.body.requestsImported, 1);
    assert.deepEqual(res.body.version, { slug: 'live', exists: true, status: 'published', isLatest: false });
    assert.equal(s.commitCount(), commits + 1, 'one commit');
    const changed = s.git('show', '--name-status', '--no-renames', '--format=', 'HEAD').trim().split('\n');
    assert.ok(changed.includes('M\tlive/en/a.md'), changed.join(', '));
    assert.ok(changed.includes('D\tlive-wip/version.json'), changed.join(', '));
    const r = await findRequest(s, request.id);
    assert.equal(r.status, 'imported');
    assert.equal(typeof r.importedAt, 'string');
    assert.equal((await s.request('GET', '/versions/live/topics/a', { key: null })).body.title, 'A, reviewed');
    // The pull request's files carry no stamps: the service's file is the repository's, byte for byte, so the
    // next pull request does not rewrite it for a stamp; the translation changed in live when it was imported.
    assert.equal(s.git('show', 'HEAD:live/en/a.md'), gh.files(request.branch).get('docs/live/en/a.md'));
    assert.doesNotMatch(gh.files(request.branch).get('docs/live/en/a.md')!, /updatedAt/);
    assert.ok((await s.request('GET', '/versions/live/topics/a/translations/en')).body.updatedAt > edit.body.translation.updatedAt);
    const all = (await s.request('GET', '/versions?includeWorkingCopies=true')).body as Array<{ slug: string }>;
    assert.equal(all.some((v) => v.slug === 'live-wip'), false);
    assertError(await s.request('DELETE', '/versions/live/working-copy'), 404, 'not_found');
  });

  test('a working copy edited after its request was made is kept when the request is imported, saying why', async () => {
    assert.equal((await s.request('POST', '/versions/live/working-copy')).status, 201);
    assert.equal((await s.request('PUT', '/versions/live-wip/topics/a/translations/en', { body: { title: 'A, first', bodyMd: 'First.\n' } })).status, 200);
    const request = (await s.request('POST', '/versions/live-wip/publish-request')).body.request as RequestObj;
    const files = [...gh.files(request.branch)].filter(([p]) => p.startsWith('docs/live/')).map(([path, content]) => ({ path, content }));
    // Edited again once the pull request was opened: the edit is not in it.
    assert.equal((await s.request('PUT', '/versions/live-wip/topics/a/translations/en', { body: { title: 'A, second', bodyMd: 'Second.\n' } })).status, 200);
    gh.merge(request.prNumber!);
    const res = await s.request('POST', '/versions/live/import-files', { body: { files }, key: publisher });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.requestsImported, 1);
    assert.equal(res.body.workingCopyDeleted, false);
    assert.ok(res.body.warnings.some((w: { message: string }) => w.message === `working copy live-wip is kept: it changed after publish request ${request.id} was made, and those edits are not in this import: open another publish request from it, or discard it`), res.text);
    assert.equal((await s.request('GET', '/versions/live-wip/topics/a')).body.title, 'A, second', 'the later edit is still there');
    assert.equal((await s.request('GET', '/versions/live/topics/a', { key: null })).body.title, 'A, first');
    assert.equal((await findRequest(s, request.id)).status, 'imported');
  });

  test('a dry run from a working copy whose original changed since it was made warns that publishing it replaces those changes', async () => {
    // live-wip is still there (kept above); a publisher fixes live directly.
    assert.equal((await s.request('PUT', '/versions/live/topics/a/translations/en', { body: { title: 'A, hotfix', bodyMd: 'Fixed live.\n' }, key: publisher })).status, 200);
    const dry = await s.request('POST', '/versions/live-wip/publish-request?dryRun=true');
    assert.equal(dry.status, 200, dry.text);
    assert.ok(dry.body.warnings.some((w: { message: string }) => w.message === 'live changed after live-wip was made (a): publishing the copy replaces those changes unless it has them too'), dry.text);
  });

  test("a request's files carry no stamps: a topic edit changes no line of version.json, a label edit only its line", async () => {
    await createVersion(s, 'stamped');
    await createNode(s, 'stamped', { slug: 'a' });
    assert.equal((await s.request('PATCH', '/versions/stamped', { body: { status: 'published' }, key: publisher })).status, 200);
    const targetFile = (await s.request('GET', '/versions/stamped/export?format=files')).body.files.find((f: { path: string }) => f.path === 'version.json').content;
    // The copy is made later, and only a topic changes.
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await s.request('POST', '/versions/stamped/working-copy')).status, 201);
    assert.equal((await s.request('PUT', '/versions/stamped-wip/topics/a/translations/en', { body: { title: 'A', bodyMd: 'Edited.\n' } })).status, 200);
    const dry = await s.request('POST', '/versions/stamped-wip/publish-request?dryRun=true');
    assert.equal(dry.status, 200, dry.text);
    for (const f of dry.body.files as Array<{ path: string; content: string }>) assert.doesNotMatch(f.content, /updatedAt|createdAt/, f.path);
    assert.ok((dry.body.files as Array<{ path: string }>).every((f) => !f.path.includes('/.stamps/')));
    const versionFile = dry.body.files.find((f: { path: string }) => f.path.endsWith('/version.json')).content;
    assert.equal(versionFile, targetFile, 'version.json as the live version has it, to the letter');
    // A change to what version.json says (the label) changes that line only.
    assert.equal((await s.request('PATCH', '/versions/stamped-wip', { body: { label: 'Stamped, relabelled' } })).status, 200);
    const relabelled = (await s.request('POST', '/versions/stamped-wip/publish-request?dryRun=true')).body.files.find((f: { path: string }) => f.path.endsWith('/version.json')).content;
    assert.equal(relabelled, targetFile.replace(/"label": "[^"]*"/, '"label": "Stamped, relabelled"'));
  });

});

describe('Publish requests across restarts', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  const env = () => publishingEnv(gh);
  before(async () => {
    gh = await new FakeGitHub().start();
    ({ s, publisher } = await startWithPublisher(env(), 'publisher'));
    for (const slug of ['r1', 'c1', 'c2', 'm1', 'm2', 'm3', 'i1', 'i2']) {
      await createVersion(s, slug);
      await createNode(s, slug, { slug: 'a', translations: { en: { title: 'A', bodyMd: `A of ${slug}.\n` } } });
    }
  });
  after(async () => {
    await s.close();
    await gh.stop();
  });

  test('an open request survives a restart; its merge and import still work', async () => {
    const opened = await s.request('POST', '/versions/r1/publish-request');
    assert.equal(opened.status, 201, opened.text);
    const request = opened.body.request as RequestObj;
    s = await s.restart();
    const listed = await findRequest(s, request.id);
    assert.equal(listed.status, 'open');
    assert.equal(listed.prNumber, request.prNumber);
    assert.equal(listed.prUrl, request.prUrl);
    assertError(await s.request('POST', '/versions/r1/publish-request'), 409, 'request_open');

    gh.merge(request.prNumber!);
    const hook = await deliver(s, gh.webhookDelivery(request.prNumber!, SECRET));
    assert.equal(hook.status, 200, hook.text);
    assert.equal((await findRequest(s, request.id)).status, 'merged');

    const files = [...gh.files('main')].filter(([p]) => p.startsWith('docs/r1/')).map(([path, content]) => ({ path, content }));
    const imported = await s.request('POST', '/versions/r1/import-files', { body: { files }, key: publisher });
    assert.equal(imported.status, 200, imported.text);
    assert.equal(imported.body.requestsImported, 1);
    assert.equal(imported.body.version.status, 'published');
    assert.equal((await findRequest(s, request.id)).status, 'imported');
    const topic = await s.request('GET', '/versions/r1/topics/a', { key: null });
    assert.equal(topic.status, 200, topic.text);
    assert.equal(topic.body.bodyMd, 'A of r1.\n');
  });

  test('the import commit names the requests it completes; a stop before publish-requests.json follows is made good at start', async () => {
    const opened = await s.request('POST', '/versions/i1/publish-request');
    assert.equal(opened.status, 201, opened.text);
    const request = opened.body.request as RequestObj;
    gh.merge(request.prNumber!);
    assert.equal((await deliver(s, gh.webhookDelivery(request.prNumber!, SECRET))).status, 200);
    const files = [...gh.files('main')].filter(([p]) => p.startsWith('docs/i1/')).map(([path, content]) => ({ path, content }));
    const res = await s.request('POST', '/versions/i1/import-files', { body: { files }, key: publisher });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.requestsImported, 1);
    // The record is in the commit itself, as a trailer git understands.
    const trailer = s.git('log', '-1', '--format=%(trailers:key=Publish-Requests-Imported,valueonly)').trim();
    assert.equal(trailer, request.id);
    const commitMs = Number(s.git('log', '-1', '--format=%ct').trim()) * 1000;
    // Recorded as the import answered: just after its commit (which git dates to the whole second).
    const importedAt = Date.parse((await findRequest(s, request.id)).importedAt!);
    assert.ok(importedAt >= commitMs && importedAt < commitMs + 5000, `imported at ${importedAt}, committed at ${commitMs}`);

    // Stop, and leave publish-requests.json as a stop between the commit and its update would.
    const dataDir = s.dataDir;
    await s.service.close();
    const file = join(dataDir, 'publish-requests.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { requests: Array<Record<string, unknown>> };
    Object.assign(stored.requests.find((r) => r.id === request.id)!, { status: 'merged', importedAt: null });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`);
    s = await startTestServer({ dataDir, env: env() });
    const again = await findRequest(s, request.id);
    assert.equal(again.status, 'imported');
    // Dated by the commit (whole seconds), not by the restart. (Not compared with the first record's
    // second: the import may answer in the second after the one its commit is dated.)
    assert.equal(Date.parse(again.importedAt!), commitMs);
    // A request for another version is left as it is.
    const other = await s.request('POST', '/versions/i2/publish-request');
    assert.equal(other.status, 201, other.text);
    s = await s.restart();
    assert.equal((await findRequest(s, other.body.request.id)).status, 'open');
  });

  test('requests recorded but not confirmed before a crash are reconciled at start', async () => {
    const opened = await s.request('POST', '/versions/c1/publish-request');
    assert.equal(opened.status, 201, opened.text);
    const request = opened.body.request as RequestObj;

    // Stop, and leave the stored requests as a crash between recording and opening would.
    const dataDir = s.dataDir;
    await s.service.close();
    const file = join(dataDir, 'publish-requests.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { requests: Array<Record<string, unknown>> };
    const c1 = stored.requests.find((r) => r.id === request.id)!;
    Object.assign(c1, { status: 'opening', prNumber: null, prUrl: null });
    const lostId = randomUUID();
    stored.requests.push({ ...c1, id: lostId, targetSlug: 'c2', sourceSlug: 'c2', branch: 'publish/c2/20240101T000000000Z', status: 'opening', prNumber: null, prUrl: null });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`);
    s = await startTestServer({ dataDir, env: env() });

    // Reconciled in the background, without anyone asking: watch the stored file.
    const deadline = Date.now() + 2000;
    let current: Array<Record<string, unknown>> = [];
    for (;;) {
      current = (JSON.parse(readFileSync(file, 'utf8')) as { requests: Array<Record<string, unknown>> }).requests;
      if (current.every((r) => r.status !== 'opening')) break;
      if (Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const statusOf = (id: string) => current.find((r) => r.id === id)?.status;
    assert.deepEqual([statusOf(request.id), statusOf(lostId)], ['open', 'failed'], 'reconciled within 2 s of the start');

    const found = await findRequest(s, request.id);
    assert.equal(found.status, 'open');
    assert.equal(found.prNumber, request.prNumber);
    assert.equal(found.prUrl, request.prUrl);
    const lost = await findRequest(s, lostId);
    assert.equal(lost.status, 'failed');
    assert.equal(lost.failure, 'interrupted before the pull request was opened');
    // The reconciled request is open again: it blocks a second one and can be cancelled.
    assertError(await s.request('POST', '/versions/c1/publish-request'), 409, 'request_open');
    const cancelled = await s.request('DELETE', `/publish-requests/${request.id}`);
    assert.equal(cancelled.status, 200, cancelled.text);
    // The failed one does not block its target.
    const fresh = await s.request('POST', '/versions/c2/publish-request');
    assert.equal(fresh.status, 201, fresh.text);
  });

  test('without the webhook, a list refreshes open requests last checked more than 30 s ago from GitHub', async () => {
    const opened: Record<string, RequestObj> = {};
    for (const slug of ['m1', 'm2', 'm3']) {
      const res = await s.request('POST', `/versions/${slug}/publish-request`);
      assert.equal(res.status, 201, res.text);
      opened[slug] = res.body.request;
    }
    // On GitHub: m1 merged, m2 closed unmerged, m3 still open; no webhook is delivered.
    gh.merge(opened.m1.prNumber!);
    await githubApi(gh, 'PATCH', `/pulls/${opened.m2.prNumber}`, { state: 'closed' });
    // A fresh request is trusted for 30 s: the list does not see the merge yet.
    assert.equal((await findRequest(s, opened.m1.id)).status, 'open');

    // Age the requests by a minute (the server stopped), as if 30 s had passed.
    const dataDir = s.dataDir;
    await s.service.close();
    const file = join(dataDir, 'publish-requests.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { requests: Array<Record<string, unknown>> };
    const past = new Date(Date.now() - 60_000).toISOString();
    for (const r of stored.requests) if (Object.values(opened).some((o) => o.id === r.id)) Object.assign(r, { createdAt: past, checkedAt: null });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`);
    s = await startTestServer({ dataDir, env: env() });

    const m1 = await findRequest(s, opened.m1.id);
    assert.equal(m1.status, 'merged');
    assert.equal(typeof m1.mergedAt, 'string');
    const m2 = await findRequest(s, opened.m2.id);
    assert.equal(m2.status, 'closed');
    assert.equal(typeof m2.closedAt, 'string');
    assert.equal((await findRequest(s, opened.m3.id)).status, 'open');

    // A host slow to answer holds a list a few seconds at most: it answers with what it has.
    const again = s.dataDir;
    await s.service.close();
    const aged = JSON.parse(readFileSync(file, 'utf8')) as { requests: Array<Record<string, unknown>> };
    for (const r of aged.requests) if (r.id === opened.m3.id) Object.assign(r, { checkedAt: past });
    writeFileSync(file, `${JSON.stringify(aged, null, 2)}\n`);
    s = await startTestServer({ dataDir: again, env: env() });
    gh.delayNext('GET', new RegExp(`/pulls/${opened.m3.prNumber}$`), 12_000);
    const started = performance.now();
    const listed = await s.request('GET', '/publish-requests?target=m3', { timeout: 20_000 });
    assert.equal(listed.status, 200, listed.text);
    assert.ok(performance.now() - started < 9_000, `answered while the host was still silent (${Math.round(performance.now() - started)} ms)`);
    assert.equal((listed.body.requests as RequestObj[])[0].status, 'open');
  });
});

describe('Publishing to another base branch and folder', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  before(async () => {
    gh = await new FakeGitHub('acme', 'handbook', 'ghp_other_token', 'trunk').start();
    ({ s } = await startWithPublisher(publishingEnv(gh, { HELP_GITHUB_BASE_BRANCH: 'trunk', HELP_GITHUB_PATH: 'site/{version}/content' }), 'publisher'));
    await createVersion(s, 'v9', { languages: ['en'] });
    await createNode(s, 'v9', { slug: 'hello' });
  });
  after(async () => {
    await s.close();
    await gh.stop();
  });

  test('HELP_GITHUB_PATH and HELP_GITHUB_BASE_BRANCH place the files and aim the pull request', async () => {
    const dry = await s.request('POST', '/versions/v9/publish-request?dryRun=true');
    assert.equal(dry.status, 200, dry.text);
    assert.deepEqual((dry.body.files as ContentFile[]).map((f) => f.path).sort(), ['site/v9/content/en/hello.md', 'site/v9/content/version.json']);
    const res = await s.request('POST', '/versions/v9/publish-request');
    assert.equal(res.status, 201, res.text);
    const pr = gh.pull(res.body.request.prNumber)!;
    assert.equal(pr.base, 'trunk');
    assert.equal(pr.title, 'Publish v9');
    const files = gh.files(res.body.request.branch);
    assert.match(files.get('site/v9/content/en/hello.md')!, /Body of hello/);
    assert.equal([...files.keys()].some((p) => p.startsWith('docs/')), false);
  });
});

describe('Publishing configuration', () => {
  const base = { LOG_LEVEL: 'silent', HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: 'acme/help-content', HELP_GITHUB_TOKEN: 'ghp_x' };

  test('with the flag on, a missing repository or token refuses to load', () => {
    const { HELP_GITHUB_REPO: _r, ...noRepo } = base;
    const { HELP_GITHUB_TOKEN: _t, ...noToken } = base;
    assert.throws(() => loadConfig(noRepo), ConfigError);
    assert.throws(() => loadConfig(noToken), ConfigError);
    assert.throws(() => loadConfig({ ...base, HELP_GITHUB_REPO: 'not-owner-slash-name' }), ConfigError);
    // A token that could not be sent as a header is refused at start, named and never quoted.
    for (const token of ['ghp_secret_part\nrest', 'ghp secret', ' ']) {
      assert.throws(() => loadConfig({ ...base, HELP_GITHUB_TOKEN: token }), (err: Error) => err instanceof ConfigError && /HELP_GITHUB_TOKEN/.test(err.message) && !err.message.includes('secret'));
    }
  });

  test('defaults: base branch main, folder docs/{version}; off by default', () => {
    const on = loadConfig(base).publishing!;
    assert.equal(on.owner, 'acme');
    assert.equal(on.repo, 'help-content');
    assert.equal(on.baseBranch, 'main');
    assert.equal(on.pathPattern, 'docs/{version}');
    assert.equal(loadConfig({ LOG_LEVEL: 'silent' }).publishing, null);
  });
});

describe('The OpenAPI document', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('lists the publishing endpoints', async () => {
    const res = await s.request('GET', '/openapi.json', { key: null });
    assert.equal(res.status, 200);
    const documented = Object.entries(res.body.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`));
    for (const e of [
      'post /versions/{version}/working-copy',
      'delete /versions/{version}/working-copy',
      'post /versions/{version}/publish-request',
      'get /publish-requests',
      'delete /publish-requests/{id}',
      'post /webhooks/github',
      'get /cli/help-push.mjs',
    ]) {
      assert.ok(documented.includes(e), `${e} is missing`);
    }
    const op = res.body.paths['/versions/{version}/publish-request'].post;
    for (const status of ['200', '201', '409', '502']) assert.ok(status in op.responses, `publish-request documents ${status}`);
    const params = (op.parameters ?? []) as Array<{ name: string; in: string }>;
    assert.ok(params.some((p) => p.name === 'dryRun' && p.in === 'query'), 'publish-request documents dryRun');
    const listParams = (res.body.paths['/publish-requests'].get.parameters ?? []) as Array<{ name: string; in: string }>;
    assert.ok(listParams.some((p) => p.name === 'target' && p.in === 'query'), '/publish-requests documents target');
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * Starts a server whose data directory already holds a publisher key (issued before the start, as
 * an administrator would), so the key is known from the first request.
 */
async function startWithPublisher(env: Record<string, string>, name: string): Promise<{ s: TestServer; publisher: string; reader: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
  const publisher = (await createKey(new KeyFile(dataDir), { name, publisher: true })).key;
  const reader = (await createKey(new KeyFile(dataDir), { name: 'reader', scopes: 'help:read' })).key;
  const s = await startTestServer({ dataDir, env });
  return { s, publisher, reader };
}

async function findRequest(s: TestServer, id: string): Promise<RequestObj> {
  const res = await s.request('GET', '/publish-requests');
  assert.equal(res.status, 200, res.text);
  const r = (res.body.requests as RequestObj[]).find((x) => x.id === id);
  assert.ok(r, `request ${id} is listed`);
  return r;
}

/** GitHub's X-Hub-Signature-256 of a body. */
const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Posts a webhook delivery as GitHub does: no key, the body as is. */
function postWebhook(s: TestServer, body: string, headers: Record<string, string>): Promise<TestResponse> {
  return s.request('POST', '/webhooks/github', { key: null, raw: body, headers: { 'content-type': 'application/json', ...headers } });
}

const deliver = (s: TestServer, d: { body: string; headers: Record<string, string> }) => postWebhook(s, d.body, d.headers);

/** Calls the fake GitHub's REST API as any client would. */
async function githubApi(gh: FakeGitHub, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${gh.url}/repos/${gh.owner}/${gh.repo}${path}`, {
    method,
    headers: { authorization: `token ${gh.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Puts files on the fake's main branch, as a merged pull request would. */
async function seedMain(gh: FakeGitHub, files: ContentFile[]): Promise<void> {
  const ref = await githubApi(gh, 'GET', '/git/ref/heads/main');
  const commit = await githubApi(gh, 'GET', `/git/commits/${ref.object.sha}`);
  const tree = await githubApi(gh, 'POST', '/git/trees', { base_tree: commit.tree.sha, tree: files.map((f) => ({ path: f.path, mode: '100644', type: 'blob', content: f.content })) });
  const seeded = await githubApi(gh, 'POST', '/git/commits', { message: 'Seed the content', tree: tree.sha, parents: [ref.object.sha] });
  await githubApi(gh, 'POST', '/git/refs', { ref: 'refs/heads/seed', sha: seeded.sha });
  const pr = await githubApi(gh, 'POST', '/pulls', { title: 'Seed', head: 'seed', base: 'main' });
  gh.merge(pr.number);
}

/** The parts of a pull request body, by language: the text under each heading that names a language. */
function bodySections(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  let current: string | null = null;
  for (const line of body.split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      const m = /\b(en|de)\b/.exec(heading[1]);
      current = m ? m[1] : null;
      if (current) out[current] = '';
      continue;
    }
    if (current) out[current] += `${line}\n`;
  }
  return out;
}

/** Writes a branch's files (path → content) into a new temporary folder. */
function writeFolder(files: Map<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'help-checkout-'));
  writeFiles(dir, files);
  return dir;
}

/** Runs node without blocking the event loop (the server under test runs in this process). */
function runNode(args: string[], opts: { cwd: string; env: Record<string, string> }): Promise<Run> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...opts.env };
  return runProcess(process.execPath, args, { cwd: opts.cwd, env, timeout: 60_000 });
}

describe('A repository host that cannot be reached', () => {
  test('a publish request is 502 saying the host could not be reached and that it can be made again, not that it answered 500', async () => {
    // Port 9 on the loopback: nothing listens there, so the connection is refused at once.
    const s = await startTestServer({ env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: 'acme/help', HELP_GITHUB_TOKEN: 'ghp_test', HELP_GITHUB_API_URL: 'http://127.0.0.1:9', HELP_GITHUB_WEBHOOK_SECRET: SECRET } });
    try {
      await createVersion(s, 'offline');
      await createNode(s, 'offline', { slug: 'a' });
      const res = await s.request('POST', '/versions/offline/publish-request', { timeout: 30_000 });
      assertError(res, 502, 'upstream_failed');
      assert.match(res.body.error.message, /^The pull request could not be opened on the repository host: could not be reached \(.*\); nothing was changed there, and the request can be made again$/);
      assert.doesNotMatch(res.body.error.message, /HTTP 500/);
    } finally {
      await s.close();
    }
  });
});
