import { plainLines } from '../content/plain-text.ts';
import { textChars } from '../domain/translations.ts';
import { ancestors, documentOrder, orderIndexes } from '../domain/tree.ts';
import { primaryLanguage, type Translation, type VersionState } from '../domain/types.ts';
import { AHEAD_CHARS, hasBodyText, keepBodyText, makeBodyTexts } from './body-text.ts';
import { documentTerms, rankHead, termsOf } from './document-terms.ts';
import { packIndexes, unpackIndexes } from './index-bytes.ts';
import { BODY, RankDoc } from './rank-doc.ts';
import { RankIndex, type Staged } from './rank-index.ts';
import type { IndexBuilder } from './index-workers.ts';
import { TermIndex } from './term-index.ts';
import type { RankedHit, RankedResult, RankOptions } from './rank-types.ts';
import { fieldsOf, rankQuery, type Fields } from './rank-query.ts';
import { passage, queryTermsOf, topicHeadings } from './passages.ts';
import { snippet } from './snippets.ts';
import { rawMatcher } from './raw-matcher.ts';
import { Room } from './room.ts';
import { indexTerms, queryTerms, words, type DocTerms, type Word } from './words.ts';
import { nextTurn } from '../slices.ts';
import { settlesWithin } from '../waits.ts';
import { changedTranslationSlugs } from '../domain/translation-changes.ts';

export const MAX_HITS = 50;

/** What SearchIndex.prepare() worked out for a change of one version, for update() to install. */
export interface PreparedUpdate {
  readonly state: VersionState;
  readonly languages: ReadonlyMap<string, PreparedDocs>;
  /** A version without indexes (new, or imported anew): its whole indexes per language, built aside, adopted as they are. */
  readonly fresh?: ReadonlyMap<string, LanguageIndex>;
}

/** One language's documents to add, with the index they were cut against. */
interface PreparedDocs {
  readonly index: LanguageIndex;
  readonly docs: ReadonlyMap<string, PreparedDoc>;
}

interface PreparedDoc {
  readonly t: Translation;
  readonly terms: DocTerms;
  readonly rank: RankDoc;
}

interface LanguageIndex {
  terms: TermIndex;
  /** The same documents for ranking (rank-index.ts). */
  ranked: RankIndex;
  /** The translation each indexed document was built from, to patch only what a write changed. */
  docs: Map<string, Translation>;
  /** Document number → index in document order (-1: none), for the tree and the numbering it was made from. */
  order?: { nodes: VersionState['nodes']; stamp: number; of: Int32Array };
  /**
   * The translations (a state's map) the index was last brought exactly in line with, in every
   * language: the next update then looks only at the slugs whose translations changed since, not at
   * every translation of every language (a write to a 2,000-node version in three languages looked
   * at 18,000). Unset while a patch runs, and when the index was made any other way.
   */
  synced?: VersionState['translations'];
}

export interface Hit {
  slug: string;
  title: string;
  summary: string;
  snippet: string;
}

/**
 * Full-text search: one term index per version and language over the plain text of title, summary
 * and body, built when a version is loaded and patched document by document on every write.
 */
export class SearchIndex {
  private readonly versions = new Map<string, Map<string, LanguageIndex>>();
  /** Versions being indexed in slices or on the builder's threads: the update in progress (later ones wait for it). */
  private readonly busy = new Map<string, Promise<void>>();
  /** Versions whose indexes are being built from nothing (in slices or on the builder's threads), with the state they are built for. */
  private readonly building = new Map<string, VersionState>();
  /**
   * Versions without whole indexes yet, with when they will have them: built from nothing (a start
   * without snapshots, a new version), or waiting for such a build. Their searches wait (see searchable).
   */
  private readonly unindexed = new Map<string, Promise<void>>();
  /**
   * Versions whose saved indexes were adopted at start but not loaded yet (restoreLater), with the
   * saved indexes they hold; versions with the very same translations share one. Loaded on the
   * version's first search or write, or in the background after the start (see loadLater).
   */
  private readonly deferred = new Map<string, { of: Deferred; state: VersionState; languages: string[] }>();
  /** The distinct saved indexes in `deferred`, in the order they were adopted. */
  private readonly deferredSets = new Set<Deferred>();
  /** The next step of loading deferred indexes in the background. */
  private backgroundTimer: NodeJS.Timeout | null = null;
  /** The service is stopping: builds in slices end at their next pause. */
  private stopped = false;
  /** The texts of long bodies being made ahead for snippets (textsAhead), one batch after another. */
  private texts: Promise<void> = Promise.resolve();

  /**
   * `settled` is told, with the version's slug, when an update done in slices or on other threads has
   * finished (answers cached meanwhile are stale); `builder`, when given, builds the indexes of a large
   * version indexed from nothing on other threads.
   */
  constructor(
    private readonly settled: (slug: string) => void = () => {},
    private readonly builder: IndexBuilder | null = null,
  ) {}

  /**
   * Brings a version's indexes in line with its new state (null: the version is gone). A change of
   * up to SYNC_CHARS characters of text is indexed at once; a larger one in slices between other
   * work (the promise resolves when it is searchable), so no request waits behind it. An update that
   * can only start once indexes still being built from nothing are (the version's own, or its
   * twin's) returns nothing: its caller, a write, is not held for them; the version's searches wait.
   */
  update(slug: string, state: VersionState | null, prepared?: PreparedUpdate): void | Promise<void> {
    const deferred = this.deferred.get(slug);
    if (deferred !== undefined) {
      // The state its saved index was adopted for (the load serving it): nothing to do until it is searched.
      if (deferred.state === state) return;
      // The same translations under a new state (its version.json changed): the saved index still holds them.
      if (state !== null && state.translations === deferred.state.translations && sameList(state.meta.languages, deferred.languages)) {
        this.deferred.set(slug, { ...deferred, state });
        return;
      }
      // A gone version needs nothing loaded; a changed one is patched from its saved index.
      if (state === null) this.forget(slug);
      else this.loadNow(slug);
    }
    // Indexes built aside for this very state while its commit was made durable: searchable at once.
    if (state !== null && prepared?.fresh !== undefined && prepared.state === state && !this.busy.has(slug) && !this.deferred.has(slug)) {
      this.versions.set(slug, new Map(prepared.fresh));
      this.textsAhead(slug, state);
      return;
    }
    // A copy of a version (duplicated, or loaded with the same translations) shares its twin's indexes
    // until one of them changes; not while the version's own indexes are being built, which would replace them.
    if (state !== null && !this.versions.has(slug) && !this.busy.has(slug) && this.adoptTwin(slug, state)) return;
    const twin = state === null ? undefined : this.twinBuilding(slug, state);
    if (!this.busy.has(slug) && (state === null || (this.cost(slug, state) <= SYNC_CHARS && twin === undefined))) {
      this.apply(slug, state, null, prepared?.state === state ? prepared : undefined);
      return;
    }
    const behind = this.unindexed.has(slug) || (twin !== undefined && this.unindexed.has(twin));
    const fresh = state !== null && !this.versions.has(slug);
    const job = this.inTurn(slug, () => this.build(slug, state)).finally(() => {
      if (state !== null) this.textsAhead(slug, state);
      this.settled(slug);
    });
    if (fresh || behind) this.unindexedUntil(slug, job);
    return behind ? undefined : job;
  }

  /**
   * What update() would index at once for `state`: the terms of the documents it changes, cut from
   * their text against each language's index as it is now, and nothing else touched (the indexes,
   * and so the searches, stay as they were). A write calls it while its commit is made durable and
   * gives the result to update() once the commit is: only the postings are left to add then.
   * Undefined where update() would not patch the version's own indexes at once (a build in slices
   * or on other threads, a saved index not loaded yet, a shared one, a large change). `pause` is
   * called between short steps (a few lines of a body converted, then its terms, then its counts):
   * the commit's own steps come first as soon as its disk is done. A version without indexes (a new
   * one) or whose text is mostly new (an import of a whole version) gets whole indexes built aside (see prepareFresh).
   */
  async prepare(slug: string, state: VersionState | null, pause: () => Promise<void> = async () => {}): Promise<PreparedUpdate | undefined> {
    if (state === null || this.deferred.has(slug) || this.busy.has(slug)) return undefined;
    const byLanguage = this.versions.get(slug);
    if (byLanguage === undefined || this.mostlyNew(slug, state)) return this.prepareFresh(slug, state, pause);
    if (this.cost(slug, state) > SYNC_CHARS) return undefined;
    const languages = new Map<string, PreparedDocs>();
    for (const language of state.meta.languages) {
      const index = byLanguage.get(language);
      if (index === undefined || this.isShared(slug, index)) continue;
      const slugs = slugsToCheck(index, state);
      if (slugs === null) continue;
      const docs = new Map<string, PreparedDoc>();
      for (const [key, t] of [...documentsToIndex(index.docs, state, language, slugs)]) docs.set(key, { t, ...(await termsInSteps(index.terms, t, pause)) });
      if (docs.size > 0) languages.set(language, { index, docs });
    }
    return languages.size > 0 ? { state, languages } : undefined;
  }

  /**
   * Whole indexes of `state` built aside as update() would build them from nothing (in slices here,
   * or on the builder's threads past their size), for update() to adopt for the same state: an
   * import's new version is indexed while its blobs are deflated and its commit made durable, not
   * after. Undefined where update() does better without: a copy of an indexed version (it shares
   * its twin's indexes) or a twin being built.
   */
  private async prepareFresh(slug: string, state: VersionState, pause: () => Promise<void>): Promise<PreparedUpdate | undefined> {
    if (this.twinBuilding(slug, state) !== undefined || this.sharesTranslations(slug, state)) return undefined;
    // As update() would build them (see build), but while the commit is made durable.
    if (this.builder !== null && this.cost(slug, state) > this.builder.minChars) {
      const built = await this.builtElsewhere(state);
      if (built !== null) return { state, languages: new Map(), fresh: built };
    }
    // The writer's pause yields at every step while the commit runs; a build of megabytes yields as
    // often as one after a commit (SLICE_MS): more turns cost more than the commit gains from them.
    let since = performance.now();
    const coarse = async () => {
      if (performance.now() - since < SLICE_MS) return;
      await pause();
      since = performance.now();
    };
    const fresh = new Map<string, LanguageIndex>();
    for (const language of state.meta.languages) {
      const index = emptyIndex(language);
      await patchInSlices(index, state, language, coarse);
      fresh.set(language, index);
    }
    return { state, languages: new Map(), fresh };
  }

  /** Whether a large change brings at least half of the version's text anew: building its indexes whole costs about as much as patching them. */
  private mostlyNew(slug: string, state: VersionState): boolean {
    const changed = this.cost(slug, state);
    if (changed <= SYNC_CHARS) return false;
    let total = 0;
    for (const language of state.meta.languages) total += changedChars(undefined, state, language);
    return changed * 2 >= total;
  }

  /** Whether a translation of `state` is one an index of another version holds (a copy shares its twin's indexes: see adoptTwin). */
  private sharesTranslations(slug: string, state: VersionState): boolean {
    for (const [node, byLanguage] of state.translations) {
      for (const [language, t] of byLanguage) {
        for (const [other, indexes] of this.versions) if (other !== slug && indexes.get(language)?.docs.get(node) === t) return true;
        for (const saved of this.deferredSets) if (saved.state.translations.get(node)?.get(language) === t) return true;
        // Copies share every translation, or none that matters here: the first one tells.
        return false;
      }
    }
    return false;
  }

  /**
   * Has the plain texts of the version's bodies longer than AHEAD_CHARS made for snippets, in slices
   * after the batches before, where they are not kept yet (body-text.ts): a search then makes at most
   * short ones. A translation the version's index no longer holds when its turn comes (edited, or the
   * version gone) is skipped.
   */
  private textsAhead(slug: string, state: VersionState): void {
    const long: Array<[string, string, Translation]> = [];
    for (const [node, byLanguage] of state.translations) {
      for (const [language, t] of byLanguage) if (t.bodyMd.length > AHEAD_CHARS && !hasBodyText(t)) long.push([language, node, t]);
    }
    if (long.length === 0) return;
    const versions = this.versions;
    function* current(): Generator<Translation> {
      for (const [language, node, t] of long) if (versions.get(slug)?.get(language)?.docs.get(node) === t) yield t;
    }
    // (Making a text throws nothing; and a text not made yet only means snippets from the lines around the match.)
    this.texts = this.texts.then(() => makeBodyTexts(current(), slicer())).catch(() => {});
  }

  /** Resolves when the texts of long bodies asked for so far are made (see textsAhead). */
  textsMade(): Promise<void> {
    return this.texts;
  }

  /**
   * apply() in slices, or, for a version indexed from nothing with enough text, on the builder's
   * threads; or, when another version with the very same translations is being built from nothing
   * (versions loaded at the same time from identical files), that version's indexes once they are built.
   */
  private async build(slug: string, state: VersionState | null): Promise<void> {
    const fresh = state !== null && !this.versions.has(slug);
    if (fresh) {
      // Versions loaded at the same time from identical files are built once.
      const twin = this.twinBuilding(slug, state);
      if (twin !== undefined) await this.busy.get(twin);
      if (twin !== undefined && this.adoptTwin(slug, state)) return;
      this.building.set(slug, state);
    }
    const pause = slicer();
    try {
      if (fresh && this.builder !== null && this.cost(slug, state) > this.builder.minChars && (await this.buildElsewhere(slug, state))) return;
      await this.apply(slug, state, async () => {
        if (this.stopped) throw new Stopped();
        await pause();
      });
    } catch (err) {
      // Half an index is never searched nor saved with a snapshot.
      if (fresh) this.versions.delete(slug);
      if (!(err instanceof Stopped)) throw err;
    } finally {
      if (fresh && this.building.get(slug) === state) this.building.delete(slug);
    }
  }

  /** Ends the builds in slices at their next pause (the service is stopping; nothing will search or save them). */
  stop(): void {
    this.stopped = true;
    if (this.backgroundTimer !== null) clearTimeout(this.backgroundTimer);
    this.backgroundTimer = null;
  }

  /** Another version whose indexes are being built from nothing for the very same translations as `state`'s. */
  private twinBuilding(slug: string, state: VersionState): string | undefined {
    for (const [other, building] of this.building) if (other !== slug && sameTranslations(building, state)) return other;
    return undefined;
  }

  /**
   * Builds every language's index of the version on the builder's threads, all at once, and adopts
   * them; false when the builder failed (nothing changed: the caller indexes on this thread). The
   * updates of the version wait meanwhile (inTurn), then patch what changed since `state`.
   */
  private async buildElsewhere(slug: string, state: VersionState): Promise<boolean> {
    const byLanguage = await this.builtElsewhere(state);
    if (byLanguage === null) return false;
    this.versions.set(slug, byLanguage);
    return true;
  }

  /** Every language's index of `state` built from nothing on the builder's threads; null when the builder failed. */
  private async builtElsewhere(state: VersionState): Promise<Map<string, LanguageIndex> | null> {
    const languages = state.meta.languages;
    const documents = languages.map((language) => [...documentsToIndex(new Map(), state, language)]);
    let saved: Uint8Array[];
    try {
      saved = await Promise.all(documents.map((d, i) => this.builder!.build(d, languages[i])));
    } catch {
      return null;
    }
    const byLanguage = new Map<string, LanguageIndex>();
    for (const [i, language] of languages.entries()) {
      const index = loadIndex(saved[i], state, language);
      if (!index) return null;
      byLanguage.set(language, index);
    }
    return byLanguage;
  }

  /**
   * Gives `slug` the indexes of another version whose translations are the very same objects in every
   * language (a duplicate shares them with its source; versions loaded from identical files share them
   * too): nothing to build, and no memory spent, until one of the two changes (copy on write).
   */
  adoptTwin(slug: string, state: VersionState): boolean {
    for (const [other, byLanguage] of this.versions) {
      if (other === slug || this.busy.has(other)) continue;
      if (state.meta.languages.every((language) => byLanguage.has(language) && holdsExactly(byLanguage.get(language)!, state, language))) {
        this.versions.set(slug, new Map(state.meta.languages.map((language) => [language, byLanguage.get(language)!])));
        return true;
      }
    }
    // A twin whose saved index is not loaded yet: this version shares it, and it is loaded once for both.
    for (const saved of this.deferredSets) {
      if (state.meta.languages.every((language) => saved.languages.includes(language) && holdsSameKept(saved, state, language))) {
        this.deferred.set(slug, { of: saved, state, languages: [...state.meta.languages] });
        return true;
      }
    }
    return false;
  }

  /** Whether another version uses the same index object (adopted from a twin). */
  private isShared(slug: string, index: LanguageIndex): boolean {
    for (const [other, byLanguage] of this.versions) {
      if (other === slug) continue;
      for (const held of byLanguage.values()) if (held === index) return true;
    }
    return false;
  }

  /** Characters to index to bring the version's indexes in line with `state`; a shared index that must change is built anew, whole. */
  private cost(slug: string, state: VersionState): number {
    const byLanguage = this.versions.get(slug);
    let chars = 0;
    for (const language of state.meta.languages) {
      const index = byLanguage?.get(language);
      const whole = index !== undefined && this.isShared(slug, index) && !holdsExactly(index, state, language);
      chars += changedChars(whole ? undefined : index, state, language);
    }
    return chars;
  }

  /**
   * Runs `job` after the version's work in progress, and marks the version busy until it ends: an
   * update in slices or a save, so that neither sees the index half changed by the other.
   */
  private inTurn<T>(slug: string, job: () => Promise<T>): Promise<T> {
    const result = (this.busy.get(slug) ?? Promise.resolve()).then(job);
    const done: Promise<void> = result.then(
      () => undefined,
      () => undefined,
    );
    const tracked = done.finally(() => {
      if (this.busy.get(slug) === tracked) this.busy.delete(slug);
    });
    this.busy.set(slug, tracked);
    return result;
  }

  /** Whether the version is being indexed in slices or on other threads (its index is behind its state until then). */
  isBusy(slug: string): boolean {
    return this.busy.has(slug);
  }

  /** Has searches of the version wait for `built`, the update that gives it whole indexes (see searchable). */
  private unindexedUntil(slug: string, built: Promise<void>): void {
    const clear = () => {
      if (this.unindexed.get(slug) === done) this.unindexed.delete(slug);
    };
    const done: Promise<void> = built.then(clear, clear);
    this.unindexed.set(slug, done);
  }

  /** Whether the version's indexes are still being built from nothing (see unindexed). */
  isIndexing(slug: string): boolean {
    // A saved index not loaded yet is loaded now (or, when it cannot be used, its build starts and is waited for).
    this.loadNow(slug);
    return this.unindexed.has(slug);
  }

  /** The versions whose indexes are still being built from nothing (see unindexed). */
  indexing(): string[] {
    return [...this.unindexed.keys()];
  }

  /** Resolves when no version's indexes are being built from nothing (see unindexed). */
  async indexed(): Promise<void> {
    while (this.unindexed.size > 0) await Promise.all([...this.unindexed.values()]);
  }

  /** Resolves when the version's update in progress, if any, has ended. */
  async settledOf(slug: string): Promise<void> {
    await this.busy.get(slug);
  }

  /**
   * Whether the version can be searched: at once unless its indexes are still being built from
   * nothing; then when they are built, or false if that takes longer than `waitMs`.
   */
  async searchable(slug: string, waitMs = SEARCH_WAIT_MS): Promise<boolean> {
    this.loadNow(slug);
    const built = this.unindexed.get(slug);
    return built === undefined || (await settlesWithin(built, waitMs));
  }

  /** Resolves when no version is being indexed in slices or on other threads. */
  async idle(): Promise<void> {
    while (this.busy.size > 0) await Promise.allSettled([...this.busy.values()]);
  }

  private async apply(slug: string, state: VersionState | null, pause: (() => Promise<void>) | null, prepared?: PreparedUpdate): Promise<void> {
    if (state === null) {
      this.versions.delete(slug);
      return;
    }
    let byLanguage = this.versions.get(slug);
    if (!byLanguage) this.versions.set(slug, (byLanguage = new Map()));
    for (const language of byLanguage.keys()) if (!state.meta.languages.includes(language)) byLanguage.delete(language);
    for (const language of state.meta.languages) {
      let index = byLanguage.get(language);
      if (index && this.isShared(slug, index) && !holdsExactly(index, state, language)) {
        // Copy on write: the twin keeps the shared index; this version gets its own, swapped in once
        // built, so its searches find the documents as they were until then.
        const own = emptyIndex(language);
        if (pause === null) patch(own, state, language);
        else await patchInSlices(own, state, language, pause);
        byLanguage.set(language, own);
        continue;
      }
      if (!index) byLanguage.set(language, (index = emptyIndex(language)));
      const ready = prepared?.languages.get(language);
      if (pause === null) patch(index, state, language, ready?.index === index ? ready : undefined);
      else await patchInSlices(index, state, language, pause);
    }
  }

  /**
   * The version's index in a form that can be kept on disk beside a snapshot of its state, so a
   * restart adopts it instead of rebuilding it (restore() takes these pieces written one after the
   * other); null when the version is not indexed. It is the index as it is when called: written out
   * in slices, while the version's updates wait (searches go on). Pieces, so a snapshot writes them
   * as they are, without a copy of the whole index that would stay allocated in an idle service.
   */
  savePieces(slug: string): Promise<Uint8Array[] | null> {
    return this.inTurn(slug, () => this.piecesNow(slug));
  }

  private async piecesNow(slug: string): Promise<Uint8Array[] | null> {
    const deferred = this.deferred.get(slug);
    // Not loaded since the start: the bytes it was restored from are what a save would write.
    if (deferred !== undefined && sameList(deferred.languages, deferred.of.languages)) return [deferred.of.saved];
    this.loadNow(slug);
    const byLanguage = this.versions.get(slug);
    if (!byLanguage) return null;
    const pause = slicer();
    const parts: Array<{ language: string; bytes: Uint8Array }> = [];
    for (const [language, index] of byLanguage) {
      const terms = await index.terms.save(pause);
      parts.push({ language, bytes: packIndexes(terms, index.ranked.save()) });
      await pause();
    }
    const head = Buffer.from(JSON.stringify({ format: SAVE_FORMAT, parts: parts.map((p) => [p.language, p.bytes.length]) }), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(head.length, 0);
    return [length, head, ...parts.map((p) => p.bytes)];
  }

  /**
   * Adopts an index made by savePieces() (its pieces in one buffer) for `state` (the same state it was saved with, as restored from
   * the snapshot). Returns false when `saved` cannot be used (another format, or documents the state
   * does not have); the caller then lets update() build the index. Call it before the state is set
   * in the catalog, so update() finds nothing to do.
   */
  restore(slug: string, state: VersionState, saved: Uint8Array): boolean {
    try {
      const parts = savedParts(saved);
      if (parts === null) return false;
      const byLanguage = new Map<string, LanguageIndex>();
      for (const [language, from, until] of parts) {
        const index = loadIndex(saved.subarray(from, until), state, language);
        if (!index) return false;
        byLanguage.set(language, index);
      }
      this.forget(slug);
      this.versions.set(slug, byLanguage);
      this.textsAhead(slug, state);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * restore(), deferred: takes the saved index for `state` after checking only its layout (the
   * snapshot's checksum vouches for its bytes), and loads it on the version's first search, write or
   * save, or in the background once the start is over (loadLater); a restore costs tens of
   * milliseconds of CPU a version, which a start of hundreds of versions would otherwise spend before
   * it is ready. Searches answer exactly as after restore(). When the bytes turn out unusable at load
   * time, `unusable` is told and the index is built from the state (its searches wait, as after a
   * start without snapshots).
   */
  restoreLater(slug: string, state: VersionState, saved: Uint8Array, unusable: () => void = () => {}): boolean {
    const parts = savedParts(saved);
    if (parts === null) return false;
    const of: Deferred = { state, saved, parts, languages: parts.map(([language]) => language), loaded: new Map(), unusable };
    this.forget(slug);
    this.deferred.set(slug, { of, state, languages: of.languages });
    this.deferredSets.add(of);
    this.loadLater();
    return true;
  }

  /** Whether the version's index is saved but not loaded yet (restoreLater). */
  isDeferred(slug: string): boolean {
    return this.deferred.has(slug);
  }

  /** Loads every deferred index now (the background loading, all at once). */
  loadDeferred(): void {
    for (const saved of [...this.deferredSets]) this.install(saved);
  }

  /** Drops the version's claim on a deferred index; the index itself goes once no version claims it. */
  private forget(slug: string): void {
    const entry = this.deferred.get(slug);
    if (entry === undefined) return;
    this.deferred.delete(slug);
    for (const other of this.deferred.values()) if (other.of === entry.of) return;
    this.deferredSets.delete(entry.of);
  }

  /** Loads the version's deferred index, if it has one, with every version sharing it. */
  private loadNow(slug: string): void {
    const entry = this.deferred.get(slug);
    if (entry !== undefined) this.install(entry.of);
  }

  /**
   * Loads what is left of a deferred index and gives it to every version that shares it; when it
   * cannot be used, builds their indexes from their states instead.
   */
  private install(saved: Deferred): void {
    this.deferredSets.delete(saved);
    let usable = true;
    for (const [language, from, until] of saved.parts) {
      if (saved.loaded.has(language)) continue;
      const index = loadIndex(saved.saved.subarray(from, until), saved.state, language);
      if (index === null) {
        usable = false;
        break;
      }
      saved.loaded.set(language, index);
    }
    const sharing = [...this.deferred].filter(([, e]) => e.of === saved);
    for (const [slug] of sharing) this.deferred.delete(slug);
    if (!usable) {
      saved.unusable();
      for (const [slug, e] of sharing) void this.update(slug, e.state)?.catch(() => {});
      return;
    }
    for (const [slug, e] of sharing) this.versions.set(slug, new Map(e.languages.map((language) => [language, saved.loaded.get(language)!])));
    // The versions share the very same translations: their long bodies' texts are made once.
    if (sharing.length > 0) this.textsAhead(sharing[0][0], sharing[0][1].state);
  }

  /**
   * Loads the deferred indexes in the background, one language's index per step, well apart, so
   * that requests come first; starts BACKGROUND_DELAY_MS after the last restoreLater, once the
   * start is over.
   */
  private loadLater(): void {
    if (this.backgroundTimer !== null) clearTimeout(this.backgroundTimer);
    const step = () => {
      this.backgroundTimer = null;
      if (this.stopped) return;
      const saved = this.deferredSets.values().next().value;
      if (saved === undefined) return;
      const next = saved.parts.find(([language]) => !saved.loaded.has(language));
      if (next === undefined || saved.parts.length - saved.loaded.size === 1) this.install(saved);
      else {
        const index = loadIndex(saved.saved.subarray(next[1], next[2]), saved.state, next[0]);
        if (index === null) this.install(saved);
        else saved.loaded.set(next[0], index);
      }
      if (this.deferredSets.size > 0) this.backgroundTimer = setTimeout(step, BACKGROUND_GAP_MS).unref();
    };
    this.backgroundTimer = setTimeout(step, BACKGROUND_DELAY_MS).unref();
  }

  /**
   * Topics where every word of `q` occurs as a word or word prefix, in document order, at most 50;
   * `partial` when a word was so short that it matched more than MAX_PREFIX_TERMS terms and only
   * the first of them were looked at (every hit is still a match, but some may be missing).
   */
  search(state: VersionState, language: string, q: string): { hits: Hit[]; partial: boolean } {
    this.loadNow(state.slug);
    const index = this.versions.get(state.slug)?.get(language);
    const query = distinctWords(words(q));
    if (!index || query.length === 0) return { hits: [], partial: false };
    const order = documentOrder(state);
    const orderOf = documentPositions(index, state);
    const found = foundRoom.cleared(order.length);
    const { bits, partial } = index.terms.match(necessaryPrefixes(query.flatMap(queryTerms)), MAX_PREFIX_TERMS);
    for (let i = 0; i < bits.length; i++) {
      for (let word = bits[i]; word !== 0; word &= word - 1) {
        const at = orderOf[(i << 5) | (31 - Math.clz32(word & -word))];
        if (at >= 0) found[at] = 1;
      }
    }
    const hits: Hit[] = [];
    const candidates = rawMatcher(query);
    for (let at = found.indexOf(1); at >= 0 && hits.length < MAX_HITS; at = found.indexOf(1, at + 1)) {
      const t = state.translations.get(order[at])?.get(language);
      if (t) hits.push({ slug: order[at], title: t.title, summary: t.summary, snippet: snippet(t, query, candidates) });
    }
    return { hits, partial };
  }

  /**
   * Topics ranked by relevance to `q`, best first (rank-query.ts), the page `options` asks for, each
   * with the passage that matched best; when nothing matches, a "did you mean" that finds something.
   */
  ranked(state: VersionState, language: string, q: string, options: RankOptions): RankedResult {
    this.loadNow(state.slug);
    const index = this.versions.get(state.slug)?.get(language);
    if (!index) return { hits: [], total: 0, partial: false };
    const answer = rankIndexed(index, q, options.offset + options.limit);
    const hits: RankedHit[] = [];
    const terms = queryTermsOf(answer.matched);
    for (const { key, n, score } of answer.top.slice(options.offset, options.offset + options.limit)) {
      const t = index.docs.get(key);
      if (!t || !state.nodes.has(key)) continue;
      // A term the index has in neither the body nor the summary of this topic is not looked for there.
      const holds = {
        body: (term: string) => RankIndex.inBody(index.ranked.countsIn(term, n)),
        summary: (term: string) => RankIndex.inSummary(index.ranked.countsIn(term, n)),
      };
      hits.push({ slug: key, title: t.title, summary: t.summary, language, score, ...passage(t, terms, holds), breadcrumbs: breadcrumbs(state, key, language) });
    }
    const result: RankedResult = { hits, total: answer.total, partial: answer.partial };
    if (answer.total === 0) {
      const suggestion = suggest(index.ranked, answer.words);
      if (suggestion !== undefined && rankIndexed(index, suggestion, 1).total > 0) result.suggestion = suggestion;
    }
    return result;
  }
}

function rankIndexed(index: LanguageIndex, q: string, window: number) {
  return rankQuery(index.ranked, q, window, (key) => {
    const t = index.docs.get(key);
    return t && foldedFields(t);
  });
}

const foldedKept = new WeakMap<Translation, Fields>();

/** The title, summary and headings of `t` as foldedWords() makes them, kept beside it: the phrase bonus reads them for every search that ranks it high. */
function foldedFields(t: Translation): Fields {
  let f = foldedKept.get(t);
  if (f === undefined) foldedKept.set(t, (f = fieldsOf(t.title, t.summary, topicHeadings(t).map((h) => h.text))));
  return f;
}

/** The query with each word the version does not have replaced by its nearest term (rank-index.ts); undefined when no word could be. */
function suggest(ranked: RankIndex, query: Word[]): string | undefined {
  let changed = false;
  let looked = 0;
  const out = query.map((w) => {
    // A few words are looked up: each is a scan of the vocabulary's words of about its length.
    if (w.unspaced || ranked.has(w.text) || looked++ >= MAX_SUGGESTED_WORDS) return w.text;
    const near = ranked.nearest(w.text);
    if (near === undefined) return w.text;
    changed = true;
    return near;
  });
  return changed ? out.join(' ') : undefined;
}

/** Unknown words of a query a "did you mean" looks up, at most. */
const MAX_SUGGESTED_WORDS = 6;

/**
 * The breadcrumbs made for each state, by language and slug: a state never changes (a write makes
 * a new one), and the same pages come back in answer after answer. At most one entry per node and
 * language of a state; answers share them, and nothing changes them.
 */
const crumbsKept = new WeakMap<VersionState, Map<string, RankedHit['breadcrumbs']>>();

/** A node's ancestors, outermost first, titled in `language`, else in the version's primary language. */
function breadcrumbs(state: VersionState, slug: string, language: string): RankedHit['breadcrumbs'] {
  let kept = crumbsKept.get(state);
  if (kept === undefined) crumbsKept.set(state, (kept = new Map()));
  const key = `${language}\0${slug}`;
  const found = kept.get(key);
  if (found !== undefined) return found;
  const primary = primaryLanguage(state.meta);
  const made = ancestors(state, slug).map((a) => {
    const ts = state.translations.get(a);
    return { slug: a, title: (ts?.get(language) ?? ts?.get(primary))?.title ?? a };
  });
  kept.set(key, made);
  return made;
}

/** Terms one query prefix may expand to; a query's cost is bounded by this times its distinct words. */
export const MAX_PREFIX_TERMS = 5000;

/** The query's words, each once: "a a a a" costs what "a" costs. */
function distinctWords(query: Word[]): Word[] {
  const seen = new Set<string>();
  return query.filter((w) => !seen.has(w.text) && seen.add(w.text) !== undefined);
}

/**
 * The prefixes that must be looked up, longest first: a prefix of another one is implied by it
 * (every term starting with "inst" starts with "in"), and long prefixes match few terms, so an
 * empty intersection is found before the short ones are expanded.
 */
function necessaryPrefixes(prefixes: string[]): string[] {
  const sorted = [...new Set(prefixes)].sort((a, b) => b.length - a.length);
  return sorted.filter((p, i) => !sorted.slice(0, i).some((longer) => longer.startsWith(p)));
}

/** Indexes saved in another format are built again: raised when the bytes change, or what a page adds to its index (4: headings after a code block inside a list item; 5: list items followed as CommonMark has them). */
const SAVE_FORMAT = 5;

/** A saved index adopted but not loaded yet (SearchIndex.restoreLater). */
interface Deferred {
  /** The state it was saved with. */
  state: VersionState;
  saved: Uint8Array;
  /** Each language's part of `saved`: [language, from, until]. */
  parts: Array<[string, number, number]>;
  languages: string[];
  /** The languages loaded so far (in the background, one per step). */
  loaded: Map<string, LanguageIndex>;
  /** Translations maps found to hold the same translations as `state` in a language (see holdsSameKept). */
  same?: Map<string, WeakSet<VersionState['translations']>>;
  unusable: () => void;
}

/** Where each language's indexes are in bytes savePieces() wrote; null when they are not laid out so. */
function savedParts(saved: Uint8Array): Array<[string, number, number]> | null {
  try {
    if (saved.length < 4) return null;
    const bytes = Buffer.from(saved.buffer, saved.byteOffset, saved.byteLength);
    const headLength = bytes.readUInt32BE(0);
    if (4 + headLength > bytes.length) return null;
    const head = JSON.parse(bytes.toString('utf8', 4, 4 + headLength)) as { format: number; parts: Array<[string, number]> };
    if (head.format !== SAVE_FORMAT || !Array.isArray(head.parts)) return null;
    const out: Array<[string, number, number]> = [];
    let at = 4 + headLength;
    for (const [language, length] of head.parts) {
      if (typeof language !== 'string' || !Number.isInteger(length) || length < 4) return null;
      if (unpackIndexes(saved.subarray(at, at + length)) === null) return null;
      out.push([language, at, at + length]);
      at += length;
    }
    return at === bytes.length ? out : null;
  } catch {
    return null;
  }
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** holdsSame() of the deferred index's state, remembered: hundreds of copies of a version share one translations map. */
function holdsSameKept(saved: Deferred, state: VersionState, language: string): boolean {
  let known = (saved.same ??= new Map()).get(language);
  if (known === undefined) saved.same.set(language, (known = new WeakSet()));
  if (known.has(state.translations)) return true;
  if (!holdsSame(saved.state, state, language)) return false;
  known.add(state.translations);
  return true;
}

/** Whether `b` has in `language` the very same translations as `a`, and no others. */
function holdsSame(a: VersionState, b: VersionState, language: string): boolean {
  if (a.translations === b.translations) return true;
  let count = 0;
  for (const [slug, ts] of b.translations) {
    const t = ts.get(language);
    if (t === undefined) continue;
    if (a.translations.get(slug)?.get(language) !== t) return false;
    count++;
  }
  for (const ts of a.translations.values()) if (ts.has(language)) count--;
  return count === 0;
}

/** A language's indexes from the bytes packIndexes() wrote for `state`; null when they are not that, or hold a document the state does not have. */
function loadIndex(saved: Uint8Array, state: VersionState, language: string): LanguageIndex | null {
  const parts = unpackIndexes(saved);
  const terms = parts && TermIndex.load(parts.terms);
  const ranked = parts && RankIndex.load(parts.ranked);
  if (!terms || !ranked || ranked.language !== language || ranked.size !== terms.size) return null;
  const docs = new Map<string, Translation>();
  for (const key of terms.keys()) {
    const t = state.translations.get(key)?.get(language);
    if (!t) return null;
    docs.set(key, t);
  }
  return { terms, ranked, docs };
}

function emptyIndex(language: string): LanguageIndex {
  return { terms: new TermIndex(), ranked: new RankIndex(language), docs: new Map() };
}

/**
 * Each document number's index in document order, kept until the tree or the numbering changes: a
 * search then maps its matches with array reads instead of a map lookup by slug each.
 */
function documentPositions(index: LanguageIndex, state: VersionState): Int32Array {
  const cached = index.order;
  if (cached && cached.nodes === state.nodes && cached.stamp === index.terms.stamp) return cached.of;
  const positions = orderIndexes(state);
  const of = new Int32Array(index.terms.capacity).fill(-1);
  for (let n = 0; n < of.length; n++) {
    const key = index.terms.keyAt(n);
    if (key !== undefined) of[n] = positions.get(key) ?? -1;
  }
  index.order = { nodes: state.nodes, stamp: index.terms.stamp, of };
  return of;
}

/** Lines of a body converted to plain text in one step of termsInSteps, about. */
const STEP_CHARS = 2048;

/**
 * documentTerms(), the same calls on the same text, with `pause()` between the steps: the body is
 * converted a few lines at a time (each line is converted on its own), then cut into terms, then counted.
 */
async function termsInSteps(index: TermIndex, t: Translation, pause: () => Promise<void>): Promise<{ terms: DocTerms; rank: RankDoc }> {
  const terms = index.docTerms();
  const rank = new RankDoc();
  rankHead(rank, t);
  const lines: string[] = [];
  const md = t.bodyMd;
  for (let from = 0; from < md.length; ) {
    await pause();
    const end = from + STEP_CHARS >= md.length ? -1 : md.indexOf('\n', from + STEP_CHARS);
    const until = end < 0 ? md.length : end + 1;
    lines.push(...plainLines(md, from, until));
    from = until;
  }
  const body = lines.join('\n');
  await pause();
  rank.add(BODY, body);
  await pause();
  termsOf(rank, terms, t, [body]);
  return { terms, rank };
}

/** Brings the index in line with the state at once; `prepared` holds terms cut for it ahead (SearchIndex.prepare). */
function patch(index: LanguageIndex, state: VersionState, language: string, prepared?: PreparedDocs): void {
  const slugs = slugsToCheck(index, state);
  index.synced = undefined;
  dropDocuments(index, state, language, true, slugs);
  for (const [slug, t] of documentsToIndex(index.docs, state, language, slugs)) {
    // (Terms cut before the index renumbered its terms, dropping documents, are found again by their text: TermIndex.add.)
    const ready = prepared?.docs.get(slug);
    const { terms, rank } = ready !== undefined && ready.t === t ? ready : documentTerms(index.terms, t);
    index.terms.add(slug, terms);
    index.ranked.add(slug, rank);
    index.docs.set(slug, t);
  }
  index.synced = state.translations;
}

/** The slugs an update of the index to `state` must look at, or null for all of them (see LanguageIndex.synced). */
function slugsToCheck(index: LanguageIndex | undefined, state: VersionState): readonly string[] | null {
  const from = index?.synced;
  return from === undefined ? null : changedTranslationSlugs(from, state.translations);
}

/** Removes the documents the state no longer has, and with `changed` also those whose translation changed (`slugs`: only among these). */
function dropDocuments(index: LanguageIndex, state: VersionState, language: string, changed: boolean, slugs: readonly string[] | null): void {
  const drop = (slug: string, t: Translation) => {
    const now = state.translations.get(slug)?.get(language);
    if (now === t || (now !== undefined && !changed)) return;
    index.terms.remove(slug);
    index.ranked.remove(slug);
    index.docs.delete(slug);
  };
  if (slugs === null) {
    for (const [slug, t] of [...index.docs]) drop(slug, t);
    return;
  }
  for (const slug of slugs) {
    const t = index.docs.get(slug);
    if (t !== undefined) drop(slug, t);
  }
}

/** The state's translations in `language` that `docs` (an index's) does not hold as they are (`slugs`: only among these). */
function* documentsToIndex(docs: LanguageIndex['docs'], state: VersionState, language: string, slugs: readonly string[] | null = null): Generator<[string, Translation]> {
  if (slugs !== null) {
    for (const slug of slugs) {
      const t = state.translations.get(slug)?.get(language);
      if (t && docs.get(slug) !== t) yield [slug, t];
    }
    return;
  }
  for (const [slug, byLanguage] of state.translations) {
    const t = byLanguage.get(language);
    if (t && docs.get(slug) !== t) yield [slug, t];
  }
}

/**
 * Longest a search waits for the indexes of a version being built at start, in ms: a site's usual
 * size is indexed well within it; a version of tens of millions of characters may take longer, and
 * its search then answers 503 version_loading with Retry-After.
 */
const SEARCH_WAIT_MS = 2000;

/** How long after the last restoreLater() the background loading of deferred indexes starts, in ms. */
const BACKGROUND_DELAY_MS = 2000;
/** Pause between two steps of that loading, in ms: it comes after every request. */
const BACKGROUND_GAP_MS = 50;

/** A change of more text than this is indexed in slices. */
const SYNC_CHARS = 64 * 1024;
/** Work done in one turn of the event loop before other requests get theirs, in ms. */
const SLICE_MS = 5;
/** Text converted and cut into terms at once, in characters. */
const CHUNK_CHARS = 8 * 1024;

/** A build in slices ended by stop(). */
class Stopped extends Error {}

/** A pause() that yields to the event loop once SLICE_MS of work have passed since the last yield. */
function slicer(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < SLICE_MS) return;
    await nextTurn();
    since = performance.now();
  };
}

/** Characters of text in translations the index does not have yet (what update() would index). */
function changedChars(index: LanguageIndex | undefined, state: VersionState, language: string): number {
  let chars = 0;
  const docs = index?.docs;
  const slugs = slugsToCheck(index, state);
  if (slugs !== null) {
    for (const slug of slugs) {
      const t = state.translations.get(slug)?.get(language);
      if (t && docs?.get(slug) !== t) chars += textChars(t);
    }
    return chars;
  }
  for (const [slug, ts] of state.translations) {
    const t = ts.get(language);
    if (t && docs?.get(slug) !== t) chars += textChars(t);
  }
  return chars;
}

/** Whether two states hold the very same translations (the same objects) in the same languages. */
function sameTranslations(a: VersionState, b: VersionState): boolean {
  if (a.meta.languages.length !== b.meta.languages.length || !a.meta.languages.every((language) => b.meta.languages.includes(language))) return false;
  const count = (state: VersionState) => {
    let n = 0;
    for (const byLanguage of state.translations.values()) for (const language of state.meta.languages) if (byLanguage.has(language)) n++;
    return n;
  };
  for (const [slug, byLanguage] of a.translations) {
    for (const language of a.meta.languages) {
      const t = byLanguage.get(language);
      if (t !== undefined && b.translations.get(slug)?.get(language) !== t) return false;
    }
  }
  return count(a) === count(b);
}

/** Whether the index holds exactly the state's translations in `language`, the very same objects. */
function holdsExactly(index: LanguageIndex, state: VersionState, language: string): boolean {
  if (index.synced === state.translations) return true;
  let count = 0;
  for (const [slug, ts] of state.translations) {
    const t = ts.get(language);
    if (t === undefined) continue;
    if (index.docs.get(slug) !== t) return false;
    count++;
  }
  return count === index.docs.size;
}

/**
 * patch(), a slice at a time: each changed document's text is converted and cut into terms a chunk
 * at a time, then added with TermIndex.addInSlices, which swaps it in at the end; until then searches
 * find the document as it was. The ranking index takes the changed documents together at the end
 * (RankIndex.stage, fileStaged). Removed documents go at once.
 */
async function patchInSlices(index: LanguageIndex, state: VersionState, language: string, pause: () => Promise<void>): Promise<void> {
  const slugs = slugsToCheck(index, state);
  index.synced = undefined;
  dropDocuments(index, state, language, false, slugs);
  const staged: Staged = [];
  for (const [slug, t] of documentsToIndex(index.docs, state, language, slugs)) {
    const terms = index.terms.docTerms();
    const rank = new RankDoc();
    rankHead(rank, t);
    // The plain lines of a long body are its snippets' text too (body-text.ts): kept, unless a chunk was
    // cut inside a line (its lines are then not the whole body's), so textsAhead has nothing to convert again.
    let lines: string[] | null = t.bodyMd.length > AHEAD_CHARS ? [] : null;
    // The chunks' plain texts while the counts may yet give the term index its terms (RankDoc.termsInto);
    // null once they cannot, and every chunk is read for it (indexTerms) as well.
    let texts: string[] | null = rank.uncountedText ? null : [];
    if (texts === null) indexTerms(`${t.title}\n${t.summary}`, terms);
    for (const chunk of chunks(t.bodyMd)) {
      const plain = plainLines(t.bodyMd, chunk.from, chunk.until);
      const text = plain.join('\n');
      rank.add(BODY, text);
      if (texts === null) indexTerms(text, terms);
      else {
        texts.push(text);
        if (rank.uncountedText) {
          await indexTermsInSteps(terms, t, texts, pause);
          texts = null;
        }
      }
      if (lines !== null && (chunk.until === t.bodyMd.length || t.bodyMd.charCodeAt(chunk.until - 1) === 10)) lines.push(...plain);
      else lines = null;
      await pause();
    }
    if (lines !== null) keepBodyText(t, lines.join('\n'));
    if (texts !== null && !rank.termsInto(terms)) await indexTermsInSteps(terms, t, texts, pause);
    terms.done();
    await index.terms.addInSlices(slug, terms, pause);
    await index.ranked.stage(staged, slug, rank, pause);
    index.docs.set(slug, t);
  }
  await index.ranked.fileStaged(staged, pause);
  index.synced = state.translations;
}

/** indexTerms() of the title and summary, then of each of `texts` (a body's chunks), a pause after each. */
async function indexTermsInSteps(terms: DocTerms, t: Translation, texts: readonly string[], pause: () => Promise<void>): Promise<void> {
  indexTerms(`${t.title}\n${t.summary}`, terms);
  for (const text of texts) {
    indexTerms(text, terms);
    await pause();
  }
}

/**
 * The body in pieces of about CHUNK_CHARS, cut at line ends (lines are converted on their own), or,
 * in a line longer than that, after white space, or else anywhere with one character of overlap (so
 * the character pair across the cut in unspaced scripts is still indexed).
 */
function* chunks(body: string): Generator<{ from: number; until: number }> {
  for (let from = 0; from < body.length; ) {
    let until = Math.min(body.length, from + CHUNK_CHARS);
    let next = until;
    if (until < body.length) {
      const newline = body.lastIndexOf('\n', until);
      if (newline > from) next = until = newline + 1;
      else {
        const space = body.slice(until - 1024, until).search(/\s\S*$/);
        if (space >= 0) next = until = until - 1024 + space + 1;
        else next = until - 1;
      }
    }
    yield { from, until };
    from = next;
  }
}

/** search()'s marks in document order, kept from one search to the next (room.ts). */
const foundRoom = new Room((n) => new Uint8Array(n));
