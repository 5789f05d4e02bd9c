import { fileStamp } from '../domain/stamps.ts';
import { canonicalLanguage, ICON_MAX, ICON_PATTERN, isNodeId, isNodeSlug, isWindowsReserved } from '../domain/names.ts';
import { MAX_DEPTH } from '../domain/tree.ts';
import type { Redirect } from '../domain/redirects.ts';
import type { NodeKind, VersionMeta, VersionState, VersionStatus } from '../domain/types.ts';
import { jsonSyntaxError } from './json-syntax.ts';
import { lineAt, lineOf, lineOfRepeat, textProblem, type LineRef, type ProblemList } from './problems.ts';

export const VERSION_FILE = 'version.json';
/** A version's label at most, in characters: the API's limit (src/schemas/versions.ts), and a hand-written version.json's. */
export const LABEL_MAX = 200;

/**
 * One entry of `nav`: a topic's slug as a bare string, or an object. Nesting gives the parent, and
 * the order of entries is the order of siblings; `sortOrder` is the node's sort key, written only
 * where it is not the entry's index among its siblings. `kind` defaults to `section` when
 * `children` is present.
 */
export type NavEntry =
  | string
  | { slug: string; kind?: NodeKind; id?: string; icon?: string | null; sortOrder?: number; updatedAt?: string; children?: NavEntry[] };

/** A nav entry after reading: every field known, parent and children resolved. */
export interface NavNode {
  slug: string;
  kind: NodeKind;
  id: string | null;
  icon: string | null;
  sortOrder: number;
  updatedAt: string | null;
  parentSlug: string | null;
  children: string[];
}

export interface ParsedVersionFile {
  meta: Omit<VersionMeta, 'createdAt' | 'updatedAt'> & { createdAt: string | null; updatedAt: string | null };
  nodes: Map<string, NavNode>;
  roots: string[];
  /** `redirects` as written (slugs checked; chains and targets are checked against the nodes by the reader of the set). */
  redirects: Redirect[];
  removed: string[];
}

const STATUSES: readonly VersionStatus[] = ['draft', 'published', 'archived'];
const KNOWN_KEYS = new Set(['label', 'status', 'isLatest', 'languages', 'sortOrder', 'hidden', 'workingCopyOf', 'createdAt', 'updatedAt', 'nav', 'redirects', 'removed']);
const ENTRY_KEYS = new Set(['slug', 'kind', 'id', 'icon', 'sortOrder', 'updatedAt', 'children']);
const iconRe = new RegExp(ICON_PATTERN);

/**
 * Writes `version.json` from a state: the version's fields and the whole navigation tree. Stamps stay
 * out (the service keeps them in `.stamps/nodes.json`); `stamped` writes them as files did before.
 */
export function renderVersionFile(state: Pick<VersionState, 'meta' | 'nodes' | 'roots' | 'redirects'>, stamped = false): string {
  // A key equal to the entry's index is left out: it is what a reader assumes, and a file whose
  // writers never set keys stays free of them.
  const entry = (slug: string, index: number): NavEntry => {
    const n = state.nodes.get(slug)!;
    const out: Exclude<NavEntry, string> = { slug, kind: n.kind, id: n.id };
    if (n.icon !== null) out.icon = n.icon;
    if (n.sortOrder !== index) out.sortOrder = n.sortOrder;
    if (stamped) out.updatedAt = n.updatedAt;
    if (n.children.length > 0) out.children = n.children.map(entry);
    return out;
  };
  const m = state.meta;
  const doc: Record<string, unknown> = { label: m.label, status: m.status, isLatest: m.isLatest, languages: m.languages };
  if (m.sortOrder !== null) doc.sortOrder = m.sortOrder;
  if (m.hidden) doc.hidden = true;
  if (m.workingCopyOf !== null) doc.workingCopyOf = m.workingCopyOf;
  if (stamped) {
    doc.createdAt = m.createdAt;
    doc.updatedAt = m.updatedAt;
  }
  doc.nav = state.roots.map(entry);
  // One line per old slug, in order of slug; a live node's slug is never written as an old one.
  const moved = [...(state.redirects?.moved ?? [])].filter(([from, to]) => !state.nodes.has(from) && state.nodes.has(to));
  if (moved.length > 0) doc.redirects = Object.fromEntries(moved);
  const removed = (state.redirects?.removed ?? []).filter((slug) => !state.nodes.has(slug));
  if (removed.length > 0) doc.removed = removed;
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Reads `version.json`, reporting every problem with its line; null when it is not a JSON object at all. */
export function parseVersionFile(path: string, given: string, problems: ProblemList): ParsedVersionFile | null {
  // A byte order mark, which some Windows editors write, is read past, as in the Markdown files.
  const text = given.charCodeAt(0) === 0xfeff ? given.slice(1) : given;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // In our words, at its line and column: the engine's message names no position for some mistakes, and quotes the text.
    const e = jsonSyntaxError(text);
    if (e === null) problems.error(path, `invalid JSON: ${(err as Error).message}`);
    else {
      const line = lineAt(text, e.at);
      const column = e.at - text.lastIndexOf('\n', e.at - 1);
      problems.error(path, `invalid JSON at column ${column}: ${e.message}`, line);
    }
    return null;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    problems.error(path, 'must be a JSON object', 1);
    return null;
  }
  const d = doc as Record<string, unknown>;
  const where = (key: string) => () => lineOf(text, `"${key}"`);
  for (const key of Object.keys(d)) if (!KNOWN_KEYS.has(key)) problems.warn(path, `unknown key "${key}" is ignored`, where(key));

  const label = d.label ?? '';
  // The API's own limits: a hand-written label is served in every GET /versions as one the API took.
  const labelProblem = typeof label !== 'string' ? 'must be a string' : [...label].length > LABEL_MAX ? `must be at most ${LABEL_MAX} characters` : textProblem(label);
  if (labelProblem !== null) problems.error(path, `"label" ${labelProblem}`, where('label'));
  const status = d.status ?? 'draft';
  if (!STATUSES.includes(status as VersionStatus)) problems.error(path, `"status" must be one of ${STATUSES.join(', ')}`, where('status'));
  const languages = readLanguages(path, d.languages ?? ['en'], problems, where('languages'));
  for (const key of ['isLatest', 'hidden'] as const) {
    if (d[key] !== undefined && typeof d[key] !== 'boolean') problems.error(path, `"${key}" must be true or false`, where(key));
  }
  if (d.sortOrder !== undefined && d.sortOrder !== null && (typeof d.sortOrder !== 'number' || !Number.isFinite(d.sortOrder))) {
    problems.error(path, '"sortOrder" must be a number', where('sortOrder'));
  }
  if (d.workingCopyOf !== undefined && d.workingCopyOf !== null && typeof d.workingCopyOf !== 'string') {
    problems.error(path, '"workingCopyOf" must be a version slug', where('workingCopyOf'));
  }
  const nav = d.nav ?? [];
  const nodes = new Map<string, NavNode>();
  const roots: string[] = [];
  if (!Array.isArray(nav)) problems.error(path, '"nav" must be an array', where('nav'));
  else readNav(nav, null, 'nav', { path, text, problems, nodes }, roots);
  const { redirects, removed } = readRedirects(path, text, d, problems);
  // With problems reported, the rest is still returned (valid entries only) so that the Markdown
  // files can be checked against it in the same pass.

  return {
    meta: {
      label: typeof label === 'string' ? label : '',
      status: STATUSES.includes(status as VersionStatus) ? (status as VersionStatus) : 'draft',
      isLatest: d.isLatest === true,
      languages,
      sortOrder: typeof d.sortOrder === 'number' ? d.sortOrder : null,
      hidden: d.hidden === true,
      workingCopyOf: typeof d.workingCopyOf === 'string' ? d.workingCopyOf : null,
      createdAt: readStamp(d.createdAt, '"createdAt"', (message) => problems.warn(path, message, where('createdAt'))),
      updatedAt: readStamp(d.updatedAt, '"updatedAt"', (message) => problems.warn(path, message, where('updatedAt'))),
    },
    nodes,
    roots,
    redirects,
    removed,
  };
}

/** The line of an old slug in `redirects` (or, with `key` "removed", of a slug in `removed`). */
export function redirectLine(text: string, slug: string, key: 'redirects' | 'removed' = 'redirects'): number | undefined {
  // The key itself (a nav entry may be named "redirects"), then the slug as a key of it, or as an item of "removed".
  const start = new RegExp(`"${key}"\\s*:`).exec(text);
  if (start === null) return undefined;
  const quoted = JSON.stringify(slug).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = new RegExp(key === 'redirects' ? `${quoted}\\s*:` : quoted, 'g');
  found.lastIndex = start.index + start[0].length;
  const at = found.exec(text);
  return at === null ? undefined : lineAt(text, at.index);
}

/** `redirects` (an object of old slug → slug) and `removed` (a list of slugs), each slug checked. */
function readRedirects(path: string, text: string, d: Record<string, unknown>, problems: ProblemList): { redirects: Redirect[]; removed: string[] } {
  const redirects: Redirect[] = [];
  const removed: string[] = [];
  const given = d.redirects ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) problems.error(path, '"redirects" must be an object of old slug → slug, such as { "setup": "install" }', lineOf(text, '"redirects"'));
  else {
    for (const [from, to] of Object.entries(given)) {
      const line = () => redirectLine(text, from);
      if (!isNodeSlug(from)) problems.error(path, `"redirects": the old slug ${JSON.stringify(from)} is not a valid node slug (lowercase letters, digits, - and _)`, line);
      else if (typeof to !== 'string' || !isNodeSlug(to)) problems.error(path, `"redirects"."${from}" must be the slug of a node, not ${JSON.stringify(to)}`, line);
      else if (from === to) problems.error(path, `"redirects"."${from}" loops: it redirects to itself`, line);
      else redirects.push({ from, to });
    }
  }
  const gone = d.removed ?? [];
  if (!Array.isArray(gone)) problems.error(path, '"removed" must be an array of slugs', lineOf(text, '"removed"'));
  else {
    for (const slug of gone) {
      if (typeof slug === 'string' && isNodeSlug(slug)) removed.push(slug);
      else problems.error(path, `"removed" has ${JSON.stringify(slug)}, which is not a valid node slug`, () => redirectLine(text, String(slug), 'removed'));
    }
  }
  return { redirects, removed };
}

function readLanguages(path: string, value: unknown, problems: ProblemList, line: LineRef): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    problems.error(path, '"languages" must be a non-empty array of language codes', line);
    return [];
  }
  const out: string[] = [];
  for (const code of value) {
    const canonical = typeof code === 'string' ? canonicalLanguage(code) : null;
    if (canonical === null) problems.error(path, `"languages" has an invalid language code ${JSON.stringify(code)} (BCP 47, e.g. en, pt-BR)`, line);
    else if (out.includes(canonical)) problems.error(path, `"languages" lists ${canonical} twice`, line);
    else out.push(canonical);
  }
  return out;
}

interface NavContext {
  path: string;
  text: string;
  problems: ProblemList;
  nodes: Map<string, NavNode>;
}

function readNav(entries: unknown[], parentSlug: string | null, at: string, ctx: NavContext, siblings: string[], depth = 1): void {
  if (depth > MAX_DEPTH) {
    ctx.problems.error(ctx.path, `${at}: the navigation is nested deeper than ${MAX_DEPTH} levels`);
    return;
  }
  const keyed: SiblingKey[] = [];
  entries.forEach((raw, i) => {
    const here = `${at}[${i}]`;
    const entry = typeof raw === 'string' ? { slug: raw } : raw;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      ctx.problems.error(ctx.path, `${here} must be a slug or an object with "slug"`);
      return;
    }
    const e = entry as Record<string, unknown>;
    const slug = e.slug;
    // Found only when a problem is reported: searching the text for every entry would be quadratic.
    const line = () => (typeof slug === 'string' ? lineOf(ctx.text, `"${slug}"`) : undefined);
    if (typeof slug !== 'string' || !isNodeSlug(slug)) {
      const rule = typeof slug === 'string' && isWindowsReserved(slug) ? 'a name Windows keeps for devices: its files cannot be checked out there' : 'lowercase letters, digits, - and _';
      ctx.problems.error(ctx.path, `${here}.slug ${JSON.stringify(slug)} is not a valid node slug (${rule})`, line);
      return;
    }
    if (ctx.nodes.has(slug)) {
      // At the repeat, the entry the writer added last, not at the first one.
      ctx.problems.error(ctx.path, `${here}: duplicate slug "${slug}"`, () => lineOfRepeat(ctx.text, JSON.stringify(slug)));
      return;
    }
    for (const key of Object.keys(e)) if (!ENTRY_KEYS.has(key)) ctx.problems.warn(ctx.path, `${here}: unknown key "${key}" is ignored`, line);
    const children = e.children ?? [];
    if (!Array.isArray(children)) ctx.problems.error(ctx.path, `${here}.children must be an array`, line);
    const kind = e.kind ?? (e.children !== undefined ? 'section' : 'topic');
    if (kind !== 'section' && kind !== 'topic') ctx.problems.error(ctx.path, `${here}.kind must be "section" or "topic"`, line);
    const icon = e.icon ?? null;
    if (icon !== null && (typeof icon !== 'string' || icon.length > ICON_MAX || !iconRe.test(icon))) {
      ctx.problems.error(ctx.path, `${here}.icon must be an icon name such as "book-open"`, line);
    }
    if (e.id !== undefined && (typeof e.id !== 'string' || !isNodeId(e.id))) ctx.problems.error(ctx.path, `${here}.id must be 1 to 100 characters, without control characters or white space at either end`, line);
    const given = e.sortOrder;
    if (given !== undefined && (typeof given !== 'number' || !Number.isFinite(given))) ctx.problems.error(ctx.path, `${here}.sortOrder must be a number`, line);
    const node: NavNode = {
      slug,
      kind: kind as NodeKind,
      id: typeof e.id === 'string' && e.id !== '' ? e.id : null,
      icon: typeof icon === 'string' ? icon : null,
      sortOrder: 0,
      updatedAt: readStamp(e.updatedAt, `${here}.updatedAt`, (message) => ctx.problems.warn(ctx.path, message, line)),
      parentSlug,
      children: [],
    };
    ctx.nodes.set(slug, node);
    siblings.push(slug);
    keyed.push({ node, given: typeof given === 'number' && Number.isFinite(given) ? given : undefined, here, line });
    if (Array.isArray(children)) readNav(children, slug, `${here}.children`, ctx, node.children, depth + 1);
  });
  assignSortOrders(keyed, ctx);
}

interface SiblingKey {
  node: NavNode;
  given: number | undefined;
  here: string;
  line: () => number | undefined;
}

/**
 * Sort keys for one list of siblings, in the order `nav` lists them: that order is what a writer sees
 * and edits, so it wins. The keys given in order are kept exactly (a longest run of them that does not
 * decrease); a key that disagrees with its place (an entry moved by hand) is replaced by one between
 * its neighbours, with a warning naming it. An entry without a key gets its index among its siblings
 * (which is what the service leaves unwritten), or, where that would break the order, the key before
 * it + 1 (or halfway to the next key when that leaves no room).
 */
function assignSortOrders(keyed: SiblingKey[], ctx: NavContext): void {
  const kept = inOrder(keyed.map((k) => k.given));
  // The next kept key after each entry, found from the end in one pass.
  const nextKept = new Array<number | undefined>(keyed.length);
  for (let i = keyed.length - 1, key: number | undefined; i >= 0; i--) {
    nextKept[i] = key;
    if (kept.has(i)) key = keyed[i].given;
  }
  let prev: number | null = null;
  keyed.forEach((k, i) => {
    const next = nextKept[i];
    let value: number;
    if (kept.has(i)) value = k.given!;
    else if (k.given === undefined && (prev === null || prev <= i) && (next === undefined || i <= next)) value = i;
    else if (prev === null) value = next === undefined ? i : Math.min(i, next - 1);
    else value = next === undefined || prev + 1 <= next ? prev + 1 : (prev + next) / 2;
    if (!kept.has(i) && k.given !== undefined) ctx.problems.warn(ctx.path, `${k.here}.sortOrder ${k.given} disagrees with the order nav lists the entries in; it is read as ${value}`, k.line);
    k.node.sortOrder = value;
    prev = value;
  });
}

/** The indexes of a longest non-decreasing run of the given numbers (O(n log n)); undefined ones take no part. */
function inOrder(values: Array<number | undefined>): Set<number> {
  const tails: number[] = [];
  const back = new Array<number>(values.length).fill(-1);
  values.forEach((v, i) => {
    if (v === undefined) return;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (values[tails[mid]]! <= v) lo = mid + 1;
      else hi = mid;
    }
    back[i] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = i;
  });
  const out = new Set<number>();
  for (let i = tails.length > 0 ? tails[tails.length - 1] : -1; i >= 0; i = back[i]) out.add(i);
  return out;
}

/** A stamp of version.json, or null (reported, and ignored as a missing one is) when it names no moment. */
const readStamp = (value: unknown, name: string, report: (message: string) => void): string | null =>
  fileStamp(value, (why) => report(`${name} is not a timestamp and is ignored: ${why}`), () => 'write it as a string such as "2026-01-31T12:00:00Z"');
