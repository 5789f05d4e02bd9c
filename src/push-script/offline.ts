import { randomUUID } from 'node:crypto';
import { checkImportLimits, readImportFiles } from '../content/import-check.ts';
import { isVersionSlug, VERSION_SLUG_MAX } from '../domain/names.ts';
import { AppError } from '../errors.ts';
import type { PushFile } from './files.ts';
import type { Problem } from './output.ts';

/** What a check found: the version's files would be accepted (with warnings), or why not. */
export type CheckResult =
  | { ok: true; warnings: Problem[]; nodes: number; languages: readonly string[] }
  | { ok: false; code: string; message: string; errors: Problem[]; warnings: Problem[] };

/**
 * Checks a version's files here, without a service, with the code the service runs for import-files
 * (bundled into the script): the same limits, the same problems with the same paths and lines. What it
 * cannot know is what the service holds (so no created/updated counts) or whether a key may write.
 */
export function checkOffline(files: readonly PushFile[], version: string): CheckResult {
  if (!isVersionSlug(version)) {
    return {
      ok: false,
      code: 'validation_failed',
      message: `"${version}" is not a version slug (lowercase letters and digits, joined by single ".", "-" or "_"; at most ${VERSION_SLUG_MAX} characters; not "latest")`,
      errors: [],
      warnings: [],
    };
  }
  try {
    checkImportLimits(files);
    const { incoming, warnings } = readImportFiles(files, version, null, new Date().toISOString(), () => randomUUID());
    return { ok: true, warnings, nodes: incoming.nodes.size, languages: incoming.meta.languages };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const data = err.data as { errors?: Problem[]; warnings?: Problem[] };
    return { ok: false, code: err.code, message: err.message, errors: data.errors ?? [], warnings: data.warnings ?? [] };
  }
}
