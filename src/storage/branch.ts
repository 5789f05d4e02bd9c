import * as fs from 'node:fs';
import { join } from 'node:path';
import { SPARE_DIR } from './durable-fs.ts';
import { keepRecycled, linkRecycled, recycleName } from './recycled-files.ts';

/** The one branch of the content repository. */
export const BRANCH_NAME = 'main';
export const BRANCH = `refs/heads/${BRANCH_NAME}`;

/**
 * The service owns its repository's branch: what is committed there by anyone else is never seen by
 * the running service, and its next write would carry on from its own idea of the branch. So pushes
 * are refused by a hook, and every commit first checks that the branch is where the service left it.
 */

const HOOK = `#!/bin/sh
# Installed by the help content service, which owns this repository: every change goes through it,
# so that its index, search and history stay one. Rewritten at every start.
cat >&2 <<'MESSAGE'
This repository is managed by the help content service and does not take pushes.
Change content through the service instead:
  - the API (PUT /help/v1/versions/{version}/topics/{slug}/translations/{lang}, POST .../import-files, ...),
  - npm run cli -- push --dir DIR --version VERSION (a folder of content files),
  - or a pull request in the content repository, when publishing through pull requests is on.
MESSAGE
exit 1
`;

/** Installs the hooks that refuse pushes (pre-receive refuses the whole push, update each ref). */
export function installHooks(gitdir: string): void {
  const dir = join(gitdir, 'hooks');
  fs.mkdirSync(dir, { recursive: true });
  for (const name of ['pre-receive', 'update']) {
    const path = join(dir, name);
    const temp = `${path}.${process.pid}.tmp`;
    fs.writeFileSync(temp, HOOK, { mode: 0o755 });
    fs.renameSync(temp, path);
  }
}

/**
 * The branch's lock file, taken as git takes it (created exclusively): git gc's pack-refs moves a
 * loose ref into packed-refs and deletes it under this lock, so a ref written without it can be
 * deleted right after it was written, and the commit with it.
 */
export class BranchLock {
  private closed = false;

  private constructor(
    private readonly gitdir: string,
    readonly path: string,
    private readonly fd: number,
    /** Whether the lock is a recycled ref file (recycled-files.ts), holding a ref already. */
    private readonly recycled: boolean,
  ) {}

  /**
   * Takes the lock, waiting while git holds it (up to 10 s); a lock left by a crash is taken over at open.
   * The lock is the file of the ref before last where a commit kept it (recycled-files.ts), linked
   * to the lock's name (a link fails while git holds the lock, as an exclusive create does): a few
   * synchronous calls. Else it is created on the thread pool (creating a file can take long, see
   * durable-fs.ts, prepareSpares: a write makes its objects meanwhile). Writing, closing and renaming
   * it are synchronous calls, its fsync goes to the thread pool.
   */
  static async take(gitdir: string): Promise<BranchLock> {
    const path = lockPath(gitdir);
    const spares = join(gitdir, SPARE_DIR);
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const linked = linkRecycled(spares, 'ref', path);
        if (linked === true) return new BranchLock(gitdir, path, openLinked(path), true);
        if (linked === false) throw Object.assign(new Error(`${path} exists`), { code: 'EEXIST' });
        const fd = await new Promise<number>((resolve, reject) => fs.open(path, 'wx', 0o644, (err, opened) => (err ? reject(err) : resolve(opened))));
        return new BranchLock(gitdir, path, fd, false);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  }

  /** Writes the branch's new commit into the lock file and makes it durable (not yet the branch). */
  async write(oid: string): Promise<void> {
    const bytes = Buffer.from(`${oid}\n`, 'latin1');
    for (let at = 0; at < bytes.length; ) at += fs.writeSync(this.fd, bytes, at, bytes.length - at, at);
    // A recycled ref held a ref of the same length, unless git wrote it otherwise.
    if (this.recycled && fs.fstatSync(this.fd).size !== bytes.length) fs.ftruncateSync(this.fd, bytes.length);
    await new Promise<void>((resolve, reject) => fs.fsync(this.fd, (err) => (err ? reject(err) : resolve())));
  }

  /**
   * Renames the lock over the branch: the branch now points at what write() wrote. The branch's
   * file before is kept for the next lock (recycled-files.ts): linked into the spare folder before
   * the rename, so the rename frees nothing, and listed only once the rename is done (until then the
   * spare is the branch itself, which nothing may write into).
   */
  commit(): void {
    this.close();
    const branch = join(this.path, '..', BRANCH_NAME);
    const spares = join(this.gitdir, SPARE_DIR);
    let spare: string | undefined = recycleName(spares, 'ref');
    try {
      fs.linkSync(branch, spare);
    } catch {
      // No loose ref (git gc packed it), or the spare folder is gone: nothing to keep.
      spare = undefined;
    }
    try {
      fs.renameSync(this.path, branch);
    } catch (err) {
      // The spare is still the branch: it goes, never to be written into.
      if (spare !== undefined) fs.rm(spare, { force: true }, () => undefined);
      throw err;
    }
    if (spare !== undefined) keepRecycled(spares, 'ref', spare);
  }

  /** Lets the lock go without changing the branch. */
  async release(): Promise<void> {
    try {
      this.close();
    } catch {
      // The lock file goes all the same.
    }
    fs.rmSync(this.path, { force: true });
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}

/** Opens the lock just linked from a spare; if that fails, the lock goes again (else every later write would wait for it). */
function openLinked(path: string): number {
  try {
    return fs.openSync(path, 'r+');
  } catch (err) {
    fs.rmSync(path, { force: true });
    throw err;
  }
}

const lockPath = (gitdir: string) => join(gitdir, 'refs', 'heads', `${BRANCH_NAME}.lock`);

/**
 * At open (the service holds the data directory, so no other service writes): a branch lock that a
 * git command holds goes within moments; one still there after two seconds is what a crashed write
 * of ours left, and is removed.
 */
export async function clearStaleBranchLock(gitdir: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (fs.existsSync(lockPath(gitdir))) {
    if (Date.now() > deadline) {
      fs.rmSync(lockPath(gitdir), { force: true });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The branch's commit as git sees it on disk (a loose ref, else packed-refs), or null. */
export function branchOnDisk(gitdir: string): string | null {
  try {
    return fs.readFileSync(join(gitdir, 'refs', 'heads', BRANCH_NAME), 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  let packed = '';
  try {
    packed = fs.readFileSync(join(gitdir, 'packed-refs'), 'utf8');
  } catch {
    return null;
  }
  const line = packed.split('\n').find((l) => l.endsWith(` refs/heads/${BRANCH_NAME}`));
  return line ? line.slice(0, 40) : null;
}

/** The branch moved outside the service since it last wrote or read it. */
export class BranchMovedError extends Error {
  constructor(
    readonly expected: string | null,
    readonly found: string | null,
  ) {
    super(`refs/heads/${BRANCH_NAME} was changed outside the service (it is ${found ?? 'gone'}, the service last left it at ${expected ?? 'nothing'})`);
  }
}
