import * as fs from 'node:fs';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import type { default as IsomorphicGit } from 'isomorphic-git';
import { clearTempDir, dropSpares, durableFs, fsyncKeptDir, prepareSpares, SPARE_DIR, TEMP_DIR } from './durable-fs.ts';
import { dropRecycled } from './recycled-files.ts';
import { EMPTY_TREE, patchTree, prepareBlob, prepareCommit, type PathChange, type PreparedObject, type TreeEntry, type TreeNode } from './git-objects.ts';
import { catFileTrees, DamagedObjectError, GitUnavailableError } from './cat-file.ts';
import { Mutex } from './mutex.ts';
import { Upkeep } from './upkeep.ts';
import { packEntries, packEntry, PIECES_FROM, stagePack, type PackEntry, type StagedPack } from './pack-writer.ts';
import { hasObjects, missingBranchMessage } from './lost-history.ts';
import { removeLeftKeeps } from './pack-publish.ts';
import type { TimingSink } from './timing.ts';
import { BRANCH, BranchLock, BranchMovedError, branchOnDisk, clearStaleBranchLock, installHooks } from './branch.ts';
import { blobText } from './blob-text.ts';

export { BRANCH } from './branch.ts';

let isomorphicGit: Promise<typeof IsomorphicGit> | null = null;

/**
 * isomorphic-git (half a megabyte of code with its inflate), loaded when first needed: to create the
 * repository, to correct its config, and to read where the system git is missing. A start of an
 * existing repository with git installed never needs it.
 */
function loadGit(): Promise<typeof IsomorphicGit> {
  isomorphicGit ??= import('isomorphic-git').then(
    (m) => m.default,
    (err: unknown) => {
      isomorphicGit = null;
      throw err;
    },
  );
  return isomorphicGit;
}

/** The repository cannot be served: the message names the ref or object at fault. */
export class BrokenRepositoryError extends Error {}

export interface RepositoryOptions {
  /** Commits between two runs of git gc in the background; 0 or absent: never. */
  gcEvery?: number;
  /** New bytes, as a share of the repository's, after which history is repacked with deltas once writes pause; 0 or absent: never. */
  repackShare?: number;
  /** Told how long each git gc took. */
  timing?: TimingSink;
}

/** A file to write (its content) or to delete (null), by path inside a version's folder. */
export type FileChanges = ReadonlyMap<string, string | null>;

/** What one commit does to one version's folder. */
export type FolderChange =
  | { slug: string; files: FileChanges; base?: TreeNode }
  | { slug: string; remove: true };

/** A folder's new tree, with the objects (deflated, not yet on disk) that `commit` writes along with it. */
export interface FolderWrite {
  slug: string;
  /** null removes the folder. */
  tree: TreeNode | null;
  entries: readonly PackEntry[];
}

export interface CommitInfo {
  author: string;
  message: string;
  /** The commit's date (default: now); the writer passes the write's stamp, so both tell the same time. */
  time?: Date;
}

/** Bytes of large files' last contents kept to deflate their next version in pieces (Repository.lastBlobs). */
const LAST_BLOBS_BYTES = 8 * 1024 * 1024;

/**
 * The bare git repository that holds all content: one branch, `main`, with one folder per version.
 * Trees are kept in memory so a commit writes only the blobs and trees on the changed paths.
 * Each commit's objects go into one pack file (pack-writer.ts); the pack and the ref are written
 * durably, and a commit resolves only once its ref is on disk.
 */
export class Repository {
  readonly fs: ReturnType<typeof durableFs>;
  private readonly commitMutex = new Mutex();
  /**
   * The last content written at each path (large ones only, within LAST_BLOBS_BYTES): a file written
   * again at the same length (a version's stamps file, where a write changes a stamp or two) is
   * deflated in pieces, only the pieces that differ anew (pack-writer.ts).
   */
  private readonly lastBlobs = new LRUCache<string, Buffer>({ maxSize: LAST_BLOBS_BYTES, sizeCalculation: (b) => b.length });
  private head: string | null = null;
  private root: TreeNode = EMPTY_TREE;
  /** Version folders whose trees could not be read at start, with the reason. */
  readonly unreadable = new Map<string, string>();
  /** isomorphic-git's object cache; without one shared cache every read re-inflates packs. */
  private readonly cache = {};
  /** Pack merges and git gc in the background. */
  private readonly upkeep: Upkeep;

  private constructor(
    readonly gitdir: string,
    options: RepositoryOptions,
  ) {
    this.fs = durableFs(gitdir);
    this.upkeep = new Upkeep(gitdir, options.gcEvery ?? 0, options.timing, options.repackShare ?? 0);
  }

  static async open(gitdir: string, options: RepositoryOptions = {}): Promise<Repository> {
    const repo = new Repository(gitdir, options);
    if (!fs.existsSync(join(gitdir, 'HEAD'))) {
      await fs.promises.mkdir(gitdir, { recursive: true });
      await clearTempDir(gitdir);
      await (await loadGit()).init({ fs: repo.fs, gitdir, bare: true, defaultBranch: 'main' });
    }
    await clearTempDir(gitdir);
    await removeIndexesWithoutPack(repo);
    await removeLeftKeeps(gitdir);
    await repo.fixConfig();
    installHooks(gitdir);
    await clearStaleBranchLock(gitdir);
    await repo.readHead();
    return repo;
  }

  /**
   * isomorphic-git's init writes core.ignorecase = true, filemode = false and symlinks = false
   * whatever the platform; on a case-sensitive file system git would then treat `en/Intro.md` and
   * `en/intro.md` as one file. Set them as git's own init would here (also in repositories made before).
   */
  private async fixConfig(): Promise<void> {
    if (process.platform === 'win32' || process.platform === 'darwin') return;
    const wanted = [['core.ignorecase', false], ['core.filemode', true], ['core.symlinks', true]] as const;
    const core = coreSettings(fs.readFileSync(join(this.gitdir, 'config'), 'utf8'));
    if (wanted.every(([path, value]) => core.get(path.slice('core.'.length)) === String(value))) return;
    const git = await loadGit();
    for (const [path, value] of wanted) {
      if ((await git.getConfig({ fs: this.fs, gitdir: this.gitdir, path })) !== value) await git.setConfig({ fs: this.fs, gitdir: this.gitdir, path, value });
    }
  }

  get headCommit(): string | null {
    return this.head;
  }

  /**
   * Runs `read` (a git process reading the repository on its own, as upload-pack serving a clone)
   * with no pack merge or repack removing the packs it may be reading; one waits for it to finish.
   */
  reading<T>(read: () => Promise<T>): Promise<T> {
    return this.upkeep.reading(read);
  }

  /** The messages of the commits on main made at or after `since`, newest first (first parents only). */
  async messagesSince(since: Date): Promise<Array<{ oid: string; message: string; time: Date }>> {
    const out: Array<{ oid: string; message: string; time: Date }> = [];
    const git = await loadGit();
    await this.upkeep.reading(async () => {
      for (let oid = this.head; oid !== null; ) {
        const { commit } = await git.readCommit({ fs: this.fs, gitdir: this.gitdir, oid, cache: this.cache });
        const time = new Date(commit.committer.timestamp * 1000);
        // Commit times are whole seconds: a commit in the same second as `since` still counts.
        if (time.getTime() < Math.floor(since.getTime() / 1000) * 1000) break;
        out.push({ oid, message: commit.message, time });
        oid = commit.parent[0] ?? null;
      }
    });
    return out;
  }

  /** Version folders at the head commit, with their trees. */
  folders(): Map<string, TreeNode> {
    const out = new Map<string, TreeNode>();
    for (const [name, entry] of this.root.entries) if (entry.kind === 'tree') out.set(name, entry.tree);
    return out;
  }

  /** The version folder's tree, or null when the folder does not exist. */
  folder(slug: string): TreeNode | null {
    const entry = this.root.entries.get(slug);
    return entry?.kind === 'tree' ? entry.tree : null;
  }

  /**
   * Blobs as text, by [path, blob id], through isomorphic-git (at start, when the system git cannot
   * be used). Reads run 32 at a time on the shared cache.
   */
  async readBlobs(blobs: ReadonlyArray<readonly [string, string]>): Promise<Map<string, ReturnType<typeof blobText>>> {
    const out = new Map<string, ReturnType<typeof blobText>>();
    const git = await loadGit();
    await this.upkeep.reading(() =>
      inBatches(blobs, 32, async ([path, oid]) => {
        const { blob } = await git.readBlob({ fs: this.fs, gitdir: this.gitdir, oid, cache: this.cache });
        out.set(path, blobText(Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength)));
      }),
    );
    // In the order asked for, as a folder read in one pass would give them.
    return new Map(blobs.map(([path]) => [path, out.get(path)!]));
  }

  private async readHead(): Promise<void> {
    const refPath = join(this.gitdir, BRANCH);
    let oid: string | null = null;
    if (fs.existsSync(refPath)) {
      const text = fs.readFileSync(refPath, 'utf8').trim();
      if (!/^[0-9a-f]{40}$/.test(text)) {
        throw new BrokenRepositoryError(`Branch main is broken: ${BRANCH} in ${this.gitdir} holds ${text === '' ? 'nothing' : JSON.stringify(text.slice(0, 60))} instead of a commit id. Restore it from a backup or point it at the last good commit (git reflog / git fsck --lost-found).`);
      }
      oid = text;
    } else {
      // In packed-refs after a git gc; in neither place in a new repository, which has no commit yet.
      oid = branchOnDisk(this.gitdir);
    }
    if (oid === null) {
      // No main but objects: the branch was lost (a hand operation), not a new repository. Starting
      // empty would import sample content as a new root and leave the history to be pruned.
      if (hasObjects(this.gitdir)) throw new BrokenRepositoryError(missingBranchMessage(this.gitdir));
      return;
    }
    try {
      const { root, unreadable } = await catFileTrees(this.gitdir, oid);
      this.root = root;
      for (const [slug, reason] of unreadable) this.unreadable.set(slug, reason);
      this.head = oid;
      return;
    } catch (err) {
      if (err instanceof DamagedObjectError) {
        throw new BrokenRepositoryError(`Branch main points to commit ${oid}, which cannot be read (${err.message}). Restore content.git from a backup (docs/operations.md), or point main at an earlier good commit with git update-ref.`);
      }
      // No system git, or an answer it cannot give: isomorphic-git reads what it can and says what is broken.
      if (!(err instanceof GitUnavailableError)) throw err;
    }
    const git = await loadGit();
    let treeOid: string;
    try {
      const { commit } = await git.readCommit({ fs: this.fs, gitdir: this.gitdir, oid, cache: this.cache });
      treeOid = commit.tree;
    } catch (err) {
      throw new BrokenRepositoryError(`Branch main points to commit ${oid}, which cannot be read (${readError(err)}). Restore content.git from a backup (docs/operations.md), or point main at an earlier good commit with git update-ref.`);
    }
    this.head = oid;
    this.root = await this.readTreeShallow(treeOid, 0);
  }

  /** Reads the root tree and each version folder's tree (two levels: folders and language folders). */
  private async readTreeShallow(oid: string, depth: number): Promise<TreeNode> {
    const { tree } = await (await loadGit()).readTree({ fs: this.fs, gitdir: this.gitdir, oid, cache: this.cache });
    const entries = new Map<string, TreeEntry>();
    await inBatches(tree, 16, async (e) => {
      if (e.type === 'tree') {
        if (depth < 2) {
          try {
            entries.set(e.path, { kind: 'tree', oid: e.oid, tree: await this.readTreeShallow(e.oid, depth + 1) });
          } catch (err) {
            if (depth > 0) throw err;
            // Keep the folder's id so other commits carry it along untouched; the folder itself is not served.
            this.unreadable.set(e.path, `a tree of folder ${e.path}/ cannot be read (${readError(err)})`);
            entries.set(e.path, { kind: 'tree', oid: e.oid, tree: { oid: e.oid, entries: new Map() } });
          }
        }
      } else if (e.type === 'blob') entries.set(e.path, { kind: 'blob', oid: e.oid });
    });
    return { oid, entries };
  }

  /**
   * Prepares the objects of one folder's change (blobs and the folder's trees: hashed and deflated,
   * not yet written) outside the commit lock; `commit` writes them with the commit that links the
   * folder in. Call under the folder's lock.
   */
  async writeFolder(change: FolderChange): Promise<FolderWrite> {
    if ('remove' in change) return { slug: change.slug, tree: null, entries: [] };
    const objects: PreparedObject[] = [];
    const pathChanges = new Map<string, PathChange>();
    for (const [path, content] of change.files) {
      if (content === null) pathChanges.set(path, null);
      else {
        const blob = await prepareBlob(content);
        if (blob.content.length >= PIECES_FROM) {
          const key = `${change.slug}/${path}`;
          const before = this.lastBlobs.get(key);
          if (before !== undefined && before.length === blob.content.length) blob.patchedFrom = before;
          this.lastBlobs.set(key, blob.content);
        }
        objects.push(blob);
        pathChanges.set(path, { blob: blob.oid });
      }
    }
    const tree = patchTree(change.base ?? this.folder(change.slug) ?? EMPTY_TREE, pathChanges, objects);
    return { slug: change.slug, tree, entries: await packEntries(objects) };
  }

  /**
   * Makes one commit linking the given folder trees into the branch; its objects and the folders'
   * go to disk as one pack. Serialized across all versions; resolves once the branch ref is
   * durable. The in-memory head moves only after that.
   *
   * Order on disk: the pack, its index and the new ref's content are written and fsynced (in
   * parallel, the ref still in its lock file); then the pack and its index are renamed into
   * objects/pack/ under a .keep and that folder is fsynced (pack-publish.ts); only then is the lock
   * renamed over refs/heads/main and refs/heads/ fsynced, and the .keep removed. A crash at any point leaves main on the old commit or on the new one, whose objects
   * are all on disk.
   */
  commit(folders: ReadonlyArray<FolderWrite>, info: CommitInfo): Promise<string> {
    return this.commitMutex.run(async () => {
      // Under git's own lock on the branch (git gc's pack-refs deletes loose refs under it), and never
      // carrying on from a branch someone else moved: that would drop their commit from history. The
      // lock is created while the commit's objects are made and staged (private temp files until the
      // ref moves); the branch is checked once the lock is held, before anything is published.
      const locking = BranchLock.take(this.gitdir);
      locking.catch(() => undefined);
      const objects: PreparedObject[] = [];
      const changes = new Map<string, PathChange>(folders.map((f) => [f.slug, f.tree && f.tree.entries.size > 0 ? { tree: f.tree } : null]));
      const root = patchTree(this.root, changes, objects);
      const commit = prepareCommit({ tree: root.oid, parent: this.head, author: info.author, message: info.message, time: info.time ?? new Date() });
      objects.push(commit);
      const entries = [...folders.flatMap((f) => f.entries), ...objects.map(packEntry)];
      const staging = stagePack(this.gitdir, this.tempDir, entries);
      staging.catch(() => undefined);
      const dropStaged = () => staging.then((staged) => staged.discard(), () => undefined).catch(() => undefined);
      let lock: BranchLock;
      try {
        lock = await locking;
      } catch (err) {
        await dropStaged();
        throw err;
      }
      const onDisk = branchOnDisk(this.gitdir);
      if (onDisk !== this.head) {
        await lock.release();
        await dropStaged();
        throw new BranchMovedError(this.head, onDisk);
      }
      await this.writeRefAfter(staging, lock, commit.oid);
      this.head = commit.oid;
      this.root = root;
      this.upkeep.committed((await staging).bytes);
      // Once the write is answered: making them here held its answer up by a tenth of a millisecond.
      this.sparesSoon ??= setImmediate(() => {
        this.sparesSoon = null;
        this.prepareSpares();
      });
      return commit.oid;
    });
  }

  /**
   * Takes a commit that was fetched into the repository and to which the branch was moved on disk
   * (a replica following its primary) as the head, with its tree as catFileTrees read it: in one
   * step, so that the head and the folders always belong to one commit.
   */
  adoptHead(oid: string, root: TreeNode, unreadable: ReadonlyMap<string, string>): void {
    this.head = oid;
    this.root = root;
    this.unreadable.clear();
    for (const [slug, reason] of unreadable) this.unreadable.set(slug, reason);
  }

  /** For a shutdown: resolves once no pack merge or git gc runs (see Upkeep.settle). */
  settle(): Promise<void> {
    this.dropMadeAhead();
    return this.upkeep.settle();
  }

  /** The making of spares a commit asked for, until it runs (see commit). */
  private sparesSoon: NodeJS.Immediate | null = null;

  /**
   * Pack and index files for the next two commits, made now, off their path (durable-fs.ts,
   * prepareSpares): with one commit's worth, a write that came within a millisecond or two of the one
   * before often found them not yet made and created its own on the event loop.
   */
  private prepareSpares(): void {
    prepareSpares(this.tempDir, join(this.gitdir, SPARE_DIR), 4);
  }

  private get tempDir(): string {
    return join(this.gitdir, TEMP_DIR);
  }

  private async writeRefAfter(staging: Promise<StagedPack>, lock: BranchLock, oid: string): Promise<void> {
    const [pack, ref] = await Promise.allSettled([staging, lock.write(oid)]);
    // A failed write's temp files that cannot be removed (their folder gone) are left to the next
    // start, which clears the temp folders: the branch's lock is released whatever happens to them,
    // or every later write would wait for it.
    const discard = async (staged: StagedPack) => staged.discard().catch(() => undefined);
    if (pack.status === 'rejected' || ref.status === 'rejected') {
      this.dropMadeAhead();
      if (pack.status === 'fulfilled') await discard(pack.value);
      await lock.release();
      throw pack.status === 'rejected' ? pack.reason : (ref as PromiseRejectedResult).reason;
    }
    try {
      await pack.value.publish();
      // The ref is replaced by a rename of its lock file, as git does, never rewritten in place: a
      // crash cannot leave it empty.
      lock.commit();
      await fsyncKeptDir(join(this.gitdir, 'refs', 'heads'));
      pack.value.release();
    } catch (err) {
      this.dropMadeAhead();
      await discard(pack.value);
      await lock.release();
      throw err;
    }
  }

  /**
   * Drops the files made ahead (spares, and the kept ref and `.keep`): at a stop, and after a commit
   * that failed on the disk, where they may be what failed (their folder removed or replaced), so the
   * next commits make their own until one succeeds and makes new ones.
   */
  private dropMadeAhead(): void {
    if (this.sparesSoon !== null) clearImmediate(this.sparesSoon);
    this.sparesSoon = null;
    dropSpares(this.tempDir);
    dropRecycled(join(this.gitdir, SPARE_DIR));
  }
}

/** What went wrong reading an object, in a line: isomorphic-git's own text for damaged data asks to report a bug to it. */
function readError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e.code === 'InternalError') return 'its bytes are damaged';
  if (e.code === 'NotFoundError') return 'an object is missing';
  return (e.message ?? String(err)).split('\n')[0];
}

/**
 * An index whose pack is missing would make readers fail on objects they look up in it. Pack and
 * index are renamed in that order before one fsync of their folder (git does the same, and removes
 * a pack index first), but a file system may persist the two renames out of order: a crash can then
 * leave the index alone. No ref points at its objects, as the ref moves only after that fsync.
 */
async function removeIndexesWithoutPack(repo: Repository): Promise<void> {
  const dir = join(repo.gitdir, 'objects', 'pack');
  // Through the durable fs: a folder made here must be on disk before packs renamed into it count.
  await repo.fs.promises.mkdir(dir, { recursive: true });
  const names = new Set(await fs.promises.readdir(dir));
  for (const name of names) {
    if (name.endsWith('.idx') && !names.has(`${name.slice(0, -4)}.pack`)) await fs.promises.rm(join(dir, name), { force: true });
  }
}

async function inBatches<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/** The `[core]` settings of a git config file, keys and values in lower case; anything unusual is simply absent (the caller then asks isomorphic-git). */
function coreSettings(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let inCore = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) inCore = line.toLowerCase() === '[core]';
    else if (inCore) {
      const m = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*([A-Za-z]+)$/.exec(line);
      if (m) out.set(m[1].toLowerCase(), m[2].toLowerCase());
    }
  }
  return out;
}
