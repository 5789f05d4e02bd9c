import { Worker } from 'node:worker_threads';
import { windowBitsFor } from './deflate-window.ts';

/**
 * Deflates many objects on a thread of its own, in one message each way: a large write's objects
 * (an import's 2,000 blobs) are deflated on another core while this thread goes on with the write's
 * other work. Handing each object to the thread pool (zlib's async calls) cost this thread about half
 * of what deflating it here costs, at an import's 5 KB a file; one message costs it a copy.
 * The thread starts on first use and ends once idle for IDLE_MS; a service at rest keeps none.
 */

/** The thread's code: plain JavaScript, so it runs alike from the sources and from the build (windowBitsFor() is written into it). */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { deflateSync } = require('node:zlib');
const windowBitsFor = ${windowBitsFor.toString()};
parentPort.on('message', ({ id, bytes, ends, level }) => {
  const parts = [];
  const out = new Uint32Array(ends.length);
  let from = 0;
  let at = 0;
  for (let k = 0; k < ends.length; k++) {
    const deflated = deflateSync(bytes.subarray(from, ends[k]), { level, windowBits: windowBitsFor(ends[k] - from) });
    parts.push(deflated);
    at += deflated.length;
    out[k] = at;
    from = ends[k];
  }
  const all = new Uint8Array(at);
  at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  parentPort.postMessage({ id, bytes: all, ends: out }, [all.buffer, out.buffer]);
});
`;

/** How long the thread stays without work, in ms. */
const IDLE_MS = 1000;
/** After a failure, how long deflating goes elsewhere before the thread is tried again, in ms. */
const RETRY_MS = 60_000;

interface Pending {
  resolve: (deflated: Buffer[]) => void;
  reject: (err: Error) => void;
  count: number;
}

let worker: Worker | null = null;
let idleTimer: NodeJS.Timeout | null = null;
let failedUntil = 0;
let nextId = 1;
const pending = new Map<number, Pending>();

/**
 * Each of `contents` deflated at zlib `level`, in order, on the deflating thread; rejects when the
 * thread cannot start or fails (the caller then deflates them some other way).
 */
export function deflateOnThread(contents: readonly Uint8Array[], level: number): Promise<Buffer[]> {
  if (performance.now() < failedUntil) return Promise.reject(new Error('the deflating thread failed a moment ago'));
  let thread: Worker;
  try {
    thread = worker ?? start();
  } catch (err) {
    failedUntil = performance.now() + RETRY_MS;
    return Promise.reject(err as Error);
  }
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = null;
  let total = 0;
  for (const c of contents) total += c.length;
  // One buffer, moved to the thread rather than copied, with where each object ends in it.
  const bytes = new Uint8Array(total);
  const ends = new Uint32Array(contents.length);
  let at = 0;
  for (const [k, c] of contents.entries()) {
    bytes.set(c, at);
    at += c.length;
    ends[k] = at;
  }
  const id = nextId++;
  const result = new Promise<Buffer[]>((resolve, reject) => pending.set(id, { resolve, reject, count: contents.length }));
  thread.ref();
  thread.postMessage({ id, bytes, ends, level }, [bytes.buffer, ends.buffer]);
  return result;
}

function start(): Worker {
  const thread = new Worker(SOURCE, { eval: true });
  thread.on('message', ({ id, bytes, ends }: { id: number; bytes: Uint8Array; ends: Uint32Array }) => {
    const job = pending.get(id);
    if (job === undefined) return;
    pending.delete(id);
    const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out: Buffer[] = [];
    let from = 0;
    for (let k = 0; k < job.count; k++) {
      out.push(all.subarray(from, ends[k]));
      from = ends[k];
    }
    settle();
    job.resolve(out);
  });
  thread.on('error', (err) => fail(thread, err));
  thread.on('exit', (code) => fail(thread, new Error(`the deflating thread stopped with exit code ${code}`)));
  worker = thread;
  return thread;
}

/** No job left: the thread does not keep the process alive, and ends after IDLE_MS. */
function settle(): void {
  if (pending.size > 0 || worker === null) return;
  worker.unref();
  idleTimer = setTimeout(() => {
    idleTimer = null;
    if (pending.size > 0 || worker === null) return;
    const ending = worker;
    worker = null;
    void ending.terminate();
  }, IDLE_MS).unref();
}

function fail(thread: Worker, err: Error): void {
  // A thread ended on purpose is no longer `worker` when it exits.
  if (thread !== worker) return;
  worker = null;
  failedUntil = performance.now() + RETRY_MS;
  void thread.terminate();
  const jobs = [...pending.values()];
  pending.clear();
  for (const job of jobs) job.reject(err);
}
