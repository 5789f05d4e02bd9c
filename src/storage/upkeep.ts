import { join } from 'node:path';
import { deltaRepack, GitMissingError, packedBytes } from './delta-repack.ts';
import { TEMP_DIR } from './durable-fs.ts';
import { Housekeeping } from './housekeeping.ts';
import { COMPACTION, compactPacks } from './pack-compactor.ts';
import type { TimingSink } from './timing.ts';

/** In a burst of writes with no pause, git gc runs once this many times `gcEvery` commits have gone by. */
export const GC_BURST_FACTOR = 4;

/**
 * When the repository tidies itself, in the background, after commits: small packs are merged
 * (pack-compactor.ts) once writes pause or during a long burst; once writes pause and the packs
 * written since the last repack hold `repackShare` of the bytes the repository held then, history is
 * repacked with deltas instead (delta-repack.ts); and `git gc` (housekeeping.ts) is due every
 * `gcEvery` commits and runs once writes pause, or, in a burst that never pauses, once
 * `GC_BURST_FACTOR` times that many commits have gone by. None of them overlap, and none runs while
 * isomorphic-git reads packs (it lists a folder, then opens files that a merge may have removed).
 *
 * The proportional trigger bounds the cost: a repack reads and writes the whole repository, R bytes,
 * and comes after at least `repackShare` × R new bytes, so each byte written costs at most
 * 1 + 1 / `repackShare` bytes of repacking however large the repository grows; between two repacks the
 * bytes not yet given their deltas are at most that share of the repository.
 */
export class Upkeep {
  /** Packs written since compaction last ran. */
  private packsSinceCompaction = 0;
  /** The merge or repack under way (both remove packs). */
  private compaction: Promise<void> | null = null;
  /** Bytes of the packs commits wrote since the last repack (or since the start). */
  private writtenSinceRepack = 0;
  /** Bytes of all packs after the last repack (or at the start; null until listed). */
  private packedAtRepack: number | null = null;
  /** False once git could not be run: merging alone then. */
  private canRepack = true;
  /** Aborted when the service shuts down: nothing new starts, and a repack under way stops. */
  private readonly stopping = new AbortController();
  private idleTimer: NodeJS.Timeout | null = null;
  private readsInFlight = 0;
  /** Packs that hold deltas (from git gc): compaction leaves them to git. */
  private readonly unmergeable = new Set<string>();
  private readonly housekeeping: Housekeeping;
  private commitsSinceGc = 0;

  constructor(
    private readonly gitdir: string,
    /** Commits between two runs of git gc; 0: never. */
    private readonly gcEvery: number,
    private readonly timing: TimingSink | undefined,
    /** New bytes, as a share of the repository's, that make a repack due; 0: never. */
    private readonly repackShare = 0,
  ) {
    this.housekeeping = new Housekeeping(gitdir);
    // A repository not made yet has no packs: nothing to compare with but the first writes.
    if (repackShare > 0) void packedBytes(gitdir).then((bytes) => (this.packedAtRepack ??= bytes), () => (this.packedAtRepack ??= 0));
  }

  /** After each commit (one new pack of `packBytes`): schedules what is due. */
  committed(packBytes: number): void {
    this.writtenSinceRepack += packBytes;
    this.commitsSinceGc++;
    this.maybeCompact();
    // A git gc beside a burst of writes takes a core and the disk from them (a realistic write took
    // about 4 ms longer for the hundred writes a gc lasted): it waits for a pause, unless the burst
    // goes on so long that history would go too long without its deltas.
    if (this.gcEvery > 0 && this.commitsSinceGc >= this.gcEvery * GC_BURST_FACTOR) this.gc();
  }

  /** Whether git gc should run at the next pause of writes. */
  private get gcDue(): boolean {
    return this.gcEvery > 0 && this.commitsSinceGc >= this.gcEvery;
  }

  /** Whether the next pause of writes repacks rather than merges. */
  private get repackDue(): boolean {
    return this.repackShare > 0 && this.canRepack && this.packedAtRepack !== null && this.writtenSinceRepack > 0 && this.writtenSinceRepack >= this.repackShare * this.packedAtRepack;
  }

  /** Runs `read` with no compaction in between (it may remove the packs being read). */
  async reading<T>(read: () => Promise<T>): Promise<T> {
    while (this.compaction) await this.compaction;
    this.readsInFlight++;
    try {
      return await read();
    } finally {
      this.readsInFlight--;
    }
  }

  /**
   * For a shutdown: cancels a compaction that waits for writes to pause and resolves once none runs.
   * (Compaction merely tidies: stopping before it loses nothing.)
   */
  async settle(): Promise<void> {
    this.stopping.abort();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    while (this.compaction) await this.compaction;
    await this.housekeeping.stop();
  }

  /**
   * git gc, once no compaction runs (one run at a time: a run under way counts for this one).
   * `atPause`: run in place of the pause's merge, which follows if git gc fails (git missing, say).
   */
  private gc(atPause = false): void {
    if (this.housekeeping.busy || this.stopping.signal.aborted) return;
    this.commitsSinceGc = 0;
    const started = performance.now();
    void (async () => {
      while (this.compaction) await this.compaction;
      if (this.stopping.signal.aborted) return;
      if (!(await this.housekeeping.run())) {
        if (atPause && !this.stopping.signal.aborted) this.compact(COMPACTION.IDLE_MERGE_BYTES, true);
        return;
      }
      this.timing?.('gc', (performance.now() - started) / 1000);
      // git gc repacked with deltas: the trigger counts from here.
      this.writtenSinceRepack = 0;
      this.packedAtRepack = await packedBytes(this.gitdir).catch(() => this.packedAtRepack);
    })();
  }

  /** Merges small packs: once writes pause, or during a long burst. */
  private maybeCompact(): void {
    this.packsSinceCompaction++;
    if (this.packsSinceCompaction >= COMPACTION.BURST_PACKS) this.compact(COMPACTION.BURST_MERGE_BYTES);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      // git gc repacks every pack, with deltas: no merge or repack of ours is needed beside it.
      if (this.gcDue && !this.housekeeping.busy) this.gc(true);
      else if (this.repackDue) this.repack();
      else this.compact(COMPACTION.IDLE_MERGE_BYTES, true);
    }, COMPACTION.IDLE_MS);
    this.idleTimer.unref();
  }

  /** Repacks with deltas (it also merges every small pack); merges instead where git cannot run or the repack failed. */
  private repack(): void {
    if (this.stopping.signal.aborted || !this.repackDue) return;
    if (this.compaction || this.readsInFlight > 0 || this.housekeeping.busy) {
      // Busy with other upkeep or a read: try again once writes have paused again.
      if (!this.idleTimer) this.idleTimer = setTimeout(() => ((this.idleTimer = null), this.repack()), COMPACTION.IDLE_MS);
      this.idleTimer.unref();
      return;
    }
    const written = this.writtenSinceRepack;
    this.packsSinceCompaction = 0;
    const started = performance.now();
    let failed = false;
    this.compaction = deltaRepack(this.gitdir, join(this.gitdir, TEMP_DIR), this.stopping.signal)
      .then(
        (bytes) => {
          // Commits made meanwhile wrote packs of their own, left for the next round.
          this.writtenSinceRepack -= written;
          this.packedAtRepack = bytes;
          this.timing?.('repack', (performance.now() - started) / 1000);
        },
        (err: unknown) => {
          failed = true;
          if (err instanceof GitMissingError) this.canRepack = false;
        },
      )
      .finally(() => {
        this.compaction = null;
        if (failed && !this.stopping.signal.aborted) this.compact(COMPACTION.IDLE_MERGE_BYTES, true);
      });
  }

  /** `whenIdle`: also after a burst's compaction, which merged less. */
  private compact(maxBytes: number, whenIdle = false): void {
    // Not while git gc runs: it replaces the packs; the next round merges what is left.
    if ((this.packsSinceCompaction === 0 && !whenIdle) || this.compaction || this.readsInFlight > 0 || this.housekeeping.busy) return;
    this.packsSinceCompaction = 0;
    // A failed round changes nothing visible (the old packs stay until the merged one is durable); the next round retries.
    const started = performance.now();
    this.compaction = compactPacks(this.gitdir, join(this.gitdir, TEMP_DIR), this.unmergeable, maxBytes)
      .then(
        (merged) => {
          if (merged > 0) this.timing?.('pack_merge', (performance.now() - started) / 1000);
        },
        () => undefined,
      )
      .finally(() => {
        this.compaction = null;
      });
  }
}
