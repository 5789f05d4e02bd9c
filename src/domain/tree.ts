import { AppError } from '../errors.ts';
import type { NodeRec, VersionState } from './types.ts';

/** Facts derived from a state's tree, computed once per state and cached (states are immutable). */
interface Derived {
  /** Every node slug in document order (depth-first, siblings by sortOrder). */
  readonly order: readonly string[];
  /** slug → index in `order`. */
  readonly orderIndex: ReadonlyMap<string, number>;
}

const derivedCache = new WeakMap<ReadonlyMap<string, NodeRec>, Derived>();

function derive(state: Pick<VersionState, 'nodes' | 'roots'>): Derived {
  const cached = derivedCache.get(state.nodes);
  if (cached) return cached;
  const order: string[] = [];
  const orderIndex = new Map<string, number>();
  const stack: string[] = [...state.roots].reverse();
  while (stack.length > 0) {
    const slug = stack.pop()!;
    orderIndex.set(slug, order.length);
    order.push(slug);
    const children = state.nodes.get(slug)!.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  const derived = { order, orderIndex };
  derivedCache.set(state.nodes, derived);
  return derived;
}

export const documentOrder = (state: Pick<VersionState, 'nodes' | 'roots'>) => derive(state).order;
export const sortOrderOf = (state: Pick<VersionState, 'nodes'>, slug: string) => state.nodes.get(slug)?.sortOrder ?? 0;
export const orderIndexOf = (state: Pick<VersionState, 'nodes' | 'roots'>, slug: string) => derive(state).orderIndex.get(slug) ?? -1;
/** slug → index in document order, for callers that look up many slugs. */
export const orderIndexes = (state: Pick<VersionState, 'nodes' | 'roots'>): ReadonlyMap<string, number> => derive(state).orderIndex;

/**
 * The nodes under `roots` as nested entries, each `{ ...present(node), children }`: the shape of a
 * tree answer. Recursion is as deep as the tree, at most MAX_DEPTH levels.
 */
export function nestedTree(roots: readonly string[], childrenOf: (node: string) => readonly string[], present: (node: string) => Record<string, unknown>): unknown[] {
  return roots.map((node) => ({ ...present(node), children: nestedTree(childrenOf(node), childrenOf, present) }));
}

/** The node and all its descendants, in document order. */
export function subtree(state: Pick<VersionState, 'nodes'>, slug: string): string[] {
  const out: string[] = [];
  const stack = [slug];
  while (stack.length > 0) {
    const current = stack.pop()!;
    out.push(current);
    const children = state.nodes.get(current)!.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

/** Ancestors of a node, outermost first. */
export function ancestors(state: Pick<VersionState, 'nodes'>, slug: string): string[] {
  const out: string[] = [];
  let parent = state.nodes.get(slug)?.parentSlug ?? null;
  while (parent !== null) {
    out.unshift(parent);
    parent = state.nodes.get(parent)!.parentSlug;
  }
  return out;
}

/** How deep the tree may nest: deep enough for any help site, shallow enough to render and read back quickly. */
export const MAX_DEPTH = 32;

/** A requested place: `slug` under `parentSlug` with the sort key `sortOrder` (after its last sibling when absent). */
export interface Placement {
  slug: string;
  parentSlug: string | null;
  sortOrder?: number;
}

/**
 * A mutable working copy of a state's tree. Domain operations edit it and then take the new,
 * immutable `nodes` and `roots`; untouched node records keep their identity.
 */
export class TreeDraft {
  readonly nodes: Map<string, NodeRec>;
  roots: string[];

  constructor(state: Pick<VersionState, 'nodes' | 'roots'>) {
    this.nodes = new Map(state.nodes);
    this.roots = [...state.roots];
  }

  childrenOf(parent: string | null): readonly string[] {
    return parent === null ? this.roots : this.nodes.get(parent)!.children;
  }

  private setChildren(parent: string | null, children: string[]): void {
    if (parent === null) this.roots = children;
    else this.nodes.set(parent, { ...this.nodes.get(parent)!, children });
  }

  update(slug: string, patch: Partial<Omit<NodeRec, 'slug' | 'children'>>): void {
    this.nodes.set(slug, { ...this.nodes.get(slug)!, ...patch });
  }

  /** Adds a node without a place; `place` must follow. */
  add(node: Omit<NodeRec, 'children' | 'parentSlug' | 'sortOrder'>): void {
    this.nodes.set(node.slug, { ...node, parentSlug: null, sortOrder: 0, children: [] });
  }

  /** Removes the node and its descendants; returns their slugs in document order. */
  remove(slug: string): string[] {
    const removed = subtree({ nodes: this.nodes }, slug);
    const parent = this.nodes.get(slug)!.parentSlug;
    this.setChildren(parent, this.childrenOf(parent).filter((s) => s !== slug));
    for (const s of removed) this.nodes.delete(s);
    return removed;
  }

  rename(from: string, to: string): void {
    const node = this.nodes.get(from)!;
    this.nodes.delete(from);
    this.nodes.set(to, { ...node, slug: to });
    this.setChildren(node.parentSlug, this.childrenOf(node.parentSlug).map((s) => (s === from ? to : s)));
    for (const child of node.children) this.update(child, { parentSlug: to });
  }

  /**
   * Moves nodes all at once. Each moved node goes under its new parent with the sort key its
   * `sortOrder` gives, kept exactly as given; without one it goes after its last sibling (the
   * largest key there + 1, or 0), unless it stays under the parent it has. Siblings are ordered by key; among equal keys the nodes that were
   * there keep their order and come first, then the moved ones in the order of `placements`.
   * Nobody else's key changes. Checks every slug and parent and refuses cycles before changing anything.
   * `where(i)`: where the request holds placement i (`body` for a node's own fields, `body/items/3`
   * for a reorder's row), so that a refusal names the field at fault.
   */
  place(placements: readonly Placement[], stamp: string, isNew: ReadonlySet<string> = new Set(), where: (index: number) => string = () => 'body'): void {
    const moves = new Map<string, Placement>();
    const indexOf = new Map<string, number>();
    placements.forEach((p, i) => {
      if (!this.nodes.has(p.slug)) throw new AppError('unknown_node', `No node "${p.slug}" in this version`, { field: `${where(i)}/slug`, slug: p.slug, index: i });
      if (p.parentSlug !== null && !this.nodes.has(p.parentSlug)) {
        throw new AppError('unknown_parent', `Parent "${p.parentSlug}" of "${p.slug}" does not exist`, { field: `${where(i)}/parentSlug`, slug: p.slug, parentSlug: p.parentSlug, index: i });
      }
      moves.set(p.slug, p);
      indexOf.set(p.slug, i);
    });
    const parentField = (slug: string) => `${where(indexOf.get(slug)!)}/parentSlug`;
    // A node sent to the parent it has, without a key, keeps its key and its place.
    for (const [slug, move] of moves) if (move.sortOrder === undefined && !isNew.has(slug) && this.nodes.get(slug)!.parentSlug === move.parentSlug) moves.delete(slug);
    const parentOf = (slug: string) => (moves.has(slug) ? moves.get(slug)!.parentSlug : this.nodes.get(slug)!.parentSlug);
    for (const slug of moves.keys()) {
      const seen = new Set<string>();
      for (let p = parentOf(slug); p !== null; p = parentOf(p)) {
        if (p === slug) throw new AppError('cycle', `Moving "${slug}" under "${moves.get(slug)!.parentSlug}" would place it inside its own subtree`, { field: parentField(slug), slug, parentSlug: moves.get(slug)!.parentSlug });
        if (seen.has(p)) break;
        seen.add(p);
      }
    }

    const affected = new Set<string | null>();
    for (const [slug, move] of moves) {
      if (!isNew.has(slug)) affected.add(this.nodes.get(slug)!.parentSlug);
      affected.add(move.parentSlug);
    }
    const keyOf = new Map<string, number>();
    const moveIndex = new Map([...moves.keys()].map((s, i) => [s, i]));
    for (const parent of affected) {
      const stay = this.childrenOf(parent).filter((s) => !moves.has(s));
      const keyed = stay.map((slug, i) => ({ slug, key: this.nodes.get(slug)!.sortOrder, moved: 0, tie: i }));
      // Without a key: after the last sibling, counting the keyed moves too, in the order given.
      let last = keyed.reduce((max, k) => Math.max(max, k.key), Number.NEGATIVE_INFINITY);
      for (const move of moves.values()) if (move.parentSlug === parent && move.sortOrder !== undefined) last = Math.max(last, move.sortOrder);
      for (const [slug, move] of moves) {
        if (move.parentSlug !== parent) continue;
        const key = move.sortOrder ?? (last = last === Number.NEGATIVE_INFINITY ? 0 : last + 1);
        keyOf.set(slug, key);
        keyed.push({ slug, key, moved: 1, tie: moveIndex.get(slug)! });
      }
      keyed.sort((a, b) => a.key - b.key || a.moved - b.moved || a.tie - b.tie);
      this.setChildren(parent, keyed.map((k) => k.slug));
    }
    for (const [slug, move] of moves) {
      const node = this.nodes.get(slug)!;
      this.nodes.set(slug, { ...node, parentSlug: move.parentSlug, sortOrder: keyOf.get(slug)!, updatedAt: stamp });
    }
    // The node named is one that lands too deep itself, if any (the 33rd of a chain); else the first whose subtree would reach too deep.
    let fault: { slug: string; depth: number; own: boolean } | null = null;
    for (const slug of moves.keys()) {
      const level = ancestors({ nodes: this.nodes }, slug).length + 1;
      const depth = level - 1 + this.height(slug);
      if (depth > MAX_DEPTH && (fault === null || (!fault.own && level > MAX_DEPTH))) fault = { slug, depth, own: level > MAX_DEPTH };
      if (fault?.own) break;
    }
    if (fault) {
      const { slug, depth } = fault;
      throw new AppError('too_deep', `Placing "${slug}" there would nest the tree ${depth} levels deep; at most ${MAX_DEPTH} are allowed`, { field: parentField(slug), slug, depth, max: MAX_DEPTH });
    }
  }

  /** Levels from the node down to its deepest descendant (1 for a leaf). */
  private height(slug: string): number {
    let deepest = 1;
    const stack: Array<[string, number]> = [[slug, 1]];
    while (stack.length > 0) {
      const [current, level] = stack.pop()!;
      if (level > deepest) deepest = level;
      for (const child of this.nodes.get(current)!.children) stack.push([child, level + 1]);
    }
    return deepest;
  }

  finish(): Pick<VersionState, 'nodes' | 'roots'> {
    return { nodes: this.nodes, roots: this.roots };
  }
}
