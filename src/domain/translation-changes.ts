import type { VersionState } from './types.ts';

type Translations = VersionState['translations'];

/**
 * Which slugs' translations differ between two states of a version, without a pass over every node
 * when it can. A write makes its new translations map from the old one by replacing the entries of
 * a few slugs (withTranslations, alignBases), and notes which; the writer, the search index, history,
 * the stamps files and the files to commit then ask what changed, and each used to compare the two
 * maps entry by entry: at 2,000 nodes in three languages several passes of 6,000 lookups a write,
 * about a fifth of a small write's work. What a map was made from is kept beside it (weakly: it goes
 * with the map); a map made otherwise (an import, a move, a load) is compared whole, as before.
 */
const madeFrom = new WeakMap<Translations, { from: WeakRef<Translations>; slugs: readonly string[] }>();

/**
 * Notes that `to` is `from` with the entries of `slugs` replaced, added or removed (and no other).
 * `from` is held weakly: each map of a version's history would otherwise keep the one before it,
 * and every map since the start would stay in memory.
 */
export function noteTranslationsChanged(from: Translations, to: Translations, slugs: readonly string[]): void {
  madeFrom.set(to, { from: new WeakRef(from), slugs });
}

/** Notes followed back from a map before it is compared whole instead. */
const MAX_STEPS = 32;

/** The last answer: the consumers of one write ask the same pair in turn. */
let last: { from: Translations; to: Translations; slugs: string[] } | null = null;

/**
 * The slugs whose translations entry is not the same object in `from` and `to` (present in one only,
 * or replaced): those `to` was noted to be made from `from` with, when the notes lead back to it, else
 * a comparison of every entry (`to`'s order, then the slugs `to` no longer has).
 */
export function changedTranslationSlugs(from: Translations, to: Translations): string[] {
  if (from === to) return [];
  if (last !== null && last.from === from && last.to === to) return last.slugs;
  const slugs = notedBetween(from, to) ?? compared(from, to);
  last = { from, to, slugs };
  return slugs;
}

function notedBetween(from: Translations, to: Translations): string[] | null {
  const seen = new Set<string>();
  let at = to;
  for (let step = 0; step < MAX_STEPS; step++) {
    const note = madeFrom.get(at);
    if (note === undefined) return null;
    for (const slug of note.slugs) seen.add(slug);
    const before = note.from.deref();
    // A map no longer held by anyone is not `from` (the caller holds that one): the notes end there.
    if (before === undefined) return null;
    if (before === from) return [...seen].filter((slug) => from.get(slug) !== to.get(slug));
    at = before;
  }
  return null;
}

function compared(from: Translations, to: Translations): string[] {
  const slugs: string[] = [];
  let same = 0;
  for (const [slug, byLanguage] of to) {
    if (from.get(slug) === byLanguage) same++;
    else slugs.push(slug);
  }
  if (same < from.size) for (const slug of from.keys()) if (!to.has(slug)) slugs.push(slug);
  return slugs;
}

/** The slugs whose translations a write from `before` (null: nothing, a new version) to `after` changed. */
export function changedSlugsOf(before: Pick<VersionState, 'translations'> | null, after: Pick<VersionState, 'translations'>): Iterable<string> {
  return before === null ? after.translations.keys() : changedTranslationSlugs(before.translations, after.translations);
}
