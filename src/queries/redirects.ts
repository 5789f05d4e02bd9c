import { redirectsOf } from '../domain/redirects.ts';
import type { VersionState } from '../domain/types.ts';
import type { Catalog } from '../store/catalog.ts';
import type { Reader } from './reader.ts';
import { readableVersion } from './versions.ts';

/** Where a renamed node is now, for a read of its old slug. */
export interface MovedNode {
  version: string;
  from: string;
  to: string;
}

/** The node an old slug of a version now is, or null (the slug is a node's, or no old one). Visibility as readNode's. */
export function movedNode(catalog: Catalog, reader: Reader, version: string, slug: string): MovedNode | null {
  return movedIn(readableVersion(catalog, reader, version), slug);
}

/** movedNode() in a version already read. A live node wins over an old slug. */
export function movedIn(state: VersionState, slug: string): MovedNode | null {
  if (state.nodes.has(slug)) return null;
  const to = redirectsOf(state).moved.get(slug);
  return to === undefined ? null : { version: state.slug, from: slug, to };
}

/** Whether a slug no node has was a published node's, since deleted (the portal answers 410 Gone). */
export const wasRemoved = (state: VersionState, slug: string): boolean => !state.nodes.has(slug) && redirectsOf(state).removed.includes(slug);
