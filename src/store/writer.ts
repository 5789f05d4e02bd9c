import { randomId, type Clock, type NewId } from '../clock.ts';
import { AppError } from '../errors.ts';
import { changedPaths, renderFile } from '../content/file-set.ts';
import { alignBases, type AlignOptions } from '../content/translation-base.ts';
import type { VersionState } from '../domain/types.ts';
import type { Catalog, PreparedChange } from './catalog.ts';
import { warmScan, writtenTranslations } from './written-scans.ts';
import { BranchMovedError } from '../storage/branch.ts';
import { KeyedMutex } from '../storage/mutex.ts';
import type { TimingSink } from '../storage/timing.ts';
import type { TreeNode } from '../storage/git-objects.ts';
import type { FolderChange, FolderWrite, Repository } from '../storage/repository.ts';
import { nextTurn } from '../slices.ts';

/** The new state of one version after a write; `null` deletes it. `copyOf` writes it as a copy of another version's folder. */
export interface VersionChange {
  slug: string;
  after: VersionState | null;
  copyOf?: string;
}

export interface WritePlan<T> {
  /** Empty when the planner finds nothing to do (then there is no commit). */
  changes: VersionChange[];
  /** The commit message: what changed, in one line. */
  message: string;
  result: T;
  /** What the commit did that its states do not show (an import finished), for the commit's listeners. */
  event?: { type: 'import.completed'; data: Record<string, unknown> };
  /** How the translations it changes relate to their primary text (minor edits, bases stated by a document). */
  bases?: AlignOptions;
  /**
   * The states the commit's listeners are told versions changed from, where not the served ones:
   * the change reached main in part before this commit (an accepted git push, whose stamps this
   * commit records), and webhooks tell of all of it.
   */
  changedFrom?: ReadonlyMap<string, VersionState | null>;
}

/** A commit as its listeners (webhooks) learn of it: its id, each version's states before and after, and the plan's event. */
export interface CommittedWrite {
  revision: string;
  changes: ReadonlyArray<{
    slug: string;
    /** What the listeners are told it changed from: the served state, or the plan's `changedFrom`. */
    before: VersionState | null;
    after: VersionState | null;
    /** The state served before this commit, which is what the commit's files changed (the history index's view). */
    served: VersionState | null;
  }>;
  event?: WritePlan<unknown>['event'];
  /** The commit's author (the key's or account's name), message and date, as written into it. */
  author: string;
  message: string;
  at: string;
}

/**
 * A commit while it is being made durable, as a listener may prepare for it (onCommit): what it
 * will be told, but its id, and each written version's folder as the commit holds it.
 */
export interface PendingWrite extends Omit<CommittedWrite, 'revision'> {
  folder(slug: string): TreeNode | null;
}

/** A commit listener, and what it prepares while the commit is made durable (see onCommit). */
interface CommitListener {
  listener: (write: CommittedWrite, prepared?: unknown) => void | Promise<void>;
  prepare?: (write: PendingWrite) => unknown;
}

/** What a write's planning function gets: the current states and one stamp for everything it changes. */
export interface WriteContext {
  now: string;
  newId: () => string;
  /** The current state of a version (404 when unknown, 503 when broken). */
  read: (slug: string) => VersionState;
  /** Whether a version exists, broken or not. */
  exists: (slug: string) => boolean;
  /** The current state of a version, or null when it is unknown or broken. */
  peek: (slug: string) => VersionState | null;
  /** The version currently marked latest, if any. */
  readLatest: () => VersionState | null;
}

const REGISTRY = '\u0000versions';

/** CPU time of one step of Writer.prepare, in ms, about: the commit waits for a step in progress when its disk is done. */
const PREPARE_STEP_MS = 0.2;
/** The same once the commit is durable: what is left of a large preparation (an import's new indexes) still lets requests in between. */
const AFTER_COMMIT_STEP_MS = 5;

/** How far a commit whose aftermath is being prepared has come. */
interface CommitProgress {
  /** The commit failed, or there is none to make (its files came out as they were): the preparation ends. */
  failed: boolean;
  done: boolean;
}

/** What Writer.prepare worked out while a commit was made durable. */
interface Prepared {
  /** Per change: the catalog's preparation. */
  catalog: PreparedChange[];
  /** The changes as the commit listeners' preparations saw them. */
  before: CommittedWrite['changes'];
  /** Per commit listener: what its prepare returned. */
  listeners: unknown[];
}

/** Who writes: the commit author, and whether they may change published versions while those are locked. */
export interface Author {
  name: string;
  canWritePublished: boolean;
}

/**
 * Runs writes: under the affected versions' locks, a pure planning function computes the new
 * states; the changed files become exactly one commit; the index is updated only after the
 * commit's ref is durable. A refused write (the planner throws) writes nothing.
 */
export class Writer {
  private readonly locks = new KeyedMutex();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly committed: CommitListener[] = [];

  constructor(
    private readonly repo: Repository,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    /** True while published versions change only through reviewed pull requests (or publisher keys). */
    private readonly lockPublished = false,
    /** Told how long each commit took, from the first object written to the durable ref. */
    private readonly timing: TimingSink = () => {},
    private readonly newId: NewId = randomId,
  ) {}

  /** A write to the nodes and translations of one version. Writes to other versions go on in parallel. */
  write<T>(version: string, author: Author, plan: (ctx: WriteContext) => WritePlan<T>): Promise<T> {
    return this.track(this.locks.run([version], () => this.apply(author, plan)));
  }

  /**
   * A write to versions themselves (create, update, delete, duplicate). These are serialized with each
   * other so that "latest" is decided by one writer at a time; `versions` names the versions to lock
   * besides the current latest one.
   */
  writeVersions<T>(versions: string[], author: Author, plan: (ctx: WriteContext) => WritePlan<T>): Promise<T> {
    return this.exclusive(versions, (commit) => commit(author, plan));
  }

  /**
   * Runs `fn` under the locks writeVersions takes for `versions` (and the latest version): a change
   * made outside the writer (an accepted git push) that must not interleave with writes to those
   * versions. `commit` applies a plan under those same locks, as writeVersions would.
   */
  exclusive<T>(versions: string[], fn: (commit: <U>(author: Author, plan: (ctx: WriteContext) => WritePlan<U>) => Promise<U>) => Promise<T>): Promise<T> {
    return this.track(
      this.locks.run([REGISTRY], () => {
        const latest = this.catalog.latest()?.slug;
        return this.locks.run(latest ? [...versions, latest] : versions, () => fn((author, plan) => this.apply(author, plan)));
      }),
    );
  }

  /** Throws what a write of `change` by `author` would be refused with under the lock on published versions (published_read_only). */
  checkMayWrite(author: Author, change: VersionChange): void {
    this.assertMayWrite(author, change);
  }

  /**
   * A dry run: the plan's answer from the current states, computed exactly as a write would compute
   * it, with nothing written and no lock taken (the lock on published versions does not apply:
   * nothing changes).
   */
  preview<T>(plan: (ctx: WriteContext) => WritePlan<T>): T {
    return plan(this.context()).result;
  }

  /** write(), or with `dryRun` preview() (resolved, so callers await both alike). */
  run<T>(dryRun: boolean, version: string, author: Author, plan: (ctx: WriteContext) => WritePlan<T>): Promise<T> {
    return dryRun ? Promise.resolve().then(() => this.preview(plan)) : this.write(version, author, plan);
  }

  /** writeVersions(), or with `dryRun` preview(). */
  runVersions<T>(dryRun: boolean, versions: string[], author: Author, plan: (ctx: WriteContext) => WritePlan<T>): Promise<T> {
    return dryRun ? Promise.resolve().then(() => this.preview(plan)) : this.writeVersions(versions, author, plan);
  }

  /**
   * Calls `listener` after every commit from now on; the write is answered once it has returned (a
   * listener that fails fails nothing). `prepare`, when given, is called while the commit is being
   * made durable and must change nothing anyone sees; the listener gets what it returned (undefined
   * when it failed or the commit's states moved meanwhile) once the commit is durable.
   */
  onCommit<P>(listener: (write: CommittedWrite, prepared?: P) => void | Promise<void>, prepare?: (write: PendingWrite) => P): void {
    this.committed.push({ listener: listener as CommitListener['listener'], prepare });
  }

  /** Resolves when every write that has started has finished and no pack compaction runs (for a clean shutdown). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.repo.settle();
  }

  private context(): WriteContext {
    return {
      now: this.clock.stamp(),
      newId: this.newId,
      read: (slug) => this.catalog.state(slug),
      exists: (slug) => this.catalog.entry(slug) !== undefined,
      peek: (slug) => this.catalog.entry(slug)?.state ?? null,
      readLatest: () => this.catalog.latest(),
    };
  }

  private async apply<T>(author: Author, plan: (ctx: WriteContext) => WritePlan<T>): Promise<T> {
    const ctx = this.context();
    const planned = plan(ctx);
    const { message, result, event } = planned;
    const changes = planned.changes.map((change) => this.withBases(change, planned.bases));
    for (const change of changes) this.assertMayWrite(author, change);
    // Rendering is deterministic: a failure here is the input's, not the disk's, so it stays outside the try.
    const folderChanges = changes.map((change) => this.folderChange(change));
    const info = { event, author: author.name, message, at: ctx.now };
    let revision: string;
    let preparing: Promise<Prepared | undefined> = Promise.resolve(undefined);
    const commit: CommitProgress = { failed: false, done: false };
    const turn = this.turns(commit);
    try {
      const started = performance.now();
      // The files' objects are made, then the commit's own work runs up to its first wait on the disk;
      // from the next turn on, while the objects are deflated (a large write's on a thread of its own) and
      // the commit's fsyncs are under way, what follows the commit is worked out ahead, the catalog's
      // part first (a new version's search indexes), shown only once the ref is durable.
      const catalog = this.prepareCatalog(changes, turn);
      const folders = await Promise.all(folderChanges.map((f) => this.repo.writeFolder(f)));
      // A write whose files come out byte for byte as they were makes no commit.
      if (folders.every((f) => f.tree !== null && f.tree.oid === this.repo.folder(f.slug)?.oid)) {
        commit.failed = true;
        return result;
      }
      const committing = this.repo.commit(folders, { author: author.name, message, time: new Date(ctx.now) });
      preparing = this.prepare(changes, planned.changedFrom, folders, info, turn, catalog);
      revision = await committing.then(
        (oid) => {
          commit.done = true;
          return oid;
        },
        (err: unknown) => {
          commit.failed = true;
          throw err;
        },
      );
      this.timing('commit', (performance.now() - started) / 1000);
    } catch (err) {
      commit.failed = true;
      if (err instanceof BranchMovedError) {
        throw new AppError('repository_changed', `${err.message}; nothing was written. Restart the service to load what is in the repository now, and change content through the service from then on.`, { found: err.found });
      }
      // Nothing is published until the ref is durable, so the index and the branch are as they were.
      throw new AppError('storage_failed', 'The change could not be written to the repository; nothing was changed. Send it again once the cause is fixed (the server log names it, under this request id: a full disk, for example)', {}, { cause: err });
    }
    const prepared = await preparing;
    const before = this.changesOf(changes, planned.changedFrom);
    // Listeners' preparations hold for the states they were made from: a change in between (none is
    // expected under the versions' locks) leaves them to do their whole work.
    const held = prepared !== undefined && prepared.before.every((b, i) => b.before === before[i].before && b.served === before[i].served);
    // A large change is indexed for search in slices; the write is acknowledged once it is searchable.
    await Promise.all(changes.map((change, i) => this.catalog.set(change.slug, change.after, prepared?.catalog[i])));
    // The commit is durable and in the index: a listener's failure is its own to report.
    const write: CommittedWrite = { revision, changes: before, ...info };
    await Promise.all(this.committed.map(({ listener }, i) => Promise.resolve().then(() => listener(write, held ? prepared.listeners[i] : undefined)).catch(() => undefined)));
    return result;
  }

  /** Each change's states as the commit's listeners are told them. */
  private changesOf(changes: readonly VersionChange[], changedFrom: WritePlan<unknown>['changedFrom']): CommittedWrite['changes'] {
    return changes.map((change) => {
      const served = this.catalog.entry(change.slug)?.state ?? null;
      return { slug: change.slug, before: changedFrom?.has(change.slug) ? changedFrom.get(change.slug)! : served, after: change.after, served };
    });
  }

  /**
   * What the catalog's listeners (the search index) and the commit's (the history index) can work out
   * ahead from the new states while the commit is made durable, nothing of it shown; and the link
   * scans of the written translations, which the write's answer reads. Undefined if it failed: then
   * everything is done after the commit, as without it.
   */
  private async prepare(changes: readonly VersionChange[], changedFrom: WritePlan<unknown>['changedFrom'], folders: readonly FolderWrite[], info: Omit<CommittedWrite, 'revision' | 'changes'>, turn: () => Promise<void>, preparedCatalog: Promise<PreparedChange[] | undefined>): Promise<Prepared | undefined> {
    try {
      const catalog = await preparedCatalog;
      if (catalog === undefined) return undefined;
      await turn();
      const before = this.changesOf(changes, changedFrom);
      const trees = new Map(folders.map((f) => [f.slug, f.tree !== null && f.tree.entries.size > 0 ? f.tree : null]));
      const pending: PendingWrite = { changes: before, ...info, folder: (slug) => (trees.has(slug) ? trees.get(slug)! : this.repo.folder(slug)) };
      const listeners = this.committed.map(({ prepare }) => {
        try {
          return prepare?.(pending);
        } catch {
          return undefined;
        }
      });
      for (const change of before) {
        for (const t of writtenTranslations(change.served, change.after)) {
          await turn();
          warmScan(t);
        }
      }
      return { catalog, before, listeners };
    } catch {
      return undefined;
    }
  }

  /**
   * Short steps, each in a turn of the event loop of its own: the commit goes on with its next step as
   * soon as its disk is done, held up by one short step at most. Once it is durable, the rest is done in
   * longer steps. A step throws once the commit failed (or there is none).
   */
  private turns(commit: CommitProgress): () => Promise<void> {
    let since = -Infinity;
    return async () => {
      if (performance.now() - since >= (commit.done ? AFTER_COMMIT_STEP_MS : PREPARE_STEP_MS)) {
        await nextTurn();
        since = performance.now();
      }
      if (commit.failed) throw new Error('the commit failed');
    };
  }

  /** The catalog's part of prepare(), begun before the commit's objects are made; undefined if it failed. */
  private async prepareCatalog(changes: readonly VersionChange[], turn: () => Promise<void>): Promise<PreparedChange[] | undefined> {
    try {
      // Nothing before the objects and the commit's own work, which run up to their first wait meanwhile.
      await turn();
      const catalog: PreparedChange[] = [];
      for (const change of changes) catalog.push(await this.catalog.prepare(change.slug, change.after, turn));
      return catalog;
    } catch {
      return undefined;
    }
  }

  /** The lock on published versions: any change that touches a published version needs a publisher. */
  private assertMayWrite(author: Author, change: VersionChange): void {
    if (!this.lockPublished || author.canWritePublished) return;
    const before = change.copyOf === undefined ? this.catalog.entry(change.slug)?.state : undefined;
    if (before?.meta.status === 'published') {
      throw new AppError('published_read_only', `Version "${before.slug}" is published: it changes only through a reviewed pull request, or with a publisher key`, {
        version: before.slug,
        hint: `POST /versions/${before.slug}/working-copy, edit the copy, then POST /versions/${before.slug}-wip/publish-request`,
      });
    }
    // Not published yet, and this change would publish it: that is what a publish request is for.
    if (change.after?.meta.status === 'published') {
      throw new AppError('published_read_only', `Version "${change.after.slug}" would be published by this change: versions go live through a reviewed pull request, or with a publisher key`, {
        version: change.after.slug,
        hint: `keep it a draft (status "draft"), then POST /versions/${change.after.slug}/publish-request`,
      });
    }
  }

  /** The change with its translations' bases set (translation-base.ts), from the state it replaces. */
  private withBases(change: VersionChange, bases: AlignOptions | undefined): VersionChange {
    if (change.after === null) return change;
    const before = change.copyOf !== undefined ? this.catalog.state(change.copyOf) : (this.catalog.entry(change.slug)?.state ?? null);
    const after = alignBases(before, change.after, bases);
    return after === change.after ? change : { ...change, after };
  }

  private folderChange(change: VersionChange): FolderChange {
    if (change.after === null) return { slug: change.slug, remove: true };
    const before = change.copyOf !== undefined ? this.catalog.state(change.copyOf) : (this.catalog.entry(change.slug)?.state ?? null);
    const base = change.copyOf !== undefined ? this.repo.folder(change.copyOf)! : undefined;
    const after = change.after;
    const files = new Map(changedPaths(before, after).map((path) => [path, renderFile(after, path)]));
    return { slug: change.slug, files, base };
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    const done = () => this.inFlight.delete(promise);
    promise.then(done, done);
    return promise;
  }
}
