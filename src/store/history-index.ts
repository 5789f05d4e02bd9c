import type { Logger } from 'pino';
import { AppError } from '../errors.ts';
import { drainInSlices } from '../slices.ts';
import { settlesWithin } from '../waits.ts';
import { isAncestor } from '../storage/git-history.ts';
import type { Repository } from '../storage/repository.ts';
import { backfill } from './history-backfill.ts';
import { entriesOf, fileChangesOfStates, nodeTableOf, touchedNodes, type Change, type EntryFacts } from './history-changes.ts';
import { HistoryFile, type CommitRecord } from './history-file.ts';
import type { CommittedWrite, Writer } from './writer.ts';

/** One commit: who made it, when and why. */
export interface CommitInfo {
  revision: string;
  author: string;
  at: string;
  message: string;
}

/** A change to a node or one of its translations, at a commit (by its place in the index). */
export interface NodeEntry {
  commit: number;
  change: Change;
  from?: string;
  slug: string;
  language: string | null;
  blob?: string | null;
}

interface VersionHistory {
  /** The commits that changed the version, oldest first. */
  commits: Array<{ commit: number; change: 'created' | 'updated' | 'deleted' }>;
  /** Per node id, its entries, oldest first. */
  nodes: Map<string, NodeEntry[]>;
  /** The node that last had each slug (a deleted node's history is still found by its slug). */
  slugs: Map<string, string>;
}

/** Seconds a client is asked to wait while the index is read back from git. */
const BUILDING_RETRY_SECONDS = 2;
/** How long a request waits for the index to be loaded before it is answered 503. */
const SETTLE_MS = 2000;
/** Milliseconds of loading between two turns of the event loop. */
const LOAD_SLICE_MS = 10;

/**
 * Per version, node and language, the commits that changed it: kept in memory, recorded as each
 * commit is made (from the write's states before and after), appended to `history.jsonl`, and read
 * back from git log only for what the file lacks. Requests read it; none walks the log.
 */
export class HistoryIndex {
  private readonly commits: CommitInfo[] = [];
  private readonly byRevision = new Map<string, number>();
  private readonly versions = new Map<string, VersionHistory>();
  private readonly file: HistoryFile;
  /** Commits made while the index is read back from git: recorded once it is. */
  private pending: CommitRecord[] | null = null;
  /** Commits the writer made while commits that reached main without it are read from git: recorded after those. */
  private held: CommitRecord[] | null = null;
  private adopting: Promise<void> = Promise.resolve();
  /** Resolves once the index covers main (immediately when the file did). */
  ready: Promise<void> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly repo: Repository,
    private readonly log: Logger,
  ) {
    this.file = new HistoryFile(dataDir);
  }

  /**
   * Loads the file and reads from git log whatever it lacks up to main's head, both in the
   * background: the file can be tens of megabytes on a repository of many versions, and the service
   * is ready without it (history answers 503 history_building meanwhile; commits made meanwhile are
   * recorded once it is loaded).
   */
  open(): void {
    this.pending = [];
    this.ready = this.load().catch((err: unknown) => {
      this.log.error({ err }, 'history index could not be read from git log; history answers 503 until the next start');
      throw err;
    });
    this.ready.catch(() => undefined);
  }

  private async load(): Promise<void> {
    const head = this.repo.headCommit;
    const stored = await this.file.read();
    await drainInSlices(this.addAll(stored ?? []), LOAD_SLICE_MS);
    const last = this.commits.at(-1)?.revision ?? null;
    if (head === null || last === head) {
      // No commit at all: a file left from another repository names nothing that exists.
      if (head === null && this.commits.length > 0) this.reset();
      if (stored === null || head === null) this.file.rewrite([]);
      this.recordPending();
      return;
    }
    await this.catchUp(head, stored === null ? null : last);
  }

  private *addAll(records: readonly CommitRecord[]): Generator<void, void> {
    for (const r of records) {
      this.add(r);
      yield;
    }
  }

  /** The commits made while the index was loading, recorded in memory and in the file. */
  private recordPending(): void {
    const pending = this.pending ?? [];
    this.pending = null;
    for (const r of pending) this.add(r);
    this.file.append(pending);
  }

  private async catchUp(head: string, last: string | null): Promise<void> {
    const started = Date.now();
    const from = last !== null && (await isAncestor(this.repo.gitdir, last, head)) ? last : null;
    if (from === null) {
      this.log.info({ reason: last === null ? 'no history index in the data directory' : 'the history index does not match main' }, 'building the history index from git log (requests are answered meanwhile)');
      this.reset();
    } else this.log.info({ since: from }, 'history index is behind main: reading the newer commits from git log');
    // Listeners of commits to different versions may run out of commit order, so the file's last line
    // need not be the newest commit it holds: what it holds already is not added twice.
    const records = (await backfill(this.repo.gitdir, head, from)).filter((r) => !this.byRevision.has(r.revision));
    for (const r of records) this.add(r);
    const pending = this.pending ?? [];
    this.pending = null;
    for (const r of pending) this.add(r);
    if (from === null) this.file.rewrite([...records, ...pending]);
    else this.file.append([...records, ...pending]);
    this.log.info({ commits: records.length, ms: Date.now() - started }, 'history index built from git log');
  }

  /** Records every commit the writer makes from now on. */
  follow(writer: Writer): void {
    writer.onCommit((write) => this.record(write));
  }

  /** Records one commit (called under the written versions' locks, after the ref is durable). */
  record(write: CommittedWrite): void {
    const versions: CommitRecord['versions'] = write.changes.map(({ slug, before, after }) => {
      // The same tree before and after (a translation written): only the nodes whose translations changed are compared.
      const sameTree = before !== null && after !== null && before.nodes === after.nodes;
      const beforeNodes = sameTree ? touchedNodes(before, after) : nodeTableOf(before);
      const afterNodes = sameTree ? beforeNodes : nodeTableOf(after);
      const files = fileChangesOfStates(before, after, beforeNodes, afterNodes);
      const folder = this.repo.folder(slug);
      const blobOf = (language: string, node: string) => {
        const lang = folder?.entries.get(language);
        const entry = lang?.kind === 'tree' ? lang.tree.entries.get(`${node}.md`) : undefined;
        return entry?.oid ?? null;
      };
      return { version: slug, change: before === null ? 'created' : after === null ? 'deleted' : 'updated', entries: entriesOf(beforeNodes, afterNodes, files, blobOf) };
    });
    // Git keeps whole seconds: the same time a read back from the log gives.
    const at = new Date(Math.floor(Date.parse(write.at) / 1000) * 1000).toISOString();
    const record: CommitRecord = { revision: write.revision, author: write.author, at, message: write.message, versions };
    if (this.pending !== null) {
      this.pending.push(record);
      return;
    }
    if (this.held !== null) {
      this.held.push(record);
      return;
    }
    this.addAndAppend([record]);
  }

  /**
   * Records the commits that reached main without the writer (a replica's fetch, an accepted push),
   * read from git log from the newest commit the index holds up to `head`. Commits the writer makes
   * meanwhile are recorded after them, in commit order. Calls run one after another.
   */
  adopt(head: string): Promise<void> {
    const run = this.adopting.then(async () => {
      await this.ready.catch(() => undefined);
      if (this.pending !== null || this.byRevision.has(head)) return;
      const last = this.commits.at(-1)?.revision ?? null;
      this.held = [];
      try {
        const from = last !== null && (await isAncestor(this.repo.gitdir, last, head)) ? last : null;
        const records = (await backfill(this.repo.gitdir, head, from)).filter((r) => !this.byRevision.has(r.revision));
        if (from === null) {
          this.reset();
          for (const r of records) this.add(r);
          this.file.rewrite(records);
        } else this.addAndAppend(records);
      } finally {
        const held = this.held ?? [];
        this.held = null;
        this.addAndAppend(held.filter((r) => !this.byRevision.has(r.revision)));
      }
    });
    this.adopting = run.catch((err: unknown) => this.log.warn({ err, head }, 'history of commits that reached main without the writer could not be read from git log; the next start reads it'));
    return this.adopting;
  }

  private addAndAppend(records: readonly CommitRecord[]): void {
    if (records.length === 0) return;
    for (const r of records) this.add(r);
    try {
      this.file.append(records);
    } catch (err) {
      this.log.warn({ err }, 'history index file could not be appended to; the next start reads the commit from git log');
    }
  }

  close(): void {
    this.file.close();
  }

  /**
   * Waits up to `ms` for the index to be loaded, as a search waits for its index: just after a start
   * the file is still being read, which takes well under that on most repositories. What takes
   * longer (a rebuild from git log) is answered 503 history_building by assertReady.
   */
  async settle(ms = SETTLE_MS): Promise<void> {
    if (this.pending !== null) await settlesWithin(this.ready, ms);
  }

  /** Throws 503 while the index is still being loaded or read back from git. */
  assertReady(): void {
    if (this.pending !== null) throw new AppError('history_building', 'The history index is still being loaded (just after a start; after a first start on this data directory, or a restore, it is read from git log, which takes longer); retry in a moment', { retryAfter: BUILDING_RETRY_SECONDS });
  }

  /** The commit a full or unique abbreviated (at least 7 characters) id names, by its place in the index; -1 when none. */
  find(revision: string): number {
    const exact = this.byRevision.get(revision);
    if (exact !== undefined || revision.length === 40) return exact ?? -1;
    let found = -1;
    for (let i = this.commits.length - 1; i >= 0; i--) {
      if (!this.commits[i].revision.startsWith(revision)) continue;
      if (found >= 0) return -1;
      found = i;
    }
    return found;
  }

  commit(index: number): CommitInfo {
    return this.commits[index];
  }

  /** The id of the node that last had `slug` in `version`, if any did. */
  nodeIdOf(version: string, slug: string): string | undefined {
    return this.versions.get(version)?.slugs.get(slug);
  }

  /** A node's entries, oldest first (empty when it has none). */
  nodeEntries(version: string, id: string): readonly NodeEntry[] {
    return this.versions.get(version)?.nodes.get(id) ?? [];
  }

  /** The commits that changed a version, oldest first. */
  versionEntries(version: string): ReadonlyArray<{ commit: number; change: 'created' | 'updated' | 'deleted' }> {
    return this.versions.get(version)?.commits ?? [];
  }

  private reset(): void {
    this.commits.length = 0;
    this.byRevision.clear();
    this.versions.clear();
  }

  private add(record: CommitRecord): void {
    const index = this.commits.length;
    this.commits.push({ revision: record.revision, author: record.author, at: record.at, message: record.message });
    this.byRevision.set(record.revision, index);
    for (const v of record.versions) {
      let history = this.versions.get(v.version);
      if (!history) this.versions.set(v.version, (history = { commits: [], nodes: new Map(), slugs: new Map() }));
      history.commits.push({ commit: index, change: v.change });
      for (const e of v.entries) this.addEntry(history, index, e);
    }
  }

  private addEntry(history: VersionHistory, commit: number, e: EntryFacts): void {
    let list = history.nodes.get(e.id);
    if (!list) history.nodes.set(e.id, (list = []));
    list.push({ commit, change: e.change, slug: e.slug, language: e.language, ...(e.from !== undefined ? { from: e.from } : {}), ...(e.language !== null ? { blob: e.blob ?? null } : {}) });
    history.slugs.set(e.slug, e.id);
  }
}
