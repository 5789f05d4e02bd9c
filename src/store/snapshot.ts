import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import * as v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { NodeRec, TranslationsOf, VersionMeta, VersionState } from '../domain/types.ts';
import type { TreeNode } from '../storage/git-objects.ts';
import { snapshotFile } from './snapshot-files.ts';
import { hashInSlices } from '../slices.ts';

/**
 * A version's in-memory state kept on disk beside the repository, so a start restores it instead of
 * reading and parsing every file again. It is a cache: named by the folder's tree id (versions with
 * identical folders share it; see snapshot-files.ts), checked by a checksum, and safe to delete (the
 * next start reads git and writes a new one). The slug in it is the version it was taken of: node ids
 * derived from that slug are derived again when another version restores it.
 *
 * File layout: the parts, then the search index's bytes, then a JSON trailer
 * (format, Node version, slug, tree id, part lengths, SHA-256 of everything before it), its length
 * as a 32-bit number, and MAGIC. The trailer comes last so the file is written in one pass.
 *
 * The parts: the head (v8-serialized), then per PART_NODES nodes three parts: the translations
 * without their bodies (v8-serialized), then the bodies that fit in Latin-1, as Latin-1 bytes, then
 * the others as UTF-16 (as strings hold them: no decoding). On restore each of the two is decoded into one string and the bodies are
 * slices of it. Deserializing 300 MB of bodies as 30,000 separate strings made the young-generation
 * collector copy every one of them, twice (half of a start's time); one big string per part is
 * allocated where the collector never moves it. The price: a part's string stays in memory until
 * every body sliced from it has been replaced, at most until the next start.
 */
const FORMAT = 3;
const MAGIC = Buffer.from('help-snapshot\n', 'latin1');
/** Translations per serialized part: a part takes a few milliseconds, so writing never holds the event loop long. */
const PART_NODES = 250;
/** Above this many bytes the checksum is computed on another thread while the main one deserializes. */
const PARALLEL_HASH_BYTES = 8 * 1024 * 1024;

export interface Snapshot {
  slug: string;
  /** The version folder's tree as the state was taken from it (with its language folders, for the diff). */
  tree: TreeNode;
  state: VersionState;
  /** The search index's own bytes (SearchIndex.save), or null; written from its pieces (SearchIndex.savePieces). */
  search: Uint8Array | null;
}

interface Trailer {
  format: number;
  node: string;
  slug: string;
  tree: string;
  parts: number[];
  search: number | null;
  sha256: string;
}

interface Head {
  tree: TreeNode;
  slug: string;
  meta: VersionMeta;
  nodes: ReadonlyMap<string, NodeRec>;
  roots: readonly string[];
  /** Absent in snapshots of versions without redirects (and in those written before there were any). */
  redirects?: VersionState['redirects'];
}

export class SnapshotFormatError extends Error {}

/**
 * Writes a snapshot durably (temp file, fsync, rename, fsync of the folder). Serializes part by
 * part and awaits each write, so requests keep being served meanwhile.
 */
export async function writeSnapshot(dir: string, snap: Omit<Snapshot, 'search'> & { search: readonly Uint8Array[] | null }): Promise<{ bytes: number; longestStepMs: number }> {
  await fs.promises.mkdir(dir, { recursive: true });
  const temp = join(dir, `.${snap.slug}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const handle = await fs.promises.open(temp, 'w');
  const hash = createHash('sha256');
  const parts: number[] = [];
  let bytes = 0;
  let longestStepMs = 0;
  const put = async (data: Uint8Array) => {
    // In slices: a large search index is tens of megabytes.
    await hashInSlices(hash, [data]);
    bytes += data.length;
    await handle.write(data);
  };
  try {
    const { state } = snap;
    const pieces: Array<() => Part | Part[]> = [() => v8.serialize({ tree: snap.tree, slug: state.slug, meta: state.meta, nodes: state.nodes, roots: state.roots, ...(state.redirects ? { redirects: state.redirects } : {}) } satisfies Head)];
    const entries = [...state.translations];
    for (let i = 0; i < entries.length; i += PART_NODES) pieces.push(() => serializeTranslations(entries.slice(i, i + PART_NODES)));
    const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
    for (const piece of pieces) {
      const started = performance.now();
      const data = piece();
      longestStepMs = Math.max(longestStepMs, performance.now() - started);
      for (const part of Array.isArray(data) ? data : [data]) {
        if (Buffer.isBuffer(part)) {
          parts.push(part.length);
          await put(part);
          continue;
        }
        const before = bytes;
        await writeTexts(part, scratch, put);
        parts.push(bytes - before);
      }
    }
    const beforeSearch = bytes;
    for (const piece of snap.search ?? []) await put(piece);
    const trailer: Trailer = { format: FORMAT, node: process.version, slug: snap.slug, tree: snap.tree.oid, parts, search: snap.search ? bytes - beforeSearch : null, sha256: hash.digest('hex') };
    const json = Buffer.from(JSON.stringify(trailer), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(json.length);
    await handle.write(Buffer.concat([json, length, MAGIC]));
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.promises.rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.promises.rename(temp, snapshotFile(dir, snap.tree.oid));
  } catch (err) {
    await fs.promises.rm(temp, { force: true });
    throw err;
  }
  const folder = await fs.promises.open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
  return { bytes, longestStepMs };
}

/** A snapshot file read into memory, its trailer checked; `open()` deserializes it after verifying the checksum. */
export interface SnapshotFile {
  /** The version the snapshot was taken of. */
  slug: string;
  tree: string;
  open(): Promise<Snapshot>;
}

/**
 * Reads a snapshot file and checks its trailer (format, Node version, lengths). Throws
 * SnapshotFormatError when the file cannot be used; `open()` throws it when the checksum does not match.
 */
export async function readSnapshot(dir: string, tree: string): Promise<SnapshotFile> {
  const path = snapshotFile(dir, tree);
  const handle = await fs.promises.open(path, 'r');
  let data: Buffer;
  try {
    const { size } = await handle.stat();
    if (size < MAGIC.length + 4) throw new SnapshotFormatError(`${size} bytes, too short`);
    // Shared memory, so the checksum thread reads the same bytes without a copy.
    data = Buffer.from(new SharedArrayBuffer(size));
    for (let at = 0; at < size; ) {
      const { bytesRead } = await handle.read(data, at, size - at, at);
      if (bytesRead === 0) throw new SnapshotFormatError('shorter than its size');
      at += bytesRead;
    }
  } finally {
    await handle.close();
  }
  if (!data.subarray(data.length - MAGIC.length).equals(MAGIC)) throw new SnapshotFormatError('no end marker (torn or not a snapshot)');
  const trailerLength = data.readUInt32BE(data.length - MAGIC.length - 4);
  const trailerEnd = data.length - MAGIC.length - 4;
  const payloadEnd = trailerEnd - trailerLength;
  if (payloadEnd < 0) throw new SnapshotFormatError('trailer longer than the file');
  let trailer: Trailer;
  try {
    trailer = JSON.parse(data.toString('utf8', payloadEnd, trailerEnd)) as Trailer;
  } catch {
    throw new SnapshotFormatError('unreadable trailer');
  }
  if (trailer.format !== FORMAT) throw new SnapshotFormatError(`format ${trailer.format}, not ${FORMAT}`);
  if (trailer.node !== process.version) throw new SnapshotFormatError(`written by Node ${trailer.node}, this is ${process.version}`);
  if (trailer.tree !== tree) throw new SnapshotFormatError(`holds tree ${trailer.tree}, not the ${tree} it is named for`);
  const total = trailer.parts.reduce((a, b) => a + b, 0) + (trailer.search ?? 0);
  if (total !== payloadEnd || trailer.parts.length % 3 !== 1) throw new SnapshotFormatError('its parts do not add up to its size');
  const payload = data.subarray(0, payloadEnd);
  return {
    slug: trailer.slug,
    tree: trailer.tree,
    open: async () => {
      const checksum = sha256(payload);
      let snap: Snapshot | null = null;
      let failure: unknown = null;
      try {
        snap = deserialize(payload, trailer);
      } catch (err) {
        failure = err;
      }
      // The checksum decides: nothing deserialized from a file that does not match it is used.
      if ((await checksum) !== trailer.sha256) throw new SnapshotFormatError('checksum mismatch (the file is damaged)');
      if (failure !== null || snap === null) throw new SnapshotFormatError(`cannot be deserialized: ${(failure as Error)?.message}`);
      if (snap.tree.oid !== trailer.tree) throw new SnapshotFormatError('its tree does not match its trailer');
      return snap;
    },
  };
}

function deserialize(payload: Buffer, trailer: Trailer): Snapshot {
  let at = 0;
  const next = (length: number) => payload.subarray(at, (at += length));
  const head = v8.deserialize(next(trailer.parts[0])) as Head;
  const translations = new Map<string, TranslationsOf>();
  for (let i = 1; i < trailer.parts.length; i += 3) {
    const [meta, latin1, utf16] = [next(trailer.parts[i]), next(trailer.parts[i + 1]), next(trailer.parts[i + 2])];
    for (const [slug, byLanguage] of deserializeTranslations(meta, latin1, utf16)) translations.set(slug, byLanguage);
  }
  const search = trailer.search === null ? null : Uint8Array.prototype.slice.call(next(trailer.search));
  const state: VersionState = { slug: head.slug, meta: head.meta, nodes: head.nodes, roots: head.roots, translations, ...(head.redirects ? { redirects: head.redirects } : {}) };
  return { slug: trailer.slug, tree: head.tree, state, search };
}

/** SHA-256 of `data`: on a worker thread for large files (the main thread deserializes meanwhile). */
function sha256(data: Buffer): Promise<string> {
  if (data.length < PARALLEL_HASH_BYTES || !(data.buffer instanceof SharedArrayBuffer)) return Promise.resolve(createHash('sha256').update(data).digest('hex'));
  return new Promise((resolve, reject) => {
    const worker = new Worker(
      `const { parentPort, workerData: w } = require('node:worker_threads');
       const hash = require('node:crypto').createHash('sha256');
       hash.update(new Uint8Array(w.buffer, w.offset, w.length));
       parentPort.postMessage(hash.digest('hex'));`,
      { eval: true, workerData: { buffer: data.buffer, offset: data.byteOffset, length: data.length } },
    );
    worker.once('message', (hex: string) => {
      resolve(hex);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/** A translation without its body; `latin1`: where its body is, and `length` its length in characters. */
type StoredTranslation = [language: string, title: string, summary: string, updatedAt: string, latin1: boolean, length: number, basedOn?: string];

const ONLY_LATIN1 = /^[\x00-\xff]*$/;

/** A part of the file: bytes, or bodies written one after the other in an encoding (see writeTexts). */
type Part = Buffer | { texts: string[]; encoding: 'latin1' | 'utf16le' };

/** Bytes of bodies encoded and written at once. */
const SCRATCH_BYTES = 1 << 20;

/**
 * Writes `texts` encoded, through one reused buffer. A snapshot is written right after a load from
 * git, and the service is idle after that: buffers made for the bodies (the size of the content)
 * would wait, garbage but not collected, for the next garbage collection, which an idle service does
 * not run, and stay in its memory at rest.
 */
async function writeTexts({ texts, encoding }: Exclude<Part, Buffer>, scratch: Buffer, put: (data: Uint8Array) => Promise<void>): Promise<void> {
  const unit = encoding === 'latin1' ? 1 : 2;
  let used = 0;
  for (const text of texts) {
    if (used > 0 && used + text.length * unit > scratch.length) {
      await put(scratch.subarray(0, used));
      used = 0;
    }
    if (text.length * unit > scratch.length) await put(Buffer.from(text, encoding));
    else used += scratch.write(text, used, encoding);
  }
  if (used > 0) await put(scratch.subarray(0, used));
}

/** The translations of some nodes as three parts: without bodies, Latin-1 bodies, the other bodies (UTF-16). */
function serializeTranslations(entries: Array<[string, TranslationsOf]>): Part[] {
  const latin1: string[] = [];
  const wide: string[] = [];
  const meta = entries.map(([slug, byLanguage]): [string, StoredTranslation[]] => [
    slug,
    [...byLanguage].map(([language, t]) => {
      const fits = ONLY_LATIN1.test(t.bodyMd);
      (fits ? latin1 : wide).push(t.bodyMd);
      // The base last and only when there is one: snapshots written before it had six fields, and are read alike.
      return t.basedOn === undefined ? [language, t.title, t.summary, t.updatedAt, fits, t.bodyMd.length] : [language, t.title, t.summary, t.updatedAt, fits, t.bodyMd.length, t.basedOn];
    }),
  ]);
  return [v8.serialize(meta), { texts: latin1, encoding: 'latin1' }, { texts: wide, encoding: 'utf16le' }];
}

function deserializeTranslations(meta: Buffer, latin1Bytes: Buffer, utf16Bytes: Buffer): Array<[string, TranslationsOf]> {
  const latin1 = latin1Bytes.toString('latin1');
  const wide = utf16Bytes.toString('utf16le');
  let inLatin1 = 0;
  let inWide = 0;
  const out = (v8.deserialize(meta) as Array<[string, StoredTranslation[]]>).map(([slug, stored]): [string, TranslationsOf] => [
    slug,
    new Map(
      stored.map(([language, title, summary, updatedAt, fits, length, basedOn]) => {
        const bodyMd = fits ? latin1.slice(inLatin1, (inLatin1 += length)) : wide.slice(inWide, (inWide += length));
        return [language, basedOn === undefined ? { title, summary, bodyMd, updatedAt } : { title, summary, bodyMd, updatedAt, basedOn }];
      }),
    ),
  ]);
  if (inLatin1 !== latin1.length || inWide !== wide.length) throw new SnapshotFormatError('its bodies do not add up');
  return out;
}
