import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw);

/** gzip header: deflate, no file name, mtime 0 (the same text always gives the same bytes), OS unknown. */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

/** gzip trailer: the CRC-32 and the length (modulo 2^32) of the whole text. */
function trailerOf(crc: number, length: number): Buffer {
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  return trailer;
}

export interface GzipOptions {
  /** zlib level, 1–9. */
  level: number;
  /** Characters of text per segment: what the event loop builds between two turns. */
  segmentChars: number;
  /** Segments compressed at once, each on a thread of libuv's pool (which file I/O shares). */
  parallel: number;
}

/**
 * One gzip stream (a single member, as any client decodes it) of the text that `pieces` make,
 * compressed in segments, several at once on libuv's thread pool, as pigz does: each segment is
 * deflated on its own and ends on a byte boundary (a sync flush), the last one with the final block,
 * so their concatenation is one deflate stream; the CRC-32 and length of the whole text close it.
 * The event loop only builds the text and its checksum, one segment per turn. Chunks come out in
 * order, each as soon as the segments before it are done.
 */
export async function* gzipSegments(pieces: Iterable<string>, opts: GzipOptions): AsyncGenerator<Buffer> {
  yield HEADER;
  let crc = 0;
  let length = 0;
  const pending: Array<Promise<Buffer>> = [];
  const submit = (text: string, last: boolean) => {
    const input = Buffer.from(text, 'utf8');
    crc = crc32(input, crc);
    length += input.length;
    const deflated = deflateRawAsync(input, { level: opts.level, finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH });
    // A failure is thrown when the segment's turn comes; until then it must not count as unhandled.
    deflated.catch(() => undefined);
    pending.push(deflated);
  };
  let text = '';
  for (const piece of pieces) {
    text += piece;
    if (text.length < opts.segmentChars) continue;
    submit(text, false);
    text = '';
    if (pending.length >= opts.parallel) yield await pending.shift()!;
    else await nextTurn();
  }
  submit(text, true);
  while (pending.length > 0) yield await pending.shift()!;
  yield trailerOf(crc, length);
}

/**
 * The CRC-32 of A followed by B from crc(A), crc(B) and B's length, without B's bytes (zlib's
 * crc32_combine, which Node does not expose): what lets kept segments be reused without rereading them.
 */
export function crc32Combine(crc1: number, crc2: number, length2: number): number {
  if (length2 <= 0) return crc1 >>> 0;
  const times = (mat: Uint32Array, vec: number) => {
    let sum = 0;
    for (let i = 0; vec !== 0; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i];
    return sum >>> 0;
  };
  const square = (out: Uint32Array, mat: Uint32Array) => {
    for (let n = 0; n < 32; n++) out[n] = times(mat, mat[n]);
  };
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320; // the CRC-32 polynomial, reflected
  for (let n = 1, row = 1; n < 32; n++, row = (row << 1) >>> 0) odd[n] = row;
  square(even, odd); // two zero bits
  square(odd, even); // four zero bits
  let crc = crc1 >>> 0;
  let length = length2;
  // Apply length2 zero bytes to crc1, one power of two at a time.
  for (;;) {
    square(even, odd);
    if (length % 2 === 1) crc = times(even, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
    square(odd, even);
    if (length % 2 === 1) crc = times(odd, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
  }
  return (crc ^ crc2) >>> 0;
}

/** A part of the text whose bytes are known to be unchanged while its `signature` is (compared item by item, by identity). */
export interface Unit {
  /** Stable across changes (a node's slug): where segments begin is decided by it. */
  id: string;
  signature: readonly unknown[];
  text: () => string;
}

interface KeptSegment {
  signatures: ReadonlyArray<readonly unknown[]>;
  /** Its own buffer while a run is under way; then a view of the kept export (rebase). */
  deflated: Buffer;
  crc: number;
  length: number;
}

/**
 * A text made of units (the nodes of an export), gzip-compressed so that the next compression after
 * a change recompresses only the segments whose units changed and reuses the others' bytes and
 * checksums. Segments end after a unit whose id hashes to 0 modulo `every` (content-defined, so a
 * change, an insertion or a deletion moves no boundary but its own), or at `maxChars`. Each segment is
 * deflated on its own and ends with a sync flush; the tail closes the stream with the final block.
 */
export class IncrementalGzip {
  private kept = new Map<string, KeptSegment>();
  /** What the last run did: segments in all, and those compressed anew. */
  lastRun = { segments: 0, compressed: 0 };

  constructor(
    private readonly opts: { level: number; parallel: number },
    /** Units per segment on average (set from the text's average unit size, once); a segment has at most four times as many. */
    private readonly every: number,
  ) {}

  /** Bytes of the segments kept for the next run. */
  get keptBytes(): number {
    let bytes = 0;
    for (const segment of this.kept.values()) bytes += segment.deflated.length;
    return bytes;
  }

  /**
   * After the run's `chunks` were copied into one buffer (`whole`, kept to be sent), the kept segments
   * become views of it, so their bytes are held once.
   */
  rebase(chunks: readonly Buffer[], whole: Buffer): void {
    const offsets = new Map<Buffer, number>();
    let at = 0;
    for (const chunk of chunks) {
      offsets.set(chunk, at);
      at += chunk.length;
    }
    for (const segment of this.kept.values()) {
      const offset = offsets.get(segment.deflated);
      if (offset !== undefined) segment.deflated = whole.subarray(offset, offset + segment.deflated.length);
    }
  }

  async *gzip(head: string, units: Iterable<Unit>, tail: string): AsyncGenerator<Buffer> {
    yield HEADER;
    const next = new Map<string, KeptSegment>();
    const pending: Array<Promise<{ deflated: Buffer; crc: number; length: number }>> = [];
    let crc = 0;
    let length = 0;
    let compressed = 0;
    let segments = 0;
    const deflate = (text: string, last: boolean) => {
      const input = Buffer.from(text, 'utf8');
      const done = deflateRawAsync(input, { level: this.opts.level, finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH }).then((deflated) => ({ deflated, crc: crc32(input), length: input.length }));
      done.catch(() => undefined);
      return done;
    };
    const take = async () => {
      const piece = await pending.shift()!;
      crc = crc32Combine(crc, piece.crc, piece.length);
      length += piece.length;
      return piece.deflated;
    };
    pending.push(deflate(head, false));
    let group: Unit[] = [];
    const close = () => {
      const first = group[0].id;
      const signatures = group.map((u) => u.signature);
      const before = this.kept.get(first);
      segments++;
      if (before && sameSignatures(before.signatures, signatures)) {
        next.set(first, before);
        pending.push(Promise.resolve({ deflated: before.deflated, crc: before.crc, length: before.length }));
      } else {
        compressed++;
        const piece = deflate(group.map((u) => u.text()).join(''), false);
        piece.then((p) => next.set(first, { signatures, ...p }), () => undefined);
        pending.push(piece);
      }
      group = [];
    };
    for (const unit of units) {
      group.push(unit);
      if (hashOf(unit.id) % this.every === 0 || group.length >= this.every * 4) close();
      while (pending.length > this.opts.parallel) yield await take();
      if (pending.length === this.opts.parallel) await nextTurn();
    }
    if (group.length > 0) close();
    pending.push(deflate(tail, true));
    while (pending.length > 0) yield await take();
    this.kept = next;
    this.lastRun = { segments, compressed };
    yield trailerOf(crc, length);
  }
}

function sameSignatures(a: ReadonlyArray<readonly unknown[]>, b: ReadonlyArray<readonly unknown[]>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

/** FNV-1a: a cheap, stable hash of a unit's id, for where segments end. */
function hashOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
