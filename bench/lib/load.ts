import autocannon from 'autocannon';

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
}

function once(opts: LoadOptions, duration: number): Promise<autocannon.Result> {
  const requests: autocannon.Request[] =
    typeof opts.paths === 'function'
      ? [
          {
            method: 'GET',
            setupRequest: (req: autocannon.Request) => ({ ...req, path: (opts.paths as () => string)() }),
          },
        ]
      : opts.paths.map((path) => ({ method: 'GET', path }));
  return autocannon({
    url: opts.origin,
    connections: opts.connections,
    duration,
    headers: opts.headers,
    requests,
    timeout: 30,
  });
}

/** Warm-up, then a measured run with autocannon on 127.0.0.1. */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  if (opts.warmup > 0) {
    await once(opts, opts.warmup);
    await opts.settle?.();
  }
  const r = await once(opts, opts.duration);
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
  };
}
