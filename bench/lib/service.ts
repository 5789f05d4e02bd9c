import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import { cpuSecondsWithChildrenOf, freePort, now, PROJECT_ROOT, rssOf, sleep } from './util.ts';

/** The service under test, running as a child process (`node dist/main.js`, as `npm start` runs it; the suite builds it first). */
export interface ServiceChild {
  proc: ChildProcess;
  pid: number;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** The API base, origin + /help/v1 */
  api: string;
  dataDir: string;
  /** Milliseconds from spawn to the first 200 from /healthz (content loaded). */
  readyMs: number;
  /** CPU seconds the service (all its threads) and its git processes that had ended used from spawn to ready. */
  cpuAtReadyS: number;
  rss(): number;
  /**
   * Milliseconds from spawn until /healthz counts no version as `indexing` (after a start without
   * snapshots, search indexes are built after the versions are served), polled every 5 ms.
   */
  searchableMs(): Promise<number>;
  /** The last of what the child printed (warnings and errors only at LOG_LEVEL=warn). */
  output(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after 60 s). Resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  dataDir: string;
  /** Extra node flags, e.g. ['--cpu-prof', '--cpu-prof-dir=...']. */
  nodeArgs?: string[];
  /** Give up when not ready after this many ms. */
  timeoutMs?: number;
  /** More environment for the service (e.g. a larger HELP_BODY_LIMIT). */
  env?: Record<string, string>;
  /** What node runs (default the build, dist/main.js; a scenario run on its own may run the sources through tsx). */
  entry?: string[];
}

/**
 * Starts the service in a child process on a free port of 127.0.0.1 with a data directory of its own.
 *
 * Readiness: at LOG_LEVEL=warn the service prints nothing when it is ready (its "listening" and
 * "ready" lines are info), so the suite picks a free port itself, passes it as PORT, and polls
 * GET /healthz (503 while loading, 200 once the content is loaded) every 5 ms from spawn.
 */
/** The V8 flags `npm start` runs the server with (package.json; see Memory in docs/operations.md). */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8'];

export async function startService(opts: StartOptions): Promise<ServiceChild> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const started = now();
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...SERVICE_NODE_FLAGS, ...(opts.entry ?? ['dist/main.js'])], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      HELP_DATA_DIR: opts.dataDir,
      HELP_SAMPLE_CONTENT: 'off',
      LOG_LEVEL: 'warn',
      // The load generator on one address stands for many readers (--connections may exceed the default cap of 64).
      HELP_CONNECTIONS_PER_ADDRESS: '100000',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString('utf8')).slice(-64 * 1024);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code, signal) => resolve((exitCode = code ?? (signal ? 128 : null)))));

  const deadline = started + (opts.timeoutMs ?? 600_000);
  for (;;) {
    if (exitCode !== undefined) throw new Error(`the service exited with ${exitCode} before it was ready:\n${out}`);
    const { status } = await healthz(origin);
    if (status === 200) break;
    if (now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`the service was not ready after ${opts.timeoutMs} ms:\n${out}`);
    }
    await sleep(5);
  }
  const readyMs = now() - started;
  const pid = proc.pid!;
  const cpuAtReadyS = cpuSecondsWithChildrenOf(pid);
  return {
    proc,
    pid,
    origin,
    api: `${origin}/help/v1`,
    dataDir: opts.dataDir,
    readyMs,
    cpuAtReadyS,
    rss: () => rssOf(pid),
    searchableMs: async () => {
      for (;;) {
        if (exitCode !== undefined) throw new Error(`the service exited with ${exitCode} before it was searchable:\n${out}`);
        const { body } = await healthz(origin);
        // The count, which /healthz gives anyone (the list of slugs is for callers with a key).
        if (body?.versions?.indexing === 0) return now() - started;
        if (now() > deadline) throw new Error(`the service was not searchable after ${opts.timeoutMs} ms:\n${out}`);
        await sleep(5);
      }
    },
    output: () => out,
    stop: async () => {
      if (exitCode !== undefined) return exitCode;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** GET /healthz: the status (0 when nothing listens yet) and the body (null when it is not JSON). */
type Health = { versions?: { indexing?: unknown } };

function healthz(origin: string, timeoutMs = 2000): Promise<{ status: number; body: Health | null }> {
  return new Promise((resolve) => {
    const req = http.get(`${origin}/healthz`, { agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let body: Health | null = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Health;
        } catch {
          // not JSON: only the status counts
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', () => resolve({ status: 0, body: null }));
    req.on('timeout', () => req.destroy());
  });
}

/**
 * Waits until a server answers GET /healthz within `fastMs` twice in a row: requests a load run left in
 * flight when it stopped are worked off first (a client that goes away does not stop the work it asked for).
 */
export async function settle(origin: string, opts: { fastMs?: number; timeoutMs?: number } = {}): Promise<number> {
  const fastMs = opts.fastMs ?? 5;
  const started = now();
  let fast = 0;
  while (fast < 2 && now() - started < (opts.timeoutMs ?? 300_000)) {
    const t = now();
    await healthz(origin, 300_000);
    if (now() - t < fastMs) fast++;
    else fast = 0;
  }
  return now() - started;
}
