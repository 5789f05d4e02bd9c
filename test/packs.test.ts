import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import git from 'isomorphic-git';
import { clearTempDir, TEMP_DIR } from '../src/storage/durable-fs.ts';
import { prepareBlob, prepareCommit, prepareObject, serializeTree, type PreparedObject } from '../src/storage/git-objects.ts';
import { choosePacks, COMPACTION, compactPacks } from '../src/storage/pack-compactor.ts';
import { buildPack, packEntry, stagePack } from '../src/storage/pack-writer.ts';
import { generateDocSet } from './helpers/generate.ts';
import { looseObjects, objectsBetween, objectsOfPackHolding } from './helpers/git.ts';
import { withTurns } from './helpers/turns.ts';
import { PROJECT, runProcess } from './helpers/process.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

const sysGit = (gitdir: string, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

function packsOf(gitdir: string): string[] {
  return fs.readdirSync(join(gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack')).map((f) => f.slice(0, -5)).sort();
}

/** `git fsck --strict` exits non-zero on any error; dangling objects (a crashed commit's) are not errors. */
function fsckStrict(gitdir: string): void {
  execFileSync('git', ['--git-dir', gitdir, 'fsck', '--strict', '--no-progress'], { stdio: 'pipe' });
}

describe('Pack files as the service writes them', () => {
  let dir: string;
  let gitdir: string;
  const objects: PreparedObject[] = [];
  before(async () => {
    dir = fs.mkdtempSync(join(tmpdir(), 'help-pack-'));
    gitdir = join(dir, 'repo.git');
    execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', gitdir]);
    fs.mkdirSync(join(gitdir, TEMP_DIR));
    // Sizes on each side of the header's 4- and 7-bit boundaries, an empty file, text and incompressible bytes; the pack is large enough to be flushed in slices.
    const sizes = [0, 1, 15, 16, 17, 127, 128, 2047, 2048, 2049, 262_143, 262_144, 1_500_000, 9_000_000];
    const blobs = sizes.map((n, i) => prepareObject('blob', i % 2 === 0 ? Buffer.from('Markdown line. '.repeat(n).slice(0, n)) : randomBytes(n)));
    const entries = new Map(blobs.map((b, i) => [`file-${i}.md`, { kind: 'blob' as const, oid: b.oid }]));
    const tree = prepareObject('tree', serializeTree(entries));
    const commit = prepareCommit({ tree: tree.oid, parent: null, author: 'tester', message: 'Pack test', time: new Date() });
    objects.push(...blobs, tree, commit, blobs[3]); // one object twice: stored once
    const staged = await stagePack(gitdir, join(gitdir, TEMP_DIR), objects.map(packEntry));
    await staged.publish();
    sysGit(gitdir, 'update-ref', 'refs/heads/main', commit.oid);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('git reads every object back byte for byte, and git fsck --strict is clean', () => {
    const [pack] = packsOf(gitdir);
    assert.ok(pack, 'one pack');
    const listed = sysGit(gitdir, 'verify-pack', '-v', join(gitdir, 'objects', 'pack', `${pack}.idx`));
    assert.equal([...listed.matchAll(/^[0-9a-f]{40} (blob|tree|commit) /gm)].length, objects.length - 1);
    for (const o of objects) {
      assert.equal(sysGit(gitdir, 'cat-file', '-t', o.oid).trim(), o.type);
      const content = execFileSync('git', ['--git-dir', gitdir, 'cat-file', o.type, o.oid], { maxBuffer: 16 << 20 });
      assert.ok(content.equals(o.content), `${o.type} ${o.oid} (${o.content.length} bytes)`);
    }
    fsckStrict(gitdir);
    assert.equal(sysGit(gitdir, 'log', '--format=%s', 'main').trim(), 'Pack test');
  });

  test('the index is the one git itself builds for the pack', () => {
    const [pack] = packsOf(gitdir);
    const ours = fs.readFileSync(join(gitdir, 'objects', 'pack', `${pack}.idx`));
    const theirs = join(dir, 'git-built.idx');
    execFileSync('git', ['index-pack', '-o', theirs, join(gitdir, 'objects', 'pack', `${pack}.pack`)], { stdio: 'pipe' });
    assert.ok(ours.equals(fs.readFileSync(theirs)));
  });

  test('isomorphic-git reads every object from the pack', async () => {
    const cache = {};
    for (const o of objects) {
      const read = await git.readObject({ fs, gitdir, oid: o.oid, format: 'content', cache });
      assert.equal(read.type, o.type);
      assert.ok(Buffer.from(read.object as Uint8Array).equals(o.content), `${o.type} ${o.oid}`);
    }
  });

  test('a pack is named by its checksum and holds each object once', async () => {
    const built = await buildPack(objects.map(packEntry));
    assert.equal(built.objects, objects.length - 1);
    assert.equal(`pack-${built.pack.subarray(-20).toString('hex')}`, built.name);
    assert.deepEqual(packsOf(gitdir), [built.name]);
  });
});

describe('A long file is encoded and hashed in slices', () => {
  // 2.5 M characters; a surrogate pair across the first place the text is cut (1 M characters), and
  // with cut = 1, 2, 3 characters of every width across it.
  const long = `${'a'.repeat((1 << 20) - 1)}😀${'Änderung 設定 👩🏽‍💻 "q"\n'.repeat(80_000)}`;

  test('into the blob git makes of the same text, whatever falls on the cuts', async () => {
    for (const cut of [0, 1, 2, 3]) {
      const text = long.slice(cut);
      const blob = await prepareBlob(text);
      const whole = prepareObject('blob', Buffer.from(text, 'utf8'));
      assert.equal(blob.oid, whole.oid, `cut ${cut}`);
      assert.ok(blob.content.equals(whole.content), `cut ${cut}`);
      assert.equal(blob.oid, execFileSync('git', ['hash-object', '--stdin'], { input: whole.content, encoding: 'utf8' }).trim(), `cut ${cut}`);
    }
  });

  test('other work runs between the slices', async () => {
    const { turns } = await withTurns(() => prepareBlob(long));
    assert.ok(turns >= 4, `${turns} turns of the event loop while 2.5 M characters were encoded and hashed`);
  });
});

describe('Writes through the service land as packs', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('import-files of many files is one pack, read back by git, isomorphic-git and the restarted server', async () => {
    const set = generateDocSet({ nodes: 150, seed: 7, languages: ['en', 'de'], bodyBytes: { min: 200, max: 3000 }, label: 'Packed', status: 'published' });
    const head = s.commitCount() === 0 ? null : s.git('rev-parse', 'main').trim();
    const res = await s.request('POST', '/versions/packed/import-files', { body: { files: set.files } });
    assert.equal(res.status, 200, res.text);
    const imported = objectsBetween(s.gitdir, head, s.git('rev-parse', 'main').trim());
    assert.ok(imported.length > set.files.length, `${imported.length} objects`);
    // In one pack (which the background merges may since have merged with others).
    const pack = new Set(objectsOfPackHolding(s.gitdir, s.git('rev-parse', 'main').trim()));
    assert.deepEqual(imported.filter((oid) => !pack.has(oid)), [], 'one pack for the whole import');
    assert.equal(looseObjects(s.gitdir), 0);
    fsckStrict(s.gitdir);
    const paths = s.git('ls-tree', '-r', '--name-only', 'main', 'packed/').trim().split('\n');
    // The content files, and the service's stamps: one file for the nodes, one per language.
    assert.equal(paths.length, set.files.length + 3);
    const listed = (await s.request('GET', '/versions/packed/nodes?include=bodies', { timeout: 30_000 })).body;
    // Stopped: the service's pack merge (a second after the last commit) cannot remove a pack while
    // isomorphic-git lists and reads them here (the service's own reads wait for it).
    await s.service.close();
    const sample = set.files.filter((_, i) => i % 37 === 0);
    const cache = {};
    for (const f of sample) {
      // The service writes ids into version.json; the body is the one imported.
      const stored = s.git('show', `main:packed/${f.path}`);
      if (f.path.endsWith('.md')) assert.ok(stored.endsWith(f.content.slice(f.content.indexOf('\n---\n') + 5)), f.path);
      const oid = s.git('rev-parse', `main:packed/${f.path}`).trim();
      const { blob } = await git.readBlob({ fs, gitdir: s.gitdir, oid, cache });
      assert.equal(Buffer.from(blob).toString('utf8'), stored);
    }
    s = await startTestServer({ dataDir: s.dataDir });
    assert.deepEqual((await s.request('GET', '/versions/packed/nodes?include=bodies', { timeout: 30_000 })).body, listed);
  });

  test('after git gc packs everything, the service goes on writing and reading', async () => {
    await createVersion(s, 'gc');
    await createNode(s, 'gc', { slug: 'before-gc' });
    s.git('gc', '--quiet', '--prune=now');
    assert.equal(packsOf(s.gitdir).length, 1);
    await createNode(s, 'gc', { slug: 'after-gc' });
    fsckStrict(s.gitdir);
    s = await s.restart();
    const nodes = (await s.request('GET', '/versions/gc/nodes')).body.nodes.map((n: { slug: string }) => n.slug);
    assert.deepEqual(nodes, ['before-gc', 'after-gc']);
  });
});

describe('Small packs are merged as writes go on', () => {
  test('which packs merge: the small ones, up to a pack more than twice all smaller ones together', () => {
    const packs = (sizes: number[]) => sizes.map((size, i) => ({ name: `p${i}`, size }));
    assert.deepEqual(choosePacks(packs([50, 60, 40, 55])).map((p) => p.size), [40, 50, 55, 60]);
    assert.deepEqual(choosePacks(packs([10, 10, 10, 1_000_000])).map((p) => p.size), [10, 10, 10]);
    assert.deepEqual(choosePacks(packs([10, 100, 1000])), [], 'already geometric: nothing to do');
  });

  test('a burst of single writes keeps the packs bounded; once writes pause they merge to a handful, readable by git and isomorphic-git', async () => {
    let s = await startTestServer();
    try {
      await createVersion(s, 'v1');
      const writes = 2 * COMPACTION.BURST_PACKS + 10;
      for (let i = 1; i < writes; i++) await createNode(s, 'v1', { slug: `n${i}` });
      // Closing waits for a merge in progress and drops the one planned for the pause.
      await s.service.close();
      const afterBurst = packsOf(s.gitdir).length;
      assert.ok(afterBurst <= 20, `${afterBurst} packs after a burst of ${writes} writes`);
      s = await startTestServer({ dataDir: s.dataDir });
      await createNode(s, 'v1', { slug: `n${writes}` });
      const settled = await packCountWithin(s.gitdir, 5);
      assert.ok(settled <= 5, `${settled} packs once writes paused`);
      fsckStrict(s.gitdir);
      assert.equal(Number(sysGit(s.gitdir, 'rev-list', '--count', 'main').trim()), writes + 1);
      const cache = {};
      for (const line of sysGit(s.gitdir, 'rev-list', '--objects', 'main').trim().split('\n')) {
        await git.readObject({ fs, gitdir: s.gitdir, oid: line.slice(0, 40), cache });
      }
      s = await s.restart();
      assert.equal((await s.request('GET', '/versions/v1/nodes')).body.nodes.length, writes);
    } finally {
      await s.close();
    }
  });

  test('a pack git gc made (with deltas) is left to git; the service writes and merges around it', async () => {
    // The merge alone: the repack with deltas (see test/reliability/housekeeping.test.ts) replaces gc's pack too.
    let s = await startTestServer({ env: { HELP_REPACK_PERCENT: '0' } });
    try {
      await createVersion(s, 'v1');
      await createNode(s, 'v1', { slug: 'a' });
      const body = 'A paragraph that stays the same from one revision to the next. '.repeat(40);
      for (let i = 0; i < 10; i++) await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'A', bodyMd: `${body}\nRevision ${i}\n` } });
      s.git('gc', '--quiet');
      const [gcPack] = packsOf(s.gitdir);
      assert.match(sysGit(s.gitdir, 'verify-pack', '-v', join(s.gitdir, 'objects', 'pack', `${gcPack}.idx`)), /chain length = 1:/, 'git stored deltas');
      for (let i = 0; i < 20; i++) await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'A', bodyMd: `${body}\nAfter gc ${i}\n` } });
      const settled = await packCountWithin(s.gitdir, 3);
      assert.ok(settled <= 3, `${settled} packs once writes paused`);
      assert.ok(packsOf(s.gitdir).includes(gcPack), 'the gc pack is untouched');
      fsckStrict(s.gitdir);
      s = await s.restart();
      assert.match((await s.request('GET', '/versions/v1/topics/a/translations/en')).body.bodyMd, /After gc 19\n$/);
    } finally {
      await s.close();
    }
  });

  test('a merge of small packs and packs over a megabyte (read on the thread pool) keeps every object, byte for byte', async () => {
    const dir = fs.mkdtempSync(join(tmpdir(), 'help-merge-'));
    try {
      const gitdir = join(dir, 'repo.git');
      execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', gitdir]);
      fs.mkdirSync(join(gitdir, TEMP_DIR));
      // Incompressible blobs, so each pack is as large as its blob: one small pack, three over 1 MB.
      const blobs = [10_000, 1_100_000, 1_200_000, 1_300_000].map((n) => prepareObject('blob', randomBytes(n)));
      for (const blob of blobs) {
        const staged = await stagePack(gitdir, join(gitdir, TEMP_DIR), [packEntry(blob)]);
        await staged.publish();
        staged.release();
      }
      assert.equal(packsOf(gitdir).length, 4);
      assert.equal(await compactPacks(gitdir, join(gitdir, TEMP_DIR), new Set(), COMPACTION.IDLE_MERGE_BYTES), 4, 'all four packs merged');
      assert.equal(packsOf(gitdir).length, 1);
      for (const blob of blobs) assert.ok(execFileSync('git', ['--git-dir', gitdir, 'cat-file', 'blob', blob.oid], { maxBuffer: 4 << 20 }).equals(blob.content), `blob ${blob.oid}`);
      fsckStrict(gitdir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a pack with a .keep file beside it stays as it is', async () => {
    const s = await startTestServer();
    try {
      await createVersion(s, 'v1');
      const [kept] = packsOf(s.gitdir);
      fs.writeFileSync(join(s.gitdir, 'objects', 'pack', `${kept}.keep`), 'kept by hand\n');
      for (let i = 0; i < 6; i++) await createNode(s, 'v1', { slug: `n${i}` });
      const settled = await packCountWithin(s.gitdir, 2);
      assert.equal(settled, 2, 'the kept pack and one merged pack');
      assert.ok(packsOf(s.gitdir).includes(kept));
      fsckStrict(s.gitdir);
    } finally {
      await s.close();
    }
  });
});

/** Waits (up to 10 s) for background compaction to bring the pack count to `atMost`; returns the count. */
async function packCountWithin(gitdir: string, atMost: number): Promise<number> {
  const until = Date.now() + 10_000;
  while (packsOf(gitdir).length > atMost && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
  return packsOf(gitdir).length;
}

/**
 * A write process killed at a chosen rename (`.idx`: the pack is in place but not its index;
 * `main`: pack and index are durable, the ref not yet moved) must leave a repository that git and
 * the service accept, on the old head.
 */
describe('A crash between writing the pack and moving the ref', () => {
  const repositoryModule = pathToFileURL(join(PROJECT, 'src', 'storage', 'repository.ts')).href;
  const crashingWrite = (gitdir: string, killAt: 'idx' | 'main') => `
    import fs from 'node:fs';
    import { syncBuiltinESMExports } from 'node:module';
    const { Repository } = await import(${JSON.stringify(repositoryModule)});
    const repo = await Repository.open(${JSON.stringify(gitdir)});
    const renameSync = fs.renameSync;
    fs.renameSync = (from, to) => {
      if (String(to).endsWith(${JSON.stringify(killAt === 'idx' ? '.idx' : '/refs/heads/main')})) process.kill(process.pid, 'SIGKILL');
      return renameSync(from, to);
    };
    syncBuiltinESMExports();
    const folder = await repo.writeFolder({ slug: 'v1', files: new Map([['en/lost.md', '---\\ntitle: Lost\\n---\\nNever acknowledged.\\n']]) });
    await repo.commit([folder], { author: 'crash', message: 'Never lands' });
    console.log('the write finished: the kill did not happen');
  `;

  for (const killAt of ['idx', 'main'] as const) {
    test(`killed at the rename of ${killAt === 'idx' ? 'the pack index' : 'the ref'}: main stays on the old commit, fsck is clean, the server starts and writes`, async () => {
      let s = await startTestServer();
      try {
        await createVersion(s, 'v1');
        await createNode(s, 'v1', { slug: 'kept' });
        const head = s.git('rev-parse', 'main').trim();
        const packs = packsOf(s.gitdir);
        await s.service.close();

        const run = await runProcess(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', crashingWrite(s.gitdir, killAt)], { cwd: PROJECT, env: process.env, timeout: 30_000 });
        assert.equal(run.code, null, `killed, not exited: ${run.stdout}${run.stderr}`);
        assert.equal(run.stdout, '');
        assert.equal(sysGit(s.gitdir, 'rev-parse', 'main').trim(), head);
        const lostBlob = execFileSync('git', ['hash-object', '--stdin'], { input: '---\ntitle: Lost\n---\nNever acknowledged.\n', encoding: 'utf8' }).trim();
        if (killAt === 'main') {
          assert.equal(packsOf(s.gitdir).length, packs.length + 1, 'the pack and its index are in place');
          assert.equal(sysGit(s.gitdir, 'cat-file', '-t', lostBlob).trim(), 'blob', 'the unreferenced objects are readable');
        }
        fsckStrict(s.gitdir);
        assert.equal(sysGit(s.gitdir, 'log', '--format=%s', '-1', 'main').trim(), 'Create topic kept in v1');

        s = await startTestServer({ dataDir: s.dataDir });
        assert.deepEqual((await s.request('GET', '/versions/v1/nodes')).body.nodes.map((n: { slug: string }) => n.slug), ['kept']);
        await createNode(s, 'v1', { slug: 'next' });
        assert.equal(s.git('rev-parse', 'main~1').trim(), head, 'the next commit follows the old head');
        assert.deepEqual(fs.readdirSync(join(s.gitdir, TEMP_DIR)), [], 'the crashed write left no temp files');
        fsckStrict(s.gitdir);
      } finally {
        await s.close();
      }
    });
  }

  test('an index whose pack is missing (renames reordered by the file system) is removed at start', async () => {
    let s = await startTestServer();
    try {
      await createVersion(s, 'v1');
      await s.service.close();
      // An index naming objects whose pack never reached the disk.
      const orphan = await buildPack([packEntry(prepareObject('blob', Buffer.from('orphan\n')))]);
      fs.writeFileSync(join(s.gitdir, 'objects', 'pack', `${orphan.name}.idx`), orphan.idx);
      await clearTempDir(s.gitdir);
      s = await startTestServer({ dataDir: s.dataDir });
      assert.ok(!fs.existsSync(join(s.gitdir, 'objects', 'pack', `${orphan.name}.idx`)));
      await createNode(s, 'v1', { slug: 'after' });
      fsckStrict(s.gitdir);
    } finally {
      await s.close();
    }
  });
});
