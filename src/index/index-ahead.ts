import { textChars } from '../domain/translations.ts';
import type { Translation } from '../domain/types.ts';
import type { BuildStream, Document, IndexBuilder } from './index-workers.ts';
import { nextTurn } from '../slices.ts';

/** Translation files read before the projection of a version's size is trusted (a first long file would promise too much). */
const MIN_SEEN = 32;
/** Text of the documents held back that goes to the builder in one turn of the event loop once the builds start, in characters. */
const DRAIN_CHARS = 1 << 20;

type Held = [language: string, key: string, translation: Translation];

/**
 * A version's documents as they are read from git (a start without its snapshot), sent to the
 * builder's threads as they come, so that reading, parsing and indexing overlap instead of following
 * one another. Held back until the text read so far, projected over the version's translation files,
 * passes `minChars` (below it the version is indexed where it would have been without this: on the
 * main thread unless it turns out larger); then one build per language, the documents held back sent
 * first, a slice per turn of the event loop. SearchIndex.update() takes a language's index from here
 * only when it was built from exactly the documents of the version's state (take()); any other
 * language is built as usual.
 */
export class IndexAhead {
  /** Documents not sent yet: all of them until the builds start, then those waiting for the ones before. */
  private held: Held[] = [];
  /** Every document fed, by language and key (the last one fed for a key), whether sent or held. */
  private readonly fed = new Map<string, Map<string, Translation>>();
  private readonly builds = new Map<string, BuildStream>();
  /** Languages whose builds take() handed out. */
  private readonly taken = new Set<string>();
  private seen = 0;
  private chars = 0;
  private ended = false;
  private begun = false;
  /** Resolves once no document is held back any more (after the builds started). */
  private drained: Promise<void> = Promise.resolve();

  /** `files`: the translation files the version has; `onEnd`: told once it is abandoned. */
  constructor(
    private readonly builder: IndexBuilder,
    private readonly files: number,
    private readonly minChars: number,
    private readonly onEnd: () => void,
  ) {}

  /** Whether the builds have started (the documents read promised more than `minChars`). The version may still be indexed otherwise. */
  get started(): boolean {
    return this.begun;
  }

  /** A translation read (`language` as the state will name it; `key`: the node's slug). */
  add(language: string, key: string, translation: Translation): void {
    if (this.ended) return;
    this.seen++;
    this.chars += textChars(translation);
    let byKey = this.fed.get(language);
    if (byKey === undefined) this.fed.set(language, (byKey = new Map()));
    byKey.set(key, translation);
    if (this.begun && this.held.length === 0) {
      this.send(language, key, translation);
      return;
    }
    this.held.push([language, key, translation]);
    if (this.begun || this.seen < Math.min(this.files, MIN_SEEN) || (this.chars * this.files) / this.seen <= this.minChars) return;
    this.begun = true;
    this.drained = this.drain();
  }

  /**
   * The index of `documents` (a language of the version's state), when the documents fed in that
   * language are exactly these; undefined when they are not (its build is then given up).
   */
  take(language: string, documents: readonly Document[]): Promise<Uint8Array> | undefined {
    const byKey = this.fed.get(language);
    if (!this.begun || this.ended || byKey === undefined) return undefined;
    this.fed.delete(language);
    if (byKey.size !== documents.length || !documents.every(([key, t]) => byKey.get(key) === t)) {
      this.builds.get(language)?.abandon();
      this.builds.delete(language);
      return undefined;
    }
    this.taken.add(language);
    return this.drained.then(() => {
      // Every document fed in this language has been sent (it had some): its build exists.
      const build = this.builds.get(language)!;
      this.builds.delete(language);
      return build.finish();
    });
  }

  /** Takes no more documents, and gives up every build not taken (those taken still get the documents held back for them). */
  abandon(): void {
    if (this.ended) return;
    this.ended = true;
    for (const [language, build] of this.builds) {
      if (this.taken.has(language)) continue;
      build.abandon();
      this.builds.delete(language);
    }
    this.fed.clear();
    this.onEnd();
  }

  /** Sends the documents held back, a slice per turn of the event loop: posting megabytes at once would hold it. */
  private async drain(): Promise<void> {
    let next = 0;
    while (next < this.held.length) {
      let chars = 0;
      for (; next < this.held.length && chars < DRAIN_CHARS; next++) {
        const [language, key, t] = this.held[next];
        this.send(language, key, t);
        chars += textChars(t);
      }
      if (next < this.held.length) await nextTurn();
    }
    this.held = [];
  }

  private send(language: string, key: string, translation: Translation): void {
    // Once given up, only the languages taken are still built.
    if (this.ended && !this.taken.has(language)) return;
    let build = this.builds.get(language);
    if (build === undefined) this.builds.set(language, (build = this.builder.stream()));
    build.add(key, translation);
  }
}
