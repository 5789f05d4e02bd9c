import { posix } from 'node:path';
import type { ProblemList } from './problems.ts';
import { VERSION_FILE } from './version-file.ts';

export const MAX_FILES = 2000;
export const MAX_CONTENT_BYTES = 10 * 1024 * 1024;

export interface IncomingFile {
  path: string;
  content: string;
}

/**
 * Finds the version's files in a set whose paths may be repository-relative: the folder that holds
 * the one `version.json` is the version's folder, and paths are taken relative to it
 * (`docs/v2/en/intro.md` → `en/intro.md`). Files outside that folder are reported and ignored.
 */
export function locateVersionFiles(files: readonly IncomingFile[], problems: ProblemList): { files: Map<string, string>; prefix: string } | null {
  const clean: Array<{ path: string; content: string; given: string }> = [];
  for (const f of files) {
    // `./docs/…` is relative; `/docs/…` (or `//host/…`) names a place outside any repository: refused, not guessed at.
    const normalized = f.path.replace(/^\.\/+/, '');
    if (normalized.startsWith('/') || normalized.includes('\\') || normalized.split('/').some((part) => part === '..' || part === '.' || part === '') || normalized.includes('\0')) {
      problems.error(f.path, 'the path must be relative to the repository (docs/v2/en/intro.md), with "/" separators and no "." or ".." segments');
      continue;
    }
    clean.push({ path: posix.normalize(normalized), content: f.content, given: f.path });
  }
  const versionFiles = clean.filter((f) => posix.basename(f.path) === VERSION_FILE);
  if (versionFiles.length === 0) {
    problems.error(VERSION_FILE, 'no version.json among the files');
    return null;
  }
  if (versionFiles.length > 1) {
    for (const f of versionFiles) problems.error(f.given, `more than one version.json (${versionFiles.map((v) => v.given).join(', ')}); send one version's files`);
    return null;
  }
  const folder = posix.dirname(versionFiles[0].path);
  const prefix = folder === '.' ? '' : `${folder}/`;
  const out = new Map<string, string>();
  for (const f of clean) {
    if (!f.path.startsWith(prefix)) {
      problems.warn(f.given, `outside the version's folder ${prefix || '(root)'} and ignored`);
      continue;
    }
    const relative = f.path.slice(prefix.length);
    if (out.has(relative)) problems.error(f.given, 'the same path appears twice');
    else out.set(relative, f.content);
  }
  return { files: out, prefix };
}

/** Total size of the files' content, in bytes of UTF-8. */
export const contentBytes = (files: readonly IncomingFile[]) => files.reduce((sum, f) => sum + Buffer.byteLength(f.content, 'utf8'), 0);
