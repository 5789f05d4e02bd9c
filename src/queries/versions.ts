import type { VersionState } from '../domain/types.ts';
import { AppError, invalid, notFound } from '../errors.ts';
import { stillStarting, type Catalog } from '../store/catalog.ts';
import type { Reader } from './reader.ts';

export const isVisible = (state: VersionState, reader: Reader) => (state.meta.status === 'published' && !state.meta.hidden) || reader.unpublished;

/**
 * A version the reader may see; to a reader who may not, it does not exist (404, not 403), in the
 * same words as a slug no version has. A version whose stored data is broken is told of (503, with
 * what is broken) only to readers who may see unpublished versions: its status could not be read
 * with the rest of it, so it may be a draft's, and a 503 would tell the public that a draft of that
 * name exists.
 */
export function readableVersion(catalog: Catalog, reader: Reader, slug: string): VersionState {
  let state: VersionState;
  try {
    state = catalog.state(slug);
  } catch (err) {
    if (reader.unpublished || !(err instanceof AppError) || err.code !== 'version_unavailable') throw err;
    throw noVersion(slug);
  }
  if (!isVisible(state, reader)) throw noVersion(slug);
  return state;
}

const noVersion = (slug: string) => notFound('version', `No version "${slug}"`, { version: slug });

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
  // A list without the versions still loading would say they do not exist.
  if (!catalog.complete) throw stillStarting();
  const withHidden = reader.unpublished && includeWorkingCopies;
  return catalog
    .all()
    .flatMap((e) => (e.state ? [e.state] : []))
    .filter((s) => isVisible(s, reader) && (withHidden || !s.meta.hidden))
    .sort((a, b) => b.meta.createdAt.localeCompare(a.meta.createdAt) || a.slug.localeCompare(b.slug));
}

/** One page of a list of versions, and where the next one starts (null: this is the last). */
export interface VersionPage {
  versions: VersionState[];
  next: string | null;
}

/** A cursor names the last version of a page by its place in the order (created, slug): new or deleted versions do not shift pages. */
const cursorOf = (s: VersionState) => Buffer.from(JSON.stringify([s.meta.createdAt, s.slug]), 'utf8').toString('base64url');

function parseCursor(cursor: string, field: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string')) return value as [string, string];
  } catch {
    // Falls through to the error below.
  }
  throw invalid(field, 'is not a cursor this service handed out (take it from the Link header of the previous page)');
}

/** A page of `listVersions`' answer (newest first): at most `limit` versions after `cursor` (`field` names the cursor in errors). */
export function pageVersions(all: VersionState[], { limit, cursor }: { limit?: string; cursor?: string }, field = 'query/cursor'): VersionPage {
  let from = 0;
  if (cursor !== undefined) {
    const [createdAt, slug] = parseCursor(cursor, field);
    // The first version that sorts after the cursor's (newest first, then by slug).
    from = all.findIndex((s) => s.meta.createdAt < createdAt || (s.meta.createdAt === createdAt && s.slug > slug));
    if (from < 0) from = all.length;
  }
  // `limit` is a checked string of digits (VersionsQuery); without it, every version.
  const end = limit === undefined ? all.length : Math.min(all.length, from + Number(limit));
  const versions = all.slice(from, end);
  return { versions, next: end < all.length && versions.length > 0 ? cursorOf(versions[versions.length - 1]) : null };
}
