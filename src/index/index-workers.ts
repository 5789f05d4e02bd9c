import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { textChars } from '../domain/translations.ts';
import type { Translation } from '../domain/types.ts';
import { nextTurn } from '../slices.ts';

/** A document to index: its key (the node's slug) and its translation in the index's language. */
export type Document = readonly [key: string, translation: Translation];

/** What the main thread sends an index worker: documents of build `job`, and whether they complete its index. */
export interface Batch {
  job: number;
  /** The language of the documents: the ranking's stemmer depends on it. */
  language: string;
  documents: Array<[key: string, title: string, summary: string, bodyMd: string]>;
  last: boolean;
}

/** What an index worker answers: the indexes of build `job`, as packIndexes() writes them. */
export interface Built {
  job: number;
  bytes: Uint8Array;
}

/** Builds term indexes somewhere else than on the thread that asks for them. */
export interface IndexBuilder {
  /** Characters of text a version must have to be built here rather than on the caller's thread. */
  readonly minChars: number;
  /** The indexes of `documents` in `language`, as packIndexes() writes them; rejects when they cannot be built there (the caller then builds them itself). */
  build(documents: readonly Document[], language: string): Promise<Uint8Array>;
}

/** Text sent to a worker in one message, in characters: a message is copied while the event loop waits, and a worker starts on a build once its first batch is in. */
const BATCH_CHARS = 256 * 1024;
/** Workers without work end after this long, in ms: a service at rest keeps no worker's heap. */
const IDLE_MS = 1000;
/** How long builds stay on the main thread after a worker failed, the first time; doubled for each failure in a row. */
const RETRY_MS = 60_000;
const MAX_RETRY_MS = 3_600_000;

// From the TypeScript sources (tests, `npm run dev`) the worker is its .ts module; in the build, dist/index-worker.js beside this code.
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_SCRIPT = new URL(FROM_SOURCES ? './index-worker.ts' : './index-worker.js', import.meta.url);

/** One index being built on a worker. */
class Job {
  private batch: Batch['documents'] = [];
  private batchChars = 0;
  /** Characters of text given to the job so far: how much it weighs on its worker until it ends. */
  chars = 0;
  documents = 0;
  private finished = false;
  readonly started = performance.now();
  readonly result: Promise<Uint8Array>;
  resolve!: (saved: Uint8Array) => void;
  reject!: (err: Error) => void;

  constructor(
    readonly id: number,
    private readonly pool: IndexWorkers,
    readonly worker: Worker | null,
    private readonly language: string,
  ) {
    this.result = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A build failed with nobody waiting is no unhandled rejection.
    this.result.catch(() => undefined);
  }

  /** Adds a document; true when it filled a batch, which went to the worker. */
  add(key: string, t: Translation): boolean {
    if (this.finished) return false;
    this.batch.push([key, t.title, t.summary, t.bodyMd]);
    const chars = textChars(t);
    this.batchChars += chars;
    this.chars += chars;
    this.documents++;
    if (this.batchChars < BATCH_CHARS) return false;
    this.flush(false);
    return true;
  }

  finish(): Promise<Uint8Array> {
    if (!this.finished) {
      this.flush(true);
      this.finished = true;
    }
    return this.result;
  }

  private flush(last: boolean): void {
    const documents = this.batch;
    this.batch = [];
    this.batchChars = 0;
    this.pool.post(this, { job: this.id, language: this.language, documents, last });
  }
}

/**
 * Term indexes built on worker threads (index-worker.ts): a large version loaded without its
 * snapshot, or imported, is indexed on other cores while the main thread answers requests. Each build goes to an idle worker, or a new one, or else the worker whose builds have the
 * least text; a worker may hold several (their batches interleave). Workers start on first need, at
 * most `size`, and end once idle for IDLE_MS. When a worker cannot start or dies (a build without the
 * worker's file, a worker out of memory), the reason is logged, the builds in progress are rejected,
 * and so is every build asked for during the next `retryMs`: their callers index on the main thread,
 * as without workers. Then workers are tried again; each failure in a row doubles the wait (up to an
 * hour), and a build a worker finishes sets it back.
 */
export class IndexWorkers implements IndexBuilder {
  /** Each worker started and not ended, with the builds it runs. */
  private readonly workers = new Map<Worker, Set<Job>>();
  /** Why builds go to the main thread: the workers closed (for good), or the last failure (until `failedUntil`). */
  private closed: Error | null = null;
  private failure: Error | null = null;
  private failedUntil = 0;
  private wait: number;
  private idleTimer: NodeJS.Timeout | null = null;
  private nextId = 1;

  /** `script`: the worker's module (tests give one that fails); `retryMs`: the first wait after a failure. */
  constructor(
    private readonly size: number,
    readonly minChars: number,
    private readonly log: Logger,
    private readonly script: URL = WORKER_SCRIPT,
    private readonly retryMs = RETRY_MS,
  ) {
    this.wait = retryMs;
  }

  /** Why a build cannot go to a worker now, or null. */
  private unavailable(): Error | null {
    return this.closed ?? (performance.now() < this.failedUntil ? this.failure : null);
  }

  async build(documents: readonly Document[], language: string): Promise<Uint8Array> {
    const job = this.job(language);
    // No worker to send them to (the workers failed): rejected as it is.
    if (job.worker === null) return job.finish();
    for (const [key, t] of documents) {
      // Between batches, other work runs: copying a large version's text into messages would hold the event loop.
      if (job.add(key, t)) await nextTurn();
    }
    return job.finish();
  }

  private job(language: string): Job {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const worker = this.unavailable() === null ? this.leastBusy() : null;
    const job = new Job(this.nextId++, this, worker, language);
    if (worker === null) job.reject(this.unavailable() ?? new Error('no index worker'));
    else {
      this.workers.get(worker)!.add(job);
      worker.ref();
    }
    return job;
  }

  /** Ends every worker; builds asked for from now on are rejected (the service is stopping). */
  close(): void {
    this.closed = new Error('index workers closed');
    this.stop(this.closed);
  }

  /** Sends a batch of the job's to its worker (nothing when the job has none: it was rejected). */
  post(job: Job, batch: Batch): void {
    if (job.worker === null || this.workers.get(job.worker)?.has(job) !== true) return;
    job.worker.postMessage(batch);
  }

  /** A worker without builds, else a new one while fewer than `size` run, else the one whose builds have the least text. */
  private leastBusy(): Worker | null {
    for (const [worker, jobs] of this.workers) if (jobs.size === 0) return worker;
    if (this.workers.size < this.size) {
      const started = this.start();
      if (started !== null || this.unavailable() !== null) return started;
    }
    let best: Worker | null = null;
    let least = Infinity;
    for (const [worker, jobs] of this.workers) {
      let chars = 0;
      for (const job of jobs) chars += job.chars;
      if (chars < least) [best, least] = [worker, chars];
    }
    return best;
  }

  private start(): Worker | null {
    let worker: Worker;
    try {
      worker = startWorker(this.script);
    } catch (err) {
      this.fail(err as Error);
      return null;
    }
    worker.on('message', ({ job: id, bytes }: Built) => {
      const jobs = this.workers.get(worker);
      const job = jobs && [...jobs].find((j) => j.id === id);
      if (!job) return;
      this.log.debug({ documents: job.documents, ms: Math.round(performance.now() - job.started) }, 'search index built on a worker thread');
      this.wait = this.retryMs;
      this.done(worker, job);
      job.resolve(bytes);
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => {
      // A worker ended on purpose is gone from `workers` before it exits: only another exit is a failure.
      if (this.workers.has(worker)) this.fail(new Error(`an index worker stopped with exit code ${code}`));
    });
    this.workers.set(worker, new Set());
    return worker;
  }

  /** The job is no longer the worker's; a worker left without any does not keep the process alive, and all idle end after IDLE_MS. */
  private done(worker: Worker, job: Job): void {
    const jobs = this.workers.get(worker);
    if (!jobs?.delete(job)) return;
    if (jobs.size === 0) worker.unref();
    if ([...this.workers.values()].every((j) => j.size === 0) && this.idleTimer === null) {
      this.idleTimer = setTimeout(() => this.endIdle(), IDLE_MS).unref();
    }
  }

  private endIdle(): void {
    this.idleTimer = null;
    for (const [worker, jobs] of this.workers) if (jobs.size === 0) this.end(worker);
  }

  private end(worker: Worker): void {
    this.workers.delete(worker);
    void worker.terminate();
  }

  private fail(err: Error): void {
    // Other workers failing at the same time (the same cause) are not news.
    if (this.closed !== null || this.unavailable() !== null) return;
    this.failure = err;
    this.failedUntil = performance.now() + this.wait;
    this.log.warn({ err, retryInS: Math.round(this.wait / 1000) }, 'an index worker failed; search indexes are built on the main thread until workers are tried again');
    this.wait = Math.min(this.wait * 2, MAX_RETRY_MS);
    this.stop(err);
  }

  private stop(reason: Error): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const jobs = [...this.workers.values()].flatMap((set) => [...set]);
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
