import type { VersionState } from '../domain/types.ts';
import { AppError, invalid, notFound } from '../errors.ts';
import type { Catalog } from '../store/catalog.ts';
import type { HistoryIndex, NodeEntry } from '../store/history-index.ts';
import type { RevisionReader } from '../store/revision-reader.ts';
import type { Reader } from './reader.ts';
import { isVisible, readableVersion } from './versions.ts';

/** What the history queries read: the index, the reader of past states, and today's content. */
export interface HistorySources {
  catalog: Catalog;
  history: HistoryIndex;
  revisions: RevisionReader;
}

/** Entries per page by default, and at most. */
export const DEFAULT_LIMIT = 20;

const unknownRevision = (revision: string) => new AppError('unknown_revision', `No commit "${revision}" in the content history: give a full commit id, or at least 7 of its first characters (as history lists them)`, { revision });
const notInRevision = (resource: string, message: string, data: Record<string, unknown>) => new AppError('not_in_revision', message, { resource, ...data });

/** The version today, for a caller who may read drafts; a deleted version is still named by its history. */
function assertVersionKnown({ catalog, history }: HistorySources, reader: Reader, version: string): VersionState | null {
  if (catalog.entry(version) !== undefined) return readableVersion(catalog, reader, version);
  if (history.versionEntries(version).length === 0) throw notFound('version', `No version "${version}"`, { version });
  return null;
}

/** A node's id: the node of that slug today, else the node that last had it (deleted since, or renamed away). */
export function nodeIdOf(sources: HistorySources, reader: Reader, version: string, slug: string): string {
  sources.history.assertReady();
  const state = assertVersionKnown(sources, reader, version);
  const id = state?.nodes.get(slug)?.id ?? sources.history.nodeIdOf(version, slug);
  if (id === undefined) throw notFound('node', `No node "${slug}" in version "${version}", now or in its history`, { version, slug });
  return id;
}

/** The commit a revision names, by its place in the index. */
export function commitOf(history: HistoryIndex, revision: string): number {
  history.assertReady();
  const at = history.find(revision);
  if (at < 0) throw unknownRevision(revision);
  return at;
}

/** Where a page starts: the place (in the list, oldest first) of the last entry of the page before, tied to what is listed. */
function cursorOf(key: string, position: number): string {
  return Buffer.from(JSON.stringify([key, position]), 'utf8').toString('base64url');
}

function positionOf(key: string, cursor: string | undefined, length: number): number {
  if (cursor === undefined) return length;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value[0] === key && Number.isInteger(value[1]) && value[1] >= 0 && value[1] <= length) return value[1] as number;
  } catch {
    // Refused below.
  }
  throw invalid('query/cursor', 'is not a cursor of this history (take `next` from the previous page, with the same version, node and language)');
}

/** One page, newest first, of the entries `keep` lets through, starting before the cursor's place. */
function page<E>(key: string, list: readonly E[], keep: (e: E) => boolean, limit: number, cursor: string | undefined): { items: E[]; next: string | null } {
  const items: E[] = [];
  let i = positionOf(key, cursor, list.length) - 1;
  for (; i >= 0 && items.length < limit; i--) if (keep(list[i])) items.push(list[i]);
  // Whether anything older passes the filter is left to the next page: a page is never walked past its limit.
  return { items, next: i >= 0 ? cursorOf(key, i + 1) : null };
}

const presentEntry = (history: HistoryIndex, e: NodeEntry) => ({
  ...history.commit(e.commit),
  change: e.change,
  ...(e.from !== undefined ? { from: e.from } : {}),
  slug: e.slug,
  language: e.language,
});

/** `GET …/nodes/{slug}/history`: the commits that changed a node and its translations (one language's, when given), newest first. */
export function nodeHistory(sources: HistorySources, reader: Reader, version: string, slug: string, q: { language?: string; limit?: string; cursor?: string }) {
  const id = nodeIdOf(sources, reader, version, slug);
  const entries = sources.history.nodeEntries(version, id);
  const language = q.language ?? null;
  const { items, next } = page(`${version}/${id}/${language ?? ''}`, entries, (e) => language === null || e.language === null || e.language === language, limitOf(q.limit), q.cursor);
  return { version, id, slug, language, history: items.map((e) => presentEntry(sources.history, e)), next };
}

/** `GET /versions/{version}/history`: every commit that changed the version, newest first. */
export function versionHistory(sources: HistorySources, reader: Reader, version: string, q: { limit?: string; cursor?: string }) {
  sources.history.assertReady();
  assertVersionKnown(sources, reader, version);
  const { items, next } = page(version, sources.history.versionEntries(version), () => true, limitOf(q.limit), q.cursor);
  return { version, history: items.map((e) => ({ ...sources.history.commit(e.commit), change: e.change })), next };
}

const limitOf = (limit: string | undefined) => (limit === undefined ? DEFAULT_LIMIT : Number(limit));

/**
 * A version as it was at a revision, and the slug its node had then (followed by id when the node
 * was renamed since). Anonymous readers only see revisions at which the version was published, and
 * only while it is published now.
 */
export async function readAtRevision(sources: HistorySources, reader: Reader, version: string, slug: string, revision: string): Promise<{ state: VersionState; slug: string; revision: string }> {
  const at = commitOf(sources.history, revision);
  const full = sources.history.commit(at).revision;
  const now = reader.unpublished ? assertVersionKnown(sources, reader, version) : readableVersion(sources.catalog, reader, version);
  const state = await sources.revisions.stateAt(version, full);
  if (state === null) throw notInRevision('version', `Version "${version}" did not exist at revision ${full.slice(0, 7)}`, { version, revision: full });
  if (!isVisible(state, reader)) throw notInRevision('version', `Version "${version}" was not published at revision ${full.slice(0, 7)}: reading it then needs a credential`, { version, revision: full });
  let then = state.nodes.has(slug) ? slug : undefined;
  const id = now?.nodes.get(slug)?.id ?? sources.history.nodeIdOf(version, slug);
  if (then === undefined && id !== undefined) then = [...state.nodes.values()].find((n) => n.id === id)?.slug;
  if (then === undefined) throw notInRevision('node', `Node "${slug}" did not exist in version "${version}" at revision ${full.slice(0, 7)}`, { version, slug, revision: full });
  return { state, slug: then, revision: full };
}
