import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SPARE_DIR } from '../src/storage/durable-fs.ts';
import { Repository } from '../src/storage/repository.ts';

/**
 * A commit keeps the branch's previous ref file and its pack's `.keep` for the next commit instead of
 * deleting them (recycled-files.ts). What must hold: after the first commits no commit makes or frees
 * those files; the branch never holds the new commit before its lock is renamed over it (a kept file
 * is written into only once it is no longer the branch), also after a commit that failed at that
 * rename; git's own ref packing and lock beside the service change nothing of that.
 */

const sysGit = (gitdir: string, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

async function withRepository(run: (repo: Repository, gitdir: string) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(join(tmpdir(), 'help-recycled-'));
  const gitdir = join(dir, 'content.git');
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', gitdir]);
  const repo = await Repository.open(gitdir);
  try {
    await run(repo, gitdir);
  } finally {
    await repo.settle();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let n = 0;
async function commit(repo: Repository): Promise<string> {
  n++;
  const folder = await repo.writeFolder({ slug: 'v1', files: new Map([[`en/page-${n}.md`, `Page ${n}.\n`]]) });
  return repo.commit([folder], { author: 'test', message: `Commit ${n}` });
}

const branchFile = (gitdir: string) => join(gitdir, 'refs', 'heads', 'main');
const keepsOf = (gitdir: string) => fs.readdirSync(join(gitdir, 'objects', 'pack')).filter((name) => name.endsWith('.keep'));
const recycledOf = (gitdir: string) => fs.readdirSync(join(gitdir, SPARE_DIR)).filter((name) => /^(ref|keep)-/.test(name)).map((name) => name.split('-')[0]).sort();

/**
 * Runs `run` with fs.renameSync watched: before each rename over the branch, `seen` gets what the
 * branch file holds then; `failNext` makes the next such rename fail as a full disk would.
 */
async function watchingBranchRenames(gitdir: string, run: (control: { seen: string[]; failNext: boolean }) => Promise<void>): Promise<void> {
  const control = { seen: [] as string[], failNext: false };
  const patched = fs as unknown as { default: typeof fs };
  const real = patched.default ?? fs;
  const renameSync = real.renameSync;
  real.renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
    if (String(to) === branchFile(gitdir)) {
      control.seen.push(fs.readFileSync(branchFile(gitdir), 'latin1').trim());
      if (control.failNext) {
        control.failNext = false;
        throw Object.assign(new Error('ENOSPC: no space left on device, rename'), { code: 'ENOSPC' });
      }
    }
    return renameSync(from, to);
  }) as typeof fs.renameSync;
  syncBuiltinESMExports();
  try {
    await run(control);
  } finally {
    real.renameSync = renameSync;
    syncBuiltinESMExports();
  }
}

describe('Ref and .keep files kept for the next commit', () => {
  test('after the first commits a commit makes and frees neither: the branch alternates between two files, no .keep is left, git reads every commit', async () => {
    await withRepository(async (repo, gitdir) => {
      await commit(repo);
      await commit(repo);
      const inodes = new Set<number>();
      for (let k = 0; k < 6; k++) {
        const oid = await commit(repo);
        assert.equal(sysGit(gitdir, 'rev-parse', 'main').trim(), oid);
        assert.equal(fs.readFileSync(branchFile(gitdir), 'latin1'), `${oid}\n`, 'the ref file holds the commit and nothing else');
        inodes.add(fs.statSync(branchFile(gitdir)).ino);
        assert.deepEqual(keepsOf(gitdir), [], 'the .keep went once the branch moved');
        assert.deepEqual(recycledOf(gitdir), ['keep', 'ref'], 'one ref file and one .keep wait for the next commit');
      }
      assert.equal(inodes.size, 2, `the branch's file is one of two, taking turns (inodes ${[...inodes].join(', ')})`);
      sysGit(gitdir, 'fsck', '--strict', '--no-progress');
      assert.equal(sysGit(gitdir, 'rev-list', '--count', 'main').trim(), '8');
      assert.match(sysGit(gitdir, 'count-objects', '-v'), /^garbage: 0$/m);
    });
  });

  test('the branch holds the commit before until the lock is renamed over it, also in the commit after one whose rename failed', async () => {
    await withRepository(async (repo, gitdir) => {
      const first = await commit(repo);
      const second = await commit(repo);
      await watchingBranchRenames(gitdir, async (control) => {
        const third = await commit(repo);
        assert.deepEqual(control.seen, [second]);

        control.failNext = true;
        await assert.rejects(commit(repo), /ENOSPC/);
        assert.equal(sysGit(gitdir, 'rev-parse', 'main').trim(), third, 'a failed commit leaves the branch where it was');
        assert.deepEqual(control.seen, [second, third]);

        const fifth = await commit(repo);
        assert.deepEqual(control.seen, [second, third, third], 'the commit after the failed one did not write into the branch before its rename');
        assert.equal(sysGit(gitdir, 'rev-parse', 'main').trim(), fifth);
        const sixth = await commit(repo);
        assert.deepEqual(control.seen, [second, third, third, fifth]);
        assert.equal(sysGit(gitdir, 'rev-parse', 'main').trim(), sixth);
        assert.equal(sysGit(gitdir, 'rev-parse', `${sixth}~3`).trim(), second);
        assert.equal(sysGit(gitdir, 'rev-parse', `${sixth}~4`).trim(), first);
      });
      sysGit(gitdir, 'fsck', '--strict', '--no-progress');
    });
  });

  test("git's ref packing between commits (no loose ref to keep) and a lock git holds meanwhile: commits wait for it and land", async () => {
    await withRepository(async (repo, gitdir) => {
      await commit(repo);
      const second = await commit(repo);
      sysGit(gitdir, 'pack-refs', '--all', '--prune');
      assert.equal(fs.existsSync(branchFile(gitdir)), false, 'the branch is only in packed-refs now');
      const third = await commit(repo);
      assert.equal(sysGit(gitdir, 'rev-parse', 'main').trim(), third);
      assert.equal(sysGit(gitdir, 'rev-parse', 'main~1').trim(), second);

      // A ref file is kept from here on; git takes the branch's lock as a gc would, and lets it go.
      await commit(repo);
      assert.deepEqual(recycledOf(gitdir), ['keep', 'ref']);
      const lock = `${branchFile(gitdir)}.lock`;
      fs.writeFileSync(lock, '');
      const waiting = commit(repo);
      let landed = false;
      void waiting.then(() => (landed = true));
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(landed, false, 'the commit waits while git holds the lock');
      fs.rmSync(lock);
      const fifth = await waiting;
      assert.equal(sysGit(gitdir, 'rev-parse', 'main').trim(), fifth);
      assert.equal(sysGit(gitdir, 'rev-list', '--count', 'main').trim(), '5');
      sysGit(gitdir, 'fsck', '--strict', '--no-progress');
    });
  });
});
