import { documentOrder, sortOrderOf } from '../domain/tree.ts';
import { languagesOf, nodeUpdatedAt } from '../domain/translations.ts';
import type { Translation, VersionState } from '../domain/types.ts';
import { outdatedFields } from '../content/translation-base.ts';

/** The answer to a node create or patch: the node's fields and every translation's stamp. */
export function presentNodeWrite(state: VersionState, slug: string) {
  const node = state.nodes.get(slug)!;
  const translations: Record<string, { updatedAt: string }> = {};
  for (const language of languagesOf(state, slug)) translations[language] = { updatedAt: state.translations.get(slug)!.get(language)!.updatedAt };
  return {
    id: node.id,
    slug,
    kind: node.kind,
    parentSlug: node.parentSlug,
    icon: node.icon,
    sortOrder: sortOrderOf(state, slug),
    updatedAt: nodeUpdatedAt(state, slug),
    translations,
  };
}

/** A node in `GET /nodes`: fields, and per language the title, summary, stamp and body length (or the body). */
export function presentListedNode<B = string>(state: VersionState, slug: string, withBodies: boolean, body?: (t: Translation) => B) {
  const node = state.nodes.get(slug)!;
  const translations: Record<string, Record<string, unknown>> = {};
  for (const language of languagesOf(state, slug)) {
    const t = state.translations.get(slug)!.get(language)!;
    translations[language] = { title: t.title, summary: t.summary, updatedAt: t.updatedAt, ...outdatedFields(state, slug, language, t), bodyChars: t.bodyMd.length };
    if (withBodies) translations[language].bodyMd = body ? body(t) : t.bodyMd;
  }
  return {
    id: node.id,
    slug,
    kind: node.kind,
    parentSlug: node.parentSlug,
    sortOrder: sortOrderOf(state, slug),
    icon: node.icon,
    updatedAt: nodeUpdatedAt(state, slug),
    translations,
  };
}

/** How a presenter makes a long list: by default the array; the HTTP routes mark it to be serialized a slice at a time. */
export type ListOf = <T>(items: readonly T[], present: (item: T) => unknown) => unknown;
const plainList: ListOf = (items, present) => items.map(present);

/**
 * `GET /nodes`: the version's nodes in document order (with bodies only when the caller may have
 * them; `body` gives what they carry, as in presentTopic; `list` makes the list of nodes).
 */
export function presentNodeList<B = string>(state: VersionState, withBodies: boolean, body?: (t: Translation) => B, list: ListOf = plainList) {
  return { version: state.slug, status: state.meta.status, nodes: list(documentOrder(state), (slug) => presentListedNode(state, slug, withBodies, body)) };
}
