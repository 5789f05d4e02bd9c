import { isUtf8 } from 'node:buffer';
import { readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

export interface PushFile {
  path: string;
  content: string;
  /** Its bytes are not UTF-8: read, each bad sequence became U+FFFD, and sending it would store those. */
  notUtf8?: true;
}

/**
 * Every file below `dir` (hidden ones left out), with its path as the repository names it
 * (`docs/v2/en/intro.md`): relative to `cwd` when `dir` is inside it, else relative to `dir` itself.
 * Problems then name the files as a reader and GitHub's annotations know them.
 */
export function collectFiles(dir: string, cwd = process.cwd()): PushFile[] {
  const out: PushFile[] = [];
  const fromCwd = relative(cwd, dir);
  const root = fromCwd.startsWith('..') || isAbsolute(fromCwd) ? dir : cwd;
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const bytes = readFileSync(full);
        out.push({ path: relative(root, full).split(sep).join('/'), content: bytes.toString('utf8'), ...(isUtf8(bytes) ? {} : { notUtf8: true as const }) });
      }
    }
  };
  walk(dir);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Total size of the files' content, in bytes of UTF-8. */
export const totalBytes = (files: readonly PushFile[]) => files.reduce((n, f) => n + Buffer.byteLength(f.content, 'utf8'), 0);
