import { execFile } from 'node:child_process';
import type { Logger } from 'pino';
import { isVersionSlug } from '../domain/names.ts';
import type { VersionState } from '../domain/types.ts';
import { catFileTrees, gitEnv } from '../storage/cat-file.ts';
import { BRANCH } from '../storage/branch.ts';
import type { TreeNode } from '../storage/git-objects.ts';
import type { Repository } from '../storage/repository.ts';
import type { Catalog } from './catalog.ts';
import { formatProblem, readFolder } from './load.ts';

/** What is swapped when a commit made outside the writer becomes the head. */
export interface AdoptTarget {
  repo: Repository;
  catalog: Catalog;
  /** The revision served (the replica layer's RevisionFeed): told the new head and the commits it brings. */
  revisions: { set(revision: string | null, between?: readonly string[]): void };
  log: Logger;
}

/** What one adoption changed. */
export interface Adopted {
  versions: string[];
  removed: string[];
  filesRead: number;
}

/**
 * Serves `commit` (its objects in the repository, not yet on `main`) in place of the current head:
 * a replica's fetched commit, or an accepted push. Only the version folders whose trees differ are
 * read, and of those only the files that differ. Everything is loaded aside first; then `main` is
 * moved on disk (from the head served, checked by git under its lock), and last the repository's
 * head, the catalog and the served revision change in one synchronous step: a request sees the old
 * commit or the new one, never a mix, and a failure before the end leaves the old one served.
 * `reflog`: the reason git records for the move.
 */
export async function adoptCommit(commit: string, { repo, catalog, revisions, log }: AdoptTarget, reflog: string): Promise<Adopted> {
  const previous = repo.headCommit;
  if (previous === commit) return { versions: [], removed: [], filesRead: 0 };
  const { root, unreadable } = await catFileTrees(repo.gitdir, commit);
  const before = repo.folders();
  const after = new Map<string, TreeNode>();
  for (const [name, entry] of root.entries) if (entry.kind === 'tree') after.set(name, entry.tree);
  const loaded = new Map<string, { state: VersionState } | { broken: string }>();
  let filesRead = 0;
  for (const [slug, tree] of after) {
    const old = before.get(slug);
    const oldState = catalog.entry(slug)?.state;
    if (old?.oid === tree.oid && oldState !== undefined && !unreadable.has(slug)) continue;
    if (!isVersionSlug(slug)) {
      loaded.set(slug, { broken: `the folder name "${slug}" is not a valid version slug` });
      continue;
    }
    const reason = unreadable.get(slug);
    if (reason !== undefined) {
      loaded.set(slug, { broken: reason });
      continue;
    }
    const read = await readFolder(repo, slug, tree, old !== undefined && oldState !== undefined ? { tree: old, state: oldState } : null);
    filesRead += read.read;
    loaded.set(slug, read.state ? { state: read.state } : { broken: `${read.problems.errorCount} problem(s) in its files, first: ${formatProblem(read.problems.errors[0])}` });
  }
  const removed = [...before.keys()].filter((slug) => !after.has(slug));
  const between = previous === null ? [] : await commitsBetween(repo.gitdir, previous, commit);
  await moveBranch(repo.gitdir, commit, previous, reflog);
  // From here to the end, nothing awaits: the swap is one step.
  repo.adoptHead(commit, root, unreadable);
  for (const slug of removed) void catalog.set(slug, null);
  for (const [slug, result] of loaded) {
    if ('broken' in result) {
      log.error({ version: slug, reason: result.broken }, 'version cannot be served');
      catalog.setBroken(slug, result.broken);
      continue;
    }
    const indexed = catalog.set(slug, result.state);
    indexed?.catch((err: unknown) => log.error({ version: slug, err }, 'search index could not be updated'));
  }
  revisions.set(commit, between);
  return { versions: [...loaded.keys()], removed, filesRead };
}

/** The commits after `from` up to `to` (the writes an adoption brings in), newest first; none when git cannot say. */
function commitsBetween(gitdir: string, from: string, to: string): Promise<string[]> {
  return new Promise((resolve) => {
    execFile('git', ['--git-dir', gitdir, 'rev-list', '--max-count=10000', `${from}..${to}`], { env: gitEnv(), maxBuffer: 1024 * 1024 }, (err, out) => resolve(err ? [] : String(out).split('\n').filter((l) => /^[0-9a-f]{40}$/.test(l))));
  });
}

/** Moves `main` from `previous` to `commit` with git's own lock and check of the old value, durably. */
function moveBranch(gitdir: string, commit: string, previous: string | null, reflog: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('git', ['--git-dir', gitdir, '-c', 'core.fsync=reference', 'update-ref', '-m', reflog, BRANCH, commit, previous ?? ''], { env: gitEnv() }, (err, _out, stderr) => {
      if (err) reject(new Error(`main could not be moved to ${commit}: ${String(stderr).trim() || err.message}`));
      else resolve();
    });
  });
}
