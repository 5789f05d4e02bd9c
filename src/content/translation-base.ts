import { createHash } from 'node:crypto';
import { primaryLanguage, type Translation, type TranslationsOf, type VersionState } from '../domain/types.ts';
import { changedSlugsOf, noteTranslationsChanged } from '../domain/translation-changes.ts';
import { renderMarkdownFile } from './markdown-file.ts';

/**
 * Which revision of the primary-language text a translation was last brought in line with.
 *
 * A revision is the git blob id of the primary translation's file as the service stores it: a
 * content hash, so comparing needs no git walk, and it survives everything that carries the text
 * (export and import, content files, duplication, restarts); and an object of the repository, so the
 * primary's text at that revision, for a diff, is one object read. A translation carries the revision
 * it is based on (`basedOn`, in its front matter). The primary's revision is its own file's id, unless
 * minor edits followed its last real change: then its `basedOn` keeps that change's revision, so a
 * minor edit outdates nothing.
 */

/** git's id of a blob holding `text` (UTF-8), as the writer stores a rendered file. */
export function blobIdOf(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** Revisions by record: records are immutable and shared between states, so each is hashed once. */
const revisions = new WeakMap<Translation, string>();

/** The revision of a primary-language text that its translations are compared against. */
export function revisionOf(primary: Translation): string {
  if (primary.basedOn !== undefined) return primary.basedOn;
  let id = revisions.get(primary);
  if (id === undefined) revisions.set(primary, (id = blobIdOf(renderMarkdownFile(primary))));
  return id;
}

/** Whether a translation lags behind its primary text: it records a base, and the primary has changed (not minor) since. */
export function isOutdated(state: VersionState, slug: string, language: string, t: Translation): boolean {
  const primaryLang = primaryLanguage(state.meta);
  if (language === primaryLang || t.basedOn === undefined) return false;
  const primary = state.translations.get(slug)?.get(primaryLang);
  return primary !== undefined && revisionOf(primary) !== t.basedOn;
}

/**
 * Primary texts in content files marked `minor: true` (read from the same parse): the mark is a
 * statement about one change, never stored, so it is kept beside the record rather than in it.
 */
const minorMarks = new WeakSet<Translation>();

export const markMinor = (t: Translation) => void minorMarks.add(t);
export const isMarkedMinor = (t: Translation | undefined) => t !== undefined && minorMarks.has(t);

/** The slugs of `incoming` (parsed content files) whose primary text is marked minor. */
export function minorSlugs(incoming: VersionState): Set<string> {
  const primaryLang = primaryLanguage(incoming.meta);
  const out = new Set<string>();
  for (const [slug, byLanguage] of incoming.translations) if (isMarkedMinor(byLanguage.get(primaryLang))) out.add(slug);
  return out;
}

export interface AlignOptions {
  /** Slugs whose primary text changes by a minor edit in this write. */
  minor?: ReadonlySet<string>;
  /** The changed translations' `basedOn` are stated by the source (an export document): kept as they come. */
  basesStated?: boolean;
  /**
   * The write imports content (a document, content files): a translation new to the version that
   * states no base stays without one, rather than every file of a first import gaining a line.
   */
  imported?: boolean;
  /**
   * `after` and its translations map were made for this write from `before` and nobody else holds
   * them yet: the map is aligned in place rather than copied. A copy of a large version's map (a
   * hash table of every node, about 57 KB at 2,000 nodes) outlives a young-generation collection with
   * the state that holds it, and a PUT of a translation made two of them.
   */
  fresh?: boolean;
}

const sameText = (a: Translation, b: Translation) => a.title === b.title && a.summary === b.summary && a.bodyMd === b.bodyMd;

const withBase = (t: Translation, basedOn: string | undefined): Translation => {
  if (t.basedOn === basedOn) return t;
  const { basedOn: _, ...rest } = t;
  return basedOn === undefined ? rest : { ...rest, basedOn };
};

/**
 * Sets the bases of what a write changes (`before` → `after`): a translation written is brought in
 * line with the primary text as it is after the write; a primary text changed keeps its revision when
 * the change is minor, and gets a new one (its own id) otherwise; what the write leaves alone keeps
 * its base. A record new to its node (a new node, a rename, a first import) keeps the base it
 * carries, as a file or document says it (an import leaves one that says none without); a changed
 * translation keeps one only when it differs from the one it replaces (stated, not carried over) or
 * `basesStated`. Untouched records keep their
 * identity, so this costs a pass over the maps.
 */
export function alignBases(before: VersionState | null, after: VersionState, options: AlignOptions = {}): VersionState {
  if (before !== null && before.translations === after.translations) return after;
  const primaryLang = primaryLanguage(after.meta);
  let translations: Map<string, TranslationsOf> | null = null;
  const aligned: string[] = [];
  // Only the slugs the write changed (translation-changes.ts): the others keep their records.
  for (const slug of changedSlugsOf(before, after)) {
    const byLanguage = after.translations.get(slug);
    if (byLanguage === undefined) continue;
    const old = before?.translations.get(slug);
    const next = alignNode(old, byLanguage, primaryLang, options.minor?.has(slug) ?? false, options.basesStated ?? false, options.imported ?? false);
    if (next === byLanguage) continue;
    if (options.fresh === true) (after.translations as Map<string, TranslationsOf>).set(slug, next);
    else {
      translations ??= new Map(after.translations);
      translations.set(slug, next);
    }
    aligned.push(slug);
  }
  if (translations === null) return after;
  noteTranslationsChanged(after.translations, translations, aligned);
  return { ...after, translations };
}

function alignNode(old: TranslationsOf | undefined, byLanguage: TranslationsOf, primaryLang: string, minor: boolean, stated: boolean, imported: boolean): TranslationsOf {
  let next: Map<string, Translation> | null = null;
  const set = (language: string, t: Translation, aligned: Translation) => {
    if (aligned === t) return;
    next ??= new Map(byLanguage);
    next.set(language, aligned);
  };
  const primary = byLanguage.get(primaryLang);
  const oldPrimary = old?.get(primaryLang);
  let current = primary;
  if (primary !== undefined && oldPrimary !== undefined && primary !== oldPrimary && !(stated && primary.basedOn !== undefined)) {
    const base = sameText(primary, oldPrimary) ? oldPrimary.basedOn : minor ? revisionOf(oldPrimary) : undefined;
    current = withBase(primary, base);
    set(primaryLang, primary, current);
  }
  if (current === undefined) return next ?? byLanguage;
  for (const [language, t] of byLanguage) {
    if (language === primaryLang) continue;
    const was = old?.get(language);
    if (t === was || (imported && was === undefined && t.basedOn === undefined)) continue;
    const keeps = t.basedOn !== undefined && (was === undefined || stated || t.basedOn !== was.basedOn);
    if (!keeps) set(language, t, withBase(t, revisionOf(current)));
  }
  return next ?? byLanguage;
}

/** What a read says of a translation that lags behind: `{ outdated: true, primaryUpdatedAt }` (the primary's newer stamp), or nothing. */
export function outdatedFields(state: VersionState, slug: string, language: string, t: Translation | undefined): { outdated?: true; primaryUpdatedAt?: string } {
  if (t === undefined || !isOutdated(state, slug, language, t)) return {};
  return { outdated: true, primaryUpdatedAt: state.translations.get(slug)!.get(primaryLanguage(state.meta))!.updatedAt };
}
