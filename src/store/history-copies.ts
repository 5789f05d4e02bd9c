import { createHash } from 'node:crypto';
import type { EntryFacts } from './history-changes.ts';

/*
 * Versions created as copies of others (duplicated for each release) in the history index: their
 * first commit creates every node and file another version has, so it is stored as a reference to
 * that version with a fingerprint of what it copied, and its entries are derived again from that
 * version's entries. Whether a created version is such a copy is found from the entries alone
 * (whichever way it was made: a duplicate, a working copy, folders copied outside the service), and
 * the fingerprint makes sure the entries derived again are the very ones it replaced.
 */

/** A node as the entries so far leave it: its slug and its files' blobs, by language. */
export interface LiveNode {
  slug: string;
  files: Map<string, string | null>;
}

/** What liveNodes reads: a node's entries, oldest first. */
type Entry = Pick<EntryFacts, 'change' | 'slug' | 'language' | 'blob'>;

/** A version's nodes as their entries leave them, in the order they were first recorded; deleted ones are left out. */
export function liveNodes(nodes: ReadonlyMap<string, readonly Entry[]>): Map<string, LiveNode> {
  const out = new Map<string, LiveNode>();
  for (const [id, entries] of nodes) {
    let alive = false;
    let slug = '';
    const files = new Map<string, string | null>();
    for (const e of entries) {
      slug = e.slug;
      if (e.language === null) alive = e.change !== 'deleted';
      else if (e.change === 'deleted') files.delete(e.language);
      else files.set(e.language, e.blob ?? null);
    }
    if (alive) out.set(id, { slug, files });
  }
  return out;
}

/** The nodes a version's first commit created, when its entries create each node and its files and do nothing else; else null. */
export function createdNodes(entries: readonly EntryFacts[]): Map<string, LiveNode> | null {
  const out = new Map<string, LiveNode>();
  for (const e of entries) {
    if (e.change !== 'created' || e.from !== undefined) return null;
    const node = out.get(e.id);
    if (e.language === null) {
      if (node !== undefined) return null;
      out.set(e.id, { slug: e.slug, files: new Map() });
    } else {
      if (node === undefined || node.slug !== e.slug || node.files.has(e.language)) return null;
      node.files.set(e.language, e.blob ?? null);
    }
  }
  return out;
}

const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A fingerprint of nodes: their ids, slugs, languages and blobs, in no particular order. */
export function copyFingerprint(nodes: ReadonlyMap<string, LiveNode>): string {
  const hash = createHash('sha256');
  for (const id of [...nodes.keys()].sort(byCode)) {
    const node = nodes.get(id)!;
    hash.update(`${id}\t${node.slug}\n`);
    for (const language of [...node.files.keys()].sort(byCode)) hash.update(`\t${language}\t${node.files.get(language) ?? ''}\n`);
  }
  return hash.digest('base64url');
}

/** The entries that create these nodes and their files, as a commit that created them records them. */
export function creatingEntries(nodes: ReadonlyMap<string, LiveNode>): EntryFacts[] {
  const out: EntryFacts[] = [];
  for (const [id, { slug, files }] of nodes) {
    out.push({ id, change: 'created', slug, language: null });
    for (const language of [...files.keys()].sort(byCode)) out.push({ id, change: 'created', slug, language, blob: files.get(language) ?? null });
  }
  return out;
}
