import { sortOrderOf } from './tree.ts';
import type { NodeRec, Translation, TranslationsOf, VersionState } from './types.ts';

export interface FilesSummary {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  slugs: { created: string[]; updated: string[]; deleted: string[] };
}

const sameTranslation = (a: Translation | undefined, b: Translation) => a !== undefined && a.title === b.title && a.summary === b.summary && a.bodyMd === b.bodyMd;

/**
 * The stamp of a translation the files change: the file's own when it is later than the stamp it
 * replaces and not after `now` (files written before stamps moved to `.stamps/` carry them in front
 * matter, and publish requests made then carried the working copy's: taking them keeps the service's
 * stamps equal to what those files say), else `now` (a file edited by hand keeps its old stamp, or
 * has none, and a change must get a new one, or a stale write would pass its check).
 */
function changedStamp(existing: Translation | undefined, given: string, now: string): string {
  return given <= now && (existing === undefined || given > existing.updatedAt) ? given : now;
}

/**
 * The version's new state when its content is replaced by `incoming` (read from content files):
 * what did not change keeps its stamp (and record), what changed is stamped `now` (a translation, its
 * file's stamp when that is later: changedStamp). The result is
 * published; `isLatest` comes from the files.
 */
export function replaceWithFiles(current: VersionState | null, incoming: VersionState, now: string): { state: VersionState; summary: FilesSummary } {
  const slugs: FilesSummary['slugs'] = { created: [], updated: [], deleted: [] };
  let unchanged = 0;
  const nodes = new Map<string, NodeRec>();
  const translations = new Map<string, TranslationsOf>();
  for (const [slug, node] of incoming.nodes) {
    const before = current?.nodes.get(slug);
    const fieldsSame =
      before !== undefined &&
      before.id === node.id &&
      before.kind === node.kind &&
      before.icon === node.icon &&
      before.parentSlug === node.parentSlug &&
      sortOrderOf(current!, slug) === sortOrderOf(incoming, slug);
    nodes.set(slug, { ...node, updatedAt: fieldsSame ? before.updatedAt : now });
    const old = current?.translations.get(slug);
    const next = new Map<string, Translation>();
    let textSame = old !== undefined && old.size === (incoming.translations.get(slug)?.size ?? 0);
    for (const [language, t] of incoming.translations.get(slug) ?? []) {
      const existing = old?.get(language);
      if (sameTranslation(existing, t)) next.set(language, existing!);
      else {
        next.set(language, { ...t, updatedAt: changedStamp(existing, t.updatedAt, now) });
        textSame = false;
      }
    }
    translations.set(slug, next);
    if (!before) slugs.created.push(slug);
    else if (fieldsSame && textSame) unchanged++;
    else slugs.updated.push(slug);
  }
  for (const slug of current?.nodes.keys() ?? []) if (!incoming.nodes.has(slug)) slugs.deleted.push(slug);
  const fields = { ...incoming.meta, status: 'published' as const, hidden: false, workingCopyOf: null };
  const sameFields =
    current !== null &&
    (['label', 'status', 'isLatest', 'sortOrder', 'hidden', 'workingCopyOf'] as const).every((k) => current.meta[k] === fields[k]) &&
    current.meta.languages.join() === fields.languages.join();
  const meta = { ...fields, createdAt: current?.meta.createdAt ?? now, updatedAt: sameFields ? current.meta.updatedAt : now };
  return {
    state: { slug: incoming.slug, meta, nodes, roots: incoming.roots, translations },
    summary: { created: slugs.created.length, updated: slugs.updated.length, deleted: slugs.deleted.length, unchanged, slugs },
  };
}
