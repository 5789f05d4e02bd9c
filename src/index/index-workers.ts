import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Translation } from '../domain/types.ts';

/** A document to index: its key (the node's slug) and its translation in the index's language. */
export type Document = readonly [key: string, translation: Translation];

/** What the main thread sends an index worker: documents, and whether they complete the index. */
export interface Batch {
  documents: Array<[key: string, title: string, summary: string, bodyMd: string]>;
  last: boolean;
}

/** Builds a term index somewhere else than on the thread that asks for it. */
export interface IndexBuilder {
  /** Characters of text a version must have to be built here rather than on the caller's thread. */
  readonly minChars: number;
  /** The index of `documents`, as TermIndex.save() writes it; rejects when it cannot be built there (the caller then builds it itself). */
  build(documents: readonly Document[]): Promise<Uint8Array>;
}

/** Text sent to a worker in one message, in characters: a message is copied while the event loop waits. */
const BATCH_CHARS = 1 << 20;
/** Workers without work end after this long, in ms: a service at rest keeps no worker's heap. */
const IDLE_MS = 1000;

// From the TypeScript sources (tests, `npm run dev`) the worker is its .ts module; in the build, dist/index-worker.js beside this code.
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_SCRIPT = new URL(FROM_SOURCES ? './index-worker.ts' : './index-worker.js', import.meta.url);

interface Job {
  documents: readonly Document[];
  /** When a worker took it (performance.now()). */
  started?: number;
  resolve(saved: Uint8Array): void;
  reject(err: Error): void;
}

/**
 * Term indexes built on worker threads (index-worker.ts), one language's index per worker at a time:
 * a version loaded without its snapshot is indexed on other cores while the main thread answers
 * requests and reads and parses the next version. Workers start on first need, at most `size`, and
 * end once idle for IDLE_MS. When a worker cannot start or dies (a build without the worker's file,
 * a worker out of memory), the reason is logged once, the builds in progress are rejected, and every
 * later one too: their callers index on the main thread, as without workers.
 */
export class IndexWorkers implements IndexBuilder {
  /** Each worker started and not ended, with the job it runs (null: idle). */
  private readonly workers = new Map<Worker, Job | null>();
  private readonly queue: Job[] = [];
  private failure: Error | null = null;
  private idleTimer: NodeJS.Timeout | null = null;

  /** `script`: the worker's module (tests give one that fails). */
  constructor(
    private readonly size: number,
    readonly minChars: number,
    private readonly log: Logger,
    private readonly script: URL = WORKER_SCRIPT,
  ) {}

  build(documents: readonly Document[]): Promise<Uint8Array> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ documents, resolve, reject });
      this.dispatch();
    });
  }

  /** Ends every worker; builds asked for from now on are rejected (the service is stopping). */
  close(): void {
    this.stop(new Error('index workers closed'));
  }

  private dispatch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    while (this.queue.length > 0 && this.failure === null) {
      const worker = this.idleWorker() ?? (this.workers.size < this.size ? this.start() : null);
      if (worker === null) break;
      const job = this.queue.shift()!;
      job.started = performance.now();
      this.workers.set(worker, job);
      worker.ref();
      void this.send(worker, job);
    }
    if (this.workers.size > 0 && [...this.workers.values()].every((job) => job === null)) {
      this.idleTimer = setTimeout(() => this.endIdle(), IDLE_MS).unref();
    }
  }

  private idleWorker(): Worker | null {
    for (const [worker, job] of this.workers) if (job === null) return worker;
    return null;
  }

  private start(): Worker | null {
    let worker: Worker;
    try {
      worker = startWorker(this.script);
    } catch (err) {
      this.fail(err as Error);
      return null;
    }
    worker.on('message', (saved: Uint8Array) => {
      const job = this.workers.get(worker);
      if (!job) return;
      this.workers.set(worker, null);
      // An idle worker does not keep the process alive.
      worker.unref();
      this.log.debug({ documents: job.documents.length, ms: Math.round(performance.now() - job.started!) }, 'search index built on a worker thread');
      job.resolve(saved);
      this.dispatch();
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => {
      // A worker ended on purpose is gone from `workers` before it exits: only another exit is a failure.
      if (this.workers.has(worker)) this.fail(new Error(`an index worker stopped with exit code ${code}`));
    });
    this.workers.set(worker, null);
    return worker;
  }

  /** Sends the job's documents in batches, letting other work run between them. */
  private async send(worker: Worker, job: Job): Promise<void> {
    let documents: Batch['documents'] = [];
    let chars = 0;
    for (const [key, t] of job.documents) {
      documents.push([key, t.title, t.summary, t.bodyMd]);
      chars += t.title.length + t.summary.length + t.bodyMd.length;
      if (chars < BATCH_CHARS) continue;
      worker.postMessage({ documents, last: false } satisfies Batch);
      documents = [];
      chars = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
      // The worker failed meanwhile: the job was rejected.
      if (this.workers.get(worker) !== job) return;
    }
    worker.postMessage({ documents, last: true } satisfies Batch);
  }

  private endIdle(): void {
    this.idleTimer = null;
    for (const [worker, job] of this.workers) if (job === null) this.end(worker);
  }

  private end(worker: Worker): void {
    this.workers.delete(worker);
    void worker.terminate();
  }

  private fail(err: Error): void {
    if (this.failure !== null) return;
    this.log.warn({ err }, 'an index worker failed; search indexes are built on the main thread from now on');
    this.stop(err);
  }

  private stop(reason: Error): void {
    this.failure ??= reason;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const jobs = [...this.queue.splice(0), ...[...this.workers.values()].filter((job) => job !== null)];
    for (const worker of [...this.workers.keys()]) this.end(worker);
    for (const job of jobs) job.reject(reason);
  }
}

/**
 * A worker running `script`. From the TypeScript sources, the worker registers tsx's loader before it
 * imports the script: Node.js 20 does not apply the `--import tsx` a worker inherits (the current LTS does).
 */
function startWorker(script: URL): Worker {
  if (!script.pathname.endsWith('.ts')) return new Worker(script);
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(script.href)}); });`, { eval: true });
}
