import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';
import { SPARE_DIR, sparesReadyFor, TEMP_DIR } from '../src/storage/durable-fs.ts';
import { Repository } from '../src/storage/repository.ts';
import { PROJECT, runProcess } from './helpers/process.ts';

/**
 * The pack and index files of a commit are created ahead, after the commit before it (durable-fs.ts,
 * prepareSpares), in `tmp-spares/`. What must hold: a commit that writes into them fsyncs and
 * publishes exactly as before, and spares left by a crash are removed at the next start and never
 * end up in the repository.
 */

const sysGit = (gitdir: string, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

function newRepository(): { dir: string; gitdir: string } {
  const dir = fs.mkdtempSync(join(tmpdir(), 'help-spares-'));
  const gitdir = join(dir, 'content.git');
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', gitdir]);
  return { dir, gitdir };
}

/** Every file in the spare folder: the empty files made ahead, and the ref and .keep files commits keep for the next (recycled-files.ts). */
const allSparesOf = (gitdir: string) => fs.readdirSync(join(gitdir, SPARE_DIR)).sort();
/** The empty files made ahead (the recycled ones are named by kind: ref-…, keep-…). */
const sparesOf = (gitdir: string) => allSparesOf(gitdir).filter((name) => !/^(ref|keep)-/.test(name));

/** Waits (up to 10 s: the machine may be loaded) until `count` spares are made and ready to be taken; returns their names. */
async function sparesReady(gitdir: string, count: number): Promise<string[]> {
  const until = Date.now() + 10_000;
  while (sparesReadyFor(join(gitdir, TEMP_DIR)) < count && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  return sparesOf(gitdir);
}

async function commitFile(repo: Repository, path: string, text: string, message: string): Promise<string> {
  const folder = await repo.writeFolder({ slug: 'v1', files: new Map([[path, text]]) });
  return repo.commit([folder], { author: 'test', message });
}

/** `git count-objects -v`'s garbage: files in objects/ that git does not recognise (a stray temp file would be one). */
function garbage(gitdir: string): string {
  return sysGit(gitdir, 'count-objects', '-v')
    .split('\n')
    .filter((l) => l.startsWith('garbage') || l.startsWith('size-garbage'))
    .join(', ');
}

type Event = { kind: 'fsync'; path: string } | { kind: 'rename'; from: string; to: string };

/** Records every fsync (by the path its descriptor names) and rename while `run` runs, in order. */
async function recordDiskCalls(run: () => Promise<unknown>): Promise<Event[]> {
  const events: Event[] = [];
  const fsync = fs.fsync;
  const patched = fs as unknown as { default: typeof fs };
  const real = patched.default ?? fs;
  real.fsync = ((fd: number, callback: (err: NodeJS.ErrnoException | null) => void) => {
    events.push({ kind: 'fsync', path: fs.readlinkSync(`/proc/self/fd/${fd}`) });
    return fsync(fd, callback);
  }) as typeof fs.fsync;
  const renameSync = real.renameSync;
  real.renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
    events.push({ kind: 'rename', from: String(from), to: String(to) });
    return renameSync(from, to);
  }) as typeof fs.renameSync;
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    real.fsync = fsync;
    real.renameSync = renameSync;
    syncBuiltinESMExports();
  }
  return events;
}

describe('Pack files made ahead of the commit that fills them', () => {
  test('the next commit writes into the spares and fsyncs as before: each file before its rename into objects/pack, that folder before the branch moves, refs/heads after', async () => {
    const { dir, gitdir } = newRepository();
    const repo = await Repository.open(gitdir);
    try {
      await commitFile(repo, 'en/first.md', 'First.\n', 'First');
      const spares = await sparesReady(gitdir, 4);
      assert.equal(spares.length, 4, 'four spares made after the commit: two commits\' pack and index');
      for (const name of spares) assert.equal(fs.statSync(join(gitdir, SPARE_DIR, name)).size, 0, 'a spare is an empty file');
      const spareDir = join(gitdir, SPARE_DIR);
      const realSpareDir = fs.realpathSync(spareDir);
      const packDir = join(gitdir, 'objects', 'pack');
      const heads = join(gitdir, 'refs', 'heads');
      const real = (path: string) => join(fs.realpathSync(dirname(path)), basename(path));
      const events = await recordDiskCalls(() => commitFile(repo, 'en/second.md', 'Second, written into spare files.\n', 'Second'));

      const fsynced = (path: string, from: number, to: number) => events.slice(from, to).some((e) => e.kind === 'fsync' && e.path === path);
      assert.equal(events.filter((e) => e.kind === 'fsync').length, 5, `five fsyncs per commit, as before: ${JSON.stringify(events)}`);
      const intoPacks = events.flatMap((e, at) => (e.kind === 'rename' && dirname(e.to) === packDir ? [{ from: e.from, to: e.to, at }] : []));
      assert.deepEqual(intoPacks.map((r) => extname(r.to)), ['.pack', '.idx'], 'the pack, then its index');
      for (const r of intoPacks) {
        assert.equal(dirname(r.from), spareDir, `${r.from} is a spare`);
        assert.ok(spares.includes(basename(r.from)), `${r.from} is one of the spares made after the first commit`);
        assert.ok(fsynced(join(realSpareDir, basename(r.from)), 0, r.at), `${r.from} is fsynced before its rename`);
      }
      const refRename = events.findIndex((e) => e.kind === 'rename' && e.to === join(heads, 'main'));
      assert.ok(refRename > intoPacks[1].at, 'the branch moves after the pack and its index are in place');
      assert.ok(fsynced(real(packDir), intoPacks[1].at, refRename), 'objects/pack is fsynced between the renames into it and the branch');
      assert.ok(fsynced(real(join(heads, 'main.lock')), 0, refRename), 'the new ref is fsynced in its lock file before the rename');
      assert.ok(fsynced(real(heads), refRename, events.length), 'refs/heads is fsynced after the branch moved');

      assert.equal(sysGit(gitdir, 'cat-file', 'blob', 'main:v1/en/second.md'), 'Second, written into spare files.\n');
      assert.equal(sysGit(gitdir, 'log', '--format=%s', 'main').trim(), 'Second\nFirst');
      sysGit(gitdir, 'fsck', '--strict', '--no-progress');
      assert.equal(garbage(gitdir), 'garbage: 0, size-garbage: 0');
      assert.deepEqual(fs.readdirSync(join(gitdir, TEMP_DIR)), [], 'nothing left in the temp folder');
      await sparesReady(gitdir, 4);
    } finally {
      await repo.settle();
      assert.deepEqual(allSparesOf(gitdir), [], 'a stop removes the spares, the recycled files with them');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('spares a kill -9 left, empty or half written, are removed at the next start and never reach the repository', async () => {
    const { dir, gitdir } = newRepository();
    try {
      const repositoryModule = pathToFileURL(join(PROJECT, 'src', 'storage', 'repository.ts')).href;
      const script = `
        import * as fs from 'node:fs';
        const { Repository } = await import(${JSON.stringify(repositoryModule)});
        const repo = await Repository.open(${JSON.stringify(gitdir)});
        const folder = await repo.writeFolder({ slug: 'v1', files: new Map([['en/kept.md', 'Acknowledged.\\n']]) });
        await repo.commit([folder], { author: 'test', message: 'Kept' });
        const spares = ${JSON.stringify(join(gitdir, SPARE_DIR))};
        const made = () => fs.readdirSync(spares).filter((name) => /^[0-9]+-/.test(name));
        while (made().length < 4) await new Promise((resolve) => setTimeout(resolve, 10));
        // As if a commit had begun writing into one when the process died.
        fs.writeFileSync(spares + '/' + made()[0], 'PACK half written');
        process.kill(process.pid, 'SIGKILL');
      `;
      const run = await runProcess(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: PROJECT, env: process.env, timeout: 30_000 });
      assert.equal(run.code, null, `killed, not exited: ${run.stdout}${run.stderr}`);
      assert.equal(sparesOf(gitdir).length, 4, 'the kill left the spares behind');
      const head = sysGit(gitdir, 'rev-parse', 'main').trim();

      const repo = await Repository.open(gitdir);
      try {
        assert.deepEqual(allSparesOf(gitdir), [], 'the start removed them, and the recycled files');
        assert.equal(repo.headCommit, head);
        const packsBefore = fs.readdirSync(join(gitdir, 'objects', 'pack')).sort();
        assert.ok(packsBefore.every((name) => /^pack-[0-9a-f]{40}\.(pack|idx)$/.test(name)), `only packs and their indexes: ${packsBefore.join(', ')}`);
        await commitFile(repo, 'en/next.md', 'Next.\n', 'Next');
        assert.equal(sysGit(gitdir, 'log', '--format=%s', 'main').trim(), 'Next\nKept');
        assert.equal(sysGit(gitdir, 'cat-file', 'blob', 'main:v1/en/kept.md'), 'Acknowledged.\n');
        sysGit(gitdir, 'fsck', '--strict', '--no-progress');
        assert.equal(garbage(gitdir), 'garbage: 0, size-garbage: 0');
      } finally {
        await repo.settle();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a second open of the same repository in one process drops the first one\'s spares, and commits still land', async () => {
    const { dir, gitdir } = newRepository();
    try {
      const first = await Repository.open(gitdir);
      await commitFile(first, 'en/a.md', 'A.\n', 'A');
      await sparesReady(gitdir, 4);
      const second = await Repository.open(gitdir);
      try {
        assert.deepEqual(allSparesOf(gitdir), []);
        await commitFile(second, 'en/b.md', 'B.\n', 'B');
        assert.equal(sysGit(gitdir, 'cat-file', 'blob', 'main:v1/en/b.md'), 'B.\n');
        sysGit(gitdir, 'fsck', '--strict', '--no-progress');
      } finally {
        await second.settle();
        await first.settle();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
