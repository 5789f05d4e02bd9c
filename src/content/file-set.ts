import { randomUUID } from 'node:crypto';
import { canonicalLanguage, isNodeSlug } from '../domain/names.ts';
import { documentOrder } from '../domain/tree.ts';
import type { NodeRec, Translation, VersionState } from '../domain/types.ts';
import { parseMarkdownFile, renderMarkdownFile } from './markdown-file.ts';
import { lineOf, lineOfRepeat, ProblemList } from './problems.ts';
import { parseVersionFile, redirectLine, renderVersionFile, VERSION_FILE } from './version-file.ts';
import { settleRedirects, withRedirects } from '../domain/redirects.ts';
import { isStampsPath, NODE_STAMPS, noStamps, readStampsFile, renderStampsFile, stampsPaths, translationStampsPath, type StoredStamps } from './stamps-file.ts';
import { drainInSlices } from '../slices.ts';
import { markMinor } from './translation-base.ts';
import { changedTranslationSlugs } from '../domain/translation-changes.ts';

/** Path of a translation inside a version's folder. */
export const translationPath = (language: string, slug: string) => `${language}/${slug}.md`;

const TRANSLATION_PATH = /^([^/]+)\/([^/]+)\.md$/;

export interface ReadOptions {
  slug: string;
  /** Stamp for nodes and translations with none in `.stamps/` or in their own file (written by hand). */
  fallbackStamp: string;
  /** Id for a node written by hand without one. */
  idFor: (slug: string) => string;
}

/**
 * Builds a version's state from its content files (paths relative to the version folder).
 * Stamps come from the folder's `.stamps/` files where they are there, else from the files
 * themselves (`updatedAt` in front matter and nav entries, as older files carry them), else
 * `fallbackStamp`. Every problem is collected in `problems`; the state is returned only when there are no errors.
 * A translation file may be given already parsed (a Translation read from the same bytes before):
 * it is taken as it is, so a start that re-reads only changed files keeps the other records.
 */
export function readFileSet(files: ReadonlyMap<string, string | Translation>, opts: ReadOptions, problems: ProblemList): VersionState | null {
  const steps = readSteps(files, opts, problems);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * readFileSet(), letting other work run every `sliceMs` milliseconds: a version of 30,000 files
 * held the event loop for about 90 ms in one piece (a start without snapshots).
 */
export async function readFileSetInSlices(files: ReadonlyMap<string, string | Translation>, opts: ReadOptions, problems: ProblemList, sliceMs: number): Promise<VersionState | null> {
  return drainInSlices(readSteps(files, opts, problems), sliceMs);
}

/**
 * A file whose slug no nav entry lists: the reader is told the line that would make it a node, and
 * where it goes, or that the file is to be deleted or renamed (a topic removed from nav, or misspelt).
 */
function orphanMessage(slug: string, navLine: number): string {
  const where = navLine > 0 ? `"nav" (line ${navLine} of version.json)` : '"nav" in version.json';
  return `no node "${slug}" in version.json "nav": add { "slug": "${slug}" } to ${where}, or to the "children" of the section it belongs in, at the place it is to appear; or, if the topic is gone, delete the file (or rename it to the slug of a node in "nav")`;
}

/** Files or nodes gone through between the points where readSteps() may be paused. */
const STEP = 256;

/** The work of readFileSet(), pausing (yielding) every STEP files or nodes. */
function* readSteps(files: ReadonlyMap<string, string | Translation>, opts: ReadOptions, problems: ProblemList): Generator<void, VersionState | null> {
  const versionText = files.get(VERSION_FILE);
  if (typeof versionText !== 'string') {
    problems.error(VERSION_FILE, 'version.json is missing');
    return null;
  }
  const parsed = parseVersionFile(VERSION_FILE, versionText, problems);
  if (parsed === null) {
    // Without a readable version.json the files can still be checked on their own (frontmatter).
    for (const [path, text] of files) if (TRANSLATION_PATH.test(path) && typeof text === 'string') parseMarkdownFile(path, text, problems);
    return null;
  }
  const enabled = new Set(parsed.meta.languages);
  const translations = new Map<string, Map<string, Translation>>();
  /** Files that exist but could not be read (reported already; not "missing" too). */
  const present = new Set<string>();
  /** Language folders not in canonical case, warned about once each. */
  const renamedFolders = new Set<string>();
  /** The line of version.json's "nav", looked up for the first file without a node (0: none). */
  let navLine: number | undefined;
  const stamps = noStamps();

  let count = 0;
  for (const [path, text] of files) {
    if (++count % STEP === 0) yield;
    if (path === VERSION_FILE) continue;
    if (isStampsPath(path)) {
      if (typeof text === 'string') readStampsFile(path, text, stamps, problems);
      continue;
    }
    const m = TRANSLATION_PATH.exec(path);
    if (!m) {
      problems.warn(path, 'not a content file ({lang}/{slug}.md or version.json) and is ignored');
      continue;
    }
    const language = canonicalLanguage(m[1]);
    const slug = m[2];
    if (language === null) {
      problems.error(path, `"${m[1]}" is not a valid language code (BCP 47, e.g. en, pt-BR)`);
      continue;
    }
    if (!enabled.has(language) && enabled.size > 0) {
      problems.error(path, `language ${language} is not enabled in version.json "languages"`);
      continue;
    }
    if (!isNodeSlug(slug)) {
      problems.error(path, `the file's name "${slug}" is not a node slug (lowercase letters and digits, separated by single - or _): rename the file, and its entry in version.json "nav"`);
      continue;
    }
    if (!parsed.nodes.has(slug)) {
      navLine ??= lineOf(versionText, '"nav"') ?? 0;
      problems.error(path, orphanMessage(slug, navLine));
      continue;
    }
    // The service writes the folder in canonical case: a checkout with pt-br/ and the service's pt-BR/ would be two paths.
    if (m[1] !== language && !renamedFolders.has(m[1])) {
      renamedFolders.add(m[1]);
      problems.warn(path, `the folder "${m[1]}" is read as language ${language}, and the service writes it as ${language}/: rename the folder to ${language}`);
    }
    if (translations.get(slug)?.has(language)) {
      problems.error(path, `a second file for ${language}/${slug}.md`);
      continue;
    }
    const byLanguage = translations.get(slug) ?? new Map<string, Translation>();
    if (typeof text !== 'string') {
      byLanguage.set(language, text);
      translations.set(slug, byLanguage);
      continue;
    }
    const md = parseMarkdownFile(path, text, problems);
    if (md === null) {
      present.add(`${language}/${slug}`);
      continue;
    }
    if (md.bodyMd.trim() === '' && parsed.nodes.get(slug)!.kind === 'topic') problems.warn(path, 'the topic has an empty body');
    const record: Translation = { title: md.title, summary: md.summary, bodyMd: md.bodyMd, updatedAt: md.updatedAt ?? opts.fallbackStamp, ...(md.basedOn !== undefined ? { basedOn: md.basedOn } : {}) };
    if (md.minor) markMinor(record);
    byLanguage.set(language, record);
    translations.set(slug, byLanguage);
  }

  const primary = parsed.meta.languages[0];
  for (const slug of parsed.nodes.keys()) {
    if (primary !== undefined && !translations.get(slug)?.has(primary) && !present.has(`${primary}/${slug}`)) {
      problems.error(VERSION_FILE, `node "${slug}" has no ${translationPath(primary, slug)} (the primary language is required)`, () => lineOf(versionText, `"${slug}"`));
    }
  }
  const ids = new Set<string>();
  for (const node of parsed.nodes.values()) {
    if (node.id === null) continue;
    // The line of the repeat (the id's second appearance, as JSON writes it), else the node's own.
    const quoted = JSON.stringify(node.id);
    if (ids.has(node.id)) problems.error(VERSION_FILE, `node "${node.slug}" repeats id ${quoted}`, () => lineOfRepeat(versionText, quoted) ?? lineOf(versionText, JSON.stringify(node.slug)));
    ids.add(node.id);
  }
  // A loop or a redirect to no node is the file's error; an old slug a node has taken again is dropped, and said.
  const redirects = settleRedirects(parsed.redirects, parsed.removed, (slug) => parsed.nodes.has(slug), (p) => {
    const from = parsed.redirects[p.index].from;
    const line = () => redirectLine(versionText, from);
    if (p.kind === 'live') problems.warn(VERSION_FILE, `"redirects": ${p.message}`, line);
    else problems.error(VERSION_FILE, `"redirects": ${p.message}`, line);
  });
  if (problems.hasErrors) return null;
  restamp(translations, stamps);

  // Nodes written without an id get their default one, unless a node in the file already claims it.
  const taken = new Set([...parsed.nodes.values()].flatMap((n) => (n.id === null ? [] : [n.id])));
  const idOf = (slug: string) => {
    let id = opts.idFor(slug);
    if (taken.has(id)) id = randomUUID();
    taken.add(id);
    return id;
  };
  const nodes = new Map<string, NodeRec>();
  for (const n of parsed.nodes.values()) {
    if (++count % STEP === 0) yield;
    nodes.set(n.slug, {
      id: n.id ?? idOf(n.slug),
      slug: n.slug,
      kind: n.kind,
      parentSlug: n.parentSlug,
      icon: n.icon,
      sortOrder: n.sortOrder,
      updatedAt: stamps.nodes.get(n.slug) ?? n.updatedAt ?? opts.fallbackStamp,
      children: n.children,
    });
  }
  const meta = {
    ...parsed.meta,
    label: parsed.meta.label === '' ? opts.slug : parsed.meta.label,
    createdAt: stamps.createdAt ?? parsed.meta.createdAt ?? opts.fallbackStamp,
    updatedAt: stamps.updatedAt ?? parsed.meta.updatedAt ?? opts.fallbackStamp,
  };
  return withRedirects({ slug: opts.slug, meta, nodes, roots: parsed.roots, translations }, redirects);
}

/**
 * Gives each translation its stamp from `.stamps/`. A translation may be shared with another version
 * (parsed once from the same blob), so one whose stamp differs is replaced, never changed.
 */
function restamp(translations: Map<string, Map<string, Translation>>, stamps: StoredStamps): void {
  for (const [language, bySlug] of stamps.translations) {
    for (const [slug, updatedAt] of bySlug) {
      const byLanguage = translations.get(slug);
      const t = byLanguage?.get(language);
      if (t !== undefined && t.updatedAt !== updatedAt) byLanguage!.set(language, withStamp(t, updatedAt));
    }
  }
}

/**
 * Copies of parsed translations with their stamps, by the parsed one and the stamp: versions that
 * share a file's blob (copied for each release) and its stamp then share one record, as they did when
 * the stamp was in the file (in memory once, and their search indexes can be shared).
 */
const stamped = new WeakMap<Translation, Map<string, Translation>>();

function withStamp(t: Translation, updatedAt: string): Translation {
  let byStamp = stamped.get(t);
  if (byStamp === undefined) stamped.set(t, (byStamp = new Map()));
  let out = byStamp.get(updatedAt);
  if (out === undefined) byStamp.set(updatedAt, (out = { ...t, updatedAt }));
  return out;
}

/**
 * The content of one file of a state, or null when the state has no such file. Content files carry
 * no stamps unless `stamped` asks for them as files had them before (see contentDigest); the
 * stamps are in the `.stamps/` files, rendered here too.
 */
export function renderFile(state: VersionState, path: string, stamped = false): string | null {
  if (path === VERSION_FILE) return renderVersionFile(state, stamped);
  const m = TRANSLATION_PATH.exec(path);
  if (m === null) return renderStampsFile(state, path) ?? null;
  const t = state.translations.get(m[2])?.get(m[1]);
  return t ? renderMarkdownFile(t, stamped) : null;
}

/** Every file the service stores of a state: its content files, then its `.stamps/` files. */
export function* storedPaths(state: VersionState): Generator<string> {
  yield* filePaths(state);
  yield* stampsPaths(state);
}


/** Every content file of a state (what export writes): version.json, then each node's translations in document order. */
export function* filePaths(state: VersionState): Generator<string> {
  yield VERSION_FILE;
  for (const slug of documentOrder(state)) {
    const byLanguage = state.translations.get(slug);
    for (const language of state.meta.languages) if (byLanguage?.has(language)) yield translationPath(language, slug);
  }
}

/**
 * The stored files that differ between two states of a version (`before` null: all of `after`'s;
 * `after` null: all of `before`'s, deleted), the `.stamps/` files of what changed included.
 * Untouched records keep their identity across copy-on-write states, so this costs a pass over the
 * maps and no rendering.
 */
export function changedPaths(before: VersionState | null, after: VersionState | null): string[] {
  if (after === null) return before ? [...storedPaths(before)] : [];
  if (before === null) return [...storedPaths(after)];
  const out: string[] = [];
  if (before.meta !== after.meta || before.nodes !== after.nodes || before.roots !== after.roots) out.push(VERSION_FILE, NODE_STAMPS);
  else if (before.redirects !== after.redirects) out.push(VERSION_FILE);
  if (before.translations === after.translations) return out;
  const languages = new Set<string>();
  const changed = (language: string, slug: string) => {
    out.push(translationPath(language, slug));
    languages.add(language);
  };
  // Only the slugs whose translations changed (translation-changes.ts), not every node's.
  const slugs = changedTranslationSlugs(before.translations, after.translations);
  for (const slug of slugs) {
    const old = before.translations.get(slug);
    for (const [language, t] of after.translations.get(slug) ?? []) if (old?.get(language) !== t) changed(language, slug);
  }
  for (const slug of slugs) {
    const now = after.translations.get(slug);
    for (const language of before.translations.get(slug)?.keys() ?? []) if (!now?.has(language)) changed(language, slug);
  }
  for (const language of languages) out.push(translationStampsPath(language));
  return out;
}
