import { createNode as addNode, deleteNode as removeNode, patchNode, type NodeCreateInput, type NodePatchInput } from '../domain/nodes.ts';
import type { Precondition } from '../domain/preconditions.ts';
import { placements, reorder } from '../domain/reorder.ts';
import type { Placement } from '../domain/tree.ts';
import type { VersionState } from '../domain/types.ts';
import type { Author, Writer } from '../store/writer.ts';
import { alignBases } from '../content/translation-base.ts';

/** A node write's outcome: the version as written and the node's slug in it (new after a rename). */
export interface NodeWritten {
  state: VersionState;
  slug: string;
}

export function createNode(writer: Writer, author: Author, version: string, input: NodeCreateInput): Promise<NodeWritten> {
  return writer.write(version, author, (ctx) => {
    // Aligned here rather than only by the writer, so the answer (its link warnings' lines) is the files as stored.
    const before = ctx.read(version);
    const state = alignBases(before, addNode(before, input, ctx.now, ctx.newId()));
    return { changes: [{ slug: version, after: state }], message: `Create ${input.kind ?? 'topic'} ${input.slug} in ${version}`, result: { state, slug: input.slug } };
  });
}

/** `minorEdit`: the change of the primary text outdates none of its translations (translation-base.ts). */
export function updateNode(writer: Writer, author: Author, version: string, slug: string, input: NodePatchInput, pre: Precondition | null, minorEdit = false): Promise<NodeWritten> {
  return writer.write(version, author, (ctx) => {
    const before = ctx.read(version);
    const bases = { minor: minorEdit ? new Set([input.slug ?? slug]) : undefined };
    const state = alignBases(before, patchNode(before, slug, input, pre, ctx.now), bases);
    const what = Object.keys(input).join(', ') || 'nothing';
    return { changes: [{ slug: version, after: state }], message: `Update node ${slug} in ${version}: ${what}`, result: { state, slug: input.slug ?? slug }, bases };
  });
}

/** Deletes the node and its descendants; answers their slugs in document order. */
export async function deleteNode(writer: Writer, author: Author, version: string, slug: string, pre: Precondition | null): Promise<string[]> {
  return (await writeNodeDeletion(writer, author, version, slug, pre)).removed;
}

/** deleteNode(), answering the version as written too (for what the answer says about it, such as the links left without their node). */
export function writeNodeDeletion(writer: Writer, author: Author, version: string, slug: string, pre: Precondition | null): Promise<{ removed: string[]; state: VersionState }> {
  return writer.write(version, author, (ctx) => {
    const { state, removed } = removeNode(ctx.read(version), slug, pre);
    const extra = removed.length > 1 ? ` and ${removed.length - 1} descendant(s)` : '';
    return { changes: [{ slug: version, after: state }], message: `Delete node ${slug}${extra} in ${version}`, result: { removed, state } };
  });
}

/** Moves many nodes in one commit; answers every node's place in document order. */
export function reorderNodes(writer: Writer, author: Author, version: string, items: readonly Placement[]) {
  return writer.write(version, author, (ctx) => {
    const state = reorder(ctx.read(version), items, ctx.now);
    return { changes: [{ slug: version, after: state }], message: `Reorder ${items.length} node(s) in ${version}`, result: placements(state) };
  });
}
