import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { TreeEntry, TreeNode } from './git-objects.ts';

/*
 * Reading the repository with the system git (`git cat-file --batch`) where it is installed: git
 * inflates in native code, several times faster than isomorphic-git. Used at start; every reader
 * rejects with GitUnavailableError so the caller can fall back to isomorphic-git.
 */

/**
 * The environment for the system git: the service's own, less GIT_* variables, so that a GIT_DIR or
 * GIT_OBJECT_DIRECTORY set for the service's process cannot redirect a command to another repository.
 */
export function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  return env;
}

/** The system git cannot serve the read (not installed, or refused the repository). */
export class GitUnavailableError extends Error {}

/**
 * An object the repository should hold is missing, or its bytes do not hash to its id (a flipped
 * bit on disk): what git fsck reports. Not a reason to fall back to isomorphic-git, which would read
 * the same bytes.
 */
export class DamagedObjectError extends Error {
  constructor(
    readonly oid: string,
    readonly problem: 'missing' | 'damaged',
    /** The file it holds, when known. */
    readonly path?: string,
  ) {
    const what = path === undefined ? `object ${oid}` : `${path} (object ${oid})`;
    super(problem === 'missing' ? `${what} is missing from the repository` : `${what} is damaged: its bytes do not hash to its id`);
  }
}

/** Whether `body` of `type` is the object `oid` (git's object id: SHA-1 of "type size\0" and the body). */
export const hashesTo = (oid: string, type: string, body: Buffer) => createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex') === oid;

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

/**
 * Like catFileBlobs, for objects of any type (commits and trees at start). Every object is checked
 * against its id as git does when it reads; a missing or damaged one goes to `onDamaged` when given
 * (the read goes on), else rejects the read with DamagedObjectError.
 */
export async function catFileObjects(gitdir: string, oids: readonly string[], onObject: OnObject, onDamaged?: OnDamaged): Promise<void> {
  if (oids.length === 0) return;
  // Every id is known up front: git's output is buffered, written in large blocks rather than one
  // write per object, which costs both processes fewer system calls.
  await new CatFile(gitdir, { buffered: true }).read(oids, onObject, onDamaged, { last: true });
}

type OnObject = (index: number, type: string, bytes: Buffer) => void;
type OnDamaged = (index: number, error: DamagedObjectError) => void;

/** One read: the ids asked for, how many have been answered, and where the answers go. */
interface Round {
  oids: readonly string[];
  next: number;
  onObject: OnObject;
  onDamaged?: OnDamaged;
  last: boolean;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * One `git cat-file --batch` process, read from in rounds: a read whose ids depend on the answers to
 * the one before (the levels of the trees at start) starts git once, not once per round. Unbuffered
 * unless told otherwise, so that each round's answers arrive before the next round is asked.
 */
class CatFile {
  private readonly proc: ChildProcessWithoutNullStreams;
  private round: Round | null = null;
  private failed: Error | null = null;
  private exited = false;
  private stderr = '';
  /** Bytes of a header line or of a body that spans chunks. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The size of the body being read, or -1 while a header line is expected. */
  private want = -1;
  private wantType = '';

  constructor(gitdir: string, opts: { buffered: boolean }) {
    const args = ['--git-dir', gitdir, 'cat-file', '--batch', ...(opts.buffered ? ['--buffer'] : [])];
    this.proc = spawn('git', args, { stdio: ['pipe', 'pipe', 'pipe'], env: gitEnv() });
    this.proc.stderr.on('data', (c: Buffer) => (this.stderr = (this.stderr + c.toString()).slice(-2000)));
    this.proc.stdin.on('error', () => undefined); // git exiting early shows as a failed exit below
    this.proc.stdout.on('data', (chunk: Buffer) => this.take(chunk));
    this.proc.once('error', (err) => this.fail(new GitUnavailableError(`git cannot be run: ${err.message}`)));
    this.proc.once('close', (code) => {
      this.exited = true;
      const round = this.round;
      if (round === null) return;
      this.round = null;
      if (this.failed) round.reject(this.failed);
      else if (code !== 0 || round.next !== round.oids.length) round.reject(new GitUnavailableError(`git cat-file --batch stopped after ${round.next} of ${round.oids.length} objects (exit ${code}): ${this.stderr.trim()}`));
      else round.resolve();
    });
  }

  /**
   * Asks for `oids`; `onObject` gets each object in their order. `last`: no round follows, git is
   * let go, and the read resolves once it has exited cleanly. On failure git is stopped, and the
   * process takes no more rounds.
   */
  read(oids: readonly string[], onObject: OnObject, onDamaged: OnDamaged | undefined, { last }: { last: boolean }): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.failed || this.exited) {
        reject(this.failed ?? new GitUnavailableError(`git cat-file --batch exited before it was asked for ${oids.length} objects: ${this.stderr.trim()}`));
        return;
      }
      if (oids.length === 0 && !last) {
        resolve();
        return;
      }
      this.round = { oids, next: 0, onObject, onDamaged, last, resolve, reject };
      // Written in one go: git answers as it reads, and the answers are consumed as they come.
      const ask = oids.length === 0 ? '' : `${oids.join('\n')}\n`;
      if (last) this.proc.stdin.end(ask);
      else this.proc.stdin.write(ask);
    });
  }

  /** No round follows: resolves once git has exited cleanly. */
  close(): Promise<void> {
    return this.read([], () => undefined, undefined, { last: true });
  }

  /** Lets git go, whatever state the read is in (a read given up on its way). */
  end(): void {
    if (!this.exited) this.proc.stdin.end();
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    this.proc.kill();
  }

  /** A round's object arrived whole, or is missing or damaged. */
  private answered(round: Round, outcome: { type: string; body: Buffer } | DamagedObjectError): void {
    const index = round.next++;
    if (outcome instanceof DamagedObjectError) {
      if (!round.onDamaged) throw outcome;
      round.onDamaged(index, outcome);
    } else round.onObject(index, outcome.type, outcome.body);
    if (round.next === round.oids.length && !round.last) {
      this.round = null;
      round.resolve();
    }
  }

  private take(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.failed) {
      const round = this.round;
      if (this.want < 0) {
        const nl = chunk.indexOf(10, at);
        if (nl < 0) {
          this.pending.push(chunk.subarray(at));
          this.pendingBytes += chunk.length - at;
          return;
        }
        const header = (this.pendingBytes > 0 ? Buffer.concat([...this.pending, chunk.subarray(at, nl)]) : chunk.subarray(at, nl)).toString('latin1');
        this.pending = [];
        this.pendingBytes = 0;
        at = nl + 1;
        const [oid, type, size] = header.split(' ');
        const expected = round !== null && round.next < round.oids.length ? round.oids[round.next] : undefined;
        if (expected !== undefined && oid === expected && type === 'missing' && size === undefined) {
          try {
            this.answered(round!, new DamagedObjectError(oid, 'missing'));
          } catch (err) {
            this.fail(err as Error);
            return;
          }
          continue;
        }
        if (expected === undefined || oid !== expected || !/^\d+$/.test(size ?? '')) {
          this.fail(new GitUnavailableError(`git cat-file answered "${header.slice(0, 100)}" for ${expected ?? 'nothing'}`));
          return;
        }
        this.want = Number(size);
        this.wantType = type;
      }
      // The body, then the LF git writes after it.
      const take = Math.min(this.want + 1 - this.pendingBytes, chunk.length - at);
      this.pending.push(chunk.subarray(at, at + take));
      this.pendingBytes += take;
      at += take;
      if (this.pendingBytes === this.want + 1) {
        const whole = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
        this.pending = [];
        this.pendingBytes = 0;
        this.want = -1;
        try {
          const body = whole.subarray(0, whole.length - 1);
          const oid = round!.oids[round!.next];
          this.answered(round!, hashesTo(oid, this.wantType, body) ? { type: this.wantType, body } : new DamagedObjectError(oid, 'damaged'));
        } catch (err) {
          this.fail(err as Error);
          return;
        }
      }
    }
  }
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
  // One git for the commit and the three levels: each round asks for what the last one named.
  const git = new CatFile(gitdir, { buffered: false });
  try {
    const read = await readTreeLevels(git, commit);
    await git.close();
    return read;
  } finally {
    git.end();
  }
}

async function readTreeLevels(git: CatFile, commit: string): Promise<{ root: TreeNode; unreadable: Map<string, string> }> {
  let rootOid = '';
  await git.read(
    [commit],
    (_, type, bytes) => {
      if (type !== 'commit') throw new GitUnavailableError(`${commit} is a ${type}, not a commit`);
      rootOid = commitTree(bytes);
    },
    undefined,
    { last: false },
  );
  /** Trees read so far, by id, with the entries still to be resolved. */
  const parsed = new Map<string, Array<{ mode: string; name: string; oid: string }>>();
  /** The version folder each tree below the root belongs to; a damaged one makes that version unreadable, not the repository. */
  const owner = new Map<string, string>();
  const unreadable = new Map<string, string>();
  let level = [rootOid];
  for (let depth = 0; depth <= 2 && level.length > 0; depth++) {
    const wanted = [...new Set(level)].filter((oid) => !parsed.has(oid));
    const onDamaged =
      depth === 0
        ? undefined
        : (i: number, err: DamagedObjectError) => {
            const version = owner.get(wanted[i])!;
            unreadable.set(version, `${err.message} (a tree of folder ${version}/)`);
          };
    await git.read(
      wanted,
      (i, type, bytes) => {
        if (type !== 'tree') throw new GitUnavailableError(`${wanted[i]} is a ${type}, not a tree`);
        try {
          parsed.set(wanted[i], parseTree(bytes));
        } catch (err) {
          if (depth === 0) throw err;
          onDamaged!(i, new DamagedObjectError(wanted[i], 'damaged'));
        }
      },
      onDamaged,
      { last: false },
    );
    if (depth < 2) {
      level = [];
      for (const oid of wanted) {
        for (const e of parsed.get(oid) ?? []) {
          if (e.mode !== '40000') continue;
          owner.set(e.oid, depth === 0 ? e.name : owner.get(oid)!);
          level.push(e.oid);
        }
      }
    } else level = [];
  }
  // Folders with the same content are one tree (a version and its untouched copies): built once and
  // shared, as every tree is immutable once built (patchTree copies what it changes).
  const built = new Map<string, TreeNode>();
  const build = (oid: string, depth: number): TreeNode => {
    const key = `${depth}:${oid}`;
    const done = built.get(key);
    if (done !== undefined) return done;
    const node = buildOnce(oid, depth);
    built.set(key, node);
    return node;
  };
  const buildOnce = (oid: string, depth: number): TreeNode => {
    const entries = new Map<string, TreeEntry>();
    for (const e of parsed.get(oid) ?? []) {
      if (e.mode === '40000') {
        // An unreadable version keeps its folder's id (later commits carry it along untouched) and nothing else.
        if (depth === 0 && unreadable.has(e.name)) entries.set(e.name, { kind: 'tree', oid: e.oid, tree: { oid: e.oid, entries: new Map() } });
        else if (depth < 2) entries.set(e.name, { kind: 'tree', oid: e.oid, tree: build(e.oid, depth + 1) });
      } else if (e.mode !== '160000') entries.set(e.name, { kind: 'blob', oid: e.oid });
    }
    return { oid, entries };
  };
  return { root: build(rootOid, 0), unreadable };
}
