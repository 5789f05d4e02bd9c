import { AppError } from '../errors.ts';
import { afterCreate, afterDelete, afterRename, redirectList, redirectsOf, remembersRemovals, settleRedirects, withRedirects, type Redirect } from './redirects.ts';
import { assertLanguageEnabled } from './translations.ts';
import { sortOrderOf, TreeDraft, type Placement } from './tree.ts';
import { primaryLanguage, type NodeKind, type Translation, type VersionState } from './types.ts';

export type ImportMode = 'merge' | 'replace';

/** A node of an import document (the shape export produces; `id` and stamps are optional). */
export interface ImportNode {
  slug: string;
  id?: string;
  kind?: NodeKind;
  parentSlug?: string | null;
  icon?: string | null;
  sortOrder?: number;
  translations?: Record<string, { title: string; summary?: string; bodyMd?: string; basedOn?: string }>;
}

export interface ImportDiff {
  created: string[];
  updated: string[];
  unchanged: string[];
  deleted: string[];
  /** Nodes a `replace` document gives a new slug, found by id (also listed in `updated`, by their new slug). */
  renamed?: Redirect[];
  updatedTranslations: Array<{ slug: string; language: string }>;
  deletedTranslations: Array<{ slug: string; language: string }>;
}

interface Offending {
  slug: string;
  language?: string;
  problem: string;
  /** Where in the request the problem is, as other errors name fields (`body/nodes/3/parentSlug`). */
  field: string;
}

/**
 * Applies an import document to a version. `merge` upserts nodes and translations; `replace` also
 * deletes the nodes and translations the document leaves out. Every problem is found before
 * anything changes; the answer names each offending slug (and language), and the field at fault
 * below `at`, where the request holds the nodes (`body/nodes`, `body/document/nodes`).
 */
export function applyImport(
  given: VersionState,
  nodes: readonly ImportNode[],
  mode: ImportMode,
  now: string,
  newId: () => string,
  at = 'body/nodes',
  old: OldAddresses = {},
): { state: VersionState; diff: ImportDiff } {
  // Only `replace` says that the nodes it leaves out go: there a node's id under a new slug is that node renamed. A merge keeps every node, so it adds one.
  const renamed = mode === 'replace' ? renamesById(given, nodes) : [];
  const state = renamed.length === 0 ? given : withRenames(given, renamed, now);
  check(state, nodes, mode, at);
  const inDoc = new Map(nodes.map((n) => [n.slug, n]));
  const draft = new TreeDraft(state);
  const usedIds = new Set([...state.nodes.values()].map((n) => n.id));
  const created: string[] = [];
  for (const n of nodes) {
    if (state.nodes.has(n.slug)) continue;
    const id = n.id !== undefined && !usedIds.has(n.id) ? n.id : newId();
    usedIds.add(id);
    draft.add({ id, slug: n.slug, kind: n.kind ?? 'topic', icon: n.icon ?? null, updatedAt: now });
    created.push(n.slug);
  }
  // New nodes and nodes given a place are placed (in the document's order where sortOrder ties or
  // is absent); an existing node sent without a new parent or position stays where it is.
  const placements: Placement[] = [];
  /** The row of `nodes` each placement comes from. */
  const rows: number[] = [];
  for (const [row, n] of nodes.entries()) {
    const before = state.nodes.get(n.slug);
    const parentSlug = n.parentSlug !== undefined ? n.parentSlug : (before?.parentSlug ?? null);
    const stays = before !== undefined && parentSlug === before.parentSlug && n.sortOrder === undefined;
    if (stays) continue;
    placements.push({ slug: n.slug, parentSlug, sortOrder: n.sortOrder });
    rows.push(row);
  }
  draft.place(placements, now, new Set(created), (i) => `${at}/${rows[i]}`);
  const deleted: string[] = [];
  if (mode === 'replace') {
    for (const slug of state.nodes.keys()) if (!inDoc.has(slug) && draft.nodes.has(slug)) deleted.push(...draft.remove(slug));
  }
  for (const n of nodes) {
    const before = state.nodes.get(n.slug);
    draft.update(n.slug, { kind: n.kind ?? before?.kind ?? 'topic', icon: n.icon !== undefined ? n.icon : (before?.icon ?? null) });
  }
  const tree = draft.finish();

  const translations = new Map(state.translations);
  const updatedTranslations: ImportDiff['updatedTranslations'] = [];
  const deletedTranslations: ImportDiff['deletedTranslations'] = [];
  for (const slug of deleted) translations.delete(slug);
  for (const n of nodes) {
    const old = state.translations.get(n.slug);
    const next = new Map(mode === 'replace' ? [] : (old ?? []));
    for (const [language, t] of Object.entries(n.translations ?? {})) {
      const existing = old?.get(language);
      const same = existing && existing.title === t.title && existing.summary === (t.summary ?? '') && existing.bodyMd === (t.bodyMd ?? '');
      const value: Translation = same ? existing : { title: t.title, summary: t.summary ?? '', bodyMd: t.bodyMd ?? '', updatedAt: now, ...(t.basedOn !== undefined ? { basedOn: t.basedOn } : {}) };
      if (!same) updatedTranslations.push({ slug: n.slug, language });
      next.set(language, value);
    }
    for (const language of old?.keys() ?? []) if (!next.has(language)) deletedTranslations.push({ slug: n.slug, language });
    translations.set(n.slug, next);
  }

  // Restamp only the nodes whose own fields or place changed; the rest keep their records.
  const nodesOut = new Map(tree.nodes);
  const updated: string[] = [];
  const unchanged: string[] = [];
  const after: VersionState = { ...state, ...tree, nodes: nodesOut, translations };
  for (const n of nodes) {
    if (created.includes(n.slug)) continue;
    const before = state.nodes.get(n.slug)!;
    const node = nodesOut.get(n.slug)!;
    const moved = node.parentSlug !== before.parentSlug || sortOrderOf(after, n.slug) !== sortOrderOf(state, n.slug);
    const fieldsChanged = node.kind !== before.kind || node.icon !== before.icon || moved;
    const textChanged = updatedTranslations.some((t) => t.slug === n.slug) || deletedTranslations.some((t) => t.slug === n.slug);
    nodesOut.set(n.slug, { ...node, updatedAt: fieldsChanged ? now : before.updatedAt });
    (fieldsChanged || textChanged ? updated : unchanged).push(n.slug);
  }
  // A renamed node is updated, whatever else the document changes of it.
  for (const { to } of renamed) {
    const i = unchanged.indexOf(to);
    if (i < 0) continue;
    unchanged.splice(i, 1);
    updated.push(to);
  }
  const redirects = importRedirects(given, renamed, created, deleted, old, (slug) => nodesOut.has(slug), at.replace(/nodes$/, ''));
  const diff: ImportDiff = { created, updated, unchanged, deleted, ...(renamed.length > 0 ? { renamed } : {}), updatedTranslations, deletedTranslations };
  return { state: withRedirects(after, redirects), diff };
}

/** What an import document says of old addresses: `redirects` and `removed`, as export writes them. */
export interface OldAddresses {
  redirects?: readonly Redirect[];
  removed?: readonly string[];
}

/** Nodes of the document that carry the id of a node the document leaves out, under a slug the version does not have: renamed. */
function renamesById(state: VersionState, nodes: readonly ImportNode[]): Redirect[] {
  const inDoc = new Set(nodes.map((n) => n.slug));
  const byId = new Map([...state.nodes.values()].filter((n) => !inDoc.has(n.slug)).map((n) => [n.id, n.slug]));
  const out: Redirect[] = [];
  for (const n of nodes) {
    const from = n.id === undefined || state.nodes.has(n.slug) ? undefined : byId.get(n.id);
    if (from === undefined) continue;
    byId.delete(n.id!);
    out.push({ from, to: n.slug });
  }
  return out;
}

/** The version with those nodes renamed (and stamped), before the document is applied to it. */
function withRenames(state: VersionState, renamed: readonly Redirect[], now: string): VersionState {
  const draft = new TreeDraft(state);
  const translations = new Map(state.translations);
  for (const { from, to } of renamed) {
    draft.rename(from, to);
    draft.update(to, { updatedAt: now });
    const moved = translations.get(from);
    translations.delete(from);
    if (moved) translations.set(to, moved);
  }
  return { ...state, ...draft.finish(), translations };
}

/**
 * The version's redirects after an import: those it had, its renames, its deletions, then the
 * document's own (which win for the same old slug). A document's redirect that loops or leads to
 * no node refuses the import, naming it; one whose old slug is a node is dropped (the node wins).
 */
function importRedirects(state: VersionState, renamed: readonly Redirect[], created: readonly string[], deleted: readonly string[], old: OldAddresses, isNode: (slug: string) => boolean, at: string) {
  let r = redirectsOf(state);
  for (const { from, to } of renamed) r = afterRename(r, from, to);
  r = afterCreate(afterDelete(r, deleted, remembersRemovals(state)), created);
  if (old.redirects === undefined && old.removed === undefined) return r;
  const given = old.redirects ?? [];
  const offending: Offending[] = [];
  const settled = settleRedirects(given, old.removed ?? [], isNode, (p) => {
    if (p.kind !== 'live') offending.push({ slug: given[p.index].from, problem: p.message, field: `${at}redirects/${p.index}/${p.kind === 'loop' ? 'from' : 'to'}` });
  });
  if (offending.length > 0) {
    throw new AppError('invalid_document', `The import document has ${offending.length} problem(s); first: ${offending[0].slug}: ${offending[0].problem}`, { offending });
  }
  const ownFroms = new Set(settled.moved.keys());
  const kept = redirectList(r).filter((x) => !ownFroms.has(x.from));
  return settleRedirects([...kept, ...redirectList(settled)], [...r.removed, ...settled.removed], isNode, () => {});
}

function check(state: VersionState, nodes: readonly ImportNode[], mode: ImportMode, at: string): void {
  const offending: Offending[] = [];
  const seen = new Set<string>();
  const primary = primaryLanguage(state.meta);
  for (const [row, n] of nodes.entries()) {
    if (seen.has(n.slug)) offending.push({ slug: n.slug, problem: 'duplicate slug', field: `${at}/${row}/slug` });
    seen.add(n.slug);
    for (const language of Object.keys(n.translations ?? {})) {
      const field = `${at}/${row}/translations/${language}`;
      try {
        assertLanguageEnabled(state, language, field);
      } catch {
        offending.push({ slug: n.slug, language, problem: `language ${language} is not enabled on the version`, field });
      }
    }
    const keepsOld = mode === 'merge' && state.translations.get(n.slug)?.has(primary);
    if (!n.translations?.[primary] && !keepsOld) offending.push({ slug: n.slug, language: primary, problem: `no translation in the primary language ${primary}`, field: `${at}/${row}/translations/${primary}` });
  }
  const exists = (slug: string) => seen.has(slug) || (mode === 'merge' && state.nodes.has(slug));
  const parentOf = new Map<string, string | null>();
  if (mode === 'merge') for (const node of state.nodes.values()) parentOf.set(node.slug, node.parentSlug);
  for (const [row, n] of nodes.entries()) {
    const parent = n.parentSlug !== undefined ? n.parentSlug : (state.nodes.get(n.slug)?.parentSlug ?? null);
    parentOf.set(n.slug, parent);
    if (parent !== null && !exists(parent)) offending.push({ slug: n.slug, problem: `unknown parent "${parent}"`, field: `${at}/${row}/parentSlug` });
  }
  for (const [row, n] of nodes.entries()) {
    const visited = new Set<string>();
    for (let p = parentOf.get(n.slug) ?? null; p !== null; p = parentOf.get(p) ?? null) {
      if (p === n.slug) {
        offending.push({ slug: n.slug, problem: 'cycle: the node would be inside its own subtree', field: `${at}/${row}/parentSlug` });
        break;
      }
      if (visited.has(p)) break;
      visited.add(p);
    }
  }
  if (offending.length > 0) {
    throw new AppError('invalid_document', `The import document has ${offending.length} problem(s); first: ${offending[0].slug}: ${offending[0].problem}`, {
      offending: offending.map(({ slug, language, problem, field }) => (language ? { slug, language, problem, field } : { slug, problem, field })),
    });
  }
}
