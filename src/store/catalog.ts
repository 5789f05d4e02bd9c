import { AppError, notFound } from '../errors.ts';
import type { VersionState } from '../domain/types.ts';

/** A version as the index holds it: its state, why its stored data could not be read, or that it is still being loaded at start. */
export type VersionEntry =
  | { slug: string; state: VersionState; broken?: undefined; loading?: undefined }
  | { slug: string; state?: undefined; broken: string; loading?: undefined }
  | { slug: string; state?: undefined; broken?: undefined; loading: true };

/** Seconds a client is asked to wait (Retry-After) for a version, or the service, still loading. */
export const LOADING_RETRY_SECONDS = 1;

/**
 * The in-memory index of all versions. Reads are served from here only and never touch git;
 * the writer swaps in a new state after each commit.
 */
export class Catalog {
  private readonly entries = new Map<string, VersionEntry>();
  private readonly listeners: CatalogListener[] = [];
  /** Moves on every change, so anything derived from the index can be keyed by it. */
  generation = 0;
  /**
   * The generation of each version's last change (kept after a delete, so that what was derived from
   * the deleted version stays stale): answers about one version are keyed by it, and a write to
   * another version leaves them current.
   */
  private readonly changedAt = new Map<string, number>();

  /**
   * Calls `listener` with every version state set from now on (derived indexes follow the catalog).
   * A listener that needs time returns a promise, which set() hands back. A listener given as an
   * object may also prepare its part of a change (see prepare()).
   */
  subscribe<P>(listener: ((slug: string, state: VersionState | null) => void | Promise<void>) | CatalogListener<P>): void {
    this.listeners.push(typeof listener === 'function' ? { set: listener } : (listener as CatalogListener));
  }

  /**
   * Has the listeners work out what they can of setting `state`, without showing any of it: the
   * writer calls this while the commit that stores `state` is made durable, and hands the result to
   * set() once it is. Nothing changes until then; a commit that fails just drops it.
   */
  async prepare(slug: string, state: VersionState | null, pause: () => Promise<void>): Promise<PreparedChange> {
    const from = this.entries.get(slug);
    const parts: unknown[] = [];
    for (const listener of this.listeners) {
      try {
        parts.push(await listener.prepare?.(slug, state, pause));
      } catch {
        // Only a head start: set() does the whole work itself.
        parts.push(undefined);
      }
    }
    return { slug, state, from, parts };
  }

  entry(slug: string): VersionEntry | undefined {
    return this.entries.get(slug);
  }

  all(): VersionEntry[] {
    return [...this.entries.values()];
  }

  /**
   * Whether every version of the repository is in (or known to be broken). At start the versions are
   * loaded a few at a time, and those already loaded are served meanwhile.
   */
  complete = true;

  /** The version's state; 404 when unknown, 503 when its stored data is broken or it is still being loaded. */
  state(slug: string): VersionState {
    const entry = this.entries.get(slug);
    if (!entry) {
      // A version created while the others load would not be told from one not loaded yet.
      if (!this.complete) throw stillStarting();
      throw notFound('version', `No version "${slug}"`, { version: slug });
    }
    if (entry.loading) {
      throw new AppError('version_loading', `Version "${slug}" is still being loaded; retry in a moment`, { version: slug, retryAfter: LOADING_RETRY_SECONDS });
    }
    if (entry.broken !== undefined) {
      throw new AppError('version_unavailable', `Version "${slug}" cannot be served: its stored data is broken`, { version: slug, reason: entry.broken });
    }
    return entry.state;
  }

  /** The version marked latest; while versions still load, 503 starting (the mark may be on one not loaded yet). */
  latest(): VersionState | null {
    if (!this.complete) throw stillStarting();
    for (const e of this.entries.values()) if (e.state?.meta.isLatest) return e.state;
    return null;
  }

  /** The generation of the version's last change; 0 when it has not changed since the start. */
  versionGeneration(slug: string): number {
    return this.changedAt.get(slug) ?? 0;
  }

  private moveOn(slug: string): void {
    this.changedAt.set(slug, ++this.generation);
  }

  /**
   * Sets a version's state; the promise, if any, resolves when every listener has caught up.
   * `prepared` (from prepare()) is used only if made for this very state from the entry still here.
   */
  set(slug: string, state: VersionState | null, prepared?: PreparedChange): void | Promise<void> {
    const parts = prepared !== undefined && prepared.slug === slug && prepared.state === state && prepared.from === this.entries.get(slug) ? prepared.parts : undefined;
    this.moveOn(slug);
    if (state === null) this.entries.delete(slug);
    else this.entries.set(slug, { slug, state });
    const pending: Promise<void>[] = [];
    for (const [i, listener] of this.listeners.entries()) {
      const done = listener.set(slug, state, parts?.[i]);
      if (done) pending.push(done);
    }
    if (pending.length > 0) return Promise.all(pending).then(() => undefined);
  }

  /** Moves the version's generation on without a change of state: what was derived from it meanwhile is stale. */
  touch(slug: string): void {
    this.moveOn(slug);
  }

  /** Marks the versions about to be loaded: they are known, and answer 503 version_loading until set. */
  setLoading(slugs: Iterable<string>): void {
    for (const slug of slugs) this.entries.set(slug, { slug, loading: true });
    this.complete = false;
  }

  /** Every version is in: the list of versions, "latest" and writes can be answered. */
  setComplete(): void {
    this.complete = true;
    this.generation++;
  }

  setBroken(slug: string, reason: string): void {
    this.moveOn(slug);
    this.entries.set(slug, { slug, broken: reason });
  }
}

/**
 * Something that follows the catalog's changes. `prepare`, when given, does ahead of time (while a
 * write's commit is made durable) what `set` would do for the same change, and must change nothing
 * anyone sees; `set` then gets its result, or undefined when there is none (set() without prepare, a
 * prepare that failed) and does the whole work itself.
 */
export interface CatalogListener<P = unknown> {
  /** `pause()` lets other work run (call it between short steps); it throws once the preparation is no longer wanted. */
  prepare?(slug: string, state: VersionState | null, pause: () => Promise<void>): P | undefined | Promise<P | undefined>;
  set(slug: string, state: VersionState | null, prepared?: P): void | Promise<void>;
}

/** What prepare() worked out for one change, for set() to use. */
export interface PreparedChange {
  readonly slug: string;
  readonly state: VersionState | null;
  /** The entry the change was prepared from: a change in between makes it useless. */
  readonly from: VersionEntry | undefined;
  readonly parts: readonly unknown[];
}

export const stillStarting = () =>
  new AppError('starting', 'The service is still loading its content; retry in a moment', { retryAfter: LOADING_RETRY_SECONDS });
