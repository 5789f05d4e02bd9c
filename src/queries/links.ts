import type { VersionState } from '../domain/types.ts';
import { scopeOf } from '../content/link-rules.ts';
import { checkVersionLinksInSlices, type VersionLinks } from '../content/version-links.ts';

/**
 * A version's links, checked from the in-memory state (never git) once per state: states are
 * immutable and a write makes a new one, so repeated reads of the same state share one check, and
 * the check after a write reads only the bodies the write changed (link-check.ts keeps each body's
 * links with its translation record). The check pauses every few milliseconds, so a large version
 * does not hold the other requests up.
 */

const checked = new WeakMap<VersionState, { portalPath: string; links: Promise<VersionLinks> }>();

/** Milliseconds of checking between turns of the event loop. */
const SLICE_MS = 10;

export function versionLinks(state: VersionState, portalPath: string): Promise<VersionLinks> {
  const known = checked.get(state);
  if (known && known.portalPath === portalPath) return known.links;
  const links = checkVersionLinksInSlices(state, scopeOf(state, portalPath), SLICE_MS);
  checked.set(state, { portalPath, links });
  // A failed check is not kept: the next read tries again.
  links.catch(() => checked.delete(state));
  return links;
}
