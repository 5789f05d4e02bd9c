import type { Logger } from 'pino';
import type { Catalog } from './catalog.ts';
import type { SearchIndex } from '../index/search.ts';
import type { Repository } from '../storage/repository.ts';
import type { TreeNode } from '../storage/git-objects.ts';
import { readSnapshot, writeSnapshot, type SnapshotFile } from './snapshot.ts';
import { readPointers, removePointer, removeUnneeded, snapshotTrees, writePointer } from './snapshot-files.ts';
import type { TimingSink } from '../storage/timing.ts';
import { settlesWithin } from '../waits.ts';

export interface KeeperOptions {
  /** Writes must have been quiet this long before changed versions are snapshotted again. */
  quietMs?: number;
  /** Told how long each snapshot took to write. */
  timing?: TimingSink;
  /** Longest a stop waits for search indexes still being built, to keep them in the snapshots (default 10 s). */
  closeIndexWaitMs?: number;
}

/**
 * Keeps a snapshot of each version's tree in line with the index: versions that changed (written, or
 * loaded from git) are snapshotted in the background once writes have been quiet for a while, and on
 * close; a version whose tree already has a snapshot (an identical folder) only points at it.
 * Snapshots no version needs any more are removed after each round, never during the load (which
 * may still read them). Snapshot failures are logged and never fail a request: the snapshot is only
 * a cache.
 */
export class SnapshotKeeper {
  private readonly dirty = new Set<string>();
  /** Versions whose snapshot waits for their search index to catch up with their state. */
  private readonly waiting = new Set<string>();
  /** Trees with a snapshot on disk. */
  private readonly trees = new Set<string>();
  /** Each version's pointer on disk: the tree of its last snapshot. */
  private pointers = new Map<string, string>();
  /** Snapshot files being read by the load, by tree (versions of one tree loaded side by side read it once). */
  private readonly reads = new Map<string, Promise<SnapshotFile>>();
  /** Unneeded snapshots are removed only once the load is over. */
  private loaded = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  /** Closing, and done waiting for indexes still being built: a version whose index is behind is written without it. */
  private final = false;
  private readonly quietMs: number;
  private readonly closeIndexWaitMs: number;
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
    this.closeIndexWaitMs = opts.closeIndexWaitMs ?? 10_000;
    this.timing = opts.timing;
  }

  /** Lists the snapshots and pointers on disk (before the repository is opened). */
  preload(): void {
    for (const tree of snapshotTrees(this.dir)) this.trees.add(tree);
    this.pointers = readPointers(this.dir);
  }

  /** The versions that have a snapshot on disk (listed before the load). */
  slugs(): string[] {
    return [...this.pointers.keys()].sort();
  }

  /**
   * A snapshot for the version at `tree`: the tree's own (whichever version it was taken of), else the
   * older one the version's pointer names (to be patched), else undefined. It is read when asked for,
   * not before: a version the load gets from elsewhere (an identical folder already loaded) never has
   * its file read.
   */
  take(slug: string, tree: string): Promise<SnapshotFile> | undefined {
    const older = this.pointers.get(slug);
    const chosen = this.trees.has(tree) ? tree : older !== undefined && this.trees.has(older) ? older : undefined;
    if (chosen === undefined) return undefined;
    let read = this.reads.get(chosen);
    if (!read) {
      const started = this.read(chosen);
      // Shared while it is being read only: a file held on to would keep its bytes in memory all through the load.
      const forget = () => {
        if (this.reads.get(chosen) === started) this.reads.delete(chosen);
      };
      started.then(forget, forget);
      this.reads.set(chosen, (read = started));
    }
    return read;
  }

  /** Reads a tree's snapshot; one that cannot be used counts as none, so the next round writes it anew. */
  private read(tree: string): Promise<SnapshotFile> {
    const unusable = (err: unknown): never => {
      this.trees.delete(tree);
      throw err;
    };
    return readSnapshot(this.dir, tree).then((file) => ({ ...file, open: () => file.open().catch(unusable) }), unusable);
  }

  /** Whether the version's pointer is missing or names another tree (the next round sets it). */
  pointsElsewhere(slug: string, tree: string): boolean {
    return this.pointers.get(slug) !== tree;
  }

  /**
   * After the load: forgets the pointers of versions no longer in the repository and removes the
   * snapshots no version needs, and temp files of a write a crash cut short.
   */
  async removeOthers(folders: ReadonlyMap<string, TreeNode>): Promise<void> {
    this.reads.clear();
    this.loaded = true;
    for (const slug of [...this.pointers.keys()]) {
      if (folders.has(slug)) continue;
      this.pointers.delete(slug);
      await removePointer(this.dir, slug);
    }
    await this.pruneSnapshots(folders, true);
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

  /** Has the tree's snapshot written again (it lacks the search index, which the version will have). */
  renew(slug: string, tree: string): void {
    this.trees.delete(tree);
    this.dirty.add(slug);
    // Told after the start too (a saved index found unusable when first loaded): written once writes are quiet.
    if (this.repo && !this.closed) this.schedule(this.quietMs);
  }

  /** Writes the pending snapshots now and stops following (the service is closing). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // Indexes still being built after a start without snapshots: the snapshots should hold them, or the
    // next start builds them again; a stop waits that long for them, no longer.
    await settlesWithin(this.search.indexed(), this.closeIndexWaitMs);
    // A round already running meanwhile deferred such versions again: they are written now.
    await this.running?.catch(() => undefined);
    this.final = true;
    this.retryWaiting();
    await this.flush();
  }

  private retryWaiting(): void {
    for (const slug of this.waiting) this.dirty.add(slug);
    this.waiting.clear();
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
      let changed = false;
      while (this.dirty.size > 0) {
        const slug: string = this.dirty.values().next().value!;
        this.dirty.delete(slug);
        await this.snapshot(slug);
        changed = true;
      }
      if (changed && this.loaded && this.repo) await this.pruneSnapshots(this.repo.folders(), false).catch((err: unknown) => this.log.warn({ err }, 'unneeded snapshots could not be removed'));
    });
    this.running = run.finally(() => {
      if (this.running === tracked) this.running = null;
    });
    const tracked = this.running;
    return tracked;
  }

  /** Snapshots of trees that neither a version's folder nor its pointer names. */
  private async pruneSnapshots(folders: ReadonlyMap<string, TreeNode>, temps: boolean): Promise<void> {
    const keep = new Set([...this.pointers.values(), ...[...folders.values()].map((tree) => tree.oid)]);
    for (const tree of await removeUnneeded(this.dir, keep, temps)) this.trees.delete(tree);
  }

  private async snapshot(slug: string): Promise<void> {
    try {
      // Taken in one synchronous step: the state, the tree it was written as, and the search index built from it belong together.
      const entry = this.catalog.entry(slug);
      const tree = this.repo?.folder(slug);
      if (!this.repo) return;
      if (!entry || !tree) {
        this.pointers.delete(slug);
        await removePointer(this.dir, slug);
        return;
      }
      if (!entry.state) return; // broken: nothing to keep
      if (!this.trees.has(tree.oid)) {
        const behind = this.search.isBusy(slug);
        if (behind && !this.final) {
          // Its search index is behind its state until the update in slices ends: try again after it (or at close).
          this.waiting.add(slug);
          void this.search.settledOf(slug).then(() => {
            if (this.closed) return;
            this.retryWaiting();
            this.schedule(this.quietMs);
          });
          return;
        }
        const started = performance.now();
        // Called in the same synchronous step as the state and tree are taken: the index saved is the one built from that state.
        // At a stop with the index still behind: the state alone (the next start builds the index after serving it).
        const search = behind ? null : await this.search.savePieces(slug);
        const searchMs = performance.now() - started;
        const { bytes, longestStepMs } = await writeSnapshot(this.dir, { slug, tree, state: entry.state, search });
        this.trees.add(tree.oid);
        this.log.info({ version: slug, tree: tree.oid, bytes, ms: Math.round(performance.now() - started), longestStepMs: Math.round(Math.max(longestStepMs, searchMs)) }, 'snapshot written');
        this.timing?.('snapshot', (performance.now() - started) / 1000);
      }
      // After the snapshot is durable: a pointer never names a tree whose snapshot was not written.
      if (this.pointers.get(slug) !== tree.oid) {
        await writePointer(this.dir, slug, tree.oid);
        this.pointers.set(slug, tree.oid);
      }
    } catch (err) {
      this.log.warn({ version: slug, err }, 'snapshot could not be written; the next start reads the version from git');
    }
  }
}
