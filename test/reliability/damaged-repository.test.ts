import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { fsckProblems } from '../../src/cli/check.ts';
import { BrokenRepositoryError } from '../../src/storage/repository.ts';
import { readSnapshot, writeSnapshot } from '../../src/store/snapshot.ts';
import { md, versionJson } from '../helpers/content.ts';
import { commitWithGit } from '../helpers/git.ts';
import { PROJECT, runProcess } from '../helpers/process.ts';
import { createNode, createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

const SAMPLE = join(PROJECT, 'content-sample');

/** A data directory with two versions and some writes, the service stopped; returns it and main's commit. */
async function populated(): Promise<{ dataDir: string; gitdir: string; head: string }> {
  const s = await startTestServer({ dataDir: mkdtempSync(join(tmpdir(), 'help-damage-')), sample: SAMPLE });
  await createVersion(s, 'v2', { status: 'published' });
  await createNode(s, 'v2', { slug: 'a' });
  await s.request('PUT', '/versions/v2/topics/a/translations/de', { body: { title: 'A' } });
  const head = s.git('rev-parse', 'main').trim();
  await s.service.close();
  return { dataDir: s.dataDir, gitdir: s.gitdir, head };
}

const git = (gitdir: string, ...args: string[]) => execFileSync('git', args, { cwd: gitdir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const mktree = (gitdir: string, lines: string[]) => execFileSync('git', ['mktree', '--missing'], { cwd: gitdir, input: `${lines.join('\n')}\n`, encoding: 'utf8' }).trim();
const commitTree = (gitdir: string, tree: string, message: string) =>
  execFileSync('git', ['commit-tree', tree, '-p', 'main', '-m', message], { cwd: gitdir, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'hand', GIT_AUTHOR_EMAIL: 'hand@example.org', GIT_COMMITTER_NAME: 'hand', GIT_COMMITTER_EMAIL: 'hand@example.org' } }).trim();

/** Writes a loose object under `oid` whose bytes are `type` and `body`: they do not hash to `oid`, as after a flipped bit. */
function writeLooseObject(gitdir: string, oid: string, type: string, body: Buffer): string {
  mkdirSync(join(gitdir, 'objects', oid.slice(0, 2)), { recursive: true });
  writeFileSync(join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2)), deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])));
  return oid;
}

/** `npm run --silent cli -- ...args` on a data directory. */
function cli(dataDir: string, args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, HELP_DATA_DIR: dataDir };
  delete env.NODE_TEST_CONTEXT;
  return runProcess(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: PROJECT, env, timeout: 60_000 });
}

describe('A repository damaged by hand is never served as empty, nor started over', () => {
  test('main deleted: start is refused with the commit to restore and the command that does it; nothing is rewritten', async () => {
    const { dataDir, gitdir, head } = await populated();
    try {
      const snapshots = () => readdirSync(join(dataDir, 'snapshots')).sort();
      const before = snapshots();
      assert.ok(before.length > 0);
      rmSync(join(gitdir, 'refs', 'heads', 'main'));
      await assert.rejects(startTestServer({ dataDir, sample: SAMPLE }), (err: unknown) => {
        assert.ok(err instanceof BrokenRepositoryError);
        assert.match(err.message, /has no branch main/);
        assert.ok(err.message.includes(`update-ref refs/heads/main ${head}`), err.message);
        return true;
      });
      assert.deepEqual(snapshots(), before, 'the snapshots are kept');
      assert.equal(existsSync(join(gitdir, 'refs', 'heads', 'main')), false, 'no new history was started');
      assert.equal(existsSync(join(dataDir, 'server.lock')), false, 'the lock is released');

      // The command the message gives brings everything back.
      git(gitdir, 'update-ref', 'refs/heads/main', head);
      const s: TestServer = await startTestServer({ dataDir, sample: SAMPLE });
      try {
        const versions = (await s.request('GET', '/versions', { key: null })).body.map((v: { slug: string }) => v.slug).sort();
        assert.deepEqual(versions, ['v1', 'v2']);
        assert.equal(s.git('rev-parse', 'main').trim(), head, 'no sample import on top');
      } finally {
        await s.service.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('the entry point says it in one line and exits 1', async () => {
    const { dataDir, gitdir, head } = await populated();
    try {
      rmSync(join(gitdir, 'refs', 'heads', 'main'));
      const run = await runProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: PROJECT,
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', HELP_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
        timeout: 30_000,
      });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, new RegExp(`^Cannot start: .*has no branch main.*update-ref refs/heads/main ${head}`));
      assert.equal(run.stderr.trim().split('\n').length, 1);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a version.json committed by hand that marks a draft latest: the mark is ignored, and "latest" never names the draft', async () => {
    const s0 = await startTestServer();
    let s = s0;
    try {
      commitWithGit(s.gitdir, { 'secret-draft/version.json': versionJson({ label: 'Not yet', status: 'draft', isLatest: true, nav: ['a'] }), 'secret-draft/en/a.md': md('A') }, 'A draft marked latest by hand');
      s = await s.restart();
      const anonymous = await s.request('GET', '/versions/latest/pdf-bundle', { key: null });
      assert.equal(anonymous.status, 404);
      assert.doesNotMatch(anonymous.text, /secret-draft/);
      const listed = (await s.request('GET', '/versions')).body.find((v: { slug: string }) => v.slug === 'secret-draft');
      assert.equal(listed.isLatest, false);
      assert.equal((await s.request('GET', '/versions/latest/pdf-bundle')).status, 404, 'not latest for a reader with a key either');
      // A published version marked latest by hand alongside it is the latest.
      commitWithGit(s.gitdir, { 'v9/version.json': versionJson({ label: 'Nine', status: 'published', isLatest: true, nav: ['a'] }), 'v9/en/a.md': md('A') }, 'A published version marked latest by hand');
      s = await s.restart();
      assert.equal((await s.request('GET', '/versions/latest/pdf-bundle', { key: null })).body.version.slug, 'v9');
    } finally {
      await s.close();
    }
  });

  test('a damaged tree or a blob whose bytes do not hash to its id takes only its version out, naming the object', async () => {
    const { dataDir, gitdir } = await populated();
    try {
      // Two hand-made damages: v1's "en" folder points to a tree object with garbage bytes, and v2/en/a.md
      // to a blob whose bytes are not those of its id (a flipped bit in a loose object).
      const badTree = writeLooseObject(gitdir, 'deadbeef'.repeat(5), 'tree', Buffer.from('100644 en\0not a tree entry'));
      const badBlob = writeLooseObject(gitdir, 'feedface'.repeat(5), 'blob', Buffer.from('---\ntitle: A\n---\nflipped\n'));
      const replace = (tree: string, name: string, oid: string) => mktree(gitdir, git(gitdir, 'ls-tree', tree).trim().split('\n').map((l) => (l.endsWith(`\t${name}`) ? l.replace(/[0-9a-f]{40}/, oid) : l)));
      const v1 = replace(git(gitdir, 'rev-parse', 'main:v1').trim(), 'en', badTree);
      const v2en = replace(git(gitdir, 'rev-parse', 'main:v2/en').trim(), 'a.md', badBlob);
      const v2 = replace(git(gitdir, 'rev-parse', 'main:v2').trim(), 'en', v2en);
      const root = mktree(gitdir, git(gitdir, 'ls-tree', 'main^{tree}').trim().split('\n').map((l) => (l.endsWith('\tv1') ? l.replace(/[0-9a-f]{40}/, v1) : l.endsWith('\tv2') ? l.replace(/[0-9a-f]{40}/, v2) : l)));
      git(gitdir, 'update-ref', 'refs/heads/main', commitTree(gitdir, root, 'Damage by hand'));

      const s = await startTestServer({ dataDir, sample: SAMPLE });
      try {
        // The reason, which names files, goes to callers who may see unpublished versions.
        const v1Answer = await s.request('GET', '/versions/v1/nodes');
        assert.equal(v1Answer.status, 503);
        assert.equal(v1Answer.body.error.code, 'version_unavailable');
        assert.match(v1Answer.body.error.reason, new RegExp(`object ${badTree} is damaged.*folder v1/`));
        const v2Answer = await s.request('GET', '/versions/v2/nodes');
        assert.equal(v2Answer.status, 503);
        assert.match(v2Answer.body.error.reason, new RegExp(`en/a\\.md \\(object ${badBlob}\\) is damaged`));
        assert.doesNotMatch(JSON.stringify([v1Answer.body, v2Answer.body]), /isomorphic-git/);
        // Writes to a damaged version are refused the same way; the service itself goes on.
        assert.equal((await s.request('PUT', '/versions/v2/topics/a/translations/en', { body: { title: 'A' } })).status, 503);
        assert.equal((await s.request('POST', '/versions', { body: { slug: 'v3', label: 'Three' } })).status, 200);
      } finally {
        await s.service.close();
      }
      const check = await cli(dataDir, ['check']);
      assert.equal(check.code, 1, check.stdout + check.stderr);
      assert.match(check.stdout, /repository: PROBLEMS/);
      assert.match(check.stdout, new RegExp(badBlob));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('check: a healthy data directory passes; a flipped byte in a pack and a snapshot of a tree git lacks are reported', async () => {
    const { dataDir, gitdir } = await populated();
    try {
      const healthy = await cli(dataDir, ['check', '--json']);
      assert.equal(healthy.code, 0, healthy.stdout + healthy.stderr);
      const report = JSON.parse(healthy.stdout);
      assert.equal(report.ok, true);
      assert.deepEqual(report.snapshots.map((s: { version: string; ok: boolean }) => [s.version, s.ok]).sort(), [['v1', true], ['v2', true]]);

      // A snapshot from another repository: its tree is not here.
      const other = await populated();
      try {
        // Snapshots are named by tree; v2's pointer is turned to the other repository's.
        const theirs = readFileSync(join(other.dataDir, 'snapshots', 'v2.tree'), 'utf8').trim();
        copyFileSync(join(other.dataDir, 'snapshots', `${theirs}.snapshot`), join(dataDir, 'snapshots', `${theirs}.snapshot`));
        writeFileSync(join(dataDir, 'snapshots', 'v2.tree'), `${theirs}\n`);
      } finally {
        rmSync(other.dataDir, { recursive: true, force: true });
      }
      const pack = readdirSync(join(gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack')).map((f) => join(gitdir, 'objects', 'pack', f)).sort((a, b) => statSync(b).size - statSync(a).size)[0];
      const bytes = readFileSync(pack);
      bytes[Math.floor(bytes.length / 2)] ^= 0xff;
      writeFileSync(pack, bytes);
      const damaged = await cli(dataDir, ['check']);
      assert.equal(damaged.code, 1);
      assert.match(damaged.stdout, /repository: PROBLEMS/);
      assert.match(damaged.stdout, /snapshot v2: PROBLEMS\n {2}its tree [0-9a-f]{40} is not in the repository/);
      assert.match(damaged.stdout, /snapshot v1: ok/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('check: files written by hand (no ids, no stamps, their own spacing) pass: the snapshot means what they say, though the service would write them otherwise', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-hand-'));
    try {
      const first = await startTestServer({ dataDir, sample: null });
      await first.service.close();
      const gitdir = join(dataDir, 'content.git');
      commitWithGit(gitdir, {
        'docs1/version.json': '{ "label": "By hand",   "languages": ["en"],\n  "nav": [ "intro", { "slug": "more", "children": ["deep"] } ] }\n',
        'docs1/en/intro.md': '---\ntitle:   Intro\n---\nWritten by hand.\n',
        'docs1/en/more.md': '---\ntitle: "More"\nsummary: a summary\n---\n',
        'docs1/en/deep.md': '---\ntitle: Deep\n---\nDeeper.\n',
      }, 'Written by hand');
      const s = await startTestServer({ dataDir, sample: null });
      assert.equal((await s.request('GET', '/versions/docs1/topics/intro', { key: null })).status, 404, 'a draft');
      await s.service.close();
      const hand = await cli(dataDir, ['check']);
      assert.equal(hand.code, 0, hand.stdout + hand.stderr);
      assert.match(hand.stdout, /snapshot docs1: ok/);
      // A snapshot that says another title than the file it was taken of is still found out.
      const dir = join(dataDir, 'snapshots');
      const tree = readFileSync(join(dir, 'docs1.tree'), 'utf8').trim();
      const snap = await (await readSnapshot(dir, tree)).open();
      const translations = new Map(snap.state.translations);
      translations.set('intro', new Map([['en', { ...snap.state.translations.get('intro')!.get('en')!, title: 'Not what the file says' }]]));
      await writeSnapshot(dir, { ...snap, state: { ...snap.state, translations }, search: null });
      const forged = await cli(dataDir, ['check']);
      assert.equal(forged.code, 1, forged.stdout + forged.stderr);
      assert.match(forged.stdout, /snapshot docs1: PROBLEMS\n {2}docs1\/en\/intro\.md differs from blob [0-9a-f]{40}$/m);
      assert.doesNotMatch(forged.stdout, /more\.md|deep\.md|version\.json differs/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('check: a snapshot whose stamps are not the ones git keeps in .stamps/ is found out; a folder whose files carry their stamps passes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-stamps-'));
    try {
      const first = await startTestServer({ dataDir, sample: null });
      await createVersion(first, 'v1');
      await createNode(first, 'v1', { slug: 'a', translations: { en: { title: 'A', bodyMd: 'Body.\n' } } });
      await first.service.close();
      // A version as an older service stored it: stamps in the files, no .stamps/.
      commitWithGit(join(dataDir, 'content.git'), {
        'old/version.json': '{ "label": "Old", "languages": ["en"], "createdAt": "2025-01-01T00:00:00.000Z", "updatedAt": "2025-01-01T00:00:00.000Z", "nav": [ { "slug": "b", "id": "b1", "updatedAt": "2025-01-02T00:00:00.000Z" } ] }\n',
        'old/en/b.md': "---\ntitle: B\nupdatedAt: '2025-01-03T00:00:00.000Z'\n---\nOld.\n",
      }, 'A version stored before .stamps/');
      const s = await startTestServer({ dataDir, sample: null });
      await s.service.close();
      const clean = await cli(dataDir, ['check']);
      assert.equal(clean.code, 0, clean.stdout + clean.stderr);
      assert.match(clean.stdout, /snapshot v1: ok/);
      assert.match(clean.stdout, /snapshot old: ok/);
      const dir = join(dataDir, 'snapshots');
      for (const version of ['v1', 'old']) {
        const slug = version === 'v1' ? 'a' : 'b';
        const snap = await (await readSnapshot(dir, readFileSync(join(dir, `${version}.tree`), 'utf8').trim())).open();
        const translations = new Map(snap.state.translations);
        translations.set(slug, new Map([['en', { ...snap.state.translations.get(slug)!.get('en')!, updatedAt: '2020-01-01T00:00:00.000Z' }]]));
        await writeSnapshot(dir, { ...snap, state: { ...snap.state, translations }, search: null });
      }
      const forged = await cli(dataDir, ['check']);
      assert.equal(forged.code, 1, forged.stdout + forged.stderr);
      assert.match(forged.stdout, /snapshot v1: PROBLEMS\n {2}v1\/\.stamps\/en\.json differs from blob [0-9a-f]{40}$/m);
      assert.match(forged.stdout, /snapshot old: PROBLEMS\n {2}old\/\.stamps\/en\.json is not in the tree, and the stamps its files carry differ from the snapshot's$/m);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('content.git replaced by an empty repository while snapshots remain: refused, snapshots kept', async () => {
    const { dataDir, gitdir } = await populated();
    try {
      rmSync(gitdir, { recursive: true, force: true });
      await assert.rejects(startTestServer({ dataDir, sample: SAMPLE }), /has no commit, yet snapshots\/ holds versions v1, v2/);
      assert.ok(readdirSync(join(dataDir, 'snapshots')).length >= 2, 'the snapshots are kept');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

test("check's report of git fsck: one problem per message, and the causes before the broken links they lead to", () => {
  const output = [
    'broken link from    tree 1111111111111111111111111111111111111111',
    '              to    blob 2222222222222222222222222222222222222222',
    'missing blob 2222222222222222222222222222222222222222',
    'error: packfile .git/objects/pack/pack-3333.pack does not match index',
    '',
  ].join('\n');
  assert.deepEqual(fsckProblems(output), [
    'error: packfile .git/objects/pack/pack-3333.pack does not match index',
    'broken link from    tree 1111111111111111111111111111111111111111 to    blob 2222222222222222222222222222222222222222',
    'missing blob 2222222222222222222222222222222222222222',
  ]);
});
