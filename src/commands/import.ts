import type { IncomingFile } from '../content/file-import.ts';
import { checkImportLimits, readImportFiles } from '../content/import-check.ts';
import { lineAt } from '../content/problems.ts';
import { applyImport, type ImportMode, type ImportNode, type OldAddresses } from '../domain/import.ts';
import { replaceWithFiles } from '../domain/import-files.ts';
import { minorSlugs } from '../content/translation-base.ts';
import { demoteLatest } from '../domain/versions.ts';
import { importedTrailer, type Publisher } from '../publishing/publisher.ts';
import { workingCopySlug } from '../publishing/working-copies.ts';
import type { Author, VersionChange, Writer } from '../store/writer.ts';

/**
 * Imports an export document: `merge` upserts, `replace` also deletes what the document leaves out.
 * A dry run computes the same answer without writing.
 */
export async function importDocument(writer: Writer, author: Author, version: string, nodes: readonly ImportNode[], mode: ImportMode, dryRun: boolean, at = 'body/nodes', old: OldAddresses = {}) {
  return writer.run(dryRun, version, author, (ctx) => {
    const { state, diff } = applyImport(ctx.read(version), nodes, mode, ctx.now, ctx.newId, at, old);
    const counts = `${diff.created.length} created, ${diff.updated.length} updated, ${diff.deleted.length} deleted`;
    const event = { type: 'import.completed' as const, data: { source: 'document', mode, created: diff.created.length, updated: diff.updated.length, deleted: diff.deleted.length } };
    // A document states each translation's base (its export's), as files state theirs.
    return { changes: [{ slug: version, after: state }], message: `Import ${nodes.length} node(s) into ${version} (${mode}): ${counts}`, result: { diff, state }, event, bases: { basesStated: true, imported: true } };
  });
}

/**
 * Replaces a version's content with content files and publishes it (creating it if needed), in one
 * commit that also moves `isLatest`, drops the version's working copy, whose work is now live, and
 * names the version's open publish requests, which it completes (requests.json follows, at once or
 * at the next start). A dry run computes the same answer without writing.
 */
export async function importFiles(deps: { writer: Writer; publisher: Publisher; portalPath: string }, author: Author, version: string, files: readonly IncomingFile[], dryRun: boolean) {
  checkImportLimits(files);
  const wip = workingCopySlug(version);
  // Asked before the write (the host may be asked whether a pull request is merged); a request the
  // host merges meanwhile is completed by the next import, or marked merged by its webhook.
  const completed = deps.publisher.enabled ? await deps.publisher.completedBy(version) : [];
  const requests = completed.map((r) => r.id);
  // Warnings about the version as a whole are given at its version.json, as sent.
  const versionFile = files.find((f) => /(^|\/)version\.json$/.test(f.path));
  const versionPath = versionFile?.path ?? 'version.json';
  const result = await deps.writer.runVersions(dryRun, [version, wip], author, (ctx) => {
    const current = ctx.exists(version) ? ctx.read(version) : null;
    const { incoming, warnings } = readImportFiles(files, version, current, ctx.now, ctx.newId, deps.portalPath);
    const { state, summary } = replaceWithFiles(current, incoming, ctx.now);
    const minor = minorSlugs(incoming);
    const changes: VersionChange[] = [{ slug: version, after: state }];
    const latest = ctx.readLatest();
    const demoted = state.meta.isLatest && latest && latest.slug !== version ? latest.slug : null;
    if (demoted !== null) {
      changes.push({ slug: demoted, after: demoteLatest(latest!, ctx.now) });
      // Said, not done quietly: an export of the latest version imported under another slug carries the flag along.
      const at = versionFile ? /"isLatest"\s*:/.exec(versionFile.content) : null;
      warnings.push({
        path: versionPath,
        ...(versionFile && at ? { line: lineAt(versionFile.content, at.index) } : {}),
        message: `"isLatest": true makes ${version} the latest version in place of ${demoted} (pdf-bundle and the portal's latest follow it); set it to false to keep ${demoted} latest`,
      });
    }
    // The working copy goes when its work is what goes live: a completed request was made from it,
    // and it holds nothing made since. Otherwise it is kept, and the answer says why.
    const copy = ctx.peek(wip);
    let dropCopy = false;
    if (copy?.meta.workingCopyOf === version) {
      const from = completed.filter((r) => r.sourceSlug === wip);
      dropCopy = from.some((r) => deps.publisher.sourceUnchanged(r, copy));
      if (!dropCopy) {
        const why =
          from.length > 0
            ? `it changed after publish request ${from[0].id} was made, and those edits are not in this import: open another publish request from it, or discard it`
            : 'this import completes no publish request made from it, so its work is not live; it was made before this import, so a publish request from it as it is would replace what this import brings';
        warnings.push({ path: versionPath, message: `working copy ${wip} is kept: ${why}` });
      }
    }
    if (dropCopy) changes.push({ slug: wip, after: null });
    const counts = `${summary.created} created, ${summary.updated} updated, ${summary.deleted} deleted`;
    // The commit names the publish requests it completes: the record that they are imported.
    return {
      changes,
      bases: { minor, imported: true },
      event: { type: 'import.completed' as const, data: { source: 'files', created: summary.created, updated: summary.updated, deleted: summary.deleted, publishRequests: requests } },
      message: `Import content files into ${version}: ${counts}${demoted !== null ? `; latest moves from ${demoted}` : ''}${dropCopy ? `; discard working copy ${wip}` : ''}${importedTrailer(requests)}`,
      result: {
        dryRun,
        summary,
        warnings,
        version: { slug: state.slug, exists: current !== null, status: state.meta.status, isLatest: state.meta.isLatest },
        workingCopyDeleted: dropCopy,
        requestsImported: dryRun ? requests.length : 0,
      },
    };
  });
  if (!dryRun) result.requestsImported = await deps.publisher.imported(requests);
  return result;
}
