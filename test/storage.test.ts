import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { commitWithGit, looseObjects, objectsBetween, objectsOfPackHolding } from './helpers/git.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

const silent = pino({ level: 'silent' });

/** The pack files (names without extension) of a repository. */
function packsOf(gitdir: string): string[] {
  return readdirSync(join(gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack')).map((f) => f.slice(0, -5)).sort();
}

function newPacks(gitdir: string, before: string[]): string[] {
  return packsOf(gitdir).filter((p) => !before.includes(p));
}

/** The object ids in one pack, sorted, as `git verify-pack` (which also checks the pack against its index) lists them. */
function packedObjects(gitdir: string, pack: string): string[] {
  const out = execFileSync('git', ['verify-pack', '-v', join(gitdir, 'objects', 'pack', `${pack}.idx`)], { encoding: 'utf8' });
  return [...out.matchAll(/^([0-9a-f]{40}) /gm)].map((m) => m[1]).sort();
}
const configFor = (dataDir: string) => loadConfig({ LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null });

describe('Storage: the content files are the database', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { status: 'published' });
    await createNode(s, 'v1', { slug: 'guide', kind: 'section', icon: 'book-open', translations: { en: { title: 'Guide' }, de: { title: 'Anleitung' } } });
    await createNode(s, 'v1', { slug: 'install', parentSlug: 'guide', translations: { en: { title: 'Install', summary: 'How to: install', bodyMd: '# Install\n\nRun it.\n' } } });
  });
  after(() => s.close());

  test('the repository is bare and holds the version as content files', () => {
    assert.equal(s.git('rev-parse', '--is-bare-repository').trim(), 'true');
    const files = s.git('ls-tree', '-r', '--name-only', 'main').trim().split('\n').sort();
    assert.deepEqual(files, ['v1/.stamps/de.json', 'v1/.stamps/en.json', 'v1/.stamps/nodes.json', 'v1/de/guide.md', 'v1/en/guide.md', 'v1/en/install.md', 'v1/version.json']);
    const md = s.git('show', 'main:v1/en/install.md');
    assert.match(md, /^---\ntitle: Install\nsummary: 'How to: install'\n---\n# Install\n\nRun it.\n$/);
    const version = JSON.parse(s.git('show', 'main:v1/version.json'));
    assert.equal(JSON.stringify(version).match(/updatedAt|createdAt/), null, 'no stamps in version.json');
    const stamps = JSON.parse(s.git('show', 'main:v1/.stamps/en.json'));
    assert.deepEqual(Object.keys(stamps), ['guide', 'install']);
    assert.match(stamps.install, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'stamps keep their milliseconds');
    assert.equal(version.status, 'published');
    assert.deepEqual(version.languages, ['en', 'de']);
    assert.equal(version.nav[0].slug, 'guide');
    assert.equal(version.nav[0].kind, 'section');
    assert.equal(version.nav[0].icon, 'book-open');
    assert.equal(version.nav[0].children[0].slug, 'install');
    assert.match(version.nav[0].children[0].id, /^[0-9a-f-]{36}$/);
  });

  test('git clone with the system git shows the files, and git fsck is clean', () => {
    const clone = mkdtempSync(join(tmpdir(), 'help-clone-'));
    try {
      execFileSync('git', ['clone', '-q', s.gitdir, clone]);
      assert.ok(existsSync(join(clone, 'v1', 'version.json')));
      assert.match(readFileSync(join(clone, 'v1', 'de', 'guide.md'), 'utf8'), /title: Anleitung/);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
    execFileSync('git', ['fsck', '--strict', '--no-progress'], { cwd: s.gitdir, stdio: 'pipe' });
  });

  test('each write is one commit by the key, saying what changed', () => {
    const log = s.git('log', '--format=%an|%s', 'main').trim().split('\n');
    assert.deepEqual(log, [
      'writer|Create topic install in v1',
      'writer|Create section guide in v1',
      'writer|Create version v1: label "Version v1", languages ["en","de"], status "published"',
    ]);
  });

  test('a translation write adds one pack of a handful of objects: the blob, the trees on its path, the commit', async () => {
    const before = packsOf(s.gitdir);
    const res = await s.request('PUT', '/versions/v1/topics/install/translations/en', { body: { title: 'Install', bodyMd: 'New body\n' } });
    assert.equal(res.status, 200);
    const added = newPacks(s.gitdir, before);
    assert.equal(added.length, 1);
    const head = s.git('rev-parse', 'main').trim();
    assert.deepEqual(packedObjects(s.gitdir, added[0]), [
      s.git('rev-parse', 'main:v1/en/install.md').trim(),
      s.git('rev-parse', 'main:v1/en').trim(),
      s.git('rev-parse', 'main:v1/.stamps/en.json').trim(),
      s.git('rev-parse', 'main:v1/.stamps').trim(),
      s.git('rev-parse', 'main:v1').trim(),
      s.git('rev-parse', 'main^{tree}').trim(),
      head,
    ].sort());
    assert.deepEqual(s.git('show', '--name-only', '--format=', 'main').trim().split('\n'), ['v1/.stamps/en.json', 'v1/en/install.md']);
    assert.equal(looseObjects(s.gitdir), 0, 'no loose objects');
  });

  test("a write changes only the lines that changed: the edited file's text, and its stamp's one line in .stamps/", async () => {
    await s.request('PUT', '/versions/v1/topics/install/translations/en', { body: { title: 'Install', summary: 'How to: install', bodyMd: '# Install\n\nRun it.\n\nThen sign in.\n' } });
    const res = await s.request('PUT', '/versions/v1/topics/install/translations/en', { body: { title: 'Install', summary: 'How to: install', bodyMd: '# Install\n\nRun it twice.\n\nThen sign in.\n' } });
    assert.equal(res.status, 200, res.text);
    /** The lines the last commit removes and adds in a path, without diff headers. */
    const changed = (path: string) =>
      s
        .git('diff', '--unified=0', 'main~1', 'main', '--', path)
        .split('\n')
        .filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l));
    assert.deepEqual(s.git('diff', '--name-only', 'main~1', 'main').trim().split('\n'), ['v1/.stamps/en.json', 'v1/en/install.md']);
    assert.deepEqual(changed('v1/en/install.md'), ['-Run it.', '+Run it twice.'], 'no stamp line in the content file');
    const [removed, added] = changed('v1/.stamps/en.json');
    assert.equal(changed('v1/.stamps/en.json').length, 2, 'one line of the stamps file');
    assert.match(removed, /^- {2}"install": "[^"]+",?$/);
    assert.equal(added, `+  "install": "${res.body.translation.updatedAt}"${removed.endsWith(',') ? ',' : ''}`);
  });

  test('a translation of 3 M characters of every width is stored and answered byte for byte (encoded and hashed in slices)', async () => {
    const bodyMd = 'Zeile "eins" mit Änderung, 設定を開く 😀👩🏽‍💻 and plain words\n'.repeat(60_000);
    assert.ok(bodyMd.length > 3_000_000);
    const res = await s.request('PUT', '/versions/v1/topics/install/translations/de', { body: { title: 'Installieren', bodyMd } });
    assert.equal(res.status, 200);
    assert.equal(res.body.translation.bodyMd, bodyMd, 'the answer echoes the body whole');
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const file = execFileSync('git', ['show', 'main:v1/de/install.md'], { cwd: s.gitdir, maxBuffer: 64 << 20 }).toString('utf8');
    assert.ok(file.endsWith(`---\n${bodyMd}`), 'the file in git holds the body as sent');
    execFileSync('git', ['fsck', '--strict', '--no-progress'], { cwd: s.gitdir, stdio: 'pipe' });
    const read = await s.request('GET', '/versions/v1/topics/install/translations/de');
    assert.equal(read.body.bodyMd, bodyMd);
  });

  test('duplicating a version shares its files: only version.json is new', async () => {
    const before = s.git('rev-parse', 'main').trim();
    const res = await s.request('POST', '/versions/v1/duplicate', { body: { slug: 'v2' } });
    assert.equal(res.status, 200);
    const head = s.git('rev-parse', 'main').trim();
    // version.json and .stamps/nodes.json blobs, the .stamps/ and v2/ trees, the root tree, the commit,
    // written in one pack (which the background merges may since have merged with others).
    const written = objectsBetween(s.gitdir, before, head);
    assert.equal(written.length, 6, written.join(' '));
    const pack = new Set(objectsOfPackHolding(s.gitdir, head));
    assert.deepEqual(written.filter((oid) => !pack.has(oid)), []);
    assert.equal(s.git('rev-parse', 'main:v1/en'), s.git('rev-parse', 'main:v2/en'));
    assert.equal(s.git('rev-parse', 'main:v1/.stamps/en.json'), s.git('rev-parse', 'main:v2/.stamps/en.json'), 'the translations keep their stamps');
    const v2 = (await s.request('GET', '/versions/v2/nodes')).body;
    const v1 = (await s.request('GET', '/versions/v1/nodes')).body;
    assert.deepEqual(v2.nodes, v1.nodes, 'nodes and translations keep their stamps in the copy');
    assert.ok((await s.request('GET', '/versions/v2')).body.createdAt > (await s.request('GET', '/versions/v1')).body.createdAt, 'the copy is made now');
  });

  test('content, ids and stamps survive a restart', async () => {
    const before = (await s.request('GET', '/versions/v1/nodes?include=bodies')).body;
    s = await s.restart();
    const afterRestart = (await s.request('GET', '/versions/v1/nodes?include=bodies')).body;
    assert.deepEqual(afterRestart, before);
    const put = await s.request('PUT', '/versions/v1/topics/install/translations/de', { body: { title: 'Installieren' } });
    assert.ok(put.body.translation.updatedAt > before.nodes[1].updatedAt, 'stamps keep increasing after a restart');
  });

  test('a second server on the same data directory refuses to start', async () => {
    await assert.rejects(startService(configFor(s.dataDir), silent), /in use by another server/);
    assert.equal((await s.request('GET', '/versions/v1/tree')).status, 200, 'the first server goes on serving');
  });
});

describe('Storage: start-up checks', () => {
  test('a branch whose ref is empty stops the start with a message naming it', async () => {
    const s = await startTestServer();
    await createVersion(s, 'v1');
    await s.service.close();
    writeFileSync(join(s.gitdir, 'refs', 'heads', 'main'), '');
    await assert.rejects(startService(configFor(s.dataDir), silent), /Branch main is broken: refs\/heads\/main .* holds nothing/);
    rmSync(s.dataDir, { recursive: true, force: true });
  });

  test('a ref pointing at a missing commit stops the start with a message naming it', async () => {
    const s = await startTestServer();
    await createVersion(s, 'v1');
    await s.service.close();
    writeFileSync(join(s.gitdir, 'refs', 'heads', 'main'), `${'ab'.repeat(20)}\n`);
    await assert.rejects(startService(configFor(s.dataDir), silent), /points to commit abab.*cannot be read/);
    rmSync(s.dataDir, { recursive: true, force: true });
  });

  test('a version whose files are broken is refused by name while the others are served', async () => {
    const s0 = await startTestServer();
    await createVersion(s0, 'good', { status: 'published' });
    await s0.service.close();
    commitWithGit(s0.gitdir, { 'bad/version.json': '{ "label": "Bad",\n  "languages": ["en"],\n  "nav": [ { "slug": "x" } ' }, 'Break a version by hand');
    const s = await startTestServer({ dataDir: s0.dataDir });
    try {
      const bad = await s.request('GET', '/versions/bad/tree');
      assert.equal(bad.status, 503);
      assert.equal(bad.body.error.code, 'version_unavailable');
      assert.match(bad.body.error.reason, /version\.json:3: invalid JSON/);
      // Anonymous readers are answered as for a slug no version has: its status could not be read, and it may be a draft.
      const anonymous = await s.request('GET', '/versions/bad/tree', { key: null });
      assert.equal(anonymous.status, 404);
      assert.deepEqual(anonymous.body.error, { ...(await s.request('GET', '/versions/none/tree', { key: null })).body.error, message: 'No version "bad"', version: 'bad', requestId: anonymous.body.error.requestId });
      const write = await s.request('PATCH', '/versions/bad', { body: { label: 'x' } });
      assert.equal(write.status, 503);
      assert.equal((await s.request('GET', '/versions/good/tree', { key: null })).status, 200);
      // Deleting the broken version is allowed, to recover.
      assert.equal((await s.request('DELETE', '/versions/bad')).status, 200);
    } finally {
      await s.close();
    }
  });

  test('a file committed in another encoding than UTF-8 is reported with its line, not read with its characters replaced', async () => {
    const s0 = await startTestServer();
    await s0.service.close();
    const latin1 = (text: string) => Buffer.from(text, 'latin1');
    commitWithGit(
      s0.gitdir,
      {
        'cafe/version.json': JSON.stringify({ label: 'Café', status: 'published', languages: ['en'], nav: ['menu', 'long'] }),
        'cafe/en/menu.md': latin1('---\ntitle: Menu\n---\nCoffee\nCafé au lait\n'),
        // Long and wide enough to be decoded by the converter: UTF-8 up to its last line.
        'cafe/en/long.md': Buffer.concat([Buffer.from(`---\ntitle: Long\n---\n${'日本語のテキスト\n'.repeat(100)}`), latin1('Crème\n')]),
        'fine/version.json': JSON.stringify({ label: 'Fine', status: 'published', languages: ['en'], nav: ['mark'] }),
        // U+FFFD written on purpose is text like any other.
        'fine/en/mark.md': '---\ntitle: Replacement \ufffd\n---\nThe sign \ufffd stands for a lost character.\n',
      },
      'Write files in Latin-1 by hand',
    );
    const s = await startTestServer({ dataDir: s0.dataDir });
    try {
      const res = await s.request('GET', '/versions/cafe/tree');
      assert.equal(res.status, 503);
      assert.equal(res.body.error.code, 'version_unavailable');
      assert.match(res.body.error.reason, /^2 problem\(s\) in its files, first: en\/long\.md:104: is not UTF-8: byte 0xE8 starts no UTF-8 character here \(the file was saved in another encoding/);
      const health = await (await fetch(s.url.replace('/help/v1', '/healthz'), { headers: { authorization: `Bearer ${s.key}` } })).json();
      assert.deepEqual(health.broken, ['cafe']);
      const mark = await s.request('GET', '/versions/fine/topics/mark', { key: null });
      assert.equal(mark.status, 200);
      assert.equal(mark.body.title, 'Replacement \ufffd');
    } finally {
      await s.close();
    }
  });

  test('a service whose every version is broken is not ready: /healthz 503 says why', async () => {
    const s0 = await startTestServer();
    await s0.service.close();
    commitWithGit(s0.gitdir, { 'only/version.json': '{ "languages": ["en"], ' }, 'Break the only version by hand');
    const s = await startTestServer({ dataDir: s0.dataDir });
    try {
      const res = await fetch(s.url.replace('/help/v1', '/healthz'), { headers: { authorization: `Bearer ${s.key}` } });
      assert.equal(res.status, 503);
      const body = await res.json();
      assert.equal(body.ok, false);
      assert.deepEqual(body.broken, ['only']);
      assert.match(body.problem, /^every version's stored data is broken \(1\)/);
      // Without a key: the status, the counts, the commit served (public, as in X-Content-Revision) and the problem, no version named.
      const anonymous = await fetch(s.url.replace('/help/v1', '/healthz'));
      assert.equal(anonymous.status, 503);
      const counts = await anonymous.json();
      const revision = s.git('rev-parse', 'main').trim();
      assert.deepEqual({ ...counts, problem: undefined }, { ok: false, replication: { role: 'primary', revision }, versions: { loaded: 0, loading: 0, broken: 1, indexing: 0 }, problem: undefined });
      assert.match(counts.problem, /^every version's stored data is broken \(1\)/);
      assert.doesNotMatch(counts.problem, /only/);
    } finally {
      await s.close();
    }
  });

  test('files written by hand, without ids or stamps, are served with stable ids', async () => {
    const s0 = await startTestServer();
    await s0.service.close();
    commitWithGit(
      s0.gitdir,
      {
        'hand/version.json': JSON.stringify({ label: 'By hand', status: 'published', languages: ['en'], nav: [{ slug: 'basics', children: ['first-steps'] }] }),
        'hand/en/basics.md': '---\ntitle: Basics\n---\nIntro\n',
        'hand/en/first-steps.md': '---\ntitle: First steps\nsummary: Start here\n---\nDo this.\n',
      },
      'Write a version by hand',
    );
    let s = await startTestServer({ dataDir: s0.dataDir });
    try {
      const nodes = (await s.request('GET', '/versions/hand/nodes', { key: null })).body.nodes;
      assert.deepEqual(nodes.map((n: any) => [n.slug, n.kind, n.parentSlug]), [['basics', 'section', null], ['first-steps', 'topic', 'basics']]);
      s = await s.restart();
      const again = (await s.request('GET', '/versions/hand/nodes', { key: null })).body.nodes;
      assert.deepEqual(again.map((n: any) => n.id), nodes.map((n: any) => n.id));
      const put = await s.request('PUT', '/versions/hand/topics/first-steps/translations/en', { body: { title: 'First steps', bodyMd: 'Now stamped.\n' } });
      assert.equal(put.status, 200);
      assert.doesNotMatch(s.git('show', 'main:hand/en/first-steps.md'), /updatedAt/);
      assert.equal(JSON.parse(s.git('show', 'main:hand/.stamps/en.json'))['first-steps'], put.body.translation.updatedAt);
    } finally {
      await s.close();
    }
  });

  test('a repository whose files carry stamps (written before .stamps/) is served with those stamps, and they guard writes', async () => {
    const s0 = await startTestServer();
    await s0.service.close();
    commitWithGit(
      s0.gitdir,
      {
        'old/version.json': JSON.stringify(
          { label: 'Old', status: 'published', languages: ['en', 'de'], createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-02T00:00:00.000Z', nav: [{ slug: 'a', kind: 'topic', id: 'id-a', updatedAt: '2025-01-03T00:00:00.123Z' }, { slug: 'b', kind: 'topic', id: 'id-b', updatedAt: '2025-01-03T00:00:00.000Z' }] },
          null,
          2,
        ),
        'old/en/a.md': "---\ntitle: A\nupdatedAt: '2025-01-04T00:00:00.456Z'\n---\nA body.\n",
        'old/de/a.md': "---\ntitle: A de\nupdatedAt: '2025-01-05T00:00:00.000Z'\n---\nA Text.\n",
        'old/en/b.md': "---\ntitle: B\nupdatedAt: '2025-01-06T00:00:00.000Z'\n---\nB body.\n",
      },
      'A version as the service wrote it before',
    );
    let s = await startTestServer({ dataDir: s0.dataDir });
    try {
      const version = (await s.request('GET', '/versions/old')).body;
      assert.equal(version.createdAt, '2025-01-01T00:00:00.000Z');
      assert.equal(version.updatedAt, '2025-01-02T00:00:00.000Z');
      const a = (await s.request('GET', '/versions/old/topics/a/translations/en')).body;
      assert.equal(a.updatedAt, '2025-01-04T00:00:00.456Z');
      // An expectedUpdatedAt before the file's stamp is stale; the stamp itself passes.
      const stale = await s.request('PUT', '/versions/old/topics/a/translations/en', { body: { title: 'A', bodyMd: 'Too late.\n', expectedUpdatedAt: '2025-01-04T00:00:00.455Z' } });
      assert.equal(stale.status, 409, stale.text);
      assert.equal(stale.body.error.currentUpdatedAt, '2025-01-04T00:00:00.456Z');
      const put = await s.request('PUT', '/versions/old/topics/a/translations/en', { body: { title: 'A', bodyMd: 'Edited.\n', expectedUpdatedAt: a.updatedAt } });
      assert.equal(put.status, 200, put.text);
      // The file written loses its stamp; the files not written keep theirs, and are read as before.
      assert.deepEqual(s.git('diff', '--name-only', 'main~1', 'main').trim().split('\n'), ['old/.stamps/en.json', 'old/en/a.md']);
      assert.equal(s.git('show', 'main:old/en/a.md'), '---\ntitle: A\n---\nEdited.\n');
      assert.match(s.git('show', 'main:old/en/b.md'), /updatedAt: '2025-01-06/);
      assert.deepEqual(JSON.parse(s.git('show', 'main:old/.stamps/en.json')), { a: put.body.translation.updatedAt, b: '2025-01-06T00:00:00.000Z' });
      s = await s.restart();
      const after = (await s.request('GET', '/versions/old/nodes')).body.nodes;
      assert.deepEqual(
        after.map((n: any) => [n.slug, n.translations.en.updatedAt, n.translations.de?.updatedAt]),
        [['a', put.body.translation.updatedAt, '2025-01-05T00:00:00.000Z'], ['b', '2025-01-06T00:00:00.000Z', undefined]],
      );
      const node = await s.request('PATCH', '/versions/old/nodes/b', { body: { icon: 'rocket', expectedUpdatedAt: '2025-01-05T00:00:00.000Z' } });
      assert.equal(node.status, 409, 'b was changed after that (its translation, 2025-01-06)');
    } finally {
      await s.close();
    }
  });

  test('a write the disk refuses is 503 storage_failed, leaves no commit and changes nothing', async () => {
    const s = await startTestServer();
    try {
      await createVersion(s, 'v1');
      await createNode(s, 'v1', { slug: 'a' });
      const commits = s.commitCount();
      const temp = join(s.gitdir, 'tmp-writes');
      // Files made ahead for the next commit wait in tmp-spares (durable-fs.ts): it goes too.
      const spares = join(s.gitdir, 'tmp-spares');
      for (const folder of [temp, spares]) {
        rmSync(folder, { recursive: true });
        writeFileSync(folder, 'not a folder'); // every durable write now fails
      }
      const res = await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'Changed' } });
      assert.equal(res.status, 503);
      assert.equal(res.body.error.code, 'storage_failed');
      assert.equal(s.commitCount(), commits);
      assert.equal((await s.request('GET', '/versions/v1/topics/a')).body.title, 'Title a');
      for (const folder of [temp, spares]) {
        rmSync(folder);
        mkdirSync(folder);
      }
      const retry = await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'Changed' } });
      assert.equal(retry.status, 200);
      assert.equal(s.commitCount(), commits + 1);
      execFileSync('git', ['fsck', '--strict', '--no-progress'], { cwd: s.gitdir, stdio: 'pipe' });
    } finally {
      await s.close();
    }
  });

  test('no temp files are left in the repository after writes', async () => {
    const s = await startTestServer();
    try {
      await createVersion(s, 'v1');
      assert.deepEqual(readdirSync(join(s.gitdir, 'tmp-writes')), []);
    } finally {
      await s.close();
    }
  });
});
