import type { Redirects, VersionState } from './types.ts';

/**
 * The rules of a version's old addresses. A renamed node leaves its old slug behind, pointing at the
 * new one; a chain of renames is kept as one hop from every old slug (a→b then b→c: a→c and b→c), so
 * a reader is sent once, never through a chain. A live node always wins: a node that takes an old
 * slug drops its redirect (and its "removed" mark). Deleting a node drops the redirects to it and
 * leaves none; in a published version (or a working copy, whose deletions are published with it)
 * its slug, and the old slugs that pointed at it, are kept as removed, so the portal can say 410 Gone.
 */

export const NO_REDIRECTS: Redirects = { moved: new Map(), removed: [] };

export const redirectsOf = (state: Pick<VersionState, 'redirects'>): Redirects => state.redirects ?? NO_REDIRECTS;

/** A redirect as documents and answers carry it. */
export interface Redirect {
  from: string;
  to: string;
}

/** The redirects as a list sorted by old slug (export documents, answers). */
export const redirectList = (r: Redirects): Redirect[] => [...r.moved].map(([from, to]) => ({ from, to }));

/** Both parts in order of slug, so the file and its diffs are stable. */
function sorted(moved: Map<string, string>, removed: Iterable<string>): Redirects {
  return { moved: new Map([...moved].sort((a, b) => (a[0] < b[0] ? -1 : 1))), removed: [...new Set(removed)].sort() };
}

const isEmpty = (r: Redirects) => r.moved.size === 0 && r.removed.length === 0;

/** The state with these redirects (the same state when they did not change). */
export function withRedirects<S extends VersionState>(state: S, r: Redirects): S {
  if (r === state.redirects || (state.redirects === undefined && isEmpty(r))) return state;
  if (isEmpty(r)) {
    const { redirects: _gone, ...rest } = state;
    return rest as S;
  }
  return { ...state, redirects: r };
}

/** After renaming `from` to `to`: every old slug of `from` now points at `to`, and `from` is one of them. */
export function afterRename(r: Redirects, from: string, to: string): Redirects {
  if (from === to) return r;
  const moved = new Map<string, string>();
  for (const [old, target] of r.moved) {
    const next = target === from ? to : target;
    // `to` is a live slug again: it stops being an old one (renaming back and forth leaves no loop).
    if (old !== to) moved.set(old, next);
  }
  moved.set(from, to);
  return sorted(moved, r.removed.filter((s) => s !== to));
}

/** After nodes were created under these slugs: none of them is an old or removed address any more. */
export function afterCreate(r: Redirects, slugs: Iterable<string>): Redirects {
  const taken = new Set(slugs);
  if (![...taken].some((s) => r.moved.has(s) || r.removed.includes(s))) return r;
  return sorted(new Map([...r.moved].filter(([from]) => !taken.has(from))), r.removed.filter((s) => !taken.has(s)));
}

/** After these nodes were deleted: no redirect leads to them; `remember` keeps their addresses as removed. */
export function afterDelete(r: Redirects, slugs: Iterable<string>, remember: boolean): Redirects {
  const gone = new Set(slugs);
  const moved = new Map<string, string>();
  const removed = [...r.removed];
  for (const [from, to] of r.moved) {
    if (!gone.has(to)) moved.set(from, to);
    else if (remember) removed.push(from);
  }
  if (remember) removed.push(...gone);
  if (moved.size === r.moved.size && removed.length === r.removed.length) return r;
  return sorted(moved, removed);
}

/** Whether deleting a node of this version leaves its address as removed (see the module's comment). */
export const remembersRemovals = (state: VersionState): boolean => state.meta.status === 'published' || state.meta.workingCopyOf !== null;

/** What is wrong with one given redirect, for its reader to name with its place. */
export type RedirectProblem =
  | { index: number; kind: 'loop'; message: string }
  | { index: number; kind: 'no_target'; message: string }
  | { index: number; kind: 'live'; message: string };

/**
 * Redirects given by a writer (a document, a hand-written version.json), as the state keeps them:
 * chains followed to their end (one hop), an old slug that is a node now dropped (the node wins;
 * reported as `live`), and every redirect that loops or ends at no node reported. `removed` slugs
 * that are nodes are dropped too.
 */
export function settleRedirects(given: readonly Redirect[], removed: readonly string[], isNode: (slug: string) => boolean, report: (p: RedirectProblem) => void): Redirects {
  const next = new Map(given.map((r) => [r.from, r.to]));
  // Where each old slug ends, found once: a hand-written chain of thousands of slugs costs its length, not its square.
  type End = { to: string } | { loop: string[] } | { missing: string };
  const ends = new Map<string, End>();
  const endOf = (from: string): End => {
    const path: string[] = [];
    const onPath = new Set<string>();
    let slug = from;
    let end: End;
    for (;;) {
      const known = ends.get(slug);
      if (slug !== from && isNode(slug)) end = { to: slug };
      else if (known !== undefined) end = known;
      else if (onPath.has(slug)) end = { loop: [...path.slice(path.indexOf(slug)), slug] };
      else if (!next.has(slug)) end = { missing: slug };
      else {
        path.push(slug);
        onPath.add(slug);
        slug = next.get(slug)!;
        continue;
      }
      break;
    }
    for (const p of path) ends.set(p, end);
    return end;
  };
  const moved = new Map<string, string>();
  given.forEach(({ from }, index) => {
    if (isNode(from)) {
      report({ index, kind: 'live', message: `"${from}" is a node of the version, which wins over a redirect: the redirect is dropped` });
      return;
    }
    const end = endOf(from);
    if ('to' in end) moved.set(from, end.to);
    else if ('loop' in end) report({ index, kind: 'loop', message: `the redirect from "${from}" loops (${end.loop.slice(0, 5).join(' → ')}${end.loop.length > 5 ? ' → …' : ''}): each old slug must lead to a node` });
    else report({ index, kind: 'no_target', message: `the redirect from "${from}" leads to "${end.missing}", which is no node of the version` });
  });
  return sorted(moved, removed.filter((s) => !isNode(s) && !moved.has(s)));
}
