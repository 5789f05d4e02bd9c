import { readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { notUtf8, type NotUtf8 } from '../storage/blob-text.ts';

export interface PushFile {
  path: string;
  content: string;
  /** Where its bytes are not UTF-8: read, each bad sequence became U+FFFD, and sending it would store those. */
  notUtf8?: NotUtf8;
}

/** What collectFiles leaves out, with why: files it cannot or need not send. */
export interface Skipped {
  path: string;
  message: string;
}

/**
 * Every file below `dir` (hidden ones left out), with its path as the repository names it
 * (`docs/v2/en/intro.md`): relative to `cwd` when `dir` is inside it, else relative to `dir` itself.
 * Problems then name the files as a reader and GitHub's annotations know them.
 */
export function collectFiles(dir: string, cwd = process.cwd(), skipped: Skipped[] = []): PushFile[] {
  const out: PushFile[] = [];
  const fromCwd = relative(cwd, dir);
  const root = fromCwd.startsWith('..') || isAbsolute(fromCwd) ? dir : cwd;
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = join(current, entry.name);
      const path = relative(root, full).split(sep).join('/');
      if (entry.isDirectory()) walk(full);
      // Never followed: a link could name any file of the machine (and git stores the link, not the file).
      else if (entry.isSymbolicLink()) skipped.push({ path, message: 'is a symbolic link and is not read: commit the file itself' });
      else if (entry.isFile()) {
        const bytes = readFileSync(full);
        const bad = notUtf8(bytes);
        // Images and other files beside the content are not the service's: not sent, as it would ignore them.
        if (bad !== null && !isContentFile(relative(dir, full).split(sep).join('/'))) skipped.push({ path, message: 'not a content file ({lang}/{slug}.md or version.json) and is ignored' });
        else out.push({ path, content: bytes.toString('utf8'), ...(bad === null ? {} : { notUtf8: bad }) });
      }
    }
  };
  walk(dir);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Whether `path`, relative to the version's folder, is one the service reads. */
const isContentFile = (path: string) => path === 'version.json' || /^[^/]+\/[^/]+\.md$/.test(path);

/** Total size of the files' content, in bytes of UTF-8. */
export const totalBytes = (files: readonly PushFile[]) => files.reduce((n, f) => n + Buffer.byteLength(f.content, 'utf8'), 0);
