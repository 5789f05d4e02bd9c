/**
 * The commit whose content the service answers from, and a way to wait until it moves: the primary
 * sets it after each write is in the index, a replica after each swap to a fetched commit. The
 * revision endpoint (long poll) and reads that ask for at least a revision wait on it.
 */
export class RevisionFeed {
  private revision: string | null = null;
  /** The revisions served lately and the commits between them: a read asking for one of these is answered without asking git. */
  private readonly recent = new Set<string>();
  /** When the revision last moved (ms since the epoch): what a replica's revision endpoint reports. */
  movedAt = Date.now();
  private waiters = new Set<() => void>();

  get current(): string | null {
    return this.revision;
  }

  /** Serves `revision`; `between`: the commits since the one served before, which it holds too. */
  set(revision: string | null, between: readonly string[] = []): void {
    for (const commit of between) this.remember(commit);
    if (revision === this.revision) return;
    if (revision !== null) this.remember(revision);
    this.revision = revision;
    this.movedAt = Date.now();
    const waiting = this.waiters;
    this.waiters = new Set();
    for (const wake of waiting) wake();
  }

  /** Whether `revision` is known to be served or in the history of what is (false: not known here, ask git). */
  holds(revision: string): boolean {
    return this.recent.has(revision);
  }

  private remember(commit: string): void {
    // Bounded: older revisions are looked up in git (replica/ancestry.ts).
    if (this.recent.size >= RECENT_KEPT) this.recent.delete(this.recent.values().next().value!);
    this.recent.add(commit);
  }

  /**
   * Resolves with the revision once it differs from `after`, or after `ms` (with the revision as it
   * is then), or when `signal` aborts: a long poll never holds a stopping service.
   */
  changed(after: string | null, ms: number, signal?: AbortSignal): Promise<string | null> {
    if (this.revision !== after || ms <= 0 || signal?.aborted) return Promise.resolve(this.revision);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve(this.revision);
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/** Revisions remembered as served (a read of one's own write asks for a recent one). */
const RECENT_KEPT = 10_000;
