import * as fs from 'node:fs';
import { join } from 'node:path';
import { sha1Sliced } from './git-objects.ts';
import { stagePack, type PackEntry } from './pack-writer.ts';

/**
 * Merges the small packs that single writes leave (one per commit) into fewer, larger ones, so that
 * readers do not slow down with thousands of packs (isomorphic-git lists the pack folder and tries
 * every index for each object it reads: 500 blobs took 2.7 s with 1,000 packs against 0.3 s with
 * one). Without the system git nobody could run `git gc`, hence this.
 *
 * Entries are copied byte for byte (no inflating): only packs that hold whole objects are merged,
 * as this service writes them. Packs with deltas (from `git gc`) are left to git. The merged pack is
 * durable before the packs it replaces are removed, so every object stays readable throughout.
 */

/**
 * When compaction runs: once writes pause for `IDLE_MS`, merging up to `IDLE_MERGE_BYTES`; during a
 * long burst of writes also after every `BURST_PACKS` packs, merging only up to `BURST_MERGE_BYTES`,
 * so that the burst's own writes do not wait behind a large merge on the disk.
 */
export const COMPACTION = {
  IDLE_MS: 1000,
  IDLE_MERGE_BYTES: 32 << 20,
  BURST_PACKS: 64,
  BURST_MERGE_BYTES: 4 << 20,
} as const;

interface PackFile {
  name: string;
  size: number;
}

/**
 * Which packs to merge, smallest first: all up to the last pack that is at most twice the size of
 * all smaller packs together, within `maxBytes` (larger packs are left to `git gc`). What remains
 * afterwards grows geometrically (each pack more than twice all smaller ones), so the count stays
 * logarithmic in the bytes written and each byte is copied a logarithmic number of times.
 */
export function choosePacks(packs: readonly PackFile[], maxBytes: number = COMPACTION.IDLE_MERGE_BYTES): PackFile[] {
  const sorted = [...packs].sort((a, b) => a.size - b.size);
  let take = 0;
  let below = 0;
  for (let i = 0; i < sorted.length && below + sorted[i].size <= maxBytes; i++) {
    if (i > 0 && below * 2 >= sorted[i].size) take = i + 1;
    below += sorted[i].size;
  }
  return take >= 2 ? sorted.slice(0, take) : [];
}

/**
 * What a merge reads on the event loop in one turn: at most this many packs, of at most this many
 * bytes together (a small pack's two files take about 0.1 ms from the page cache).
 */
const READ_TURN = { PACKS: 8, BYTES: 1 << 20 } as const;

/** Removes a file; one gone already (git gc removed it) is no error. */
async function unlinkIfThere(path: string): Promise<void> {
  await fs.promises.unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

/** Files git may keep beside a pack (a .keep asks that it stay as it is): such packs are git's to manage. */
const COMPANIONS = ['.keep', '.bitmap', '.rev', '.mtimes', '.promisor'];

/** Complete packs (pack and index) that have nothing else beside them, as this service writes them. */
export async function listPacks(gitdir: string): Promise<PackFile[]> {
  const dir = join(gitdir, 'objects', 'pack');
  const names = new Set(await fs.promises.readdir(dir));
  const out: PackFile[] = [];
  for (const file of names) {
    const base = file.slice(0, -5);
    if (!file.endsWith('.pack') || !names.has(`${base}.idx`) || COMPANIONS.some((ext) => names.has(`${base}${ext}`))) continue;
    try {
      out.push({ name: base, size: (await fs.promises.stat(join(dir, file))).size });
    } catch {
      // Removed meanwhile (by git gc): nothing to merge.
    }
  }
  return out;
}

/**
 * The entries of a pack of whole objects, or null when it holds deltas (or does not match its
 * checksum): such a pack is not ours to copy.
 */
export async function wholeEntries(pack: Buffer, idx: Buffer): Promise<PackEntry[] | null> {
  if (pack.length < 32 || idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) return null;
  const body = pack.subarray(0, pack.length - 20);
  // A damaged pack is not copied under a fresh checksum, which would hide the damage from git verify-pack.
  if (!(await sha1Sliced([body])).equals(pack.subarray(pack.length - 20))) return null;
  const n = idx.readUInt32BE(8 + 255 * 4);
  const oidsAt = 8 + 256 * 4;
  const crcsAt = oidsAt + n * 20;
  const offsetsAt = crcsAt + n * 4;
  const largeAt = offsetsAt + n * 4;
  const items: Array<{ oid: string; crc: number; offset: number }> = [];
  for (let i = 0; i < n; i++) {
    const small = idx.readUInt32BE(offsetsAt + i * 4);
    const offset = small & 0x80000000 ? Number(idx.readBigUInt64BE(largeAt + (small & 0x7fffffff) * 8)) : small;
    items.push({ oid: idx.toString('hex', oidsAt + i * 20, oidsAt + i * 20 + 20), crc: idx.readUInt32BE(crcsAt + i * 4), offset });
  }
  items.sort((a, b) => a.offset - b.offset);
  const entries: PackEntry[] = [];
  for (let i = 0; i < items.length; i++) {
    const type = (body[items[i].offset] >> 4) & 7;
    if (type < 1 || type > 3) return null; // a delta (6, 7) or a tag: not written by this service
    const end = i + 1 < items.length ? items[i + 1].offset : body.length;
    entries.push({ oid: items[i].oid, crc: items[i].crc, bytes: body.subarray(items[i].offset, end) });
  }
  return entries;
}

/**
 * One round of compaction. `skip` remembers packs found unmergeable (deltas) so they are not read
 * again. Resolves to the number of packs merged away (0 when there was nothing to do).
 */
export async function compactPacks(gitdir: string, tempDir: string, skip: Set<string>, maxBytes: number): Promise<number> {
  const dir = join(gitdir, 'objects', 'pack');
  for (;;) {
    const chosen = choosePacks(
      (await listPacks(gitdir)).filter((p) => !skip.has(p.name)),
      maxBytes,
    );
    if (chosen.length === 0) return 0;
    // Small packs are read on the event loop, a few per turn, not on the thread pool: that is where
    // every write's fsyncs queue, and a merge of 64 packs asking for all its files at once put
    // hundreds of steps ahead of them. A burst's packs were written moments ago, so their bytes come
    // from the page cache. A large pack is read on the thread pool, where its size outweighs the trip.
    const entries: PackEntry[] = [];
    let unmergeable = false;
    let packsThisTurn = 0;
    let bytesThisTurn = 0;
    for (const [i, p] of chosen.entries()) {
      const path = join(dir, p.name);
      let pack: Buffer;
      let idx: Buffer;
      if (p.size > READ_TURN.BYTES) [pack, idx] = [await fs.promises.readFile(`${path}.pack`), await fs.promises.readFile(`${path}.idx`)];
      else {
        if (packsThisTurn === READ_TURN.PACKS || bytesThisTurn + p.size > READ_TURN.BYTES) {
          await new Promise((resolve) => setImmediate(resolve));
          [packsThisTurn, bytesThisTurn] = [0, 0];
        }
        packsThisTurn++;
        bytesThisTurn += p.size;
        [pack, idx] = [fs.readFileSync(`${path}.pack`), fs.readFileSync(`${path}.idx`)];
      }
      const whole = await wholeEntries(pack, idx);
      if (whole === null) {
        skip.add(chosen[i].name);
        unmergeable = true;
      } else entries.push(...whole);
    }
    if (unmergeable) continue; // choose again without it
    const staged = await stagePack(gitdir, tempDir, entries);
    await staged.publish();
    // Its objects are all in packs already: nothing to keep it for.
    staged.release();
    // git's own order for removing a pack: the index first, so no reader finds an index without its
    // pack. One at a time, as the files were read.
    for (const p of chosen) {
      if (p.name === staged.name) continue;
      await unlinkIfThere(join(dir, `${p.name}.idx`));
      await unlinkIfThere(join(dir, `${p.name}.pack`));
    }
    return chosen.length;
  }
}
