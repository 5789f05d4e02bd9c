import { ancestors, documentOrder, nestedTree, orderIndexOf, sortOrderOf } from '../domain/tree.ts';
import { languagesOf, pickTranslation } from '../domain/translations.ts';
import type { Translation, VersionState } from '../domain/types.ts';
import { presentVersion } from './versions.ts';
import { outdatedFields } from '../content/translation-base.ts';

function link(state: VersionState, slug: string, language: string) {
  const picked = pickTranslation(state, slug, language);
  return { slug, kind: state.nodes.get(slug)!.kind, title: picked?.translation.title ?? slug };
}

/** Makes a tree of `size` nodes: each node `{ ...present(node), children }` (the HTTP routes make it in slices, see encoded-json.ts). */
export type TreeOf = (roots: readonly string[], size: number, childrenOf: (node: string) => readonly string[], present: (node: string) => Record<string, unknown>) => unknown;

const plainTree: TreeOf = (roots, _size, childrenOf, present) => nestedTree(roots, childrenOf, present);

/** `GET /tree`: the version's navigation in one language (`tree` makes the nested entries). */
export function presentTree(state: VersionState, language: string, tree: TreeOf = plainTree) {
  const entry = (slug: string): Record<string, unknown> => {
    const node = state.nodes.get(slug)!;
    const picked = pickTranslation(state, slug, language);
    return {
      id: node.id,
      slug,
      kind: node.kind,
      icon: node.icon,
      sortOrder: sortOrderOf(state, slug),
      title: picked?.translation.title ?? slug,
      summary: picked?.translation.summary ?? '',
      language: picked?.language ?? language,
    };
  };
  return { version: presentVersion(state), language, tree: tree(state.roots, state.nodes.size, (slug) => state.nodes.get(slug)!.children, entry) };
}

/** The nearest topic before or after a node in document order. */
function neighbour(state: VersionState, slug: string, step: 1 | -1, language: string) {
  const order = documentOrder(state);
  for (let i = orderIndexOf(state, slug) + step; i >= 0 && i < order.length; i += step) {
    if (state.nodes.get(order[i])!.kind === 'topic') return link(state, order[i], language);
  }
  return null;
}

/** `body` gives what the answer carries as `bodyMd` (the HTTP routes mark it for encoded-json.ts). */
export function presentTopic<B = string>(state: VersionState, slug: string, language: string, body?: (t: Translation) => B) {
  const node = state.nodes.get(slug)!;
  const picked = pickTranslation(state, slug, language);
  const t = picked?.translation;
  return {
    version: state.slug,
    versionStatus: state.meta.status,
    id: node.id,
    slug,
    kind: node.kind,
    parentSlug: node.parentSlug,
    icon: node.icon,
    language: picked?.language ?? language,
    requestedLanguage: language,
    fallback: picked !== null && picked.language !== language,
    title: t?.title ?? slug,
    summary: t?.summary ?? '',
    bodyMd: t ? (body ? body(t) : t.bodyMd) : '',
    updatedAt: t?.updatedAt ?? node.updatedAt,
    ...outdatedFields(state, slug, picked?.language ?? language, t),
    availableLanguages: languagesOf(state, slug),
    breadcrumbs: ancestors(state, slug).map((s) => link(state, s, language)),
    neighbours: { previous: neighbour(state, slug, -1, language), next: neighbour(state, slug, 1, language) },
  };
}

export function presentTranslation<B = string>(state: VersionState, slug: string, language: string, t: Translation, body?: (t: Translation) => B) {
  return {
    slug,
    language,
    title: t.title,
    summary: t.summary,
    bodyMd: body ? body(t) : t.bodyMd,
    updatedAt: t.updatedAt,
    ...outdatedFields(state, slug, language, t),
    availableLanguages: languagesOf(state, slug),
  };
}
