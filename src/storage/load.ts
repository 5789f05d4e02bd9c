import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { readFileSet } from '../content/file-set.ts';
import { ProblemList, type ContentProblem } from '../content/problems.ts';
import { isVersionSlug } from '../domain/names.ts';
import type { VersionState } from '../domain/types.ts';
import type { Catalog } from '../index/catalog.ts';
import type { Repository } from './repository.ts';

/** Stamp for hand-written files without one: fixed, so it does not move between restarts. */
const UNSTAMPED = '1970-01-01T00:00:00.000Z';

/** A stable id for a node written by hand without one (same version and slug, same id, every start). */
export function derivedId(version: string, slug: string): string {
  const h = createHash('sha1').update(`${version}/${slug}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const formatProblem = (p: ContentProblem) => `${p.path}${p.line ? `:${p.line}` : ''}: ${p.message}`;

/**
 * Builds the in-memory index from the head commit. A version folder that cannot be read or parsed
 * is marked broken with the reason (and not served); the others are served.
 */
export async function loadCatalog(repo: Repository, catalog: Catalog, clock: Clock, log: Logger): Promise<void> {
  for (const [slug, tree] of repo.folders()) {
    const broken = (reason: string) => {
      log.error({ version: slug, reason }, 'version cannot be served');
      catalog.setBroken(slug, reason);
    };
    if (!isVersionSlug(slug)) {
      broken(`the folder name "${slug}" is not a valid version slug`);
      continue;
    }
    const unreadable = repo.unreadable.get(slug);
    if (unreadable) {
      broken(unreadable);
      continue;
    }
    let files: Map<string, string>;
    try {
      files = await repo.readFolder(tree);
    } catch (err) {
      broken(`a file cannot be read from git: ${(err as Error).message}`);
      continue;
    }
    const problems = new ProblemList();
    const state = readFileSet(files, { slug, fallbackStamp: UNSTAMPED, idFor: (s) => derivedId(slug, s) }, problems);
    if (state === null) {
      broken(`${problems.errors.length} problem(s) in its files, first: ${formatProblem(problems.errors[0])}`);
      continue;
    }
    observeStamps(state, clock);
    catalog.set(slug, state);
  }
  resolveLatest(catalog, log);
}

function observeStamps(state: VersionState, clock: Clock): void {
  clock.observe(state.meta.updatedAt);
  for (const node of state.nodes.values()) clock.observe(node.updatedAt);
  for (const byLanguage of state.translations.values()) for (const t of byLanguage.values()) clock.observe(t.updatedAt);
}

/** Only one version may be latest; if files edited by hand claim more, the most recently changed one keeps it. */
function resolveLatest(catalog: Catalog, log: Logger): void {
  const claims = catalog
    .all()
    .flatMap((e) => (e.state?.meta.isLatest ? [e.state] : []))
    .sort((a, b) => b.meta.updatedAt.localeCompare(a.meta.updatedAt));
  for (const extra of claims.slice(1)) {
    log.warn({ version: extra.slug, latest: claims[0].slug }, 'more than one version is marked latest; ignoring this one');
    catalog.set(extra.slug, { ...extra, meta: { ...extra.meta, isLatest: false } });
  }
}
