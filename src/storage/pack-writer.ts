import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { constants, crc32, deflate, deflateRawSync, deflateSync } from 'node:zlib';
import { deflateOnThread } from './deflate-thread.ts';
import { windowBitsFor } from './deflate-window.ts';
import { discardFiles, stageFile } from './durable-fs.ts';
import { dropKeep, publishPack, startKeep, type PublishedPack } from './pack-publish.ts';
import { sha1Sliced, type ObjectType, type PreparedObject } from './git-objects.ts';
import { nextTurn, TURN_BYTES } from '../slices.ts';

/**
 * Writes the objects of one commit as a single pack file and its index (git's pack format v2,
 * index v2), instead of one loose file per object. One commit then costs two files and one folder
 * fsync however many objects it holds; `git fsck`, `git gc` and isomorphic-git read these packs
 * like the ones git writes. Objects are stored whole (no deltas); `git gc` may delta them later.
 */

const TYPE_CODE: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3 };

/**
 * zlib level 1: about 40 % less CPU than the default level for about 6 % more bytes on Markdown
 * (measured on the 10 MB import set). git reads any level; `git gc` deltas most of them later.
 */
const LEVEL = 1;

/** One object as a pack stores it: the entry header and the zlib stream, with their CRC-32 for the index. */
export interface PackEntry {
  readonly oid: string;
  readonly bytes: Buffer;
  readonly crc: number;
}

const deflateAsync = promisify(deflate);
/** An object larger than this is deflated on the thread pool: a 5 MB body takes about 50 ms. */
const ASYNC_BYTES = 256 * 1024;

/** One object's pack entry, deflated here (small objects: trees, commits). */
export const packEntry = (object: PreparedObject): PackEntry =>
  packEntryOf(object, (object.type === 'tree' || object.patchedFrom !== undefined) && object.content.length >= PIECES_FROM ? deflateInPieces(object.content, object.patchedFrom) : deflateSync(object.content, { level: LEVEL, windowBits: windowBitsFor(object.content.length) }));

/**
 * A large tree (a language folder of thousands of pages: 100 KB at 2,000 entries, mostly ids that
 * do not compress, which zlib spends about 2 ms on) is deflated in pieces, each ending with a full
 * flush so that none refers back to another: one zlib stream that git and isomorphic-git read like
 * any other. The next write's tree differs from it in one or two ids, so only the pieces holding
 * them are deflated again; the others are taken as they were. So is a large file written again at
 * the same length (`patchedFrom`: a language's stamps file, 100 KB at 2,000 pages, where a write
 * changes a stamp or two).
 */
const PIECE = 8 * 1024;
export const PIECES_FROM = 2 * PIECE;
/** The deflated pieces of a tree's content and each piece's Adler-32, for the tree patched from it. */
const pieces = new WeakMap<Buffer, { deflated: Buffer[]; adler: number[] }>();
const ZLIB_HEADER = Buffer.from([0x78, 0x01]);
const LAST_BLOCK = deflateRawSync(Buffer.alloc(0), { level: LEVEL });

function deflateInPieces(content: Buffer, from: Buffer | undefined): Buffer {
  const before = from !== undefined && from.length === content.length ? pieces.get(from) : undefined;
  const deflated: Buffer[] = [];
  const adler: number[] = [];
  let sum = 1;
  for (let k = 0, at = 0; at < content.length; k++, at += PIECE) {
    const end = Math.min(at + PIECE, content.length);
    if (before !== undefined && from!.compare(content, at, end, at, end) === 0) {
      deflated.push(before.deflated[k]);
      adler.push(before.adler[k]);
    } else {
      const piece = content.subarray(at, end);
      deflated.push(deflateRawSync(piece, { level: LEVEL, windowBits: windowBitsFor(piece.length), finishFlush: constants.Z_FULL_FLUSH }));
      adler.push(adler32(piece));
    }
    sum = adler32Combine(sum, adler[k], end - at);
  }
  pieces.set(content, { deflated, adler });
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(sum);
  return Buffer.concat([ZLIB_HEADER, ...deflated, LAST_BLOCK, trailer]);
}

const ADLER_MOD = 65521;

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (let at = 0; at < bytes.length; ) {
    // 5,552 bytes at most between reductions keep b below 2^32 (zlib's NMAX).
    const end = Math.min(at + 5552, bytes.length);
    for (; at < end; at++) {
      a += bytes[at];
      b += a;
    }
    a %= ADLER_MOD;
    b %= ADLER_MOD;
  }
  return ((b << 16) | a) >>> 0;
}

/** The Adler-32 of two byte runs one after the other, from each one's (zlib's adler32_combine). */
function adler32Combine(first: number, second: number, secondLength: number): number {
  const rem = secondLength % ADLER_MOD;
  let a = first & 0xffff;
  let b = (rem * a) % ADLER_MOD;
  a += (second & 0xffff) + ADLER_MOD - 1;
  b += (first >>> 16) + (second >>> 16) + ADLER_MOD - rem;
  if (a >= ADLER_MOD) a -= ADLER_MOD;
  if (a >= ADLER_MOD) a -= ADLER_MOD;
  if (b >= 2 * ADLER_MOD) b -= 2 * ADLER_MOD;
  if (b >= ADLER_MOD) b -= ADLER_MOD;
  return ((b << 16) | a) >>> 0;
}

function packEntryOf(object: PreparedObject, deflated: Buffer): PackEntry {
  const bytes = Buffer.concat([entryHeader(TYPE_CODE[object.type], object.content.length), deflated]);
  return { oid: object.oid, bytes, crc: crc32(bytes) };
}

/**
 * Objects of more bytes than this in all are deflated on a thread of their own (deflate-thread.ts):
 * a 10 MB import's ~150 ms of deflating then runs on another core while this thread goes on with
 * the write's other work (its search index, Writer.prepare). Below it, a write's few small objects
 * are deflated here: a message to the thread costs more than deflating them.
 */
const ELSEWHERE_FROM_BYTES = 1 << 20;

/** Deflates many objects, yielding to the event loop now and then, or on another thread when there is much (see ELSEWHERE_FROM_BYTES). */
export async function packEntries(objects: readonly PreparedObject[]): Promise<PackEntry[]> {
  let total = 0;
  for (const object of objects) total += object.content.length;
  if (total >= ELSEWHERE_FROM_BYTES) {
    const entries = await deflateElsewhere(objects);
    if (entries !== null) return entries;
  }
  const out: PackEntry[] = [];
  let sinceYield = 0;
  for (const object of objects) {
    if (object.content.length > ASYNC_BYTES) {
      out.push(packEntryOf(object, await deflateAsync(object.content, { level: LEVEL })));
      continue;
    }
    out.push(packEntry(object));
    sinceYield += object.content.length;
    if (sinceYield >= TURN_BYTES) {
      sinceYield = 0;
      await nextTurn();
    }
  }
  return out;
}

/** The blobs deflated on the deflating thread, the trees here (see deflateInPieces); null when the thread failed (they are then all deflated here). */
async function deflateElsewhere(objects: readonly PreparedObject[]): Promise<PackEntry[] | null> {
  const blobs = objects.filter((o) => o.type !== 'tree');
  let deflated: Buffer[];
  try {
    deflated = await deflateOnThread(blobs.map((o) => o.content), LEVEL);
  } catch {
    return null;
  }
  const of = new Map<PreparedObject, Buffer>(blobs.map((o, k) => [o, deflated[k]]));
  return objects.map((object) => (object.type === 'tree' ? packEntry(object) : packEntryOf(object, of.get(object)!)));
}

/** Type in bits 4–6 of the first byte with the size's low 4 bits, then 7 bits per byte, little-endian. */
function entryHeader(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

export interface BuiltPack {
  /** The pack's SHA-1 trailer in hex; git names the files `pack-<it>.pack` / `.idx`. */
  name: string;
  pack: Buffer;
  idx: Buffer;
  objects: number;
}

/** Lays out a pack and its index from entries (an object listed twice is stored once). */
export async function buildPack(entries: readonly PackEntry[]): Promise<BuiltPack> {
  const unique = new Map<string, PackEntry>();
  for (const e of entries) if (!unique.has(e.oid)) unique.set(e.oid, e);
  const list = [...unique.values()];
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(list.length, 8);
  const offsets = new Map<string, number>();
  let offset = header.length;
  for (const e of list) {
    offsets.set(e.oid, offset);
    offset += e.bytes.length;
  }
  const parts = [header, ...list.map((e) => e.bytes)];
  const trailer = await sha1Sliced(parts);
  const pack = Buffer.concat([...parts, trailer], offset + trailer.length);
  return { name: `pack-${trailer.toString('hex')}`, pack, idx: buildIndex(list, offsets, trailer), objects: list.length };
}

/** Index v2: magic, version, fan-out, sorted ids, CRC-32s, 31-bit offsets (+ 64-bit ones past 2 GB), pack and index checksums. */
function buildIndex(list: readonly PackEntry[], offsets: ReadonlyMap<string, number>, packChecksum: Buffer): Buffer {
  // Lower-case hex compares like the bytes it spells.
  const sorted = [...list].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  const n = sorted.length;
  const large = sorted.map((e) => offsets.get(e.oid)!).filter((o) => o >= 0x80000000);
  const idx = Buffer.alloc(8 + 256 * 4 + n * (20 + 4 + 4) + large.length * 8 + 40);
  idx.writeUInt32BE(0xff744f63, 0);
  idx.writeUInt32BE(2, 4);
  const counts = new Array<number>(256).fill(0);
  for (const e of sorted) counts[parseInt(e.oid.slice(0, 2), 16)]++;
  let pos = 8;
  let running = 0;
  for (const count of counts) {
    running += count;
    idx.writeUInt32BE(running, pos);
    pos += 4;
  }
  for (const e of sorted) pos += idx.write(e.oid, pos, 'hex');
  for (const e of sorted) pos = idx.writeUInt32BE(e.crc, pos);
  let nextLarge = 0;
  for (const e of sorted) {
    const at = offsets.get(e.oid)!;
    pos = idx.writeUInt32BE(at < 0x80000000 ? at : (0x80000000 | nextLarge++) >>> 0, pos);
  }
  for (const at of large) pos = idx.writeBigUInt64BE(BigInt(at), pos);
  pos += packChecksum.copy(idx, pos);
  createHash('sha1').update(idx.subarray(0, pos)).digest().copy(idx, pos);
  return idx;
}

/** A pack and its index durable in the temp folder, not yet in `objects/pack/`. */
export interface StagedPack {
  /**
   * Moves the pack and its index into `objects/pack/` under a `.keep` (pack-publish.ts) and fsyncs
   * that folder: the objects are then durable and readable. Call release() once the branch refers to them.
   */
  publish(): Promise<void>;
  /** Removes the `.keep` that publish() left (a no-op before it). */
  release(): void;
  /** Removes the staged files and the `.keep` (when the commit is abandoned; a published pack stays, unreferenced, for git gc). */
  discard(): Promise<void>;
  /** `pack-<checksum>`, the files' name without extension. */
  readonly name: string;
  readonly objects: number;
  /** The pack file's size. */
  readonly bytes: number;
}

export async function stagePack(gitdir: string, tempDir: string, entries: readonly PackEntry[]): Promise<StagedPack> {
  const built = await buildPack(entries);
  const dir = join(gitdir, 'objects', 'pack');
  // The .keep is made while the files are staged, not after (pack-publish.ts, startKeep).
  const keeping = startKeep(dir, built.name);
  keeping.catch(() => undefined);
  const [pack, idx] = await Promise.allSettled([stageFile(tempDir, built.pack), stageFile(tempDir, built.idx)]);
  if (pack.status === 'rejected' || idx.status === 'rejected') {
    await discardFiles([pack, idx].flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])));
    await dropKeep(dir, built.name, keeping);
    throw pack.status === 'rejected' ? pack.reason : (idx as PromiseRejectedResult).reason;
  }
  let published: PublishedPack | null = null;
  return {
    name: built.name,
    objects: built.objects,
    bytes: built.pack.length,
    publish: async () => {
      published = await publishPack(dir, built.name, { '.pack': pack.value, '.idx': idx.value }, keeping);
    },
    release: () => published?.release(),
    discard: async () => {
      if (published !== null) published.release();
      else await dropKeep(dir, built.name, keeping);
      await discardFiles([pack.value, idx.value]);
    },
  };
}
