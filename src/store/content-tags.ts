import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Repository } from '../storage/repository.ts';
import type { Catalog } from './catalog.ts';

/**
 * What the validators (ETags) of answers are derived from: the git tree of the version folder an
 * answer reads, or the tree of every version for answers that read them all. Trees are content
 * addressed, so the same content gives the same validator in every process that serves it (a
 * replica and its primary, the service before and after a restart), and a CDN in front of several
 * sees one validator per answer. The release and the settings that shape answers are part of it: a
 * new release, or another portal title, may render the same content differently.
 */
export class ContentTags {
  private readonly trees = new Map<string, string>();
  private whole: string | null = null;
  private readonly prefix: string;

  /** `settings`: the settings answers depend on besides the content (the portal's title, the public URL): changing them changes every validator. */
  constructor(catalog: Catalog, repo: Repository, settings: string) {
    this.prefix = `${RELEASE}|${createHash('sha1').update(settings).digest('hex').slice(0, 16)}`;
    // The catalog changes right after the repository's head (a write's commit, a replica's swap, the
    // load), in the same step: the folder's tree is the one its new state was read from or written as.
    catalog.subscribe((slug, state) => {
      const tree = state === null ? undefined : repo.folder(slug)?.oid;
      if (tree === undefined) this.trees.delete(slug);
      else this.trees.set(slug, tree);
      this.whole = null;
    });
  }

  /** The tag of what one version's answers read. */
  version(slug: string): string {
    const tree = this.trees.get(slug);
    return tree === undefined ? `none:${slug}|${this.all()}` : `${this.prefix}|tree:${tree}`;
  }

  /** The tag of what answers that read every version (the list, `latest`, the portal's version switch) read. */
  all(): string {
    if (this.whole === null) {
      const hash = createHash('sha1');
      for (const [slug, tree] of [...this.trees].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hash.update(`\n${slug} ${tree}`);
      this.whole = `${this.prefix}|all:${hash.digest('hex')}`;
    }
    return this.whole;
  }
}

/** The release of the service (package.json's version): answers of another release may differ for the same content. */
const RELEASE = (() => {
  try {
    return `release:${(JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version?: string }).version ?? 'unknown'}`;
  } catch {
    return 'release:unknown';
  }
})();
