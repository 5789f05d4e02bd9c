import { requireNode } from '../domain/translations.ts';
import type { Translation, VersionState } from '../domain/types.ts';
import { notFound } from '../errors.ts';
import type { Catalog } from '../store/catalog.ts';
import type { Reader } from './reader.ts';
import { readableVersion } from './versions.ts';

/** A node of a version the reader may see (404 for an unknown node). */
export function readNode(catalog: Catalog, reader: Reader, version: string, slug: string): VersionState {
  const state = readableVersion(catalog, reader, version);
  requireNode(state, slug);
  return state;
}

/** One translation, without fallback (404 when the node has none in that language). */
export function readTranslation(catalog: Catalog, reader: Reader, version: string, slug: string, language: string): { state: VersionState; translation: Translation } {
  const state = readNode(catalog, reader, version, slug);
  const translation = state.translations.get(slug)?.get(language);
  if (!translation) throw notFound('translation', `Node "${slug}" has no ${language} translation`, { version: state.slug, slug, language });
  return { state, translation };
}

/** Whether node lists may carry bodies for this reader (they are for those who may read drafts). */
export const mayListBodies = (reader: Reader) => reader.unpublished;
