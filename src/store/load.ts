import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { readFileSetInSlices } from '../content/file-set.ts';
import { parseMarkdownFile } from '../content/markdown-file.ts';
import { ProblemList, type ContentProblem } from '../content/problems.ts';
import { isVersionSlug } from '../domain/names.ts';
import type { NodeRec, Translation, TranslationsOf, VersionState } from '../domain/types.ts';
import type { Catalog } from './catalog.ts';
import { primeIndexing } from '../index/prime.ts';
import type { SearchIndex } from '../index/search.ts';
import { catFileBlobs, DamagedObjectError, GitUnavailableError } from '../storage/cat-file.ts';
import { EMPTY_TREE, type TreeNode } from '../storage/git-objects.ts';
import type { Repository } from '../storage/repository.ts';
import { blobText, notUtf8Problem, type NotUtf8 } from '../storage/blob-text.ts';
import type { SnapshotKeeper } from './snapshot-keeper.ts';
import type { Snapshot, SnapshotFile } from './snapshot.ts';
import { nextTurn } from '../slices.ts';

/** Stamp for hand-written files without one: fixed, so it does not move between restarts. */
const UNSTAMPED = '1970-01-01T00:00:00.000Z';

/** A stable id for a node written by hand without one (same version and slug, same id, every start). */
export function derivedId(version: string, slug: string): string {
  const h = createHash('sha1').update(`${version}/${slug}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const formatProblem = (p: ContentProblem) => `${p.path}${p.line ? `:${p.line}` : ''}: ${p.message}`;

/** What a start can use besides git: the search index to restore, and the snapshots of an earlier run. */
export interface LoadOptions {
  search?: SearchIndex;
  snapshots?: SnapshotKeeper;
}

/** Versions loaded at the same time at start: enough to keep git and the CPU busy, few enough that each is served soon. */
const PARALLEL_LOADS = 3;
/**
 * Longest stretch of parsing files read through isomorphic-git (git cannot be run), or of building a
 * version's state from its files, before other requests get their turn, in milliseconds. Read through
 * git, each file is parsed as it arrives, a pipe's chunk at a time.
 */
const SLICE_MS = 5;

/**
 * Builds the in-memory index from the head commit. Every version is first marked as loading (its
 * reads answer 503 version_loading), then versions are loaded a few at a time, each one served as
 * soon as it is in, its search indexes built after; parsing goes in short slices, so requests are
 * answered throughout. A version folder that cannot be read or parsed is marked broken with the reason (and
 * not served); the others are served. A folder whose snapshot matches its tree is restored from it;
 * one whose snapshot is of an older tree is patched with the files that changed since; the others
 * are read whole (with the system git when it is installed). A blob already parsed for another
 * version (duplicated versions share most of theirs) is neither read nor parsed again, and the
 * versions share its translation.
 */
export async function loadCatalog(repo: Repository, catalog: Catalog, clock: Clock, log: Logger, opts: LoadOptions = {}): Promise<void> {
  const folders = repo.folders();
  catalog.setLoading(folders.keys());
  const parsed: ParsedBlobs = new Map();
  const loaded = new Map<string, VersionState>();
  // One folder of each distinct tree first, the identical ones after: copies made for each release
  // then wait for their tree's one load instead of each reading it (its snapshot, or git) again.
  const queue = distinctFirst(folders);
  /** The load of each tree under way: an identical folder waits for it, then shares its state. */
  const loading = new Map<string, Promise<void>>();
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [slug, tree] = next;
      const underWay = loading.get(tree.oid);
      if (underWay) await underWay;
      const done = loadVersion(slug, tree, { repo, catalog, clock, log, opts, parsed, loaded }).then(() => {
        const state = catalog.entry(slug)?.state;
        if (state) loaded.set(tree.oid, state);
      });
      if (!underWay) loading.set(tree.oid, done.catch(() => undefined));
      await done;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_LOADS, queue.length) }, worker));
  resolveLatest(catalog, log);
  catalog.setComplete();
  await opts.snapshots?.removeOthers(folders);
}

/** The folders with the first of each distinct tree ahead of the others, otherwise in their order. */
function distinctFirst(folders: ReadonlyMap<string, TreeNode>): Array<[string, TreeNode]> {
  const seen = new Set<string>();
  const firsts: Array<[string, TreeNode]> = [];
  const rest: Array<[string, TreeNode]> = [];
  for (const folder of folders) {
    if (seen.has(folder[1].oid)) rest.push(folder);
    else {
      seen.add(folder[1].oid);
      firsts.push(folder);
    }
  }
  return [...firsts, ...rest];
}

/** Translations by the id of the blob they were parsed from, during one load. */
type ParsedBlobs = Map<string, Translation>;

interface LoadContext {
  repo: Repository;
  catalog: Catalog;
  clock: Clock;
  log: Logger;
  opts: LoadOptions;
  parsed: ParsedBlobs;
  /** The states loaded so far, by the id of the folder (tree) they were read from. */
  loaded: Map<string, VersionState>;
}

async function loadVersion(slug: string, tree: TreeNode, { repo, catalog, clock, log, opts, parsed, loaded }: LoadContext): Promise<void> {
  const broken = (reason: string) => {
    log.error({ version: slug, reason }, 'version cannot be served');
    catalog.setBroken(slug, reason);
  };
  if (!isVersionSlug(slug)) return broken(`the folder name "${slug}" is not a valid version slug`);
  const unreadable = repo.unreadable.get(slug);
  if (unreadable) return broken(unreadable);
  const started = performance.now();
  // A folder identical to one already loaded (versions copied for each release) is that version under
  // another slug: nothing to read from git or from its snapshot.
  const twin = loaded.get(tree.oid);
  if (twin) {
    // Its search index is the twin's (adopted, or once built).
    await serve(slug, underSlug(twin, slug), catalog, clock, log);
    log.debug({ version: slug, twin: twin.slug, ms: Math.round(performance.now() - started) }, 'version shared with an identical folder');
    return;
  }
  // A copy whose Markdown files were all loaded for other versions (only its version.json differs):
  // reading that one file is cheaper than its snapshot, and it shares their translations and search index.
  const assembled = loaded.size > 0 && blobsOf(tree).every(([path, oid]) => !TRANSLATION_FILE.test(path) || parsed.has(oid));
  const snap = assembled ? null : internSnapshot(forSlug(await openSnapshot(opts.snapshots?.take(slug, tree.oid), log, slug), slug), parsed);
  if (snap && snap.tree.oid === tree.oid) {
    // The tree's snapshot may have been taken of another version with this folder: point this one at it too.
    if (opts.snapshots?.pointsElsewhere(slug, tree.oid)) opts.snapshots.markDirty(slug);
    // A twin already loaded (the same translations) lends its search index; otherwise the saved one is adopted.
    const shared = opts.search?.adoptTwin(slug, snap.state) === true;
    // Loaded on the version's first search, or in the background after the start (SearchIndex.restoreLater).
    const renew = () => {
      log.info({ version: slug }, 'search index in the snapshot not usable; rebuilding it');
      opts.snapshots?.renew(slug, tree.oid);
    };
    const restored = shared || (snap.search !== null && opts.search?.restoreLater(slug, snap.state, snap.search, renew) === true);
    if (!restored && opts.search) {
      if (snap.search !== null) log.info({ version: slug }, 'search index in the snapshot not usable; rebuilding it');
      // Written again once the index is built, so that the next start need not build it.
      opts.snapshots?.renew(slug, tree.oid);
    }
    await serve(slug, snap.state, catalog, clock, log);
    log.debug({ version: slug, ms: Math.round(performance.now() - started) }, 'version restored from its snapshot');
    return;
  }
  let result: { state: VersionState | null; problems: ProblemList; read: number };
  try {
    // Its changed documents are about to be indexed (see primeIndexing; a start that reads none leaves it for later).
    if (snap && opts.search) primeIndexing();
    result = snap ? await patchFromSnapshot(repo, snap, tree, parsed) : await readWhole(repo, slug, tree, parsed, opts.search);
  } catch (err) {
    return broken(`a file cannot be read from git: ${(err as Error).message}`);
  }
  const { state, problems, read } = result;
  if (state === null) return broken(`${problems.errorCount} problem(s) in its files, first: ${formatProblem(problems.errors[0])}`);
  // The index saved with the older state is adopted first; indexing the new state then re-indexes only the changed documents.
  if (snap?.search) opts.search?.restore(slug, snap.state, snap.search);
  await serve(slug, state, catalog, clock, log);
  const ms = Math.round(performance.now() - started);
  if (assembled) {
    // Its twins have snapshots, and the next start assembles it again: none of its own.
    log.debug({ version: slug, filesRead: read, ms }, 'version assembled from files already loaded');
    return;
  }
  opts.snapshots?.markDirty(slug);
  log.info({ version: slug, filesRead: read, fromSnapshot: snap !== null, ms }, snap ? 'version patched from an older snapshot' : 'version read from git');
}

/**
 * A version's state under another slug, for a folder identical to its own. Node ids written in
 * version.json are the same in both; ids derived from the version and node slugs (hand-written files
 * without ids) are derived again for the new slug, as reading the folder would.
 */
function underSlug(twin: VersionState, slug: string): VersionState {
  // Which nodes have derived ids is the same in every copy: found once (a hash per node), not for each of hundreds of copies.
  let derived = derivedOf.get(twin);
  if (derived === undefined) {
    derived = [];
    for (const [nodeSlug, node] of twin.nodes) if (node.id === derivedId(twin.slug, nodeSlug)) derived.push(nodeSlug);
  }
  let nodes: Map<string, NodeRec> | null = null;
  for (const nodeSlug of derived) {
    const node = twin.nodes.get(nodeSlug)!;
    (nodes ??= new Map(twin.nodes)).set(nodeSlug, { ...node, id: derivedId(slug, nodeSlug) });
  }
  const out = { ...twin, slug, nodes: nodes ?? twin.nodes };
  derivedOf.set(out, derived);
  return out;
}

/** The slugs of a state's nodes whose ids are derived from the version and node slugs (see underSlug). */
const derivedOf = new WeakMap<VersionState, string[]>();

/** A snapshot taken of another version with the same folder, as this version's (see underSlug). */
function forSlug(snap: Snapshot | null, slug: string): Snapshot | null {
  if (snap === null || snap.state.slug === slug) return snap;
  return { ...snap, slug, state: underSlug(snap.state, slug) };
}

/**
 * The snapshot with its translations shared with the versions loaded before it: a translation whose
 * file (blob) was already loaded for another version is that version's object, so identical content
 * (versions duplicated for each release) is held in memory once, whether it came from git or a snapshot.
 */
function internSnapshot(snap: Snapshot | null, parsed: ParsedBlobs): Snapshot | null {
  if (snap === null) return null;
  const folders = snap.tree.entries;
  let changed = false;
  const translations = new Map<string, TranslationsOf>();
  for (const [slug, byLanguage] of snap.state.translations) {
    let out: Map<string, Translation> | null = null;
    for (const [language, t] of byLanguage) {
      const folder = folders.get(language);
      const blob = folder?.kind === 'tree' ? folder.tree.entries.get(`${slug}.md`) : undefined;
      if (blob === undefined || blob.kind !== 'blob') continue;
      const known = parsed.get(blob.oid);
      if (known === undefined) parsed.set(blob.oid, t);
      else if (known !== t && sameTranslation(known, t)) (out ??= new Map(byLanguage)).set(language, known);
    }
    translations.set(slug, out ?? byLanguage);
    if (out) changed = true;
  }
  return changed ? { ...snap, state: { ...snap.state, translations } } : snap;
}

const sameTranslation = (a: Translation, b: Translation) => a.title === b.title && a.summary === b.summary && a.bodyMd === b.bodyMd && a.updatedAt === b.updatedAt;

/**
 * Serves the version. Its search indexes, when they cannot be adopted or restored, are built after
 * that, in slices or on the index workers: its searches wait for them (SearchIndex.searchable), its
 * other reads need not.
 */
async function serve(slug: string, state: VersionState, catalog: Catalog, clock: Clock, log: Logger): Promise<void> {
  observeStamps(state, clock);
  const indexed = catalog.set(slug, state);
  indexed?.catch((err: unknown) => log.error({ version: slug, err }, 'search index could not be built; searches of the version find nothing until it is written to'));
}

async function openSnapshot(file: Promise<SnapshotFile> | undefined, log: Logger, slug: string): Promise<Snapshot | null> {
  if (!file) return null;
  try {
    return await (await file).open();
  } catch (err) {
    log.warn({ version: slug, reason: (err as Error).message }, 'snapshot ignored; reading the version from git');
    return null;
  }
}

/** How a version's files are read at start (hand-written ones without ids or stamps get fixed ones). */
export function readOptions(slug: string) {
  return { slug, fallbackStamp: UNSTAMPED, idFor: (s: string) => derivedId(slug, s) };
}

async function readWhole(repo: Repository, slug: string, tree: TreeNode, parsed: ParsedBlobs, search: SearchIndex | undefined) {
  const files = new Map<string, string | Translation>();
  const toRead: Array<[string, string]> = [];
  for (const [path, oid] of blobsOf(tree)) {
    const translation = parsed.get(oid);
    if (translation && TRANSLATION_FILE.test(path)) files.set(path, translation);
    else {
      files.set(path, ''); // keeps the tree's order; filled in below
      toRead.push([path, oid]);
    }
  }
  const problems = new ProblemList();
  const reading = readAndParse(repo, toRead, files, parsed, problems);
  reading.catch(() => undefined); // awaited below: a failure of the priming must not leave it unhandled
  // While git starts: the version is about to be indexed from nothing (see primeIndexing).
  if (search) primeIndexing();
  await reading;
  return { state: await readFileSetInSlices(files, readOptions(slug), problems, SLICE_MS), problems, read: toRead.length };
}

/**
 * Reads the blobs and parses the Markdown files among them into translations, each as it arrives. A
 * file that does not parse is left as text: reading the file set reports its problems.
 */
async function readAndParse(repo: Repository, blobs: ReadonlyArray<[string, string]>, files: Map<string, string | Translation>, parsed: ParsedBlobs, problems: ProblemList): Promise<void> {
  const scratch = new ProblemList();
  await readFiles(repo, blobs, (i, text, bad) => {
    const [path, oid] = blobs[i];
    files.set(path, text);
    if (bad !== null) {
      problems.error(path, notUtf8Problem(bad), bad.line);
      return;
    }
    if (!TRANSLATION_FILE.test(path)) return;
    const md = parseMarkdownFile(path, text, scratch);
    if (md === null) return;
    const translation: Translation = { title: md.title, summary: md.summary, bodyMd: md.bodyMd, updatedAt: md.updatedAt ?? UNSTAMPED, ...(md.basedOn !== undefined ? { basedOn: md.basedOn } : {}) };
    files.set(path, translation);
    parsed.set(oid, translation);
  });
}

/**
 * The state at `tree`, from a snapshot of an older tree of the same folder: git trees are content
 * addressed, so only subtrees whose ids differ are compared, and only the files that differ are read.
 * Unchanged translations are reused as they are (the search index keeps its documents for them).
 */
async function patchFromSnapshot(repo: Repository, snap: Snapshot, tree: TreeNode, parsed: ParsedBlobs) {
  const changed = new Set<string>();
  diffTrees(snap.tree, tree, '', changed);
  const files = new Map<string, string | Translation>();
  const toRead: Array<[string, string]> = [];
  for (const [path, oid] of blobsOf(tree)) {
    const reused = changed.has(path) ? undefined : unchangedTranslation(snap.state, path);
    if (reused) files.set(path, reused);
    else {
      files.set(path, ''); // keeps the tree's order; filled in below
      toRead.push([path, oid]);
    }
  }
  const problems = new ProblemList();
  await readAndParse(repo, toRead, files, parsed, problems);
  return { state: await readFileSetInSlices(files, readOptions(snap.slug), problems, SLICE_MS), problems, read: toRead.length };
}

/**
 * A version's state at `tree`, read from git: from its state at an older tree of the same folder
 * when there is one (a replica following its primary), reading only the files that differ, else the
 * whole folder. `state` is null when the files do not make a version (`problems` says why).
 */
export async function readFolder(repo: Repository, slug: string, tree: TreeNode, before: { tree: TreeNode; state: VersionState } | null): Promise<{ state: VersionState | null; problems: ProblemList; read: number }> {
  if (before === null) return readWhole(repo, slug, tree, new Map(), undefined);
  return patchFromSnapshot(repo, { slug, tree: before.tree, state: before.state, search: null }, tree, new Map());
}

const TRANSLATION_FILE = /^([^/]+)\/([^/]+)\.md$/;

function unchangedTranslation(state: VersionState, path: string): Translation | undefined {
  const m = TRANSLATION_FILE.exec(path);
  return m ? state.translations.get(m[2])?.get(m[1]) : undefined;
}

/** Adds to `changed` every blob path under `now` that is new or differs from `before`. */
function diffTrees(before: TreeNode, now: TreeNode, prefix: string, changed: Set<string>): void {
  if (before.oid === now.oid) return;
  for (const [name, entry] of now.entries) {
    const old = before.entries.get(name);
    if (old?.oid === entry.oid && old.kind === entry.kind) continue;
    if (entry.kind === 'tree') diffTrees(old?.kind === 'tree' ? old.tree : EMPTY_TREE, entry.tree, `${prefix}${name}/`, changed);
    else changed.add(`${prefix}${name}`);
  }
}

/** Every blob of a folder, as [path inside the folder, blob id]. */
export function blobsOf(tree: TreeNode): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (node: TreeNode, prefix: string) => {
    for (const [name, e] of node.entries) {
      if (e.kind === 'tree') walk(e.tree, `${prefix}${name}/`);
      else out.push([`${prefix}${name}`, e.oid]);
    }
  };
  walk(tree, '');
  return out;
}

/**
 * Blobs as text, each given to `onText` with its index in `blobs` as it is read: through `git cat-file
 * --batch` when git can be run (the texts come as git sends them, a chunk at a time), else through
 * isomorphic-git, yielding to other work every few milliseconds.
 */
async function readFiles(repo: Repository, blobs: ReadonlyArray<[string, string]>, onText: (index: number, text: string, bad: NotUtf8 | null) => void): Promise<void> {
  if (blobs.length === 0) return;
  // Blobs given to onText before git failed (it answers in order): the fallback reads the rest.
  let delivered = 0;
  try {
    await catFileBlobs(
      repo.gitdir,
      blobs.map(([, oid]) => oid),
      (i, bytes) => {
        const { text, bad } = blobText(bytes);
        onText(i, text, bad);
        delivered = i + 1;
      },
    );
    return;
  } catch (err) {
    if (err instanceof DamagedObjectError) {
      const path = blobs.find(([, oid]) => oid === err.oid)?.[0];
      throw new DamagedObjectError(err.oid, err.problem, path);
    }
    if (!(err instanceof GitUnavailableError)) throw err;
  }
  const rest = blobs.slice(delivered);
  const texts = await repo.readBlobs(rest);
  let slice = performance.now();
  for (const [i, [path]] of rest.entries()) {
    const read = texts.get(path);
    onText(delivered + i, read?.text ?? '', read?.bad ?? null);
    if (performance.now() - slice > SLICE_MS) {
      await nextTurn();
      slice = performance.now();
    }
  }
}

function observeStamps(state: VersionState, clock: Clock): void {
  clock.observe(state.meta.updatedAt);
  // Copies of a version share its maps of nodes and translations: their stamps are observed once.
  let seen = observedBy.get(clock);
  if (seen === undefined) observedBy.set(clock, (seen = new WeakSet()));
  if (!seen.has(state.nodes)) for (const node of state.nodes.values()) clock.observe(node.updatedAt);
  if (!seen.has(state.translations)) for (const byLanguage of state.translations.values()) for (const t of byLanguage.values()) clock.observe(t.updatedAt);
  seen.add(state.nodes);
  seen.add(state.translations);
}

/** The maps of nodes and translations whose stamps a clock has observed (see observeStamps). */
const observedBy = new WeakMap<Clock, WeakSet<object>>();

/** Only one version may be latest; if files edited by hand claim more, the most recently changed one keeps it. */
function resolveLatest(catalog: Catalog, log: Logger): void {
  // Only a published version can be latest (the API refuses anything else); a version.json written by
  // hand may still claim it for a draft, which would then be reachable through "latest".
  for (const e of catalog.all()) {
    if (e.state?.meta.isLatest && e.state.meta.status !== 'published') {
      log.warn({ version: e.slug, status: e.state.meta.status }, 'version.json marks a version that is not published as latest; ignoring the mark');
      catalog.set(e.slug, { ...e.state, meta: { ...e.state.meta, isLatest: false } });
    }
  }
  const claims = catalog
    .all()
    .flatMap((e) => (e.state?.meta.isLatest ? [e.state] : []))
    .sort((a, b) => b.meta.updatedAt.localeCompare(a.meta.updatedAt));
  for (const extra of claims.slice(1)) {
    log.warn({ version: extra.slug, latest: claims[0].slug }, 'more than one version is marked latest; ignoring this one');
    catalog.set(extra.slug, { ...extra, meta: { ...extra.meta, isLatest: false } });
  }
}
