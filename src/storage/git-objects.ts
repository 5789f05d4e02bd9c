import { createHash } from 'node:crypto';
import { hashInSlices, nextTurn, sliceEnd, TURN_CHARS } from '../slices.ts';

export type ObjectType = 'blob' | 'tree' | 'commit';

/** A git object ready to write: its id (hashed with Node's own crypto), its type and its raw content. */
export interface PreparedObject {
  oid: string;
  type: ObjectType;
  content: Buffer;
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
  // git orders by bytes, not UTF-16 units; the keys are encoded once, not on every comparison.
  const keyed = [...entries].map(([name, e]) => ({ name, e, key: Buffer.from(e.kind === 'tree' ? `${name}/` : name) }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const parts: Buffer[] = [];
  for (const { name, e } of keyed) {
    parts.push(Buffer.from(`${e.kind === 'tree' ? '40000' : '100644'} ${name}\0`), Buffer.from(e.oid, 'hex'));
  }
  return Buffer.concat(parts);
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
  for (const [name, change] of here) {
    if (change === null) entries.delete(name);
    else if ('blob' in change) entries.set(name, { kind: 'blob', oid: change.blob });
    else entries.set(name, { kind: 'tree', oid: change.tree.oid, tree: change.tree });
  }
  for (const [name, sub] of below) {
    const current = entries.get(name);
    const child = patchTree(current?.kind === 'tree' ? current.tree : EMPTY_TREE, sub, out);
    if (child.entries.size === 0) entries.delete(name);
    else entries.set(name, { kind: 'tree', oid: child.oid, tree: child });
  }
  const object = prepareObject('tree', serializeTree(entries));
  out.push(object);
  return { oid: object.oid, entries };
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
