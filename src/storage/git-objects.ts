import { createHash } from 'node:crypto';
import { hashInSlices, nextTurn, sliceEnd, TURN_CHARS } from '../slices.ts';

export type ObjectType = 'blob' | 'tree' | 'commit';

/** A git object ready to write: its id (hashed with Node's own crypto), its type and its raw content. */
export interface PreparedObject {
  oid: string;
  type: ObjectType;
  content: Buffer;
  /**
   * The content this one was patched from in place (same length, a few ids changed): the pack
   * writer then deflates again only the parts that differ (pack-writer.ts).
   */
  patchedFrom?: Buffer;
}

export function prepareObject(type: ObjectType, content: Buffer): PreparedObject {
  const oid = createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
  return { oid, type, content };
}

/**
 * The blob of a file's text (UTF-8), the same as prepareObject('blob', …); a long text is encoded
 * and hashed a slice at a time with turns of the event loop between: a 5 MB file at once held every
 * other request for about 10 ms.
 */
export async function prepareBlob(text: string): Promise<PreparedObject> {
  if (text.length <= TURN_CHARS) return prepareObject('blob', Buffer.from(text, 'utf8'));
  const pieces: Buffer[] = [];
  for (let from = 0; from < text.length; ) {
    const to = sliceEnd(text, from, TURN_CHARS);
    pieces.push(Buffer.from(text.slice(from, to), 'utf8'));
    from = to;
    await nextTurn();
  }
  const content = Buffer.concat(pieces);
  const oid = (await sha1Sliced([Buffer.from(`blob ${content.length}\0`), content])).toString('hex');
  return { oid, type: 'blob', content };
}

/** SHA-1 of the parts, in slices with turns of the event loop between them (a merged pack can be tens of MB, a file's blob several). */
export async function sha1Sliced(parts: readonly Buffer[]): Promise<Buffer> {
  const hash = createHash('sha1');
  await hashInSlices(hash, parts);
  return hash.digest();
}

/** A tree kept in memory with its id, so a write patches only the path that changed. */
export interface TreeNode {
  readonly oid: string;
  readonly entries: ReadonlyMap<string, TreeEntry>;
}

export type TreeEntry = { readonly kind: 'blob'; readonly oid: string } | { readonly kind: 'tree'; readonly oid: string; readonly tree: TreeNode };

export const EMPTY_TREE: TreeNode = { oid: '4b825dc642cb6eb9a060e54bf8d69288fbee4904', entries: new Map() };

/** Serializes a tree the way git does: entries sorted by name, folders compared as `name/`. */
export function serializeTree(entries: ReadonlyMap<string, TreeEntry>): Buffer {
  return serializeWithOffsets(entries).content;
}

/** A tree's serialized content and where each entry's 20-byte id sits in it. */
interface Serialized {
  readonly content: Buffer;
  readonly idAt: ReadonlyMap<string, number>;
}

function serializeWithOffsets(entries: ReadonlyMap<string, TreeEntry>): Serialized {
  // git orders by bytes, not UTF-16 units; the keys are encoded once, not on every comparison.
  const keyed = [...entries].map(([name, e]) => ({ name, e, key: Buffer.from(e.kind === 'tree' ? `${name}/` : name) }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  let length = 0;
  for (const { name, e } of keyed) length += (e.kind === 'tree' ? 6 : 7) + Buffer.byteLength(name) + 1 + 20;
  const content = Buffer.allocUnsafe(length);
  const idAt = new Map<string, number>();
  let at = 0;
  for (const { name, e } of keyed) {
    at += content.write(`${e.kind === 'tree' ? '40000' : '100644'} ${name}\0`, at, 'utf8');
    idAt.set(name, at);
    at += content.write(e.oid, at, 'hex');
  }
  return { content, idAt };
}

/**
 * Large trees (a language folder of thousands of pages) keep their serialized content, so a write
 * that only changes ids of entries they hold copies it and overwrites those ids: sorting and
 * encoding thousands of names cost about 4 ms per write at 2,000 entries. Smaller trees are
 * serialized again each time. Held weakly: a tree replaced by a write lets its bytes go.
 */
const KEEP_SERIALIZED_FROM = 64;
const serializedTrees = new WeakMap<TreeNode, Serialized>();

function serializedOf(tree: TreeNode): Serialized {
  let kept = serializedTrees.get(tree);
  if (kept === undefined) {
    kept = serializeWithOffsets(tree.entries);
    serializedTrees.set(tree, kept);
  }
  return kept;
}

/** The tree's object with `entries` (the tree's own, some ids changed), patched in place where `tree`'s bytes are kept. */
function treeObject(tree: TreeNode, entries: ReadonlyMap<string, TreeEntry>, changed: readonly string[] | null): { object: PreparedObject; serialized: Serialized } {
  if (changed === null || entries.size < KEEP_SERIALIZED_FROM) {
    const serialized = serializeWithOffsets(entries);
    return { object: prepareObject('tree', serialized.content), serialized };
  }
  const before = serializedOf(tree);
  const content = Buffer.from(before.content);
  for (const name of changed) {
    // A removal of a name the tree did not hold changes nothing.
    const entry = entries.get(name);
    if (entry !== undefined) content.write(entry.oid, before.idAt.get(name)!, 'hex');
  }
  return { object: { ...prepareObject('tree', content), patchedFrom: before.content }, serialized: { content, idAt: before.idAt } };
}

/** A change to apply: a blob at a path, a whole subtree at a path, or a removal (null). */
export type PathChange = { blob: string } | { tree: TreeNode } | null;

/**
 * Applies changes (keyed by `/`-separated paths) to a tree and returns the new tree; every new tree
 * object is appended to `out`. Unchanged subtrees are shared; folders left empty disappear.
 */
export function patchTree(tree: TreeNode, changes: ReadonlyMap<string, PathChange>, out: PreparedObject[]): TreeNode {
  const here = new Map<string, PathChange>();
  const below = new Map<string, Map<string, PathChange>>();
  for (const [path, change] of changes) {
    const slash = path.indexOf('/');
    if (slash < 0) here.set(path, change);
    else {
      const head = path.slice(0, slash);
      if (!below.has(head)) below.set(head, new Map());
      below.get(head)!.set(path.slice(slash + 1), change);
    }
  }
  const entries = new Map(tree.entries);
  // Whether every change keeps the entry's name and kind: the bytes then differ only in ids.
  let sameLayout = true;
  const put = (name: string, entry: TreeEntry) => {
    if (entries.get(name)?.kind !== entry.kind) sameLayout = false;
    entries.set(name, entry);
  };
  const changed = [...here.keys(), ...below.keys()];
  for (const [name, change] of here) {
    if (change === null) sameLayout = !entries.delete(name) && sameLayout;
    else if ('blob' in change) put(name, { kind: 'blob', oid: change.blob });
    else put(name, { kind: 'tree', oid: change.tree.oid, tree: change.tree });
  }
  for (const [name, sub] of below) {
    const current = entries.get(name);
    const child = patchTree(current?.kind === 'tree' ? current.tree : EMPTY_TREE, sub, out);
    if (child.entries.size === 0) sameLayout = !entries.delete(name) && sameLayout;
    else put(name, { kind: 'tree', oid: child.oid, tree: child });
  }
  const { object, serialized } = treeObject(tree, entries, sameLayout ? changed : null);
  out.push(object);
  const patched: TreeNode = { oid: object.oid, entries };
  if (entries.size >= KEEP_SERIALIZED_FROM) serializedTrees.set(patched, serialized);
  return patched;
}

/** A commit object; the author is who made the change, the committer is the service. */
export function prepareCommit(opts: { tree: string; parent: string | null; author: string; message: string; time: Date }): PreparedObject {
  const seconds = Math.floor(opts.time.getTime() / 1000);
  const author = `${opts.author} <${opts.author.replace(/\s+/g, '.')}@api-key.invalid> ${seconds} +0000`;
  const lines = [`tree ${opts.tree}`];
  if (opts.parent) lines.push(`parent ${opts.parent}`);
  lines.push(`author ${author}`, `committer help-content-service <service@help-content.invalid> ${seconds} +0000`, '', opts.message.trimEnd(), '');
  return prepareObject('commit', Buffer.from(lines.join('\n')));
}
