import { spawn, type ChildProcess } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { AppError } from '../../errors.ts';
import { gitEnv } from '../../storage/cat-file.ts';

/** Seconds a refused client is asked to wait: most requests of a fetch end within one. */
const RETRY_AFTER_S = 1;
/** How long a git process asked to end may take before it is killed. */
const KILL_AFTER_MS = 2000;
/** Bytes of a git process's error output kept for the log. */
const STDERR_KEPT = 4096;

export interface GitLimits {
  /** Processes at once, in all and per client address. */
  max: number;
  maxPerAddress: number;
  /** Milliseconds one process may run. */
  timeoutMs: number;
}

/** How one git process is run for one request. */
export interface GitRun {
  args: readonly string[];
  /** GIT_PROTOCOL, from the client's Git-Protocol header (what selects protocol v2). */
  protocol: string | undefined;
  /** The request body, already decompressed; null: nothing to read. */
  input: Readable | null;
  /** The response the process answers: a process whose client is gone is ended. */
  res: ServerResponse;
  address: string;
  log: Logger;
}

/**
 * The git processes serving the repository to git clients. Each takes a slot from its start until it
 * has exited, so the cap counts processes, not requests: a client that leaves has its process ended
 * (a clone's pack-objects takes a core and memory for as long as it runs), and one that runs past the
 * time limit is ended too. Processes run in a process group of their own, so that ending one also
 * ends the pack-objects it started.
 */
export class GitProcesses {
  private total = 0;
  private readonly byAddress = new Map<string, number>();
  /** How to end each process running now. */
  private readonly running = new Set<(why: string) => void>();

  /** `stopping`: the service is stopping; a clone must not hold the stop for up to the time limit. */
  constructor(
    private readonly limits: GitLimits,
    private readonly stopping?: AbortSignal,
  ) {
    stopping?.addEventListener('abort', () => {
      for (const end of this.running) end('the service is stopping');
    });
  }

  /** Refuses with 429 too_many_requests when `address`, or the service, runs as many processes as it may. */
  checkRoom(address: string): void {
    const mine = this.byAddress.get(address) ?? 0;
    if (mine >= this.limits.maxPerAddress) {
      throw new AppError('too_many_requests', `${mine} git requests from ${address} are being served, the most one address may have at once (HELP_GIT_CONCURRENCY_PER_ADDRESS); retry when one has ended`, { limit: 'git_concurrency_per_address', max: this.limits.maxPerAddress, retryAfter: RETRY_AFTER_S });
    }
    if (this.total >= this.limits.max) {
      throw new AppError('too_many_requests', `${this.total} git requests are being served, the most the service serves at once (HELP_GIT_CONCURRENCY); retry in a moment`, { limit: 'git_concurrency', max: this.limits.max, retryAfter: RETRY_AFTER_S });
    }
  }

  /**
   * Starts `git <args>` for a request whose room was checked: its output, to stream to the client,
   * and a promise settled when it has exited. Null when the client has left already; 503 when git
   * cannot be started (not installed where the service runs).
   */
  async start(run: GitRun): Promise<{ output: Readable; exited: Promise<void> } | null> {
    if (run.res.closed) return null;
    if (this.stopping?.aborted) throw new AppError('component_unavailable', 'The service is stopping: git requests are no longer served here; retry in a moment', { component: 'git', retryAfter: RETRY_AFTER_S });
    this.checkRoom(run.address);
    const child = spawn('git', [...run.args], {
      stdio: [run.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      env: { ...gitEnv(), ...(run.protocol ? { GIT_PROTOCOL: run.protocol } : {}) },
      detached: process.platform !== 'win32',
    });
    this.hold(run.address, child);
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.slice(0, STDERR_KEPT - stderr.length);
    });
    let ended: string | null = null;
    const end = (why: string) => {
      if (ended !== null || child.exitCode !== null || child.signalCode !== null) return;
      ended = why;
      signal(child, 'SIGTERM');
      setTimeout(() => signal(child, 'SIGKILL'), KILL_AFTER_MS).unref();
    };
    const timer = setTimeout(() => end('time limit'), this.limits.timeoutMs);
    timer.unref();
    this.running.add(end);
    // The response closes when it has been sent whole, or when the client left: only then is there a process to end.
    run.res.once('close', () => {
      if (!run.res.writableFinished) end('client gone');
    });
    if (run.input) {
      const stdin = child.stdin!;
      // A process that exits before reading all of the body (an error, or ended) closes its input.
      stdin.on('error', () => undefined);
      run.input.on('error', (err) => {
        run.log.warn({ err }, 'git request body could not be read');
        end('request body unreadable');
      });
      run.input.pipe(stdin);
    }
    const exited = new Promise<void>((resolve) => {
      child.once('error', () => resolve());
      child.once('close', (code, sig) => {
        clearTimeout(timer);
        this.running.delete(end);
        if (ended !== null) run.log.info({ args: run.args.slice(0, 1), reason: ended }, 'git process ended before it finished');
        else if (code !== 0) run.log.warn({ args: run.args.slice(0, 1), code, signal: sig, stderr }, 'git process failed');
        resolve();
      });
    });
    try {
      await new Promise((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    } catch (err) {
      run.log.error({ err }, 'git could not be started');
      throw new AppError('component_unavailable', 'The repository cannot be served to git clients: the git command could not be started where the service runs', { component: 'git', retryAfter: 60 });
    }
    return { output: child.stdout!, exited };
  }

  /**
   * Takes a slot for work that runs several git processes one after another (a push: index-pack,
   * then its checks), refused as start() is beyond the caps; the returned function gives it back.
   * `signal` is aborted at the time limit or when the service stops.
   */
  claim(address: string): { release: () => void; signal: AbortSignal } {
    if (this.stopping?.aborted) throw new AppError('component_unavailable', 'The service is stopping: git requests are no longer served here; retry in a moment', { component: 'git', retryAfter: RETRY_AFTER_S });
    this.checkRoom(address);
    const give = this.take(address);
    const signal = AbortSignal.any([AbortSignal.timeout(this.limits.timeoutMs), ...(this.stopping ? [this.stopping] : [])]);
    let released = false;
    return {
      signal,
      release: () => {
        if (released) return;
        released = true;
        give();
      },
    };
  }

  private take(address: string): () => void {
    this.total++;
    this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + 1);
    return () => {
      this.total--;
      const mine = (this.byAddress.get(address) ?? 1) - 1;
      if (mine === 0) this.byAddress.delete(address);
      else this.byAddress.set(address, mine);
    };
  }

  private hold(address: string, child: ChildProcess): void {
    const release = this.take(address);
    // 'close' follows 'exit' once the pipes are closed; 'error' alone when git could not be started.
    let released = false;
    const once = () => {
      if (!released) {
        released = true;
        release();
      }
    };
    child.once('close', once);
    child.once('error', once);
  }
}

/** Signals a process's group (its pack-objects too), or the process when it has no group of its own. */
function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    if (process.platform !== 'win32') process.kill(-child.pid, sig);
    else child.kill(sig);
  } catch {
    // Gone already.
  }
}
