import type { Logger } from 'pino';
import { AppError } from '../errors.ts';
import { drainInSlices } from '../slices.ts';
import { settlesWithin } from '../waits.ts';
import { isAncestor } from '../storage/git-history.ts';
import type { TreeNode } from '../storage/git-objects.ts';
import type { Repository } from '../storage/repository.ts';
import { backfill } from './history-backfill.ts';
import { changedNodeTables, entriesOf, fileChangesOfStates, type Change, type EntryFacts } from './history-changes.ts';
import { copyFingerprint, createdNodes, creatingEntries, liveNodes } from './history-copies.ts';
import { HistoryFile, type CommitRecord, type VersionRecord } from './history-file.ts';
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

/** A copy in the file whose entries, derived again, are not what it copied: the file is not to be trusted. */
class CopyMismatchError extends Error {}

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
  /** Each version's copy fingerprint as of its n-th commit: what a version created as its copy would have. */
  private readonly fingerprints = new Map<string, { commits: number; value: string }>();
  /** The entries last derived for a copy, reused by the next copy of the same version at the same commit. */
  private derived: { version: string; commits: number; fingerprint: string; entries: EntryFacts[] } | null = null;
  /**
   * The node entries last made for a copy, by commit and fingerprint: copies made in one commit of the
   * same nodes and files (hundreds, for a release) share them (they are never changed once made).
   */
  private copiedEntries: { commit: number; fingerprint: string; entries: Array<[string, NodeEntry]> } | null = null;
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
    const read = await this.file.read();
    let stored = read?.commits ?? null;
    try {
      await drainInSlices(this.addAll(stored ?? []), LOAD_SLICE_MS);
    } catch (err) {
      if (!(err instanceof CopyMismatchError)) throw err;
      this.log.warn({ reason: err.message }, 'the history index file does not add up; reading it again from git log');
      this.reset();
      stored = null;
    }
    // Written in the current format (copies as references), with what the commits below add.
    if (stored !== null && read?.older === true) this.file.rewrite(stored);
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
    const pending = this.take('pending');
    for (const r of pending) this.add(r);
    this.file.append(pending);
  }

  private async catchUp(head: string, last: string | null): Promise<void> {
    const started = Date.now();
    const from = await this.ancestorOf(head, last);
    if (from === null) {
      this.log.info({ reason: last === null ? 'no history index in the data directory' : 'the history index does not match main' }, 'building the history index from git log (requests are answered meanwhile)');
    } else this.log.info({ since: from }, 'history index is behind main: reading the newer commits from git log');
    const commits = await this.readLog(head, from, () => this.take('pending'));
    this.log.info({ commits, ms: Date.now() - started }, 'history index built from git log');
  }

  /** `last` when it is in the history of `head`, else null (the index is read from the whole log). */
  private async ancestorOf(head: string, last: string | null): Promise<string | null> {
    return last !== null && (await isAncestor(this.repo.gitdir, last, head)) ? last : null;
  }

  /**
   * Adds the commits after `from` (all when null, replacing what the index holds) up to `head`, read
   * from git log, then the writer's commits `queued` gives, to the index and its file; how many were
   * read from the log.
   */
  private async readLog(head: string, from: string | null, queued: () => CommitRecord[]): Promise<number> {
    // git reads the packs on its own: no pack merge may remove one under it meanwhile.
    const read = await this.repo.reading(() => backfill(this.repo.gitdir, head, from));
    if (from === null) this.reset();
    // Listeners of commits to different versions may run out of commit order, so the file's last line
    // need not be the newest commit it holds: what it holds already is not added twice.
    const records = read.filter((r) => !this.byRevision.has(r.revision));
    const all = [...records, ...queued().filter((r) => !this.byRevision.has(r.revision))];
    for (const r of all) this.add(r);
    if (from === null) this.file.rewrite(all);
    else this.file.append(all);
    return records.length;
  }

  /** The writer's commits queued while the index was loading or reading the log, no longer queued. */
  private take(queue: 'pending' | 'held'): CommitRecord[] {
    const records = this[queue] ?? [];
    this[queue] = null;
    return records;
  }

  /** Records every commit the writer makes from now on (what each changed worked out while it is made durable). */
  follow(writer: Writer): void {
    writer.onCommit<CommitRecord['versions']>(
      (write, versions) => this.record(write, versions),
      (pending) => this.versionsOf(pending.changes, (slug) => pending.folder(slug)),
    );
  }

  /**
   * Records one commit (called under the written versions' locks, after the ref is durable);
   * `versions`: what versionsOf() gave for it ahead.
   */
  record(write: CommittedWrite, versions = this.versionsOf(write.changes, (slug) => this.repo.folder(slug))): void {
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

  /** What a commit's files changed, per version; `folderOf`: a version's folder as the commit holds it. */
  private versionsOf(changes: CommittedWrite['changes'], folderOf: (slug: string) => TreeNode | null): CommitRecord['versions'] {
    // What the commit's files changed, from the state served before it: as git log would tell it (a
    // push's stamps commit changes no file of the nodes its webhooks tell of).
    return changes.map(({ slug, served: before, after }) => {
      // Only the nodes the write replaced are compared: an edit costs what it touched, not the whole version.
      const { before: beforeNodes, after: afterNodes } = changedNodeTables(before, after);
      const files = fileChangesOfStates(before, after, beforeNodes, afterNodes);
      const folder = folderOf(slug);
      const blobOf = (language: string, node: string) => {
        const lang = folder?.entries.get(language);
        const entry = lang?.kind === 'tree' ? lang.tree.entries.get(`${node}.md`) : undefined;
        return entry?.oid ?? null;
      };
      return { version: slug, change: before === null ? 'created' : after === null ? 'deleted' : 'updated', entries: entriesOf(beforeNodes, afterNodes, files, blobOf) };
    });
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
        await this.readLog(head, await this.ancestorOf(head, last), () => this.take('held'));
      } finally {
        // Read or not, the writer's commits are recorded.
        this.addAndAppend(this.take('held'));
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
    this.fingerprints.clear();
    this.derived = null;
    this.copiedEntries = null;
  }

  private add(record: CommitRecord): void {
    const index = this.commits.length;
    this.commits.push({ revision: record.revision, author: record.author, at: record.at, message: record.message });
    this.byRevision.set(record.revision, index);
    for (const v of record.versions) {
      let history = this.versions.get(v.version);
      if (!history) this.versions.set(v.version, (history = { commits: [], nodes: new Map(), slugs: new Map() }));
      if (v.copyOf !== undefined) v.entries = this.copied(v);
      else if (v.change === 'created') this.findCopy(v, record.message);
      history.commits.push({ commit: index, change: v.change });
      if (v.fingerprint !== undefined) this.addCopied(history, index, v.entries, v.fingerprint);
      else for (const e of v.entries) this.addEntry(history, index, e);
      if (v.fingerprint !== undefined) this.fingerprints.set(v.version, { commits: history.commits.length, value: v.fingerprint });
    }
  }

  /** A version's copy fingerprint now (computed again only after a commit changed it). */
  private fingerprintOf(version: string, history: VersionHistory): string {
    const known = this.fingerprints.get(version);
    if (known?.commits === history.commits.length) return known.value;
    const value = copyFingerprint(liveNodes(history.nodes));
    this.fingerprints.set(version, { commits: history.commits.length, value });
    return value;
  }

  /**
   * Marks a created version as a copy when its entries create exactly the nodes and files another
   * version has at that commit: the file then holds a reference, not an entry per file. The versions
   * looked at: those the commit message names (a duplicate's, a working copy's, most copies made by
   * hand) and those whose fingerprint is known as they are now (the copies made before); the
   * fingerprint of any other is not worked out for it. One not found is recorded entry by entry, as
   * any created version.
   */
  private findCopy(v: VersionRecord, message: string): void {
    const created = v.entries.length > 0 ? createdNodes(v.entries) : null;
    if (created === null) return;
    const fingerprint = copyFingerprint(created);
    for (const [version, history] of this.versions) {
      // A version that never had that many nodes cannot have them all.
      if (version === v.version || history.nodes.size < created.size) continue;
      const known = this.fingerprints.get(version);
      const current = known?.commits === history.commits.length ? known.value : message.includes(version) ? this.fingerprintOf(version, history) : null;
      if (current !== fingerprint) continue;
      v.copyOf = version;
      v.fingerprint = fingerprint;
      return;
    }
  }

  /** A copy's entries, derived from the nodes and files of the version it copied as they are at this commit. */
  private copied(v: VersionRecord): EntryFacts[] {
    const source = this.versions.get(v.copyOf!);
    const commits = source?.commits.length ?? 0;
    const cached = this.derived;
    if (cached !== null && cached.version === v.copyOf && cached.commits === commits && cached.fingerprint === v.fingerprint) return cached.entries;
    const nodes = liveNodes(source?.nodes ?? new Map());
    const fingerprint = copyFingerprint(nodes);
    if (fingerprint !== v.fingerprint) throw new CopyMismatchError(`${v.version} is recorded as a copy of ${v.copyOf}, which holds other nodes or files at that commit`);
    this.fingerprints.set(v.copyOf!, { commits, value: fingerprint });
    const entries = creatingEntries(nodes);
    this.derived = { version: v.copyOf!, commits, fingerprint, entries };
    return entries;
  }

  private addEntry(history: VersionHistory, commit: number, e: EntryFacts): void {
    this.push(history, e.id, nodeEntry(commit, e));
  }

  private addCopied(history: VersionHistory, commit: number, entries: readonly EntryFacts[], fingerprint: string): void {
    let made = this.copiedEntries;
    if (made === null || made.commit !== commit || made.fingerprint !== fingerprint) {
      made = this.copiedEntries = { commit, fingerprint, entries: entries.map((e) => [e.id, nodeEntry(commit, e)]) };
    }
    for (const [id, entry] of made.entries) this.push(history, id, entry);
  }

  private push(history: VersionHistory, id: string, entry: NodeEntry): void {
    let list = history.nodes.get(id);
    if (!list) history.nodes.set(id, (list = []));
    list.push(entry);
    history.slugs.set(entry.slug, id);
  }
}

const nodeEntry = (commit: number, e: EntryFacts): NodeEntry => ({ commit, change: e.change, slug: e.slug, language: e.language, ...(e.from !== undefined ? { from: e.from } : {}), ...(e.language !== null ? { blob: e.blob ?? null } : {}) });
