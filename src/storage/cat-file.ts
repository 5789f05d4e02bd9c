import { spawn } from 'node:child_process';
import type { TreeEntry, TreeNode } from './git-objects.ts';

/*
 * Reading the repository with the system git (`git cat-file --batch`) where it is installed: git
 * inflates in native code, several times faster than isomorphic-git. Used at start; every reader
 * rejects with GitUnavailableError so the caller can fall back to isomorphic-git.
 */

/** The system git cannot serve the read (not installed, refused the repository, or an object is missing). */
export class GitUnavailableError extends Error {}

/**
 * Reads blobs with one `git cat-file --batch` process: git inflates in native code, several times
 * faster than isomorphic-git's JavaScript inflate (30,000 files / 300 MB: about 1.5 s against over
 * 10 s). `onBlob` gets each blob's bytes in the order of `oids`. Rejects with GitUnavailableError when
 * git cannot be run or does not give every object, so the caller can fall back to isomorphic-git.
 */
export function catFileBlobs(gitdir: string, oids: readonly string[], onBlob: (index: number, bytes: Buffer) => void): Promise<void> {
  return catFileObjects(gitdir, oids, (index, type, bytes) => {
    if (type !== 'blob') throw new GitUnavailableError(`${oids[index]} is a ${type}, not a blob`);
    onBlob(index, bytes);
  });
}

/** Like catFileBlobs, for objects of any type (commits and trees at start). */
export function catFileObjects(gitdir: string, oids: readonly string[], onObject: (index: number, type: string, bytes: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (oids.length === 0) {
      resolve();
      return;
    }
    // A clean environment: a GIT_DIR or GIT_OBJECT_DIRECTORY set for the service's own process must not redirect the read.
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
    const proc = spawn('git', ['--git-dir', gitdir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'pipe'], env });
    let failed: Error | null = null;
    const fail = (err: Error) => {
      if (failed) return;
      failed = err;
      proc.kill();
    };
    let stderr = '';
    proc.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    proc.stdin.on('error', () => undefined); // git exiting early shows as a failed exit below

    let next = 0;
    /** Bytes of a header line or of a body that spans chunks. */
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    /** The size of the body being read, or -1 while a header line is expected. */
    let want = -1;
    let wantType = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      let at = 0;
      while (at < chunk.length && !failed) {
        if (want < 0) {
          const nl = chunk.indexOf(10, at);
          if (nl < 0) {
            pending.push(chunk.subarray(at));
            pendingBytes += chunk.length - at;
            return;
          }
          const header = (pendingBytes > 0 ? Buffer.concat([...pending, chunk.subarray(at, nl)]) : chunk.subarray(at, nl)).toString('latin1');
          pending = [];
          pendingBytes = 0;
          at = nl + 1;
          const [oid, type, size] = header.split(' ');
          if (next >= oids.length || oid !== oids[next] || !/^\d+$/.test(size ?? '')) {
            fail(new GitUnavailableError(`git cat-file answered "${header.slice(0, 100)}" for ${oids[next] ?? 'nothing'}`));
            return;
          }
          want = Number(size);
          wantType = type;
        }
        // The body, then the LF git writes after it.
        const take = Math.min(want + 1 - pendingBytes, chunk.length - at);
        pending.push(chunk.subarray(at, at + take));
        pendingBytes += take;
        at += take;
        if (pendingBytes === want + 1) {
          const whole = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
          pending = [];
          pendingBytes = 0;
          want = -1;
          try {
            onObject(next++, wantType, whole.subarray(0, whole.length - 1));
          } catch (err) {
            fail(err as Error);
            return;
          }
        }
      }
    });
    proc.once('error', (err) => fail(new GitUnavailableError(`git cannot be run: ${err.message}`)));
    proc.once('close', (code) => {
      if (failed) reject(failed);
      else if (code !== 0 || next !== oids.length) reject(new GitUnavailableError(`git cat-file --batch stopped after ${next} of ${oids.length} objects (exit ${code}): ${stderr.trim()}`));
      else resolve();
    });
    // Written in one go: git answers as it reads, and the answers are consumed as they come.
    proc.stdin.end(`${oids.join('\n')}\n`);
  });
}

/** A tree object's entries: mode, name and object id of each. */
export function parseTree(bytes: Buffer): Array<{ mode: string; name: string; oid: string }> {
  const out: Array<{ mode: string; name: string; oid: string }> = [];
  // One decode for the whole tree: names are almost always ASCII, where Latin-1 and UTF-8 agree.
  const text = bytes.toString('latin1');
  for (let at = 0; at < text.length; ) {
    const space = text.indexOf(' ', at);
    const nul = text.indexOf('\0', space);
    if (space < 0 || nul < 0 || nul + 21 > text.length) throw new GitUnavailableError('a tree object is malformed');
    const raw = text.slice(space + 1, nul);
    const name = NOT_ASCII.test(raw) ? bytes.toString('utf8', space + 1, nul) : raw;
    out.push({ mode: text.slice(at, space), name, oid: bytes.toString('hex', nul + 1, nul + 21) });
    at = nul + 21;
  }
  return out;
}

const NOT_ASCII = /[^\x00-\x7f]/;

/** The tree id of a commit object. */
export function commitTree(bytes: Buffer): string {
  const m = /^tree ([0-9a-f]{40})\n/.exec(bytes.toString('latin1', 0, 46));
  if (!m) throw new GitUnavailableError('a commit object has no tree line');
  return m[1];
}

/**
 * The trees the repository keeps in memory, read with the system git: the commit's root tree, each
 * version folder's tree and its language folders' trees (three levels), in one cat-file process per
 * level. isomorphic-git checks a pack's whole checksum before its first read from it, and inflates in
 * JavaScript: at 10,000 nodes that took most of a second of every start.
 */
export async function catFileTrees(gitdir: string, commit: string): Promise<{ root: TreeNode; unreadable: Map<string, string> }> {
  let rootOid = '';
  await catFileObjects(gitdir, [commit], (_, type, bytes) => {
    if (type !== 'commit') throw new GitUnavailableError(`${commit} is a ${type}, not a commit`);
    rootOid = commitTree(bytes);
  });
  /** Trees read so far, by id, with the entries still to be resolved. */
  const parsed = new Map<string, Array<{ mode: string; name: string; oid: string }>>();
  let level = [rootOid];
  for (let depth = 0; depth <= 2 && level.length > 0; depth++) {
    const wanted = [...new Set(level)].filter((oid) => !parsed.has(oid));
    await catFileObjects(gitdir, wanted, (i, type, bytes) => {
      if (type !== 'tree') throw new GitUnavailableError(`${wanted[i]} is a ${type}, not a tree`);
      parsed.set(wanted[i], parseTree(bytes));
    });
    level = depth < 2 ? wanted.flatMap((oid) => parsed.get(oid)!.filter((e) => e.mode === '40000').map((e) => e.oid)) : [];
  }
  const build = (oid: string, depth: number): TreeNode => {
    const entries = new Map<string, TreeEntry>();
    for (const e of parsed.get(oid) ?? []) {
      if (e.mode === '40000') {
        if (depth < 2) entries.set(e.name, { kind: 'tree', oid: e.oid, tree: build(e.oid, depth + 1) });
      } else if (e.mode !== '160000') entries.set(e.name, { kind: 'blob', oid: e.oid });
    }
    return { oid, entries };
  };
  return { root: build(rootOid, 0), unreadable: new Map() };
}
