import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';

/**
 * The names in `snapshots/`. A snapshot is kept per version folder tree (`<tree id>.snapshot`), so
 * versions whose folders are identical share one file. Beside them, each version has a pointer
 * (`<slug>.tree`, the tree id of the snapshot last taken of it): when a crash came between a write
 * and the next snapshot, the next start patches that older snapshot with the files changed since
 * instead of reading the whole folder. A snapshot is kept while a version's folder or pointer names
 * its tree; the others are removed.
 */
const SNAPSHOT = '.snapshot';
const POINTER = '.tree';
const TREE_ID = /^[0-9a-f]{40}$/;

export const snapshotFile = (dir: string, tree: string) => join(dir, `${tree}${SNAPSHOT}`);
const pointerFile = (dir: string, slug: string) => join(dir, `${slug}${POINTER}`);

function names(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Tree ids of the snapshots in `dir`. */
export function snapshotTrees(dir: string): string[] {
  return names(dir).flatMap((name) => {
    const tree = name.endsWith(SNAPSHOT) ? name.slice(0, -SNAPSHOT.length) : '';
    return TREE_ID.test(tree) ? [tree] : [];
  });
}

/** Each version's pointer: the tree its last snapshot was taken of. A pointer that is not a tree id is left out. */
export function readPointers(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of names(dir)) {
    if (!name.endsWith(POINTER) || name.startsWith('.')) continue;
    try {
      const tree = fs.readFileSync(join(dir, name), 'utf8').trim();
      if (TREE_ID.test(tree)) out.set(name.slice(0, -POINTER.length), tree);
    } catch {
      // Removed meanwhile, or unreadable: no pointer, the version is read from git if need be.
    }
  }
  return out;
}

/**
 * Points the version at a snapshot's tree: temp file, fsync, rename. A crash leaves the old pointer
 * or the new one; either may name a snapshot removed since, which the next start treats as none.
 */
export async function writePointer(dir: string, slug: string, tree: string): Promise<void> {
  await fs.promises.mkdir(dir, { recursive: true });
  const temp = join(dir, `.${slug}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await fs.promises.open(temp, 'w');
    try {
      await handle.writeFile(`${tree}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(temp, pointerFile(dir, slug));
  } catch (err) {
    await fs.promises.rm(temp, { force: true });
    throw err;
  }
}

export async function removePointer(dir: string, slug: string): Promise<void> {
  await fs.promises.rm(pointerFile(dir, slug), { force: true });
}

/**
 * Removes what no version needs: snapshots of trees not in `keep`, and files that are neither a
 * snapshot nor a pointer (temp files of a write a crash cut short, snapshots of the older per-version
 * layout). Returns the trees removed.
 */
export async function removeUnneeded(dir: string, keep: ReadonlySet<string>, temps: boolean): Promise<string[]> {
  const removed: string[] = [];
  for (const name of names(dir)) {
    const tree = name.endsWith(SNAPSHOT) ? name.slice(0, -SNAPSHOT.length) : null;
    const isTree = tree !== null && TREE_ID.test(tree);
    const isPointer = name.endsWith(POINTER) && !name.startsWith('.');
    const isTemp = name.endsWith('.tmp');
    if (isPointer || (isTree && keep.has(tree)) || (isTemp && !temps)) continue;
    await fs.promises.rm(join(dir, name), { force: true });
    if (isTree) removed.push(tree);
  }
  return removed;
}
