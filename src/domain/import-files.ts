import { afterDelete, afterRename, NO_REDIRECTS, redirectList, redirectsOf, settleRedirects, withRedirects } from './redirects.ts';
import { sortOrderOf } from './tree.ts';
import type { NodeRec, Translation, TranslationsOf, VersionState } from './types.ts';

export interface FilesSummary {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  slugs: { created: string[]; updated: string[]; deleted: string[] };
  /** Nodes the files give another slug (the same id): each also counted and listed as updated, its old slug now a redirect. */
  renamed: Array<{ from: string; to: string }>;
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
  const renamedFrom = renamesById(current, incoming);
  for (const [slug, node] of incoming.nodes) {
    const oldSlug = renamedFrom.get(slug) ?? slug;
    const before = current?.nodes.get(oldSlug);
    const fieldsSame =
      oldSlug === slug &&
      before !== undefined &&
      before.id === node.id &&
      before.kind === node.kind &&
      before.icon === node.icon &&
      before.parentSlug === node.parentSlug &&
      sortOrderOf(current!, slug) === sortOrderOf(incoming, slug);
    nodes.set(slug, { ...node, updatedAt: fieldsSame ? before.updatedAt : now });
    const old = current?.translations.get(oldSlug);
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
  const renamed = new Set(renamedFrom.values());
  for (const slug of current?.nodes.keys() ?? []) if (!incoming.nodes.has(slug) && !renamed.has(slug)) slugs.deleted.push(slug);
  const fields = { ...incoming.meta, status: 'published' as const, hidden: false, workingCopyOf: null };
  const sameFields =
    current !== null &&
    (['label', 'status', 'isLatest', 'sortOrder', 'hidden', 'workingCopyOf'] as const).every((k) => current.meta[k] === fields[k]) &&
    current.meta.languages.join() === fields.languages.join();
  const meta = { ...fields, createdAt: current?.meta.createdAt ?? now, updatedAt: sameFields ? current.meta.updatedAt : now };
  const redirects = filesRedirects(current, incoming, renamedFrom, slugs.deleted);
  return {
    state: withRedirects({ slug: incoming.slug, meta, nodes, roots: incoming.roots, translations }, redirects),
    summary: { created: slugs.created.length, updated: slugs.updated.length, deleted: slugs.deleted.length, unchanged, slugs, renamed: [...renamedFrom].map(([to, from]) => ({ from, to })) },
  };
}

/**
 * Nodes the files give a new slug, found by id: new slug → old slug. A node whose slug the files no
 * longer have, and whose id a node under a slug the version does not have yet carries, was renamed
 * (a writer renamed its files and its nav entry, keeping the id).
 */
function renamesById(current: VersionState | null, incoming: VersionState): Map<string, string> {
  const out = new Map<string, string>();
  if (current === null) return out;
  const goneById = new Map<string, string>();
  for (const node of current.nodes.values()) if (!incoming.nodes.has(node.slug)) goneById.set(node.id, node.slug);
  for (const node of incoming.nodes.values()) {
    const old = current.nodes.has(node.slug) ? undefined : goneById.get(node.id);
    if (old !== undefined) out.set(node.slug, old);
  }
  return out;
}

/**
 * The version's redirects after the files: those it had, the renames the files make, then those
 * the files' version.json gives (which win for the same old slug); redirects to deleted nodes go
 * (their addresses kept as removed when the version was published), and a node wins over an old slug.
 * Those the version had are kept although the files lack them: a content repository learns of a
 * rename made by import-files only from the service's next publish request.
 */
function filesRedirects(current: VersionState | null, incoming: VersionState, renamedFrom: ReadonlyMap<string, string>, deleted: readonly string[]) {
  let r = current === null ? NO_REDIRECTS : redirectsOf(current);
  for (const [to, from] of renamedFrom) r = afterRename(r, from, to);
  r = afterDelete(r, deleted, current?.meta.status === 'published');
  const given = redirectsOf(incoming);
  const merged = new Map([...r.moved, ...given.moved]);
  // The files' own redirects were checked when they were read; what is left cannot loop, and is settled quietly.
  return settleRedirects(redirectList({ moved: merged, removed: [] }), [...r.removed, ...given.removed], (slug) => incoming.nodes.has(slug), () => {});
}
