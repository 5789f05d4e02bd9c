import { LRUCache } from 'lru-cache';
import { readFileSetInSlices } from '../content/file-set.ts';
import { ProblemList } from '../content/problems.ts';
import type { Translation, VersionState } from '../domain/types.ts';
import { blobText } from '../storage/blob-text.ts';
import { folderAt, readObjects } from '../storage/git-history.ts';
import type { TreeNode } from '../storage/git-objects.ts';
import type { Repository } from '../storage/repository.ts';
import { Mutex } from '../storage/mutex.ts';
import type { Catalog } from './catalog.ts';
import { blobsOf, readOptions } from './load.ts';
import { parseMarkdownFile } from '../content/markdown-file.ts';

/** How long one piece of parsing holds the event loop. */
const SLICE_MS = 8;
const TRANSLATION = /^([^/]+)\/([^/]+)\.md$/;

/**
 * A version as it was at a past commit, read from git by object id: the folder's tree at that
 * commit, and only the files whose blobs differ from those of today's folder (the others are taken
 * from the index as they are). States are kept by tree id, a few at a time; reads run one at a time,
 * so many requests for old revisions queue rather than each parse a version at once.
 */
export class RevisionReader {
  private readonly states = new LRUCache<string, VersionState>({ max: 8 });
  private readonly reading = new Mutex();

  constructor(
    private readonly repo: Repository,
    private readonly catalog: Catalog,
  ) {}

  /** The version's state at `revision`, or null when its folder did not exist then (or could not be read as a version). */
  async stateAt(version: string, revision: string): Promise<VersionState | null> {
    return this.reading.run(async () => {
      const tree = await this.repo.reading(() => folderAt(this.repo.gitdir, revision, version));
      if (tree === null) return null;
      const kept = this.states.get(`${version}\0${tree.oid}`);
      if (kept) return kept;
      const state = await this.read(version, tree);
      if (state !== null) this.states.set(`${version}\0${tree.oid}`, state);
      return state;
    });
  }

  private async read(version: string, tree: TreeNode): Promise<VersionState | null> {
    const current = this.repo.folder(version);
    const now = this.catalog.entry(version)?.state ?? null;
    const files = new Map<string, string | Translation>();
    const toRead: Array<[string, string]> = [];
    for (const [path, oid] of blobsOf(tree)) {
      const m = TRANSLATION.exec(path);
      const same = m !== null && now !== null && current !== null && blobAt(current, path) === oid ? now.translations.get(m[2])?.get(m[1]) : undefined;
      if (same) files.set(path, same);
      else {
        files.set(path, '');
        toRead.push([path, oid]);
      }
    }
    const objects = await this.repo.reading(() => readObjects(this.repo.gitdir, toRead.map(([, oid]) => oid)));
    const scratch = new ProblemList();
    for (const [path, oid] of toRead) {
      const { text } = blobText(objects.get(oid)!.bytes);
      const md = TRANSLATION.test(path) ? parseMarkdownFile(path, text, scratch) : null;
      files.set(path, md === null ? text : { title: md.title, summary: md.summary, bodyMd: md.bodyMd, updatedAt: md.updatedAt ?? '1970-01-01T00:00:00.000Z' });
    }
    return readFileSetInSlices(files, readOptions(version), new ProblemList(), SLICE_MS);
  }
}

function blobAt(tree: TreeNode, path: string): string | undefined {
  const parts = path.split('/');
  let node: TreeNode = tree;
  for (let i = 0; i < parts.length - 1; i++) {
    const e = node.entries.get(parts[i]);
    if (e?.kind !== 'tree') return undefined;
    node = e.tree;
  }
  const leaf = node.entries.get(parts.at(-1)!);
  return leaf?.kind === 'blob' ? leaf.oid : undefined;
}

