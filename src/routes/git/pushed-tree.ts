import { spawn } from 'node:child_process';
import { MAX_CONTENT_BYTES, MAX_FILES, type IncomingFile } from '../../content/file-import.ts';
import { VERSION_FILE } from '../../content/version-file.ts';
import { isVersionSlug } from '../../domain/names.ts';
import { blobText, notUtf8Problem } from '../../storage/blob-text.ts';
import { PackRefused, type Quarantine } from './quarantine.ts';

/** git's id of the empty tree, which every git knows without storing it: what a first push is compared with. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const STAMPS = '.stamps';
/** Bytes of files the changed folders of one push may hold together: what is read and kept while the push is checked. */
export const MAX_PUSH_CONTENT_BYTES = 5 * MAX_CONTENT_BYTES;

/** A version folder a push changes, with its files (paths from the repository's root), read from the pushed commit. */
export interface PushedFolder {
  slug: string;
  files: IncomingFile[];
}

/** A problem with a pushed path, as `path: message` (the path from the repository's root). */
export interface PathProblem {
  path: string;
  line?: number;
  message: string;
}

/**
 * The version folders that differ between `old` (null: an empty repository) and `pushed`, each read
 * whole from the pushed commit, and what the push changes that the service does not take: files at
 * the root, names that are no version slug, deleted versions, links and submodules, hand edits of
 * the service's stamps, folders beyond an import's limits, text that is not UTF-8. Only the changed
 * folders are listed and read.
 */
export async function changedFolders(q: Quarantine, old: string | null, pushed: string): Promise<{ folders: PushedFolder[]; problems: PathProblem[] }> {
  const problems: PathProblem[] = [];
  const folders: PushedFolder[] = [];
  let bytes = 0;
  const raw = await q.git(['diff-tree', '-z', '--raw', '--no-renames', old === null ? EMPTY_TREE : `${old}^{tree}`, `${pushed}^{tree}`], 'the pushed commit could not be compared with main');
  for (const change of rootChanges(raw)) {
    const { path, newMode, status } = change;
    if (status === 'D') {
      if (change.oldMode === '040000') problems.push({ path: `${path}/`, message: `deleting a version is not taken from a push: delete it through the API (DELETE /versions/${path}), then pull` });
      else problems.push({ path, message: 'only version folders are kept at the repository\'s root' });
      continue;
    }
    if (newMode !== '040000') {
      problems.push({ path, message: newMode === '160000' ? 'a submodule is not taken: only version folders are kept at the repository\'s root' : 'only version folders are kept at the repository\'s root: files there are not taken' });
      continue;
    }
    if (!isVersionSlug(path)) {
      problems.push({ path: `${path}/`, message: `"${path}" is not a version slug (lowercase letters and digits, with ".", "-" or "_" between them, at most 64 characters): a folder at the root is a version` });
      continue;
    }
    const folder = await readFolderFiles(q, pushed, path, problems, MAX_PUSH_CONTENT_BYTES - bytes);
    if (folder === null) continue;
    bytes += folder.reduce((sum, f) => sum + Buffer.byteLength(f.content), 0);
    if (old !== null && change.oldMode === '040000') await checkStamps(q, old, pushed, path, problems);
    else if (folder.some((f) => f.path.startsWith(`${path}/${STAMPS}/`))) problems.push({ path: `${path}/${STAMPS}/`, message: `${STAMPS}/ is the service's record of when content changed, which it writes itself: a new version is pushed without it (git rm -r --cached ${path}/${STAMPS})` });
    folders.push({ slug: path, files: folder });
  }
  return { folders, problems };
}

interface RootChange {
  oldMode: string;
  newMode: string;
  status: string;
  path: string;
}

/** `git diff-tree -z --raw` of two root trees: one record per entry of the root that differs. */
function rootChanges(raw: Buffer): RootChange[] {
  const fields = raw.toString('utf8').split('\0');
  const out: RootChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const head = /^:(\d{6}) (\d{6}) [0-9a-f]+ [0-9a-f]+ ([A-Z])\d*$/.exec(fields[i]);
    if (!head) throw new PackRefused(`unexpected output of git diff-tree: ${JSON.stringify(fields[i].slice(0, 80))}`);
    out.push({ oldMode: head[1], newMode: head[2], status: head[3], path: fields[i + 1] });
  }
  return out;
}

/** The folder's files, read from the pushed commit; null (with problems) when it cannot be taken as it is. */
async function readFolderFiles(q: Quarantine, pushed: string, slug: string, problems: PathProblem[], room: number): Promise<IncomingFile[] | null> {
  const listing = await q.git(['ls-tree', '-r', '-z', '-l', '--full-tree', pushed, '--', `${slug}/`], `the files of ${slug}/ could not be listed`);
  const blobs: Array<{ path: string; oid: string }> = [];
  let bytes = 0;
  let fine = true;
  for (const record of listing.toString('utf8').split('\0')) {
    if (record === '') continue;
    const m = /^(\d{6}) (\w+) ([0-9a-f]{40}) +(-|\d+)\t(.*)$/s.exec(record);
    if (!m) throw new PackRefused(`unexpected output of git ls-tree: ${JSON.stringify(record.slice(0, 80))}`);
    const [, mode, type, oid, size, path] = m;
    if (type !== 'blob' || mode === '120000') {
      problems.push({ path, message: type === 'commit' ? 'a submodule is not taken: a version folder holds plain files' : 'a symbolic link is not taken: a version folder holds plain files' });
      fine = false;
      continue;
    }
    bytes += Number(size);
    blobs.push({ path, oid });
  }
  if (blobs.length > MAX_FILES) {
    problems.push({ path: `${slug}/`, message: `${blobs.length} files: a version folder takes at most ${MAX_FILES}, as one import does` });
    return null;
  }
  if (bytes > MAX_CONTENT_BYTES) {
    problems.push({ path: `${slug}/`, message: `${bytes} bytes of files: a version folder takes at most ${MAX_CONTENT_BYTES}, as one import does` });
    return null;
  }
  if (bytes > room) {
    problems.push({ path: `${slug}/`, message: `the version folders this push changes hold more than ${MAX_PUSH_CONTENT_BYTES} bytes of files together, the most one push is checked with: push fewer versions at a time` });
    return null;
  }
  if (!blobs.some((b) => b.path === `${slug}/${VERSION_FILE}`)) {
    problems.push({ path: `${slug}/${VERSION_FILE}`, message: `missing: a version folder holds its ${VERSION_FILE} at its top` });
    return null;
  }
  if (!fine) return null;
  const contents = await readBlobs(q, blobs.map((b) => b.oid));
  const files: IncomingFile[] = [];
  for (const [i, blob] of blobs.entries()) {
    const { text, bad } = blobText(contents[i]);
    if (bad !== null) {
      problems.push({ path: blob.path, line: bad.line, message: notUtf8Problem(bad) });
      fine = false;
    }
    files.push({ path: blob.path, content: text });
  }
  return fine ? files : null;
}

/** The service's stamps are its own: a push that changes them is refused, naming the files. */
async function checkStamps(q: Quarantine, old: string, pushed: string, slug: string, problems: PathProblem[]): Promise<void> {
  const list = async (commit: string) => (await q.git(['ls-tree', '-r', '-z', '--full-tree', commit, '--', `${slug}/${STAMPS}/`], `the stamps of ${slug}/ could not be listed`)).toString('utf8').split('\0').filter((r) => r !== '');
  const before = new Set(await list(old));
  const after = new Set(await list(pushed));
  const changed = new Set<string>();
  for (const r of after) if (!before.has(r)) changed.add(r.slice(r.indexOf('\t') + 1));
  for (const r of before) if (!after.has(r)) changed.add(r.slice(r.indexOf('\t') + 1));
  for (const path of [...changed].sort()) {
    problems.push({ path, message: `${STAMPS}/ is the service's record of when content changed, which it writes itself after each accepted push: leave it as pulled (git checkout origin/main -- ${slug}/${STAMPS})` });
  }
}

/** The blobs' bytes, in order, with one `git cat-file --batch` on the repository and the pushed objects. */
function readBlobs(q: Quarantine, oids: readonly string[]): Promise<Buffer[]> {
  if (oids.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', q.gitdir, 'cat-file', '--batch'], { env: q.env(), stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stdin.on('error', () => undefined);
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new PackRefused('the pushed files could not be read'));
      const out = Buffer.concat(chunks);
      const blobs: Buffer[] = [];
      let at = 0;
      for (const oid of oids) {
        const eol = out.indexOf(10, at);
        const header = out.subarray(at, eol).toString('latin1');
        const m = /^([0-9a-f]{40}) blob (\d+)$/.exec(header);
        if (!m || m[1] !== oid) return reject(new PackRefused(`the pushed file ${oid} could not be read: ${header}`));
        const size = Number(m[2]);
        blobs.push(out.subarray(eol + 1, eol + 1 + size));
        at = eol + 1 + size + 1;
      }
      resolve(blobs);
    });
    child.stdin.end(oids.join('\n') + '\n');
  });
}
