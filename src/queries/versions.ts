import type { VersionState } from '../domain/types.ts';
import { notFound } from '../errors.ts';
import type { Catalog } from '../store/catalog.ts';
import type { Reader } from './reader.ts';

export const isVisible = (state: VersionState, reader: Reader) => (state.meta.status === 'published' && !state.meta.hidden) || reader.unpublished;

/** A version the reader may see; to a reader who may not, it does not exist (404, not 403). */
export function readableVersion(catalog: Catalog, reader: Reader, slug: string): VersionState {
  const state = catalog.state(slug);
  if (!isVisible(state, reader)) throw notFound('version', `No published version "${slug}"`, { version: slug });
  return state;
}

/** A version by slug, or by `latest` the version marked latest (never naming it to a reader who may not see it). */
export function versionByRef(catalog: Catalog, reader: Reader, ref: string): VersionState {
  if (ref !== 'latest') return readableVersion(catalog, reader, ref);
  const latest = catalog.latest();
  // The same answer whether no version is latest or the reader may not see it.
  if (!latest || !isVisible(latest, reader)) throw notFound('version', 'No version is marked latest', { version: 'latest' });
  return latest;
}

/** The versions the reader may see, newest first; hidden working copies only when asked for (and allowed). */
export function listVersions(catalog: Catalog, reader: Reader, includeWorkingCopies = false): VersionState[] {
  const withHidden = reader.unpublished && includeWorkingCopies;
  return catalog
    .all()
    .flatMap((e) => (e.state ? [e.state] : []))
    .filter((s) => isVisible(s, reader) && (withHidden || !s.meta.hidden))
    .sort((a, b) => b.meta.createdAt.localeCompare(a.meta.createdAt) || a.slug.localeCompare(b.slug));
}
