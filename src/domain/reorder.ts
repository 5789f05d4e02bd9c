import { AppError } from '../errors.ts';
import { documentOrder, sortOrderOf, TreeDraft, type Placement } from './tree.ts';
import type { VersionState } from './types.ts';

/**
 * Moves many nodes in one step. Every row is checked (slug, parent, cycles) before anything
 * changes, so a failing row leaves the previous order as it was.
 */
export function reorder(state: VersionState, items: readonly Placement[], now: string): VersionState {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.slug)) throw new AppError('validation_failed', `body/items/${i}/slug "${item.slug}" appears more than once`, { field: `body/items/${i}/slug` });
    seen.add(item.slug);
  });
  const draft = new TreeDraft(state);
  draft.place(items, now, new Set(), (i) => `body/items/${i}`);
  return { ...state, ...draft.finish() };
}

/** Every node's place, in document order (the answer to a reorder). */
export function placements(state: VersionState) {
  return documentOrder(state).map((slug) => ({ slug, parentSlug: state.nodes.get(slug)!.parentSlug, sortOrder: sortOrderOf(state, slug) }));
}
