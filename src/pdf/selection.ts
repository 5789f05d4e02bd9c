import { AppError } from '../errors.ts';
import { ancestors, documentOrder, orderIndexOf, subtree } from '../domain/tree.ts';
import type { VersionState } from '../domain/types.ts';

export const MAX_PDF_TOPICS = 200;

/** What goes into a PDF: the chosen nodes, plus the ancestors that only give them a chapter heading. */
export interface Selection {
  /** In document order. `heading`: an ancestor that was not chosen itself; shown as a chapter title only. */
  entries: Array<{ slug: string; heading: boolean }>;
  /** Whether the caller chose topics (false: the whole version). */
  partial: boolean;
  /** The one topic or section the caller named, if they named one: the PDF is called after it. */
  named: string | null;
}

/**
 * Resolves `topics` (topic or section slugs; sections bring their descendants; none: the whole
 * version) to document order, keeps the first `limit` topics, and adds missing ancestors as headings.
 * More than 200 topics without a `limit`, or an unknown slug, is 400 `invalid_selection`.
 */
export function selectForPdf(state: VersionState, topics: readonly string[] | null, limit: number | null): Selection {
  let chosen: string[];
  if (topics === null) chosen = [...documentOrder(state)];
  else {
    const unknown = topics.filter((s) => !state.nodes.has(s));
    if (unknown.length > 0) throw new AppError('invalid_selection', `Unknown topic or section: ${unknown.join(', ')}`, { field: 'query/topics', unknown });
    const set = new Set(topics.flatMap((s) => subtree(state, s)));
    chosen = [...set].sort((a, b) => orderIndexOf(state, a) - orderIndexOf(state, b));
  }
  const isTopic = (s: string) => state.nodes.get(s)!.kind === 'topic';
  if (limit !== null) {
    let seen = 0;
    const cut = chosen.findIndex((s) => isTopic(s) && ++seen === limit);
    if (cut >= 0) chosen = chosen.slice(0, cut + 1);
  }
  const count = chosen.filter(isTopic).length;
  if (count > MAX_PDF_TOPICS) {
    throw new AppError('invalid_selection', `The selection has ${count} topics; a PDF takes at most ${MAX_PDF_TOPICS} (choose topics, or set limit)`, {
      field: 'query/topics',
      topics: count,
      max: MAX_PDF_TOPICS,
    });
  }
  const inSelection = new Set(chosen);
  const headings = new Set<string>();
  for (const s of chosen) for (const a of ancestors(state, s)) if (!inSelection.has(a)) headings.add(a);
  const all = [...chosen, ...headings].sort((a, b) => orderIndexOf(state, a) - orderIndexOf(state, b));
  return { entries: all.map((slug) => ({ slug, heading: headings.has(slug) })), partial: topics !== null || limit !== null, named: topics?.length === 1 ? topics[0] : null };
}
