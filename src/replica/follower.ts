import type { Logger } from 'pino';
import type { ReplicaConfig } from './config.ts';
import { PrimaryGit } from './primary-git.ts';
import type { RevisionFeed } from './revision-feed.ts';
import { swapTo, type SwapTarget } from './swap.ts';

/** A long poll answered sooner than this without a new revision was not held open (see loop). */
const QUICK_ANSWER_MS = 500;

/** What a replica reports about following its primary (`/healthz`, the log). */
export interface ReplicaHealth {
  role: 'replica';
  primary: string;
  revision: string | null;
  /** The primary's revision as last heard of. */
  primaryRevision: string | null;
  /** Seconds the content served may be behind the primary's: 0 while in step and in contact. */
  lagSeconds: number;
  /** When the primary last answered (ISO 8601), or null. */
  lastContact: string | null;
  /** Why the last attempt to reach or follow the primary failed, while it keeps failing. */
  problem: string | null;
}

/**
 * Follows the primary: asks its revision endpoint, which answers as soon as `main` moves (a long
 * poll), fetches the new commits with git and swaps them in (swap.ts). Without the endpoint (an
 * older primary, a proxy that cuts long requests) it polls `git ls-remote` instead. While the
 * primary cannot be reached it keeps serving what it has, retries every poll interval, and catches
 * up when the primary answers again.
 */
export class Follower {
  private readonly git: PrimaryGit;
  private readonly stop = new AbortController();
  private running: Promise<void> | null = null;
  private primaryRevision: string | null = null;
  private lastContact: number | null = null;
  /** When the replica last knew it served what the primary had. */
  private inStepAt = Date.now();
  /** Whether a long poll is open now: the primary would have answered it if main had moved. */
  private listening = false;
  private problem: string | null = null;
  private longPoll = true;
  private lastLagLog = 0;
  private readonly swapped: Array<(commit: string) => void> = [];

  constructor(
    private readonly config: ReplicaConfig,
    private readonly target: SwapTarget & { revisions: RevisionFeed },
    private readonly log: Logger,
  ) {
    this.git = new PrimaryGit(config.primary, config.key, log);
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Calls `listener` with each commit swapped in from now on, once it is served. */
  onSwap(listener: (commit: string) => void): void {
    this.swapped.push(listener);
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.running;
  }

  health(now = Date.now()): ReplicaHealth {
    const served = this.target.revisions.current;
    const inStep = this.primaryRevision === served && this.listening;
    return {
      role: 'replica',
      primary: this.config.primary,
      revision: served,
      primaryRevision: this.primaryRevision,
      lagSeconds: inStep ? 0 : Math.round((now - this.inStepAt) / 100) / 10,
      lastContact: this.lastContact === null ? null : new Date(this.lastContact).toISOString(),
      problem: this.problem,
    };
  }

  private async loop(): Promise<void> {
    const signal = this.stop.signal;
    while (!signal.aborted) {
      try {
        const asked = Date.now();
        const head = this.longPoll ? await this.askRevision(signal) : await this.git.head(signal);
        this.contact(head);
        if (head !== null && head !== this.target.revisions.current) await this.catchUp(signal, head);
        else {
          this.inStepAt = Date.now();
          // Polling, or a long poll answered at once without news (a primary that is stopping): not again at once.
          if (!this.longPoll || Date.now() - asked < QUICK_ANSWER_MS) await sleep(this.config.pollMs, signal);
        }
      } catch (err) {
        this.listening = false;
        if (signal.aborted) break;
        this.failed(err as Error);
        await sleep(this.config.pollMs, signal);
      }
    }
  }

  /** The primary's revision endpoint: at once when it differs from ours, else when main moves or the wait ends. */
  private async askRevision(signal: AbortSignal): Promise<string | null> {
    const after = this.target.revisions.current;
    const url = `${this.config.primary}/revision?wait=${this.config.longPollSeconds}${after ? `&after=${after}` : ''}`;
    // A primary that went silent (a cut cable, not a refused connection) is given up on after the wait and a margin.
    const timeout = AbortSignal.any([signal, AbortSignal.timeout((this.config.longPollSeconds + 10) * 1000)]);
    this.listening = after !== null && after === this.primaryRevision;
    let res: Response;
    try {
      res = await fetch(url, { headers: { authorization: `Bearer ${this.config.key}`, accept: 'application/json' }, signal: timeout });
    } finally {
      // In step until the answer came: main moved just now, or not at all.
      if (this.listening) this.inStepAt = Date.now();
      this.listening = false;
    }
    if (res.status === 404 || res.status === 405) {
      await res.body?.cancel();
      this.log.warn({ primary: this.config.primary, status: res.status }, 'the primary has no revision endpoint: polling its repository instead');
      this.longPoll = false;
      return this.git.head(signal);
    }
    const body = (await res.json().catch(() => null)) as { revision?: unknown; error?: { message?: unknown } } | null;
    if (res.status !== 200) throw new Error(`the primary answered ${res.status} to ${this.config.primary}/revision: ${String(body?.error?.message ?? 'no reason given')}`);
    if (body?.revision !== null && typeof body?.revision !== 'string') throw new Error('the primary\'s revision endpoint answered without a revision');
    return body.revision;
  }

  private contact(head: string | null): void {
    if (this.problem !== null) this.log.info({ primary: this.config.primary }, 'the primary answers again');
    this.problem = null;
    this.lastContact = Date.now();
    this.primaryRevision = head;
  }

  private async catchUp(signal: AbortSignal, head: string): Promise<void> {
    const started = performance.now();
    const behindFor = (Date.now() - this.inStepAt) / 1000;
    const fetched = await this.git.fetch(this.target.repo.gitdir, signal, head);
    const fetchMs = performance.now() - started;
    const swapped = await swapTo(fetched, this.target);
    for (const listener of this.swapped) listener(fetched);
    // Fetched is at least what the primary announced; newer when it moved meanwhile.
    if (this.primaryRevision === null || fetched !== this.primaryRevision) this.primaryRevision = fetched;
    this.inStepAt = Date.now();
    this.log.info({ revision: fetched, versions: swapped.versions, removed: swapped.removed, filesRead: swapped.filesRead, fetchMs: Math.round(fetchMs), ms: Math.round(performance.now() - started), lagSeconds: Math.round(behindFor * 10) / 10 }, 'caught up with the primary');
  }

  private failed(err: Error): void {
    const first = this.problem === null;
    this.problem = err.message;
    const health = this.health();
    // Said when it starts, then every half minute while it lasts.
    if (first || Date.now() - this.lastLagLog > 30_000) {
      this.lastLagLog = Date.now();
      this.log.warn({ primary: this.config.primary, reason: err.message, lagSeconds: health.lagSeconds, lastContact: health.lastContact }, 'cannot follow the primary; serving the last content loaded');
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
