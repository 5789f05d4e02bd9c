import type { VersionState } from '../domain/types.ts';
import { AppError } from '../errors.ts';
import { contentBytes, MAX_CONTENT_BYTES, MAX_FILES, type IncomingFile } from './file-import.ts';
import { readIncomingFiles } from './incoming.ts';
import { lineAt, type ContentProblem, type ProblemList } from './problems.ts';
import { VERSION_FILE } from './version-file.ts';

/**
 * What `import-files` checks, in one place: the service's route and the push script's offline check
 * (`help-push … --offline`, which bundles this module) run the same code and report the same problems.
 */

/** Refuses a set larger than one import takes: 413 `limit_exceeded`, naming the limit. */
export function checkImportLimits(files: readonly IncomingFile[]): void {
  if (files.length > MAX_FILES) throw new AppError('limit_exceeded', `At most ${MAX_FILES} files per import; ${files.length} were sent`, { limit: 'files', max: MAX_FILES });
  const bytes = contentBytes(files);
  if (bytes > MAX_CONTENT_BYTES) throw new AppError('limit_exceeded', `At most ${MAX_CONTENT_BYTES} bytes of content per import; ${bytes} were sent`, { limit: 'bytes', max: MAX_CONTENT_BYTES });
}

/**
 * Reads content files as `import-files` takes them (see readIncomingFiles), adding what only an import
 * reports: a real import publishes the version whatever `status` version.json gives, so a `draft` or
 * `archived` there is a warning. Publish requests write `published` themselves and do not come here.
 */
export function readImportFiles(files: readonly IncomingFile[], slug: string, current: VersionState | null, now: string, newId: () => string, portalPath?: string): { incoming: VersionState; warnings: ContentProblem[] } {
  return readIncomingFiles(files, slug, current, now, newId, statusOverridden, portalPath);
}

function statusOverridden(files: ReadonlyMap<string, string>, problems: ProblemList): void {
  const text = files.get(VERSION_FILE);
  if (text === undefined) return;
  let status: unknown;
  try {
    status = (JSON.parse(text) as { status?: unknown } | null)?.status;
  } catch {
    return; // reported as invalid JSON already
  }
  if (status !== 'draft' && status !== 'archived') return;
  problems.warn(VERSION_FILE, `"status" is "${status}", but importing these files publishes the version (its status becomes "published"); write "status": "published" to say so`, () => {
    const at = /"status"\s*:/.exec(text);
    return at ? lineAt(text, at.index) : undefined;
  });
}
