import { AppError } from '../errors.ts';
import type { VersionState } from '../domain/types.ts';
import { locateVersionFiles, type IncomingFile } from './file-import.ts';
import { readFileSet } from './file-set.ts';
import { DEFAULT_PORTAL_PATH, scopeOf } from './link-rules.ts';
import { ProblemList, type ContentProblem } from './problems.ts';
import { warnBrokenLinks } from './version-links.ts';

/** A further check of the version's files (paths inside its folder), reporting into `problems`. */
export type FolderCheck = (files: ReadonlyMap<string, string>, problems: ProblemList) => void;

/**
 * Reads a set of content files as the next state of version `slug`, or throws 400 `invalid_content`
 * with every problem (paths as sent). Nodes without an id in version.json keep the id the node of
 * the same slug has in `current`. Import-files and publish requests validate through here alike;
 * `check` adds what only one of them reports (see import-check.ts). Broken internal links are
 * warnings (`portalPath` is where the portal's links point; docs/content-format.md#links).
 */
export function readIncomingFiles(
  files: readonly IncomingFile[],
  slug: string,
  current: VersionState | null,
  now: string,
  newId: () => string,
  check?: FolderCheck,
  portalPath = DEFAULT_PORTAL_PATH,
): { incoming: VersionState; warnings: ContentProblem[] } {
  const problems = new ProblemList();
  const located = locateVersionFiles(files, problems);
  let incoming: VersionState | null = null;
  if (located) {
    const inFolder = new ProblemList();
    incoming = readFileSet(located.files, { slug, fallbackStamp: now, idFor: (s) => current?.nodes.get(s)?.id ?? newId() }, inFolder);
    check?.(located.files, inFolder);
    if (incoming && !inFolder.hasErrors) warnBrokenLinks(incoming, scopeOf(incoming, portalPath), located.files, inFolder);
    problems.adopt(inFolder, located.prefix);
  }
  if (!incoming || problems.hasErrors) {
    const listed = problems.omittedErrors > 0 ? ` (the first ${problems.errors.length} listed)` : '';
    throw new AppError('invalid_content', `${problems.errorCount} problem(s) in the content files${listed}`, { errors: problems.errors, warnings: problems.warnings, ...problems.omitted() });
  }
  return { incoming, warnings: problems.warnings };
}
