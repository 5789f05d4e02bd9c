import type { Logger } from 'pino';
import type { Catalog } from './catalog.ts';
import type { SearchIndex } from '../index/search.ts';
import type { Repository } from '../storage/repository.ts';
import { clearSnapshotTemps, readSnapshot, removeSnapshot, snapshotSlugs, writeSnapshot, type SnapshotFile } from './snapshot.ts';
import type { TimingSink } from '../storage/timing.ts';

export interface KeeperOptions {
  /** Writes must have been quiet this long before changed versions are snapshotted again. */
  quietMs?: number;
  /** Told how long each snapshot took to write. */
  timing?: TimingSink;
}

/**
 * Keeps each version's snapshot in line with the index: versions that changed (written, or loaded
 * from git) are snapshotted in the background once writes have been quiet for a while, and on
 * close. Snapshot failures are logged and never fail a request: the snapshot is only a cache.
 */
export class SnapshotKeeper {
  private readonly dirty = new Set<string>();
  /** Versions with a snapshot on disk that the load has not taken yet. */
  private readonly preloaded = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private readonly quietMs: number;
  private readonly timing: TimingSink | undefined;
  private repo: Repository | null = null;

  constructor(
    readonly dir: string,
    private readonly catalog: Catalog,
    private readonly search: SearchIndex,
    private readonly log: Logger,
    opts: KeeperOptions = {},
  ) {
    this.quietMs = opts.quietMs ?? 5000;
    this.timing = opts.timing;
  }

  /** Starts reading every snapshot on disk, so the reads overlap opening the repository. */
  preload(): void {
    for (const slug of snapshotSlugs(this.dir)) this.preloaded.add(slug);
  }

  /** The versions that have a snapshot on disk (listed before the load takes them). */
  slugs(): string[] {
    return [...this.preloaded];
  }

  /**
   * The version's snapshot (each is handed out once), or undefined when there is none. It is read
   * when asked for, not before: a version the load gets from elsewhere (an identical folder already
   * loaded) never has its file read.
   */
  take(slug: string): Promise<SnapshotFile> | undefined {
    if (!this.preloaded.delete(slug)) return undefined;
    return readSnapshot(this.dir, slug);
  }

  /** After the load: removes snapshots of versions no longer in the repository, and temp files of a write a crash cut short. */
  async removeOthers(folders: ReadonlySet<string>): Promise<void> {
    this.preloaded.clear();
    await clearSnapshotTemps(this.dir);
    for (const slug of snapshotSlugs(this.dir)) if (!folders.has(slug)) await removeSnapshot(this.dir, slug);
  }

  /** Follows the catalog: every version set from now on gets a new snapshot once writes are quiet. */
  follow(repo: Repository): void {
    this.repo = repo;
    this.catalog.subscribe((slug) => {
      if (this.closed) return;
      this.dirty.add(slug);
      this.schedule(this.quietMs);
    });
    if (this.dirty.size > 0) this.schedule(0);
  }

  markDirty(slug: string): void {
    this.dirty.add(slug);
  }

  /** Writes the pending snapshots now and stops following (the service is closing). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, ms);
    this.timer.unref();
  }

  private flush(): Promise<void> {
    // One flush at a time; a flush that starts while another runs waits for it, then takes what is left.
    const run = (this.running ?? Promise.resolve()).then(async () => {
      while (this.dirty.size > 0) {
        const slug: string = this.dirty.values().next().value!;
        this.dirty.delete(slug);
        await this.snapshot(slug);
      }
    });
    this.running = run.finally(() => {
      if (this.running === tracked) this.running = null;
    });
    const tracked = this.running;
    return tracked;
  }

  private async snapshot(slug: string): Promise<void> {
    try {
      // Taken in one synchronous step: the state, the tree it was written as, and the search index built from it belong together.
      const entry = this.catalog.entry(slug);
      const tree = this.repo?.folder(slug);
      if (!this.repo) return;
      if (!entry || !tree) {
        await removeSnapshot(this.dir, slug);
        return;
      }
      if (!entry.state) return; // broken: nothing to keep
      if (this.search.isBusy(slug)) {
        // Its search index is behind its state until the update in slices ends: try again after it.
        void this.search.idle().then(() => {
          if (this.closed) return;
          this.dirty.add(slug);
          this.schedule(this.quietMs);
        });
        return;
      }
      const started = performance.now();
      const searchStarted = performance.now();
      // Called in the same synchronous step as the state and tree are taken: the index saved is the one built from that state.
      const search = await this.search.savePieces(slug);
      const searchMs = performance.now() - searchStarted;
      const { bytes, longestStepMs } = await writeSnapshot(this.dir, { slug, tree, state: entry.state, search });
      this.log.info({ version: slug, bytes, ms: Math.round(performance.now() - started), longestStepMs: Math.round(Math.max(longestStepMs, searchMs)) }, 'snapshot written');
      this.timing?.('snapshot', (performance.now() - started) / 1000);
    } catch (err) {
      this.log.warn({ version: slug, err }, 'snapshot could not be written; the next start reads the version from git');
    }
  }
}
