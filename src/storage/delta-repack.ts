import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { gitEnv } from './cat-file.ts';
import { fsyncDir } from './durable-fs.ts';
import { publishPack } from './pack-publish.ts';

/**
 * Gives history its deltas: every object of the repository into one pack by the system git, each new
 * object stored as a delta against an older one where git finds one. A commit's pack cannot hold such
 * deltas (a pack on disk must be self-contained), so an edit of one translation first costs its whole
 * blob and the trees above it (about 9 KB in a version of 400 files); after this, about 1 KB.
 *
 * It runs `git pack-objects` itself rather than `git repack -a -d`, so as to keep the service's own
 * order on disk: the new pack is fsynced and moved into objects/pack/ (pack-publish.ts), the folder fsynced, and only
 * then are the packs it replaces removed (git removes them without syncing the folder first). Every
 * object of those packs is in the new one, reachable or not (`--keep-unreachable`): a write whose pack
 * is on disk but whose ref is not yet moved loses nothing. Packs that come in meanwhile are not
 * touched; packs with a `.keep` are neither read nor removed. Runs at low priority with one thread,
 * so requests keep a core. A failure leaves every pack in place.
 */

/** Pack files git may keep beside a pack; removed with it. */
const COMPANIONS = ['.rev', '.bitmap', '.mtimes'];

export class GitMissingError extends Error {}

/** Complete packs (pack and index) without `.keep`, with their sizes in bytes. */
export async function removablePacks(gitdir: string): Promise<Map<string, number>> {
  const dir = join(gitdir, 'objects', 'pack');
  const names = new Set(await fs.promises.readdir(dir));
  const out = new Map<string, number>();
  for (const file of names) {
    const base = file.slice(0, -5);
    if (!file.endsWith('.pack') || !names.has(`${base}.idx`) || names.has(`${base}.keep`)) continue;
    try {
      out.set(base, (await fs.promises.stat(join(dir, file))).size);
    } catch {
      // Removed meanwhile (by git gc run by hand).
    }
  }
  return out;
}

/** Bytes of all packs: what the proportional trigger compares new bytes with. */
export async function packedBytes(gitdir: string): Promise<number> {
  let total = 0;
  for (const size of (await removablePacks(gitdir)).values()) total += size;
  return total;
}

/**
 * Repacks every object into one pack with deltas, then removes the packs that were there before.
 * Resolves with the new pack's size; rejects with GitMissingError when git cannot be run. An abort
 * (a shutdown) stops git; its temp files are cleared at the next start.
 */
export async function deltaRepack(gitdir: string, tempDir: string, signal?: AbortSignal): Promise<number> {
  const dir = join(gitdir, 'objects', 'pack');
  const before = await removablePacks(gitdir);
  const name = await packObjects(gitdir, join(tempDir, 'repack'), signal);
  const target = `pack-${name}`;
  const staged = (ext: string) => join(tempDir, `repack-${name}${ext}`);
  if (before.has(target)) {
    // The very pack that is there already (nothing changed since): keep it, drop the copy.
    await Promise.all(['.pack', '.idx'].map((ext) => fs.promises.rm(staged(ext), { force: true })));
  } else {
    // As a commit's pack is (pack-publish.ts), durable before anything is removed; its objects are all
    // in packs already, so the .keep goes at once.
    (await publishPack(dir, target, { '.pack': staged('.pack'), '.idx': staged('.idx') })).release();
  }
  for (const old of before.keys()) {
    if (old === target) continue;
    // git's own order for removing a pack: the index first, so no reader finds an index without its pack.
    await fs.promises.rm(join(dir, `${old}.idx`), { force: true });
    for (const ext of COMPANIONS) await fs.promises.rm(join(dir, `${old}${ext}`), { force: true });
    await fs.promises.rm(join(dir, `${old}.pack`), { force: true });
  }
  await fsyncDir(dir);
  return (await fs.promises.stat(join(dir, `${target}.pack`))).size;
}

/** Runs git pack-objects over every object; resolves with the new pack's checksum (its name). */
function packObjects(gitdir: string, base: string, signal: AbortSignal | undefined): Promise<string> {
  const args = [
    '--git-dir', gitdir,
    // Packs are fsynced by git (this setting is the default since git 2.36; older versions always fsync packs).
    '-c', 'core.fsync=pack,pack-metadata',
    '-c', 'core.fsyncMethod=fsync',
    // Only the pack and its index: a .rev (written by default since git 2.41) would be one more file to move.
    '-c', 'pack.writeReverseIndex=false',
    'pack-objects', '--all', '--reflog', '--indexed-objects', '--keep-unreachable', '--pack-loose-unreachable',
    '--honor-pack-keep', '--keep-true-parents', '--non-empty', '--delta-base-offset', '--threads=1', '-q', base,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { stdio: ['ignore', 'pipe', 'pipe'], env: gitEnv(), signal });
    try {
      if (child.pid !== undefined) setPriority(child.pid, 10);
    } catch {
      // Not permitted here: it runs at normal priority.
    }
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
    child.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'ENOENT' ? new GitMissingError('git is not installed') : e));
    child.stdout.once('error', () => undefined);
    child.once('close', (code) => {
      const name = out.trim();
      if (code === 0 && /^[0-9a-f]{40,64}$/.test(name)) resolve(name);
      else reject(new Error(`git pack-objects exited with ${code}: ${err.trim().split('\n').pop() ?? ''}`));
    });
  });
}
