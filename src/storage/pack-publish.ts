import * as fs from 'node:fs';
import { join } from 'node:path';
import { publishFiles, SPARE_DIR } from './durable-fs.ts';
import { keepRecycled, linkRecycled, recycleName } from './recycled-files.ts';

/**
 * How a pack the service made or received goes into `objects/pack/` while `git gc` may run beside it
 * (the service's own or an operator's). Its files are durable in a temp folder first. Then, as git's
 * own receive-pack does, a `.keep` goes beside it, the pack and its index are renamed in (pack first,
 * as git does) and the folder is fsynced; the `.keep` goes once the branch refers to the commit.
 *
 * Without the `.keep`, git repack up to 2.41 (Debian 12 has 2.39) lists packs by their `.pack` file:
 * one listed in the moment between its two renames is never read by that repack, which then removes
 * it with the packs it replaced, commit and all (in Node the two renames are two turns of the event
 * loop apart, milliseconds on a busy service); the index cannot go first either, as gc deletes an
 * index it finds without its pack. A kept pack is neither read nor removed by any repack, and while
 * its commit is not yet on the branch not even `git gc --prune=now` or `git repack -a -d` drops it.
 */

/** What the service writes into its `.keep` files: a start removes those a crash left. */
const KEEP_TEXT = 'help-content-service: a write in progress\n';

export type PackExt = '.pack' | '.rev' | '.idx';

/** A pack published under its `.keep`; `release()` takes the `.keep` away (into the spare folder, at once, not durably: a crash leaves it to the next start). */
export interface PublishedPack {
  release(): void;
}

/**
 * Starts making the `.keep` of pack `name` in `dir`, on the thread pool (creating a file can take long:
 * see durable-fs.ts, prepareSpares): a write starts it as soon as its pack has a name, while its files are
 * staged. Resolves to whether the `.keep` is ours (false: an operator keeps a pack of that name, the
 * same objects). A `.keep` without its pack yet is harmless: git reads packs, not keeps, and a start
 * removes ours.
 */
export function startKeep(dir: string, name: string): Promise<boolean> {
  const keep = join(dir, `${name}.keep`);
  // The .keep of a pack before, kept for this one (recycled-files.ts): a link, no file made.
  const linked = linkRecycled(sparesOf(dir), 'keep', keep);
  if (linked !== undefined) return Promise.resolve(linked);
  // Only the create goes to the thread pool: writing 42 bytes and closing are synchronous calls.
  return new Promise((resolve, reject) =>
    fs.open(keep, 'wx', 0o666, (err, fd) => {
      if (err !== null) {
        if (err.code === 'EEXIST') resolve(false);
        else reject(err);
        return;
      }
      try {
        try {
          fs.writeSync(fd, KEEP_TEXT);
        } finally {
          fs.closeSync(fd);
        }
        resolve(true);
      } catch (failed) {
        reject(failed);
      }
    }),
  );
}

/** Removes the `.keep` of pack `name` if `keeping` made it ours (the pack did not go in, or its commit is on the branch). */
export async function dropKeep(dir: string, name: string, keeping: Promise<boolean>): Promise<void> {
  if (await keeping.catch(() => false)) giveBackKeep(dir, join(dir, `${name}.keep`));
}

/** The git dir's spare folder (durable-fs.ts, SPARE_DIR), from its `objects/pack/`. */
const sparesOf = (packDir: string) => join(packDir, '..', '..', SPARE_DIR);

/**
 * Moves one of our `.keep` files into the spare folder for the next pack (recycled-files.ts): a
 * rename that frees nothing, where removing it would free its inode and block. If that fails, it is
 * removed.
 */
function giveBackKeep(dir: string, keep: string): void {
  const spares = sparesOf(dir);
  const spare = recycleName(spares, 'keep');
  try {
    fs.renameSync(keep, spare);
  } catch {
    fs.rmSync(keep, { force: true });
    return;
  }
  keepRecycled(spares, 'keep', spare);
}

/** Renames a pack's staged files (by extension) into `dir` under a `.keep` (`keeping`: started before), then fsyncs the folder. */
export async function publishPack(dir: string, name: string, temps: Partial<Record<PackExt, string>>, keeping: Promise<boolean> = startKeep(dir, name)): Promise<PublishedPack> {
  const keep = join(dir, `${name}.keep`);
  let ours = await keeping;
  const release = () => {
    if (ours) giveBackKeep(dir, keep);
    ours = false;
  };
  try {
    await publishFiles(dir, (['.pack', '.rev', '.idx'] as const).flatMap((ext) => (temps[ext] === undefined ? [] : [{ temp: temps[ext], name: `${name}${ext}` }])));
  } catch (err) {
    release();
    throw err;
  }
  return { release };
}

/** At open: the `.keep` files of writes a crash interrupted (the service's own, by their text). */
export async function removeLeftKeeps(gitdir: string): Promise<void> {
  const dir = join(gitdir, 'objects', 'pack');
  for (const name of await fs.promises.readdir(dir)) {
    if (!name.endsWith('.keep')) continue;
    const text = await fs.promises.readFile(join(dir, name), 'utf8').catch(() => '');
    if (text === KEEP_TEXT) await fs.promises.rm(join(dir, name), { force: true });
  }
}
