import { notFound } from '../errors.ts';
import type { Catalog } from '../store/catalog.ts';
import type { VersionState } from '../domain/types.ts';
import { canReadUnpublished, type Actor } from './actor.ts';

/** Anonymous readers see published versions only; to them anything else does not exist (404, not 403). */
export function readableVersion(catalog: Catalog, slug: string, actor: Actor | null): VersionState {
  const state = catalog.state(slug);
  if (!isVisible(state, actor)) throw notFound('version', `No published version "${slug}"`, { version: slug });
  return state;
}

export const isVisible = (state: VersionState, actor: Actor | null) =>
  (state.meta.status === 'published' && !state.meta.hidden) || canReadUnpublished(actor);
