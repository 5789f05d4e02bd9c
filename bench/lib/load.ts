import autocannon from 'autocannon';
import { cpuSecondsOf } from './util.ts';

export interface LoadOptions {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** Paths (with query) to cycle through, or a function giving the path of each request. */
  paths: readonly string[] | (() => string);
  connections: number;
  /** Seconds of measurement. */
  duration: number;
  /** Seconds of warm-up run just before, not measured. */
  warmup: number;
  headers?: Record<string, string>;
  /** The server's pid: its CPU time during the measured run is reported. */
  pid?: number;
  /** Waits until the server has worked off what the warm-up left in flight. */
  settle?: () => Promise<unknown>;
}

export interface LoadResult {
  /** 2xx answers per second over the measured run. */
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Latency percentiles in ms (autocannon's histogram has 1 ms resolution). */
  p50: number;
  p99: number;
  mean: number;
  max: number;
  /** Bytes per second received. */
  throughput: number;
  duration: number;
  /** Cores the server used during the measured run (CPU seconds / seconds), when its pid was given. */
  serverCores: number | null;
  /** Server CPU time per 2xx answer, in µs. */
  cpuPerRequestUs: number | null;
  /** The first few request errors (time-outs, resets), as autocannon reported them. */
  errorMessages: string[];
}

function once(opts: LoadOptions, duration: number): Promise<autocannon.Result & { errorMessages: string[] }> {
  const requests: autocannon.Request[] =
    typeof opts.paths === 'function'
      ? [
          {
            method: 'GET',
            setupRequest: (req: autocannon.Request) => ({ ...req, path: (opts.paths as () => string)() }),
          },
        ]
      : opts.paths.map((path) => ({ method: 'GET', path }));
  const errorMessages: string[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url: opts.origin, connections: opts.connections, duration, headers: opts.headers, requests, timeout: 30 }, (err, result) =>
      err ? reject(err) : resolve({ ...result, errorMessages }),
    );
    instance.on('reqError', (err: Error) => {
      if (errorMessages.length < 5) errorMessages.push(err.message || String(err));
    });
  });
}

/** Warm-up, then a measured run with autocannon on 127.0.0.1. */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  if (opts.warmup > 0) {
    await once(opts, opts.warmup);
    await opts.settle?.();
  }
  const cpuBefore = opts.pid ? cpuSecondsOf(opts.pid) : Number.NaN;
  const r = await once(opts, opts.duration);
  const cpu = opts.pid ? cpuSecondsOf(opts.pid) - cpuBefore : Number.NaN;
  await opts.settle?.();
  const ok = r['2xx'];
  return {
    rps: ok / r.duration,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    p50: r.latency.p50,
    p99: r.latency.p99,
    mean: r.latency.average,
    max: r.latency.max,
    throughput: r.throughput.average,
    duration: r.duration,
    serverCores: Number.isFinite(cpu) ? cpu / r.duration : null,
    cpuPerRequestUs: Number.isFinite(cpu) && ok > 0 ? (cpu / ok) * 1e6 : null,
    errorMessages: r.errorMessages,
  };
}
