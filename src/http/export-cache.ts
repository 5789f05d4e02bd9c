import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { textStream } from './stream.ts';

/**
 * zlib level of the kept exports: 5 compresses help text within 1 % of the default (6) in about
 * three quarters of its time; the first export after a change waits for the compression.
 */
const LEVEL = 5;

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

/**
 * Whole-version exports, gzip-compressed once per change of the version and kept (least recently
 * used out first) within `maxBytes`. Compression runs on zlib's thread pool (the async API), so the
 * event loop keeps answering while a large export is compressed; requests that come while it runs
 * share it, and the first ones get the bytes as they come out.
 */
export class ExportCache {
  private readonly kept: LRUCache<string, Kept> | null;
  private readonly builds = new Map<string, Build>();

  constructor(readonly maxBytes: number) {
    this.kept = maxBytes > 0 ? new LRUCache<string, Kept>({ maxSize: maxBytes, sizeCalculation: (v) => Math.max(1, v.gzip.length) }) : null;
  }

  /**
   * The gzip of the text `pieces` make, for `key` (what is exported) as of `stamp` (when it last
   * changed): the kept bytes, or a stream of the compression under way (started when none is).
   */
  gzip(key: string, stamp: string, pieces: () => Iterable<string>): Buffer | Readable {
    const kept = this.kept?.get(key);
    if (kept && kept.stamp === stamp) return kept.gzip;
    const id = `${key}\n${stamp}`;
    let build = this.builds.get(id);
    if (!build) {
      build = this.start(key, stamp, pieces());
      this.builds.set(id, build);
    }
    return Readable.from(build.follow(), { objectMode: false });
  }

  private start(key: string, stamp: string, pieces: Iterable<string>): Build {
    const build = new Build();
    const id = `${key}\n${stamp}`;
    const collect = new Writable({
      write(chunk: Buffer, _encoding, done) {
        build.add(chunk);
        done();
      },
    });
    pipeline(textStream(pieces), createGzip({ level: LEVEL, chunkSize: 256 * 1024 }), collect).then(
      () => {
        this.builds.delete(id);
        // An export larger than the cache is sent from the build and let go.
        if (this.kept && build.bytes <= this.maxBytes) this.kept.set(key, { stamp, gzip: Buffer.concat(build.chunks, build.bytes) });
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
