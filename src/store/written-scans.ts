import { scanOf } from '../content/link-check.ts';
import type { Translation, VersionState } from '../domain/types.ts';
import { changedSlugsOf } from '../domain/translation-changes.ts';

/**
 * Translations a write may change and still have their link scans made ahead: the answer to a write
 * of a few topics lists their broken links (content/version-links.ts), while an import of a whole
 * version checks its links on its own terms.
 */
const MAX_WARMED = 16;

/**
 * The translations that `after` holds and `before` did not, whose link scans (kept per translation
 * record, content/link-check.ts) a write makes while its commit is made durable, so that its answer
 * finds them made; none when the write changed more than MAX_WARMED.
 */
export function writtenTranslations(before: VersionState | null, after: VersionState | null): Translation[] {
  if (after === null) return [];
  const written: Translation[] = [];
  // Only the slugs whose translations changed (translation-changes.ts), not every node's.
  for (const slug of changedSlugsOf(before, after)) {
    const byLanguage = after.translations.get(slug);
    if (byLanguage === undefined) continue;
    const old = before?.translations.get(slug);
    for (const [language, t] of byLanguage) {
      if (old?.get(language) === t) continue;
      if (written.length === MAX_WARMED) return [];
      written.push(t);
    }
  }
  return written;
}

/** Makes the translation's link scan, if it is not made yet (only a cache is filled). */
export const warmScan = (t: Translation): void => void scanOf(t);
