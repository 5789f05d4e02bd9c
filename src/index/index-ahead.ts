import type { Translation } from '../domain/types.ts';
import type { BuildStream, Document, IndexBuilder } from './index-workers.ts';

/** Translation files read before the projection of a version's size is trusted (a first long file would promise too much). */
const MIN_SEEN = 32;

/**
 * A version's documents as they are read from git (a start without its snapshot), sent to the
 * builder's threads as they come, so that reading, parsing and indexing overlap instead of following
 * one another. Held back until the text read so far, projected over the version's translation files,
 * passes the builder's minChars (a small version is indexed on the main thread, as before); then one
 * build per language. SearchIndex.update() takes a language's index from here only when it was built
 * from exactly the documents of the version's state (take()); any other language is built as usual.
 */
export class IndexAhead {
  /** Documents fed before the builds started; null once they have. */
  private held: Array<[language: string, key: string, translation: Translation]> | null = [];
  private readonly builds = new Map<string, { documents: Map<string, Translation>; stream: BuildStream }>();
  private seen = 0;
  private chars = 0;
  private ended = false;
  private begun = false;

  /** `files`: the translation files the version has; `onEnd`: told once it is abandoned or taken. */
  constructor(
    private readonly builder: IndexBuilder,
    private readonly files: number,
    private readonly onEnd: () => void,
  ) {}

  /** Whether the builds have started (the documents so far promise enough text). */
  get started(): boolean {
    return this.begun;
  }

  /** A translation read (`language` as the state will name it; `key`: the node's slug). */
  add(language: string, key: string, translation: Translation): void {
    if (this.ended) return;
    this.seen++;
    this.chars += translation.title.length + translation.summary.length + translation.bodyMd.length;
    if (this.held === null) {
      this.send(language, key, translation);
      return;
    }
    this.held.push([language, key, translation]);
    if (this.seen < Math.min(this.files, MIN_SEEN) || (this.chars * this.files) / this.seen <= this.builder.minChars) return;
    const held = this.held;
    this.held = null;
    this.begun = true;
    for (const [l, k, t] of held) this.send(l, k, t);
  }

  /**
   * The index of `documents` (a language of the version's state), when it is being built from exactly
   * these; undefined when it is not (it is then given up).
   */
  take(language: string, documents: readonly Document[]): Promise<Uint8Array> | undefined {
    const build = this.builds.get(language);
    if (build === undefined) return undefined;
    this.builds.delete(language);
    if (build.documents.size === documents.length && documents.every(([key, t]) => build.documents.get(key) === t)) return build.stream.finish();
    build.stream.abandon();
    return undefined;
  }

  /** Gives up every build not taken. */
  abandon(): void {
    if (this.ended) return;
    this.ended = true;
    this.held = null;
    for (const build of this.builds.values()) build.stream.abandon();
    this.builds.clear();
    this.onEnd();
  }

  private send(language: string, key: string, translation: Translation): void {
    let build = this.builds.get(language);
    if (build === undefined) this.builds.set(language, (build = { documents: new Map(), stream: this.builder.stream() }));
    build.documents.set(key, translation);
    build.stream.add(key, translation);
  }
}
