import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseMarkdownFile } from '../src/content/markdown-file.ts';
import { ProblemList } from '../src/content/problems.ts';
import { assertError } from './helpers/assertions.ts';
import { Clients, content, toolError } from './helpers/mcp.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

/** The Markdown file of a translation as git holds it at a revision, parsed. */
function fileAt(s: TestServer, revision: string, path: string) {
  const md = parseMarkdownFile(path, s.git('show', `${revision}:${path}`), new ProblemList());
  assert.ok(md, `${path} at ${revision} parses`);
  return md;
}

const head = (s: TestServer) => s.git('rev-parse', 'main').trim();

describe('History and rollback', () => {
  let s: TestServer;
  /** The revisions of each step of the install topic's life. */
  const rev: Record<string, string> = {};

  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1');
    await createNode(s, 'v1', { slug: 'guide', kind: 'section', translations: { en: { title: 'Guide' } } });
    await createNode(s, 'v1', { slug: 'install', parentSlug: 'guide', translations: { en: { title: 'Install', bodyMd: 'Download it.\n\nRun it.\n' }, de: { title: 'Installieren', bodyMd: 'Laden.\n' } } });
    rev.created = head(s);
    assert.equal((await putTranslation(s, 'v1', 'install', 'en', { title: 'Install', bodyMd: 'Download the installer.\n\nRun it.\n' })).status, 200);
    rev.updated = head(s);
    assert.equal((await s.request('PATCH', '/versions/v1/nodes/install', { body: { parentSlug: null } })).status, 200);
    rev.moved = head(s);
    assert.equal((await s.request('PATCH', '/versions/v1/nodes/install', { body: { slug: 'setup' } })).status, 200);
    rev.renamed = head(s);
    assert.equal((await s.request('DELETE', '/versions/v1/nodes/setup')).status, 200);
    rev.deleted = head(s);
  });
  after(() => s.close());

  test('a node\'s history lists create, update, move, rename and delete, newest first, following the rename', async () => {
    const res = await s.request('GET', '/versions/v1/nodes/setup/history');
    assert.equal(res.status, 200, res.text);
    const nodeLevel = res.body.history.filter((e: any) => e.language === null).map((e: any) => [e.change, e.revision, e.from]);
    assert.deepEqual(nodeLevel, [
      ['deleted', rev.deleted, undefined],
      ['renamed', rev.renamed, 'install'],
      ['moved', rev.moved, undefined],
      ['created', rev.created, undefined],
    ]);
    const en = (await s.request('GET', '/versions/v1/nodes/setup/history?language=en')).body.history.filter((e: any) => e.language === 'en');
    assert.deepEqual(en.map((e: any) => [e.change, e.revision, e.slug]), [
      ['deleted', rev.deleted, 'setup'],
      ['renamed', rev.renamed, 'setup'],
      ['updated', rev.updated, 'install'],
      ['created', rev.created, 'install'],
    ]);
    for (const e of res.body.history) {
      assert.equal(e.author, 'writer');
      assert.equal(e.message, s.git('log', '-1', '--format=%s', e.revision).trim());
      assert.equal(Date.parse(e.at), Number(s.git('log', '-1', '--format=%at', e.revision).trim()) * 1000);
    }
    // The old slug finds the same node.
    assert.deepEqual((await s.request('GET', '/versions/v1/nodes/install/history')).body.history, res.body.history);
  });

  test('the version\'s history lists every commit that touched its folder', async () => {
    const all: any[] = [];
    let cursor = '';
    for (;;) {
      const res = await s.request('GET', `/versions/v1/history?limit=3${cursor}`);
      assert.equal(res.status, 200, res.text);
      all.push(...res.body.history);
      if (res.body.next === null) break;
      assert.match(res.headers.get('link') ?? '', /rel="next"/);
      cursor = `&cursor=${res.body.next}`;
    }
    assert.deepEqual(all.map((e) => e.revision), s.git('log', '--format=%H', 'main', '--', 'v1').trim().split('\n'));
    assert.equal(all.at(-1).change, 'created');
  });

  test('a read at an old revision equals the file git holds at that commit', async () => {
    for (const [step, path] of [['created', 'v1/en/install.md'], ['updated', 'v1/en/install.md']] as const) {
      const res = await s.request('GET', `/versions/v1/topics/install?language=en&revision=${rev[step]}`);
      assert.equal(res.status, 200, res.text);
      const file = fileAt(s, rev[step], path);
      assert.equal(res.body.bodyMd, file.bodyMd);
      assert.equal(res.body.title, file.title);
      assert.equal(res.body.revision, rev[step]);
      assert.equal(res.body.parentSlug, step === 'created' ? 'guide' : 'guide');
    }
    const de = await s.request('GET', `/versions/v1/topics/install/translations/de?revision=${rev.updated.slice(0, 10)}`);
    assert.equal(de.status, 200, de.text);
    assert.equal(de.body.bodyMd, fileAt(s, rev.updated, 'v1/de/install.md').bodyMd);
    // After the rename the file is setup.md; the old slug is followed by the node's id.
    const renamed = await s.request('GET', `/versions/v1/topics/install?language=en&revision=${rev.renamed}`);
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.slug, 'setup');
    assert.equal(renamed.body.bodyMd, fileAt(s, rev.renamed, 'v1/en/setup.md').bodyMd);
  });

  test('an unknown revision, or one where the node did not exist, is a 404 with its own code', async () => {
    assertError(await s.request('GET', `/versions/v1/topics/install?revision=${'0'.repeat(40)}`), 404, 'unknown_revision');
    assertError(await s.request('GET', `/versions/v1/topics/setup?revision=${rev.deleted}`), 404, 'not_in_revision');
    assertError(await s.request('GET', '/versions/v1/topics/install?revision=xyz'), 400, 'validation_failed');
  });

  test('a diff shows what a revision changed in the Markdown file, as text and as hunks', async () => {
    const res = await s.request('GET', `/versions/v1/nodes/setup/history/${rev.updated}/diff?language=en`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.previousRevision, rev.created);
    assert.match(res.body.unified, /^-Download it\.$/m);
    assert.match(res.body.unified, /^\+Download the installer\.$/m);
    const lines = res.body.hunks.flatMap((h: any) => h.lines);
    assert.deepEqual(lines.filter((l: any) => l.type !== 'context'), [
      { type: 'removed', text: 'Download it.' },
      { type: 'added', text: 'Download the installer.' },
    ]);
    const created = await s.request('GET', `/versions/v1/nodes/setup/history/${rev.created}/diff?language=de`);
    assert.equal(created.body.previousRevision, null);
    assert.equal(created.body.oldPath, null);
    assert.ok(created.body.hunks[0].lines.every((l: any) => l.type === 'added'));
  });

  test('restore brings a deleted node back with its translations, in one commit', async () => {
    const before = s.commitCount();
    const res = await s.request('POST', '/versions/v1/nodes/setup/restore', { body: { revision: rev.updated } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.recreated, true);
    assert.equal(s.commitCount(), before + 1);
    assert.equal(res.body.revision, head(s));
    assert.match(s.git('log', '-1', '--format=%s').trim(), new RegExp(`^Restore .* to ${rev.updated.slice(0, 7)}$`));
    const topic = await s.request('GET', '/versions/v1/topics/install?language=en');
    assert.equal(topic.status, 200, topic.text);
    assert.equal(topic.body.bodyMd, fileAt(s, rev.updated, 'v1/en/install.md').bodyMd);
    assert.equal(topic.body.parentSlug, 'guide');
    const de = fileAt(s, 'main', 'v1/de/install.md');
    const then = fileAt(s, rev.updated, 'v1/de/install.md');
    assert.deepEqual([de.title, de.summary, de.bodyMd], [then.title, then.summary, then.bodyMd]);
  });

  test('restore of one language writes that text back as one commit, and nothing when it is already so', async () => {
    const before = s.commitCount();
    const res = await s.request('POST', '/versions/v1/nodes/install/restore', { body: { revision: rev.created, language: 'en' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.languages, ['en']);
    assert.equal(s.commitCount(), before + 1);
    assert.equal(fileAt(s, 'main', 'v1/en/install.md').bodyMd, fileAt(s, rev.created, 'v1/en/install.md').bodyMd);
    const again = await s.request('POST', '/versions/v1/nodes/install/restore', { body: { revision: rev.created, language: 'en' } });
    assert.equal(again.body.revision, null);
    assert.equal(s.commitCount(), before + 1);
    const history = (await s.request('GET', '/versions/v1/nodes/install/history?language=en&limit=1')).body.history;
    assert.equal(history[0].change, 'updated');
    assert.equal(history[0].revision, res.body.revision);
  });

  test('history, diffs and restores need a credential; restore needs help:write', async () => {
    assertError(await s.request('GET', '/versions/v1/nodes/install/history', { key: null }), 401, 'unauthorized');
    assertError(await s.request('GET', '/versions/v1/history', { key: null }), 401, 'unauthorized');
    const reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    assertError(await s.request('POST', '/versions/v1/nodes/install/restore', { key: reader, body: { revision: rev.created } }), 403, 'insufficient_scope');
    assertError(await s.request('POST', '/versions/v1/nodes/install/restore', { body: { revision: rev.created, extra: 1 } }), 400, 'validation_failed');
  });

  test('the tool server\'s get_history answers what the API does, and needs a credential', async () => {
    const clients = new Clients(() => s);
    try {
      const api = (await s.request('GET', '/versions/v1/nodes/setup/history?language=de&limit=3')).body;
      const tool = content(await (await clients.connect(s.key)).callTool({ name: 'get_history', arguments: { version: 'v1', slug: 'setup', language: 'de', limit: '3' } }));
      assert.deepEqual(tool, api);
      toolError(await (await clients.connect(null)).callTool({ name: 'get_history', arguments: { version: 'v1', slug: 'setup' } }), 'unauthorized');
    } finally {
      await clients.closeAll();
    }
  });

  test('anonymous reads at a revision only where the version was published then, never drafts', async () => {
    await createVersion(s, 'v2');
    await createNode(s, 'v2', { slug: 'intro', translations: { en: { title: 'Intro', bodyMd: 'Draft text.\n' } } });
    const draft = head(s);
    assert.equal((await s.request('PATCH', '/versions/v2', { body: { status: 'published' } })).status, 200);
    const published = head(s);
    assertError(await s.request('GET', `/versions/v2/topics/intro?revision=${draft}`, { key: null }), 404, 'not_in_revision');
    assertError(await s.request('GET', `/versions/v1/topics/install?revision=${rev.updated}`, { key: null }), 404, 'not_found');
    const ok = await s.request('GET', `/versions/v2/topics/intro?revision=${published}`, { key: null });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.bodyMd, 'Draft text.\n');
    assert.equal((await s.request('GET', `/versions/v2/topics/intro?revision=${draft}`)).status, 200);
  });

  test('paging with a cursor lists each entry once, newest first', async () => {
    await createVersion(s, 'v3');
    await createNode(s, 'v3', { slug: 'busy' });
    for (let i = 0; i < 24; i++) assert.equal((await putTranslation(s, 'v3', 'busy', 'en', { title: 'Busy', bodyMd: `Edit ${i}\n` })).status, 200);
    const seen: string[] = [];
    let next: string | null = null;
    do {
      const res: any = await s.request('GET', `/versions/v3/nodes/busy/history?language=en&limit=10${next ? `&cursor=${next}` : ''}`);
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.history.length <= 10);
      seen.push(...res.body.history.map((e: any) => `${e.revision}/${e.language}`));
      next = res.body.next;
    } while (next !== null);
    assert.equal(new Set(seen).size, seen.length);
    const log = s.git('log', '--format=%H', 'main', '--', 'v3/en/busy.md').trim().split('\n');
    assert.deepEqual(seen.filter((e) => e.endsWith('/en')).map((e) => e.slice(0, 40)), log);
    assertError(await s.request('GET', '/versions/v3/nodes/busy/history?cursor=abc'), 400, 'validation_failed');
    assertError(await s.request('GET', '/versions/v3/nodes/busy/history?limit=101'), 400, 'validation_failed');
    assertError(await s.request('GET', '/versions/v3/nodes/nothing/history'), 404, 'not_found');
  });

  test('after a restart history comes from the index file; without it, it is built again from git log alike', async () => {
    const paths = ['/versions/v1/nodes/install/history?limit=100', '/versions/v1/history?limit=100', '/versions/v3/nodes/busy/history?limit=100'];
    const answers = await Promise.all(paths.map(async (p) => (await s.request('GET', p)).body));
    const file = join(s.dataDir, 'history.jsonl');
    assert.ok(existsSync(file));
    const deadline = Date.now() + 30_000;
    // Loaded in the background after a start: 503 history_building until then.
    const loaded = async () => {
      let res = await s.request('GET', paths[0]);
      while (res.status === 503 && Date.now() < deadline) {
        assertError(res, 503, 'history_building');
        await new Promise((r) => setTimeout(r, 100));
        res = await s.request('GET', paths[0]);
      }
    };
    s = await s.restart();
    await loaded();
    for (const [i, p] of paths.entries()) assert.deepEqual((await s.request('GET', p)).body, answers[i]);
    rmSync(file);
    s = await s.restart();
    await loaded();
    for (const [i, p] of paths.entries()) assert.deepEqual((await s.request('GET', p)).body, answers[i], p);
    assert.ok(existsSync(file));
    // A file behind main (its last lines lost in a crash): the newer commits are read from the log.
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, `${lines.slice(0, -6).join('\n')}\n${lines.at(-6)!.slice(0, 20)}`);
    s = await s.restart();
    await loaded();
    for (const [i, p] of paths.entries()) assert.deepEqual((await s.request('GET', p)).body, answers[i], p);
    assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, lines.filter((l) => l !== '').length);
  });

  test('a restore in a published version follows the lock on published versions', async () => {
    const locked = await startTestServer({ env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: 'acme/help', HELP_GITHUB_TOKEN: 'ghp_test', HELP_GITHUB_API_URL: 'http://127.0.0.1:9', HELP_GITHUB_WEBHOOK_SECRET: 'secret' } });
    try {
      const publisher = await locked.createKey({ name: 'publisher', publisher: true });
      await createVersion(locked, 'p1');
      await createNode(locked, 'p1', { slug: 'intro', translations: { en: { title: 'Intro', bodyMd: 'First.\n' } } });
      const first = head(locked);
      assert.equal((await putTranslation(locked, 'p1', 'intro', 'en', { title: 'Intro', bodyMd: 'Second.\n' })).status, 200);
      assert.equal((await locked.request('PATCH', '/versions/p1', { key: publisher, body: { status: 'published' } })).status, 200);
      const before = locked.commitCount();
      assertError(await locked.request('POST', '/versions/p1/nodes/intro/restore', { body: { revision: first } }), 403, 'published_read_only');
      assert.equal(locked.commitCount(), before);
      const res = await locked.request('POST', '/versions/p1/nodes/intro/restore', { key: publisher, body: { revision: first } });
      assert.equal(res.status, 200, res.text);
      assert.equal(locked.commitCount(), before + 1);
      assert.equal(locked.git('log', '-1', '--format=%an').trim(), 'publisher');
    } finally {
      await locked.close();
    }
  });
});

describe('History of duplicated versions', () => {
  let s: TestServer;
  after(() => s.close());

  const loaded = async (path: string) => {
    const deadline = Date.now() + 30_000;
    let res = await s.request('GET', path);
    while (res.status === 503 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      res = await s.request('GET', path);
    }
    return res;
  };

  test('a duplicate\'s nodes start their history at the duplication; the file holds one line naming the source, read back, rebuilt and upgraded alike', async () => {
    s = await startTestServer();
    await createVersion(s, 'v1');
    await createNode(s, 'v1', { slug: 'guide', kind: 'section', translations: { en: { title: 'Guide' } } });
    await createNode(s, 'v1', { slug: 'install', parentSlug: 'guide', translations: { en: { title: 'Install', bodyMd: 'Run it.\n' }, de: { title: 'Installieren', bodyMd: 'Laden.\n' } } });
    assert.equal((await putTranslation(s, 'v1', 'install', 'en', { title: 'Install', bodyMd: 'Run the installer.\n' })).status, 200);
    assert.equal((await s.request('POST', '/versions/v1/duplicate', { body: { slug: 'v2' } })).status, 200);
    const duplicated = head(s);
    assert.equal((await putTranslation(s, 'v2', 'install', 'de', { title: 'Installieren', bodyMd: 'Neu laden.\n' })).status, 200);
    const edited = head(s);

    const install = (await s.request('GET', '/versions/v2/nodes/install/history?limit=100')).body.history;
    assert.deepEqual(install.map((e: any) => [e.revision, e.change, e.language]), [
      [edited, 'updated', 'de'],
      [duplicated, 'created', 'en'],
      [duplicated, 'created', 'de'],
      [duplicated, 'created', null],
    ]);
    // The duplication created the copy's files: its diff is the whole text against none.
    const diff = await s.request('GET', `/versions/v2/nodes/install/history/${duplicated}/diff?language=en`);
    assert.equal(diff.status, 200, diff.text);
    assert.match(JSON.stringify(diff.body), /\+Run the installer\./);
    const blobAt = (rev: string, path: string) => s.git('rev-parse', `${rev}:${path}`).trim();
    const paths = ['/versions/v2/nodes/install/history?limit=100', '/versions/v2/nodes/guide/history?limit=100', '/versions/v2/history?limit=100', '/versions/v1/nodes/install/history?limit=100', `/versions/v2/nodes/install/history/${duplicated}/diff?language=en`, `/versions/v2/nodes/install/history/${edited}/diff?language=de`];
    const answers = await Promise.all(paths.map(async (p) => (await s.request('GET', p)).body));

    // One line for the duplication, naming its source, however many files it copied.
    const file = join(s.dataDir, 'history.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    assert.deepEqual(JSON.parse(lines[0]), { format: 2 });
    const line = JSON.parse(lines.find((l) => l.includes(duplicated))!);
    assert.deepEqual(line.v.map((v: any) => [v[0], v[1], v[2], v[3]]), [['v2', 'created', [], 'v1']]);

    const same = async () => {
      await loaded(paths[0]);
      for (const [i, p] of paths.entries()) assert.deepEqual((await s.request('GET', p)).body, answers[i], p);
    };
    // Read back from the file: its entries are derived from v1's.
    s = await s.restart();
    await same();
    // Built again from git log: the copy is found there too, and written as one line again.
    rmSync(file);
    s = await s.restart();
    await same();
    assert.ok(readFileSync(file, 'utf8').split('\n').some((l) => l.includes(duplicated) && l.includes('"v1"') && !l.includes('install')));

    // A file of the older format (every file of the copy an entry) is read as it is and written again in the new one.
    const ids = Object.fromEntries(['guide', 'install'].map((slug) => [slug, answers[slug === 'guide' ? 1 : 0].id]));
    const oldCopy = [
      [ids.guide, 'created', 'guide', null],
      [ids.guide, 'created', 'guide', 'en', blobAt(duplicated, 'v2/en/guide.md')],
      [ids.install, 'created', 'install', null],
      [ids.install, 'created', 'install', 'de', blobAt(duplicated, 'v2/de/install.md')],
      [ids.install, 'created', 'install', 'en', blobAt(duplicated, 'v2/en/install.md')],
    ];
    const upgraded = readFileSync(file, 'utf8').trim().split('\n');
    const older = upgraded.map((l, i) => {
      if (i === 0) return JSON.stringify({ format: 1 });
      const parsed = JSON.parse(l);
      parsed.v = parsed.v.map((v: any) => (v[3] === undefined ? v : [v[0], v[1], oldCopy]));
      return JSON.stringify(parsed);
    });
    writeFileSync(file, `${older.join('\n')}\n`);
    s = await s.restart();
    await same();
    await s.request('GET', paths[0]);
    const rewritten = readFileSync(file, 'utf8').trim().split('\n');
    assert.deepEqual(JSON.parse(rewritten[0]), { format: 2 });
    assert.deepEqual(rewritten.slice(1), upgraded.slice(1));

    // A reference that does not add up (the file edited or damaged): the index is read again from git log.
    const tampered = readFileSync(file, 'utf8').replace(/("v1",)"[A-Za-z0-9_-]{43}"/, '$1"not-the-fingerprint"');
    assert.ok(tampered.includes('not-the-fingerprint'));
    writeFileSync(file, tampered);
    s = await s.restart();
    await same();
    assert.deepEqual(readFileSync(file, 'utf8').trim().split('\n').slice(1), upgraded.slice(1));
  });
});
