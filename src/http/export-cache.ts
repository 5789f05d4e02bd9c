import { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import { gzipSegments, IncrementalGzip, type GzipOptions, type Unit } from './gzip-segments.ts';

/**
 * How exports are compressed. Level 5 makes help text within 1 % of zlib's default (6) in about three
 * quarters of its time. Two segments at once use both cores of a small machine and leave two threads
 * of libuv's pool (4) to file I/O, such as the fsyncs of writes. 256 K characters keep each turn of the
 * event loop that builds the text to a few milliseconds.
 */
const GZIP: GzipOptions = { level: 5, parallel: 2, segmentChars: 256 * 1024 };

/** A compression under way: its chunks so far, for every request that asks meanwhile. */
class Build {
  readonly chunks: Buffer[] = [];
  bytes = 0;
  finished = false;
  error: Error | null = null;
  private waiting: Array<() => void> = [];

  add(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    this.wake();
  }

  end(error: Error | null): void {
    this.finished = true;
    this.error = error;
    this.wake();
  }

  /** Every chunk from the first, waiting for the compression to make more. */
  async *follow(): AsyncGenerator<Buffer> {
    for (let i = 0; ; ) {
      while (i < this.chunks.length) yield this.chunks[i++];
      if (this.error) throw this.error;
      if (this.finished) return;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

interface Kept {
  stamp: string;
  gzip: Buffer;
}

/** What is compressed: a text in pieces, or in parts that say when they are unchanged (recompressed only where they changed). */
export type GzipSource = { pieces: Iterable<string> } | { head: string; units: Iterable<Unit>; tail: string; averageChars: number };

/** Characters of text per segment of an incremental compression, on average. */
const SEGMENT_CHARS = 256 * 1024;

/**
 * Whole-version exports, gzip-compressed once per change of the version and kept (least recently
 * used out first) within `maxBytes`. Compression runs on libuv's thread pool, in segments (see
 * gzipSegments), so the event loop keeps answering while a large export is compressed; requests that
 * come while it runs share it, and get the bytes as they come out.
 */
export class ExportCache {
  private readonly kept: LRUCache<string, Kept> | null;
  private readonly builds = new Map<string, Build>();
  /** Per export, the segments of its last compression, so the next one after a change recompresses only what changed. */
  private readonly incremental: LRUCache<string, IncrementalGzip> | null;

  constructor(readonly maxBytes: number) {
    this.kept = maxBytes > 0 ? new LRUCache<string, Kept>({ maxSize: maxBytes, sizeCalculation: (v) => Math.max(1, v.gzip.length) }) : null;
    // The segments are views of the bytes `kept` holds, while both hold the export; the bound is the same.
    this.incremental = maxBytes > 0 ? new LRUCache<string, IncrementalGzip>({ maxSize: maxBytes, sizeCalculation: (v) => Math.max(1, v.keptBytes) }) : null;
  }

  /**
   * The gzip of the text `pieces` make, for `key` (what is exported) as of `stamp` (when it last
   * changed): the kept bytes, or a stream of the compression under way (started when none is).
   */
  gzip(key: string, stamp: string, source: () => GzipSource): Buffer | Readable {
    const kept = this.kept?.get(key);
    if (kept && kept.stamp === stamp) return kept.gzip;
    const id = `${key}\n${stamp}`;
    let build = this.builds.get(id);
    if (!build) {
      build = this.start(key, stamp, source());
      this.builds.set(id, build);
    }
    return Readable.from(build.follow(), { objectMode: false });
  }

  private compressor(key: string, source: GzipSource): IncrementalGzip | null {
    if ('pieces' in source || !this.incremental) return null;
    return this.incremental.get(key) ?? new IncrementalGzip(GZIP, Math.min(256, Math.max(1, Math.round(SEGMENT_CHARS / Math.max(1, source.averageChars)))));
  }

  private start(key: string, stamp: string, source: GzipSource): Build {
    const build = new Build();
    const id = `${key}\n${stamp}`;
    const incremental = this.compressor(key, source);
    (async () => {
      const chunks = 'pieces' in source ? gzipSegments(source.pieces, GZIP) : incremental ? incremental.gzip(source.head, source.units, source.tail) : gzipSegments(textOf(source), GZIP);
      for await (const chunk of chunks) build.add(chunk);
    })().then(
      () => {
        this.builds.delete(id);
        // An export larger than the cache is sent from the build and let go.
        if (this.kept && build.bytes <= this.maxBytes) {
          const gzip = Buffer.concat(build.chunks, build.bytes);
          this.kept.set(key, { stamp, gzip });
          if (incremental) {
            incremental.rebase(build.chunks, gzip);
            this.incremental!.set(key, incremental);
          }
        } else this.incremental?.delete(key);
        build.end(null);
      },
      (err: Error) => {
        this.builds.delete(id);
        build.end(err);
      },
    );
    return build;
  }
}

/** The text of a source in parts, piece by piece (when nothing is kept to recompress incrementally). */
function* textOf(source: { head: string; units: Iterable<Unit>; tail: string }): Generator<string> {
  yield source.head;
  for (const unit of source.units) yield unit.text();
  yield source.tail;
}
