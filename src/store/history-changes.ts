import type { NodeKind, Translation, VersionState } from '../domain/types.ts';
import { changedTranslationSlugs } from '../domain/translation-changes.ts';

/*
 * What one commit did to the nodes and translation files of one version, worked out by node id so
 * that a renamed node keeps one history. Two sources feed the same rules: a write's states before
 * and after (as it is committed), and version.json with the changed paths (when history is read
 * back from git log).
 */

/** What a history entry says happened. */
export type Change = 'created' | 'updated' | 'moved' | 'renamed' | 'deleted';

/** A node as history compares it: its place and properties, its parent by id (a renamed parent moves no child). */
export interface NodeFacts {
  slug: string;
  kind: NodeKind;
  parentId: string | null;
  sortOrder: number;
  icon: string | null;
}

export type NodeTable = ReadonlyMap<string, NodeFacts>;

/** One change to one node (`language` null: the node itself, in version.json) or to one of its Markdown files. */
export interface EntryFacts {
  id: string;
  change: Change;
  /** The slug the node had before a rename. */
  from?: string;
  /** The node's slug after the commit (before it, for a deletion). */
  slug: string;
  language: string | null;
  /** The Markdown file's blob after the commit (null: deleted); only for translation entries. */
  blob?: string | null;
}

/** How one translation file changed, by node id and language. */
export type FileChange = 'added' | 'modified' | 'deleted';

/** The node table of a state: by id. */
export function nodeTableOf(state: Pick<VersionState, 'nodes'> | null): Map<string, NodeFacts> {
  const out = new Map<string, NodeFacts>();
  if (state === null) return out;
  for (const n of state.nodes.values()) {
    out.set(n.id, { slug: n.slug, kind: n.kind, parentId: n.parentSlug === null ? null : (state.nodes.get(n.parentSlug)?.id ?? null), sortOrder: n.sortOrder, icon: n.icon });
  }
  return out;
}

/**
 * The node tables of what a write may have changed, before and after: the nodes whose record or
 * translations are not the very objects they were (a write replaces what it changes and keeps the
 * rest), so an edit costs what it touched, not the whole tree. Where a slug names another node after
 * the write than before (deleted and created again), children may have a new parent id with their
 * records unchanged: then every node is compared.
 */
export function changedNodeTables(before: VersionState | null, after: VersionState | null): { before: Map<string, NodeFacts>; after: Map<string, NodeFacts> } {
  const whole = () => ({ before: nodeTableOf(before), after: nodeTableOf(after) });
  if (before === null || after === null) return whole();
  const out = { before: new Map<string, NodeFacts>(), after: new Map<string, NodeFacts>() };
  if (before.nodes === after.nodes && before.translations === after.translations) return out;
  if (before.nodes === after.nodes) {
    // The tree as it was (a translation written): the nodes whose translations changed, found
    // without a pass over every node (translation-changes.ts), in the tree's order as a pass gives them.
    const position = positionsOf(after.nodes);
    const slugs = changedTranslationSlugs(before.translations, after.translations).filter((slug) => position.has(slug));
    slugs.sort((a, b) => position.get(a)! - position.get(b)!);
    for (const slug of slugs) {
      const n = after.nodes.get(slug)!;
      const facts = { slug, kind: n.kind, parentId: n.parentSlug === null ? null : (after.nodes.get(n.parentSlug)?.id ?? null), sortOrder: n.sortOrder, icon: n.icon };
      out.after.set(n.id, facts);
      out.before.set(n.id, { ...facts });
    }
    return out;
  }
  const sameTranslations = before.translations === after.translations;
  const add = (state: VersionState, other: VersionState, table: Map<string, NodeFacts>): boolean => {
    for (const n of state.nodes.values()) {
      const slug = n.slug;
      const then = other.nodes.get(slug);
      if (then === n && (sameTranslations || state.translations.get(slug) === other.translations.get(slug))) continue;
      if (then !== undefined && then.id !== n.id) return false;
      table.set(n.id, { slug, kind: n.kind, parentId: n.parentSlug === null ? null : (state.nodes.get(n.parentSlug)?.id ?? null), sortOrder: n.sortOrder, icon: n.icon });
    }
    return true;
  };
  return add(after, before, out.after) && add(before, after, out.before) ? out : whole();
}

/** Each slug's place in a nodes map's order, kept per map (a translation write keeps the map). */
const positions = new WeakMap<VersionState['nodes'], Map<string, number>>();

function positionsOf(nodes: VersionState['nodes']): Map<string, number> {
  let found = positions.get(nodes);
  if (found === undefined) {
    found = new Map();
    for (const slug of nodes.keys()) found.set(slug, found.size);
    positions.set(nodes, found);
  }
  return found;
}

const sameFile = (a: Translation, b: Translation) => a.title === b.title && a.summary === b.summary && a.bodyMd === b.bodyMd && a.basedOn === b.basedOn;

/**
 * The translation files a write changed, by node id and language: only what the file holds counts.
 */
export function fileChangesOfStates(before: VersionState | null, after: VersionState | null, beforeNodes: NodeTable, afterNodes: NodeTable): Map<string, Map<string, FileChange>> {
  const out = new Map<string, Map<string, FileChange>>();
  const ids = new Set([...beforeNodes.keys(), ...afterNodes.keys()]);
  for (const id of ids) {
    const oldSlug = beforeNodes.get(id)?.slug;
    const newSlug = afterNodes.get(id)?.slug;
    const prev = oldSlug === undefined ? undefined : before?.translations.get(oldSlug);
    const next = newSlug === undefined ? undefined : after?.translations.get(newSlug);
    if (prev === next && oldSlug === newSlug) continue;
    const langs = new Set([...(prev?.keys() ?? []), ...(next?.keys() ?? [])]);
    for (const lang of langs) {
      const a = prev?.get(lang);
      const b = next?.get(lang);
      let change: FileChange | null = null;
      if (a === undefined) change = 'added';
      else if (b === undefined) change = 'deleted';
      else if (oldSlug !== newSlug || (a !== b && !sameFile(a, b))) change = 'modified';
      if (change === null) continue;
      let byLang = out.get(id);
      if (!byLang) out.set(id, (byLang = new Map()));
      byLang.set(lang, change);
    }
  }
  return out;
}

/**
 * The entries of one commit in one version: per node, what happened to it (created, deleted,
 * renamed, moved, updated), and per changed translation file what happened to that file. `blobOf`
 * gives a file's blob id after the commit (language, slug).
 */
export function entriesOf(beforeNodes: NodeTable, afterNodes: NodeTable, files: ReadonlyMap<string, ReadonlyMap<string, FileChange>>, blobOf: (language: string, slug: string) => string | null): EntryFacts[] {
  const out: EntryFacts[] = [];
  const ids = new Set([...afterNodes.keys(), ...beforeNodes.keys(), ...files.keys()]);
  for (const id of ids) {
    const before = beforeNodes.get(id);
    const after = afterNodes.get(id);
    const nodeChange: Change | null =
      before === undefined && after === undefined ? null
      : before === undefined ? 'created'
      : after === undefined ? 'deleted'
      : before.slug !== after.slug ? 'renamed'
      : before.parentId !== after.parentId || before.sortOrder !== after.sortOrder ? 'moved'
      : before.kind !== after.kind || before.icon !== after.icon ? 'updated'
      : null;
    const slug = after?.slug ?? before?.slug;
    if (slug === undefined) continue;
    if (nodeChange !== null) out.push({ id, change: nodeChange, ...(nodeChange === 'renamed' ? { from: before!.slug } : {}), slug, language: null });
    // In the order of their paths, as git log lists them: both sources give the same entries.
    for (const [language, file] of [...(files.get(id) ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const change: Change =
        file === 'deleted' ? 'deleted'
        : file === 'added' ? 'created'
        : nodeChange === 'renamed' ? 'renamed'
        : 'updated';
      const blob = file === 'deleted' ? null : blobOf(language, slug);
      out.push({ id, change, ...(change === 'renamed' ? { from: before!.slug } : {}), slug, language, blob });
    }
  }
  return out;
}
