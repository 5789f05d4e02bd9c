import { join } from 'node:path';
import { TEMP_DIR } from './durable-fs.ts';
import { Housekeeping } from './housekeeping.ts';
import { COMPACTION, compactPacks } from './pack-compactor.ts';
import type { TimingSink } from './timing.ts';

/**
 * When the repository tidies itself, in the background, after commits: small packs are merged
 * (pack-compactor.ts) once writes pause or during a long burst, and `git gc` runs every `gcEvery`
 * commits (housekeeping.ts). The two never overlap, and neither runs while isomorphic-git reads
 * packs (it lists a folder, then opens files that a merge may have removed).
 */
export class Upkeep {
  /** Packs written since compaction last ran. */
  private packsSinceCompaction = 0;
  private compaction: Promise<void> | null = null;
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
  ) {
    this.housekeeping = new Housekeeping(gitdir);
  }

  /** After each commit (one new pack): schedules what is due. */
  committed(): void {
    this.maybeCompact();
    this.maybeGc();
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
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    while (this.compaction) await this.compaction;
    await this.housekeeping.stop();
  }

  /** Every `gcEvery` commits, git gc, once no compaction runs. */
  private maybeGc(): void {
    if (this.gcEvery <= 0 || ++this.commitsSinceGc < this.gcEvery || this.housekeeping.busy) return;
    this.commitsSinceGc = 0;
    const started = performance.now();
    void (async () => {
      while (this.compaction) await this.compaction;
      if (await this.housekeeping.run()) this.timing?.('gc', (performance.now() - started) / 1000);
    })();
  }

  /** Merges small packs: once writes pause, or during a long burst. */
  private maybeCompact(): void {
    this.packsSinceCompaction++;
    if (this.packsSinceCompaction >= COMPACTION.BURST_PACKS) this.compact(COMPACTION.BURST_MERGE_BYTES);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      this.compact(COMPACTION.IDLE_MERGE_BYTES, true);
    }, COMPACTION.IDLE_MS);
    this.idleTimer.unref();
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
