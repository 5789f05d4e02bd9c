import * as fs from 'node:fs';
import { join } from 'node:path';
import { uniqueName } from './unique-names.ts';

/**
 * Small files a commit would delete, kept for the next commit instead: the branch's previous ref
 * file (which the rename of the lock over the branch would free) and the pack's `.keep` (removed once
 * the branch refers to the commit). Freeing a file costs: ext4 returns its block, and with online
 * discard tells the disk, about 0.2 ms for a rename over a 41-byte ref against 0.01 ms for one that
 * frees nothing; and making the next one costs a search for a free inode, which on ext4 without a
 * journal skips every inode freed in the last minute or more (0.15 to 1 ms on a service that writes
 * often). A kept file waits in the git dir's spare folder (SPARE_DIR, durable-fs.ts) under a name of
 * its own; the next commit links it to where it is needed (a link fails when the name is taken, as an
 * exclusive create does) and drops the spare name. Nothing refers to a spare: a start removes them
 * with the folder, and a commit that failed on the disk drops them (Repository.dropMadeAhead).
 */

export type RecycledKind = 'ref' | 'keep';

/** Spare files ready, by spare folder and kind. */
const ready = new Map<string, string[]>();

const keyOf = (spareDir: string, kind: RecycledKind) => `${spareDir}\0${kind}`;

/** A new name in `spareDir` for a file given back. */
export function recycleName(spareDir: string, kind: RecycledKind): string {
  return join(spareDir, `${kind}-${uniqueName()}`);
}

/** Keeps `path` (in `spareDir`, named by recycleName) for the next linkRecycled of its kind. */
export function keepRecycled(spareDir: string, kind: RecycledKind, path: string): void {
  const key = keyOf(spareDir, kind);
  const list = ready.get(key);
  if (list === undefined) ready.set(key, [path]);
  else list.push(path);
}

/**
 * Links a spare file of that kind, if one is listed, to `target`, then drops the spare name: true
 * when `target` is now that file, false when `target` exists already (the spare stays listed).
 * Undefined when none is listed, or the one listed is gone (a start cleared the folder): make the
 * file anew.
 */
export function linkRecycled(spareDir: string, kind: RecycledKind, target: string): boolean | undefined {
  const spare = ready.get(keyOf(spareDir, kind))?.pop();
  if (spare === undefined) return undefined;
  try {
    fs.linkSync(spare, target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      keepRecycled(spareDir, kind, spare);
      return false;
    }
    removeQuietly(spare);
    return undefined;
  }
  // Only a name goes: the file is `target` now.
  removeQuietly(spare);
  return true;
}

/** Removes a spare name; one that cannot be removed is left to the next start, which clears the folder. */
function removeQuietly(path: string): void {
  try {
    // unlink, not rm: rm looks at the file first (an lstat), and this is a file of ours.
    fs.unlinkSync(path);
  } catch {
    // Gone already, or left to the next start.
  }
}

/** Forgets the spares of `spareDir` and removes them (a stop; a start removes the whole folder). */
export function dropRecycled(spareDir: string): void {
  for (const kind of ['ref', 'keep'] as const) {
    const key = keyOf(spareDir, kind);
    for (const path of ready.get(key) ?? []) removeQuietly(path);
    ready.delete(key);
  }
}
