import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw);

/** gzip header: deflate, no file name, mtime 0 (the same text always gives the same bytes), OS unknown. */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

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
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  yield trailer;
}
