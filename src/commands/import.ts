import type { IncomingFile } from '../content/file-import.ts';
import { checkImportLimits, readImportFiles } from '../content/import-check.ts';
import { lineAt } from '../content/problems.ts';
import { applyImport, type ImportMode, type ImportNode } from '../domain/import.ts';
import { replaceWithFiles } from '../domain/import-files.ts';
import { demoteLatest } from '../domain/versions.ts';
import { importedTrailer, type Publisher } from '../publishing/publisher.ts';
import { workingCopySlug } from '../publishing/working-copies.ts';
import type { Author, VersionChange, Writer } from '../store/writer.ts';

/**
 * Imports an export document: `merge` upserts, `replace` also deletes what the document leaves out.
 * A dry run computes the same answer without writing.
 */
export async function importDocument(writer: Writer, author: Author, version: string, nodes: readonly ImportNode[], mode: ImportMode, dryRun: boolean) {
  return writer.run(dryRun, version, author, (ctx) => {
    const { state, diff } = applyImport(ctx.read(version), nodes, mode, ctx.now, ctx.newId);
    const counts = `${diff.created.length} created, ${diff.updated.length} updated, ${diff.deleted.length} deleted`;
    return { changes: [{ slug: version, after: state }], message: `Import ${nodes.length} node(s) into ${version} (${mode}): ${counts}`, result: { diff, state } };
  });
}

/**
 * Replaces a version's content with content files and publishes it (creating it if needed), in one
 * commit that also moves `isLatest`, drops the version's working copy, whose work is now live, and
 * names the version's open publish requests, which it completes (requests.json follows, at once or
 * at the next start). A dry run computes the same answer without writing.
 */
export async function importFiles(deps: { writer: Writer; publisher: Publisher }, author: Author, version: string, files: readonly IncomingFile[], dryRun: boolean) {
  checkImportLimits(files);
  const wip = workingCopySlug(version);
  let requests: string[] = [];
  const result = await deps.writer.runVersions(dryRun, [version, wip], author, (ctx) => {
    const current = ctx.exists(version) ? ctx.read(version) : null;
    const { incoming, warnings } = readImportFiles(files, version, current, ctx.now, ctx.newId);
    const { state, summary } = replaceWithFiles(current, incoming, ctx.now);
    const changes: VersionChange[] = [{ slug: version, after: state }];
    const latest = ctx.readLatest();
    const demoted = state.meta.isLatest && latest && latest.slug !== version ? latest.slug : null;
    if (demoted !== null) {
      changes.push({ slug: demoted, after: demoteLatest(latest!, ctx.now) });
      // Said, not done quietly: an export of the latest version imported under another slug carries the flag along.
      const file = files.find((f) => /(^|\/)version\.json$/.test(f.path));
      const at = file ? /"isLatest"\s*:/.exec(file.content) : null;
      warnings.push({
        path: file?.path ?? 'version.json',
        ...(file && at ? { line: lineAt(file.content, at.index) } : {}),
        message: `"isLatest": true makes ${version} the latest version in place of ${demoted} (pdf-bundle and the portal's latest follow it); set it to false to keep ${demoted} latest`,
      });
    }
    const dropCopy = ctx.peek(wip)?.meta.workingCopyOf === version;
    if (dropCopy) changes.push({ slug: wip, after: null });
    const counts = `${summary.created} created, ${summary.updated} updated, ${summary.deleted} deleted`;
    // The commit names the publish requests it completes: the record that they are imported.
    requests = deps.publisher.pendingImport(version);
    return {
      changes,
      message: `Import content files into ${version}: ${counts}${demoted !== null ? `; latest moves from ${demoted}` : ''}${dropCopy ? `; discard working copy ${wip}` : ''}${importedTrailer(requests)}`,
      result: {
        dryRun,
        summary,
        warnings,
        version: { slug: state.slug, exists: current !== null, status: state.meta.status, isLatest: state.meta.isLatest },
        workingCopyDeleted: dropCopy && !dryRun,
        requestsImported: 0,
      },
    };
  });
  if (!dryRun) result.requestsImported = await deps.publisher.imported(requests);
  return result;
}
