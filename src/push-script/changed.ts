import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** git could not answer: not a repository, an unknown revision, git missing. Never "nothing changed". */
export class GitError extends Error {}

export interface Changes {
  /** Every version folder under the root is to be checked (no usable base commit), and why. */
  all: { reason: string } | null;
  /** The version folder names that changed (or all of them), sorted. */
  versions: string[];
  /** Changed paths under the root that are not inside a version folder (`docs/README.md`). */
  outside: string[];
}

/**
 * Paths under `rootRel` with changes not committed (edited, added, deleted; untracked ones too):
 * push-changed picks versions by their commits but sends the files as they are on disk.
 */
export function uncommitted(rootRel: string, cwd = process.cwd()): string[] {
  const listed = git(['status', '--porcelain', '-z', '--untracked-files=all', '--', rootRel], cwd);
  // Entries are "XY path"; a rename adds its old path as the next entry, which is skipped.
  const out: string[] = [];
  const entries = listed.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.length < 4) continue;
    out.push(e.slice(3));
    if (e[0] === 'R' || e[0] === 'C') i++;
  }
  return out.sort();
}

/** Runs git with an argument list (no shell) in `cwd`. */
function run(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new GitError(missing ? 'git is not installed (or not on PATH)' : `git ${args[0]} could not run: ${r.error.message}`);
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** git's stdout, or a GitError with what it said. */
function git(args: string[], cwd: string): string {
  const r = run(args, cwd);
  if (r.status !== 0) throw new GitError(`git ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.trim() || 'no message'}`);
  return r.stdout;
}

/** Whether `rev` names a commit; git's failures other than "no such commit" throw. */
function isCommit(rev: string, cwd: string): boolean {
  if (rev.startsWith('-')) return false;
  const r = run(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], cwd);
  if (r.status === 0) return true;
  if (r.status === 1) return false;
  throw new GitError(`git rev-parse ${rev} failed (exit ${r.status}): ${r.stderr.trim() || 'no message'}`);
}

/** `root` as git and the reader name it from `cwd` (relative, `/` separators), or null when it is not below `cwd`. */
export function rootPath(root: string, cwd = process.cwd()): string | null {
  const rel = relative(cwd, resolve(cwd, root));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

/** The version folders under `root` in the working tree (hidden ones left out). */
function allFolders(root: string, cwd: string): string[] {
  if (!statSync(resolve(cwd, root), { throwIfNoEntry: false })?.isDirectory()) return [];
  return readdirSync(resolve(cwd, root), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
}

/**
 * Which version folders under `rootRel` (see rootPath) changed between `since` and HEAD (`git diff --name-only`).
 * With `since` empty or all zeros (GitHub's `before` on the first push of a branch), or a full commit
 * id the repository does not have (history rewritten by a force push, or a clone too shallow to hold
 * it), there is no base to compare with: every version folder is to be checked, and `all` says why.
 * Any other `since` that git cannot resolve, or any failure of git, throws: a run must never pass
 * because git could not say what changed.
 */
export function changedVersions(rootRel: string, since: string, cwd = process.cwd()): Changes {
  git(['rev-parse', '--is-inside-work-tree'], cwd);
  if (!isCommit('HEAD', cwd)) throw new GitError('HEAD is not a commit (a repository without commits?)');
  const everything = (reason: string): Changes => ({ all: { reason }, versions: allFolders(rootRel, cwd), outside: [] });
  if (since === '') return everything('no base commit was given');
  if (/^0+$/.test(since)) return everything(`the base commit is all zeros (the first push of a branch)`);
  if (!isCommit(since, cwd)) {
    if (/^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(since)) {
      return everything(`the base commit ${since.slice(0, 12)} is not in this repository (history rewritten by a force push, or a shallow clone)`);
    }
    throw new GitError(`"${since}" is not a commit of this repository (git rev-parse found nothing by that name)`);
  }
  const listed = git(['diff', '--name-only', '-z', '--no-renames', '--relative', since, 'HEAD', '--', rootRel], cwd);
  const versions = new Set<string>();
  const outside: string[] = [];
  for (const path of listed.split('\0')) {
    if (path === '' || !path.startsWith(`${rootRel}/`)) continue;
    const rest = path.slice(rootRel.length + 1);
    const slash = rest.indexOf('/');
    if (slash < 0) outside.push(path);
    else if (!rest.startsWith('.')) versions.add(rest.slice(0, slash));
  }
  return { all: null, versions: [...versions].sort(), outside: outside.sort() };
}
