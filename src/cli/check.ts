import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readFileSet, renderFile, storedPaths } from '../content/file-set.ts';
import { isStampsPath } from '../content/stamps-file.ts';
import { ProblemList } from '../content/problems.ts';
import type { VersionState } from '../domain/types.ts';
import { blobText, notUtf8Problem } from '../storage/blob-text.ts';
import { catFileBlobs, gitEnv } from '../storage/cat-file.ts';
import { readOptions } from '../store/load.ts';
import { prepareObject } from '../storage/git-objects.ts';
import { readSnapshot } from '../store/snapshot.ts';
import { readPointers, snapshotTrees } from '../store/snapshot-files.ts';

const run = promisify(execFile);

/** What `check` found: the repository's own check, and each snapshot compared with git. */
export interface CheckReport {
  ok: boolean;
  /** `git fsck --strict`: null when the git command cannot be run. */
  repository: { ok: boolean; problems: string[] } | null;
  snapshots: Array<{ version: string; ok: boolean; problems: string[] }>;
}

/** The state the files of a tree (path → blob id) give when read as a start reads them; null when they do not read. */
async function readTree(gitdir: string, blobs: ReadonlyMap<string, string>, slug: string): Promise<VersionState | null> {
  const paths = [...blobs.keys()];
  const files = new Map<string, string>();
  const problems = new ProblemList();
  await catFileBlobs(gitdir, paths.map((p) => blobs.get(p)!), (i, bytes) => {
    const { text, bad } = blobText(bytes);
    files.set(paths[i], text);
    if (bad !== null) problems.error(paths[i], notUtf8Problem(bad), bad.line);
  });
  return readFileSet(files, readOptions(slug), problems);
}

/** Whatever git prints is kept, a line a problem, at most this many. */
const MAX_PROBLEMS = 100;

/**
 * Checks a data directory: every object of the repository (git fsck, which hashes each object as
 * it reads it), and every snapshot against git: its tree must exist, and each file the snapshot's
 * state would write must be, byte for byte, the blob the tree holds, or, read as a start reads it
 * (a file written by hand), mean the same (so a snapshot cannot go on serving content the
 * repository no longer has, or never had).
 */
export async function checkDataDir(dataDir: string): Promise<CheckReport> {
  const gitdir = join(dataDir, 'content.git');
  const git = (...args: string[]) => run('git', ['--git-dir', gitdir, ...args], { maxBuffer: 512 * 1024 * 1024, encoding: 'utf8', env: gitEnv() });
  let repository: CheckReport['repository'] = null;
  try {
    await git('fsck', '--strict', '--no-dangling', '--no-progress');
    repository = { ok: true, problems: [] };
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string; stdout?: string };
    if (e.code !== 'ENOENT') repository = { ok: false, problems: fsckProblems(`${e.stdout ?? ''}\n${e.stderr ?? ''}`).slice(0, MAX_PROBLEMS) };
  }
  const snapshots: CheckReport['snapshots'] = [];
  const dir = join(dataDir, 'snapshots');
  const pointers = [...readPointers(dir)];
  for (const tree of snapshotTrees(dir)) {
    const problems: string[] = [];
    // Named for the versions that point at it (one snapshot serves every version with that folder).
    const version = pointers.flatMap(([slug, to]) => (to === tree ? [slug] : [])).sort().join(', ') || `of tree ${tree}`;
    try {
      const snap = await (await readSnapshot(dir, tree)).open();
      let listing = '';
      try {
        listing = (await git('ls-tree', '-r', snap.tree.oid)).stdout;
      } catch {
        problems.push(`its tree ${snap.tree.oid} is not in the repository`);
      }
      if (problems.length === 0) {
        const blobs = new Map<string, string>();
        for (const line of listing.split('\n').filter(Boolean)) {
          const [meta, path] = line.split('\t');
          blobs.set(path, meta.split(' ')[2]);
        }
        const inTree = new Map(blobs);
        const rewritten: string[] = [];
        for (const path of storedPaths(snap.state)) {
          const text = renderFile(snap.state, path);
          const oid = blobs.get(path);
          if (text === null) continue;
          // A folder written before stamps moved to .stamps/ has them in its files: read, they must give the snapshot's.
          if (oid === undefined && isStampsPath(path)) rewritten.push(path);
          else if (oid === undefined) problems.push(`${version}/${path} is in the snapshot, not in its tree`);
          else if (prepareObject('blob', Buffer.from(text, 'utf8')).oid !== oid) rewritten.push(path);
          blobs.delete(path);
          if (problems.length >= MAX_PROBLEMS) break;
        }
        for (const path of blobs.keys()) if (problems.length < MAX_PROBLEMS) problems.push(`${version}/${path} is in the tree, not in the snapshot`);
        // Files written by hand are not byte for byte what the service writes (no ids, other spacing):
        // those are read as a start reads them, and must mean what the snapshot holds.
        if (rewritten.length > 0) {
          const read = await readTree(gitdir, inTree, snap.state.slug);
          for (const path of rewritten) {
            if (problems.length >= MAX_PROBLEMS) break;
            if (read !== null && renderFile(read, path) === renderFile(snap.state, path)) continue;
            const blob = inTree.get(path);
            problems.push(blob !== undefined ? `${version}/${path} differs from blob ${blob}` : `${version}/${path} is not in the tree, and the stamps its files carry differ from the snapshot's`);
          }
        }
      }
    } catch (err) {
      problems.push(`the snapshot cannot be read: ${(err as Error).message}`);
    }
    snapshots.push({ version, ok: problems.length === 0, problems });
  }
  const ok = (repository?.ok ?? true) && snapshots.every((s) => s.ok);
  return { ok, repository, snapshots };
}

/**
 * git fsck's output as problems: one per message (its "broken link from … / to …" spans two lines),
 * the causes (`error:` lines, such as a pack that does not match its index) before the dozens of
 * broken links and missing objects they lead to.
 */
export function fsckProblems(output: string): string[] {
  const problems: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    // A continuation is indented, or starts with "to" (the second half of a broken link).
    if (problems.length > 0 && (/^\s/.test(raw) || /^to /.test(line))) problems[problems.length - 1] += ` ${line}`;
    else problems.push(line);
  }
  const causes = problems.filter((p) => /^(error|fatal):/.test(p));
  return [...causes, ...problems.filter((p) => !causes.includes(p))];
}

/** The report as an operator reads it. */
export function formatReport(report: CheckReport): string {
  const lines: string[] = [];
  if (report.repository === null) lines.push('repository: not checked (the git command cannot be run)');
  else if (report.repository.ok) lines.push('repository: ok (git fsck --strict)');
  else lines.push('repository: PROBLEMS (git fsck --strict)', ...report.repository.problems.map((p) => `  ${p}`));
  for (const s of report.snapshots) {
    if (s.ok) lines.push(`snapshot ${s.version}: ok`);
    else lines.push(`snapshot ${s.version}: PROBLEMS`, ...s.problems.map((p) => `  ${p}`));
  }
  if (report.snapshots.length === 0) lines.push('snapshots: none');
  lines.push(report.ok ? 'All checks passed.' : 'Problems found. A snapshot that disagrees with git is only a cache: delete the snapshot (snapshots/<tree id>.snapshot) and restart. For the repository, see docs/operations.md (Troubleshooting).');
  return lines.join('\n');
}
