import { spawn } from 'node:child_process';
import { catFileObjects, commitTree, gitEnv, GitUnavailableError, parseTree } from './cat-file.ts';
import type { TreeEntry, TreeNode } from './git-objects.ts';

/*
 * Reading past commits with the system git: objects by id through `git cat-file --batch`, and the
 * log of main. What the history of nodes and versions reads when it is not in memory.
 */

/** Objects by id, each with its type; missing or damaged ones reject (DamagedObjectError). */
export async function readObjects(gitdir: string, oids: readonly string[]): Promise<Map<string, { type: string; bytes: Buffer }>> {
  const wanted = [...new Set(oids)];
  const out = new Map<string, { type: string; bytes: Buffer }>();
  await catFileObjects(gitdir, wanted, (i, type, bytes) => out.set(wanted[i], { type, bytes }));
  return out;
}

/** A blob's bytes. */
export async function readBlob(gitdir: string, oid: string): Promise<Buffer> {
  const object = (await readObjects(gitdir, [oid])).get(oid)!;
  if (object.type !== 'blob') throw new GitUnavailableError(`${oid} is a ${object.type}, not a blob`);
  return object.bytes;
}

/** The root tree's entries of a commit. */
async function rootEntries(gitdir: string, commit: string): Promise<Array<{ mode: string; name: string; oid: string }>> {
  const c = (await readObjects(gitdir, [commit])).get(commit)!;
  if (c.type !== 'commit') throw new GitUnavailableError(`${commit} is a ${c.type}, not a commit`);
  const root = commitTree(c.bytes);
  return parseTree((await readObjects(gitdir, [root])).get(root)!.bytes);
}

/** The tree of a version's folder at a commit, two levels deep (its files, its language folders' files), or null when the folder did not exist. */
export async function folderAt(gitdir: string, commit: string, folder: string): Promise<TreeNode | null> {
  const entry = (await rootEntries(gitdir, commit)).find((e) => e.name === folder && e.mode === '40000');
  if (entry === undefined) return null;
  const top = parseTree((await readObjects(gitdir, [entry.oid])).get(entry.oid)!.bytes);
  const subtrees = top.filter((e) => e.mode === '40000').map((e) => e.oid);
  const read = await readObjects(gitdir, subtrees);
  const node = (oid: string, entries: Array<{ mode: string; name: string; oid: string }>, depth: number): TreeNode => {
    const out = new Map<string, TreeEntry>();
    for (const e of entries) {
      if (e.mode === '40000') {
        if (depth === 0) out.set(e.name, { kind: 'tree', oid: e.oid, tree: node(e.oid, parseTree(read.get(e.oid)!.bytes), 1) });
      } else if (e.mode !== '160000') out.set(e.name, { kind: 'blob', oid: e.oid });
    }
    return { oid, entries: out };
  };
  return node(entry.oid, top, 0);
}

/** Every version folder's version.json text at a commit (the starting point of a catch-up from the log). */
export async function versionFilesAt(gitdir: string, commit: string): Promise<Map<string, string>> {
  const folders = (await rootEntries(gitdir, commit)).filter((e) => e.mode === '40000');
  const trees = await readObjects(gitdir, folders.map((f) => f.oid));
  const files = new Map<string, string>();
  for (const f of folders) {
    const entry = parseTree(trees.get(f.oid)!.bytes).find((e) => e.name === 'version.json');
    if (entry) files.set(f.name, entry.oid);
  }
  const blobs = await readObjects(gitdir, [...files.values()]);
  return new Map([...files].map(([name, oid]) => [name, blobs.get(oid)!.bytes.toString('utf8')]));
}

/** One commit of the log with the paths it changed against its first parent. */
export interface LoggedCommit {
  revision: string;
  author: string;
  /** Seconds since the epoch (git's precision). */
  time: number;
  message: string;
  /** path → status (A, M, D) and the blob after the commit (null when deleted). */
  paths: Array<{ path: string; status: string; blob: string | null }>;
}

const ZERO = '0'.repeat(40);

/** Runs git and answers its standard output (rejects with GitUnavailableError when git cannot run or fails). */
export function runGit(gitdir: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn('git', ['--git-dir', gitdir, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: gitEnv() });
    const out: Buffer[] = [];
    let err = '';
    proc.stdout.on('data', (c: Buffer) => out.push(c));
    proc.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
    proc.once('error', (e) => reject(new GitUnavailableError(`git cannot be run: ${e.message}`)));
    proc.once('close', (code) => (code === 0 ? resolve(Buffer.concat(out).toString('utf8')) : reject(new GitUnavailableError(`git ${args[0]} failed (exit ${code}): ${err.trim()}`))));
  });
}

/** Whether `ancestor` is on the history of `head`. */
export async function isAncestor(gitdir: string, ancestor: string, head: string): Promise<boolean> {
  try {
    await runGit(gitdir, ['merge-base', '--is-ancestor', ancestor, head]);
    return true;
  } catch {
    return false;
  }
}

/** The commits after `since` (or all) up to `head` on main's first-parent line, oldest first, with the paths each changed. */
export async function logOf(gitdir: string, head: string, since: string | null): Promise<LoggedCommit[]> {
  const text = await runGit(gitdir, [
    '-c', 'core.quotePath=false', 'log', '--first-parent', '--reverse', '--diff-merges=first-parent', '--raw', '--no-renames', '--no-abbrev',
    '--format=%x1e%H%x1f%an%x1f%at%x1f%B%x1f', since === null ? head : `${since}..${head}`,
  ]);
  const out: LoggedCommit[] = [];
  for (const record of text.split('\x1e')) {
    if (record.trim() === '') continue;
    const [revision, author, time, message, raw = ''] = record.split('\x1f');
    const paths: LoggedCommit['paths'] = [];
    for (const line of raw.split('\n')) {
      // :100644 100644 <old> <new> M\t<path>
      const m = /^:\d+ \d+ [0-9a-f]{40} ([0-9a-f]{40}) ([AMDT])\t(.+)$/.exec(line);
      if (m) paths.push({ path: m[3], status: m[2] === 'T' ? 'M' : m[2], blob: m[1] === ZERO ? null : m[1] });
    }
    out.push({ revision, author, time: Number(time), message: message.replace(/\n+$/, ''), paths });
  }
  return out;
}
