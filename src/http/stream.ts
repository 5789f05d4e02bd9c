import { Readable } from 'node:stream';

/** A stream of text from a generator of pieces, sent in chunks of about 64 KB. */
export function textStream(pieces: Iterable<string>, chunkSize = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      let buffer = '';
      for (const piece of pieces) {
        buffer += piece;
        if (buffer.length >= chunkSize) {
          yield buffer;
          buffer = '';
        }
      }
      if (buffer !== '') yield buffer;
    })(),
  );
}
