import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFiles } from './content.ts';

/** Commits files into a bare repository's main branch with the system git, as an operator going around the service would. */
export function commitWithGit(gitdir: string, files: Record<string, string | Uint8Array>, message: string, opts: { replace?: boolean } = {}): void {
  const work = mkdtempSync(join(tmpdir(), 'help-work-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_AUTHOR_NAME: 'hand', GIT_AUTHOR_EMAIL: 'hand@example.org', GIT_COMMITTER_NAME: 'hand', GIT_COMMITTER_EMAIL: 'hand@example.org' } });
  try {
    let hasMain = true;
    try {
      execFileSync('git', ['rev-parse', '--verify', 'main'], { cwd: gitdir, stdio: 'ignore' });
    } catch {
      hasMain = false;
    }
    if (hasMain) git('clone', '-q', '--branch', 'main', gitdir, '.');
    else {
      git('init', '-q', '-b', 'main');
      git('remote', 'add', 'origin', gitdir);
    }
    if (opts.replace) git('rm', '-rq', '--ignore-unmatch', '.');
    writeFiles(work, files);
    git('add', '-A');
    git('commit', '-qm', message);
    // The service's repository refuses pushes (a hook); an operator who means it goes around the hook.
    git('push', '-q', '--receive-pack=git -c core.hooksPath=/dev/null receive-pack', 'origin', 'HEAD:main');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Counts the loose objects of a repository. */
export function looseObjects(gitdir: string): number {
  const out = execFileSync('git', ['count-objects', '-v'], { cwd: gitdir, encoding: 'utf8' });
  return Number(/^count: (\d+)/m.exec(out)![1]);
}

/** Anything that runs the system git on the data repository (a TestServer does). */
interface HasGit {
  git(...args: string[]): string;
}

/**
 * Whether a path is one of the service's stamps files (`{version}/.stamps/…`), which change beside the
 * content files they stamp. Tests of what a write does to content leave them out; storage.test.ts
 * checks them.
 */
const isStamps = (line: string) => /(^|\t)[^/]+\/\.stamps\//.test(line);

/** Content files changed by the newest commit, sorted (`stamps`: the .stamps/ files too). */
export function changedFiles(s: HasGit, opts: { stamps?: boolean } = {}): string[] {
  return s.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n').filter(Boolean).filter((l) => opts.stamps || !isStamps(l)).sort();
}

/** The `status\tpath` lines of a commit for its content files (renames as a deletion and an addition), sorted. */
export function changesOf(s: HasGit, rev = 'HEAD', opts: { stamps?: boolean } = {}): string[] {
  return s.git('show', '--no-renames', '--name-status', '--format=', rev).trim().split('\n').filter(Boolean).filter((l) => opts.stamps || !isStamps(l)).sort();
}

/**
 * The objects of the pack that holds `oid`. The service merges and repacks packs in the background
 * once writes pause, so a test that asks which pack a write made finds it by the write's commit.
 */
export function objectsOfPackHolding(gitdir: string, oid: string): string[] {
  const dir = join(gitdir, 'objects', 'pack');
  for (const idx of readdirSync(dir).filter((f) => f.endsWith('.idx'))) {
    const listed = execFileSync('git', ['show-index'], { input: readFileSync(join(dir, idx)), encoding: 'utf8' });
    const oids = [...listed.matchAll(/^\d+ ([0-9a-f]{40})/gm)].map((m) => m[1]);
    if (oids.includes(oid)) return oids.sort();
  }
  throw new Error(`no pack holds ${oid}`);
}

/** The objects a commit range brought (`git rev-list --objects from..to`), sorted. */
export function objectsBetween(gitdir: string, from: string | null, to: string): string[] {
  const out = execFileSync('git', ['rev-list', '--objects', from === null ? to : `${from}..${to}`], { cwd: gitdir, encoding: 'utf8' });
  return out.trim().split('\n').map((line) => line.slice(0, 40)).sort();
}
