import { readIncomingFiles } from '../../content/incoming.ts';
import { alignBases, minorSlugs } from '../../content/translation-base.ts';
import { replaceWithFiles } from '../../domain/import-files.ts';
import type { VersionState } from '../../domain/types.ts';
import { demoteLatest } from '../../domain/versions.ts';
import type { VersionChange, WriteContext, WritePlan } from '../../store/writer.ts';
import type { PushedFolder } from './pushed-tree.ts';

const short = (oid: string) => oid.slice(0, 7);

/**
 * The service's commit after an accepted push: for each changed version what import-files would
 * write for the same files (stamps for what changed, translation bases, the latest mark taken from
 * another version), keeping the status and visibility the pushed version.json gives.
 */
export function stampsPlan(folders: readonly PushedFolder[], before: ReadonlyMap<string, VersionState | null>, pushed: string, portalPath: string, served: readonly VersionState[]) {
  return (ctx: WriteContext): WritePlan<string | null> => {
    const changes: VersionChange[] = [];
    const minor = new Set<string>();
    let created = 0;
    let updated = 0;
    let deleted = 0;
    for (const folder of folders) {
      const current = before.get(folder.slug) ?? null;
      const { incoming } = readIncomingFiles(folder.files, folder.slug, current, ctx.now, ctx.newId, undefined, portalPath);
      const { state, summary } = replaceWithFiles(current, incoming, ctx.now);
      created += summary.created;
      updated += summary.updated;
      deleted += summary.deleted;
      const fields = { ...state.meta, status: incoming.meta.status, hidden: incoming.meta.hidden, workingCopyOf: incoming.meta.workingCopyOf };
      const same = current !== null && (['label', 'status', 'isLatest', 'sortOrder', 'hidden', 'workingCopyOf'] as const).every((k) => current.meta[k] === fields[k]) && current.meta.languages.join() === fields.languages.join();
      const meta = { ...fields, updatedAt: same ? current.meta.updatedAt : state.meta.updatedAt };
      for (const slug of minorSlugs(incoming)) minor.add(slug);
      changes.push({ slug: folder.slug, after: alignBases(current, { ...state, meta }, { minor: minorSlugs(incoming), imported: true }) });
    }
    const pushedLatest = changes.find((c) => c.after?.meta.isLatest)?.slug;
    if (pushedLatest !== undefined) {
      for (const other of served) if (other.meta.isLatest && other.slug !== pushedLatest && !folders.some((f) => f.slug === other.slug)) changes.push({ slug: other.slug, after: demoteLatest(other, ctx.now) });
    }
    const counts = `${created} created, ${updated} updated, ${deleted} deleted`;
    return {
      changes,
      bases: { minor, imported: true },
      changedFrom: before,
      event: { type: 'import.completed', data: { source: 'git-push', commit: pushed, versions: folders.map((f) => f.slug), created, updated, deleted } },
      message: `Record the stamps of push ${short(pushed)} (${folders.map((f) => f.slug).join(', ')}): ${counts}`,
      result: null,
    };
  };
}
