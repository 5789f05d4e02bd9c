import * as fs from 'node:fs';
import type { Logger } from 'pino';

/**
 * A file the CLI changes while the server runs (keys.json, accounts.json), and what the server made
 * of it. Every `current()` first compares the file's stat (inode, size, mtime) with the one last read
 * and re-reads the file when it differs, so a change is in force the moment the CLI has returned
 * (the CLI replaces the file by rename, so the inode always changes). A stat costs a few microseconds.
 */
export class ReloadingFile<T> {
  private value: T;
  /** What the file looked like (inode, size, mtime) when it was last read. */
  private seen = '';

  constructor(
    private readonly path: string,
    private readonly read: () => T,
    private readonly log: Logger,
    empty: T,
  ) {
    this.value = empty;
    this.reload();
  }

  current(): T {
    if (this.signature() !== this.seen) this.reload();
    return this.value;
  }

  private signature(): string {
    const st = fs.statSync(this.path, { throwIfNoEntry: false });
    return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : 'none';
  }

  private reload(): void {
    // Stat first, then read: a change after the stat is seen by the next call.
    this.seen = this.signature();
    try {
      this.value = this.read();
    } catch (err) {
      // Keep what we had: a half-edited file must not lock everyone out.
      this.log.error({ err, path: this.path }, 'could not be read; keeping its previous content');
    }
  }
}
