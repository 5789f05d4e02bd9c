import { canonicalLanguage } from '../domain/names.ts';
import { fileStamp } from '../domain/stamps.ts';
import type { VersionState } from '../domain/types.ts';
import type { ProblemList } from './problems.ts';
import { changedTranslationSlugs } from '../domain/translation-changes.ts';

/**
 * The service's stamps, kept beside the content in the version's folder instead of inside it: a
 * stamp in every front matter and nav entry changed a line of each file at each write, and went
 * stale with every hand edit (git records when a file changed). They live in `.stamps/`, which
 * export and publish requests leave out and the push script does not send (it skips hidden files):
 *
 * - `.stamps/nodes.json`: the version's `createdAt` and `updatedAt`, and each node's stamp;
 * - `.stamps/{lang}.json`: each translation's stamp in that language.
 *
 * One file per language, so a translation write rewrites the stamps of its language only (about
 * the size of the language folder's tree, which the write rewrites anyway). A folder is flat:
 * start reads two levels below a version folder, and no language code is `nodes` (a language
 * subtag has two or three letters). One line per stamp, in code-unit order of the slugs, so a
 * write changes one line of one stamps file.
 */
export const STAMPS_DIR = '.stamps';
export const NODE_STAMPS = `${STAMPS_DIR}/nodes.json`;
export const translationStampsPath = (language: string) => `${STAMPS_DIR}/${language}.json`;
export const isStampsPath = (path: string) => path.startsWith(`${STAMPS_DIR}/`);

/** The language whose stamps `path` holds (canonical), or null for the nodes file or a path that is no stamps file. */
function languageOf(path: string): string | null {
  if (path === NODE_STAMPS || !isStampsPath(path) || !path.endsWith('.json')) return null;
  const name = path.slice(STAMPS_DIR.length + 1, -'.json'.length);
  return name.includes('/') ? null : canonicalLanguage(name);
}

/** Stamps read from a folder's stamps files; each one, where present, wins over a stamp the content files carry. */
export interface StoredStamps {
  createdAt: string | null;
  updatedAt: string | null;
  nodes: Map<string, string>;
  /** language (canonical) → node slug → stamp. */
  translations: Map<string, Map<string, string>>;
}

export const noStamps = (): StoredStamps => ({ createdAt: null, updatedAt: null, nodes: new Map(), translations: new Map() });

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The version's node slugs in code-unit order, kept per nodes map: a translation write keeps the map,
 * so its stamps file is written without sorting the slugs again.
 */
const sortedSlugs = new WeakMap<VersionState['nodes'], string[]>();

function slugsOf(nodes: VersionState['nodes']): string[] {
  let slugs = sortedSlugs.get(nodes);
  if (slugs === undefined) sortedSlugs.set(nodes, (slugs = [...nodes.keys()].sort(byCodeUnit)));
  return slugs;
}

/**
 * `{ "slug": "stamp", … }`, one line each, for the slugs `stampOf` gives a stamp: written by hand
 * rather than by JSON.stringify, which puts slugs of digits first. Slugs and ISO stamps hold nothing
 * JSON escapes (lowercase letters, digits, `-`, `_`, `:` and `.`). Appended rather than joined: 7 ms
 * instead of 15 for 10,000 lines (2 cores, Node 20).
 */
function stampLines(slugs: readonly string[], stampOf: (slug: string) => string | undefined, indent: string): string | null {
  let out = '';
  for (const slug of slugs) {
    const stamp = stampOf(slug);
    if (stamp === undefined) continue;
    out += `${out === '' ? '' : ','}\n${indent}  "${slug}": "${stamp}"`;
  }
  return out === '' ? null : `{${out}\n${indent}}`;
}

/** `.stamps/nodes.json` of a state. */
export function renderNodeStamps(state: Pick<VersionState, 'meta' | 'nodes'>): string {
  const nodes = stampLines(slugsOf(state.nodes), (slug) => state.nodes.get(slug)!.updatedAt, '  ') ?? '{}';
  return `{\n  "version": { "createdAt": "${state.meta.createdAt}", "updatedAt": "${state.meta.updatedAt}" },\n  "nodes": ${nodes}\n}\n`;
}

/** A language's stamps file as last rendered for a nodes map: its text, and where each slug's stamp stands in it. */
interface RenderedStamps {
  text: string;
  /** Per slug (in slugsOf() order): its stamp in the text, or undefined when it has none. */
  stamps: Array<string | undefined>;
  /** Per slug: where its stamp starts in the text (-1 when it has none). */
  at: Int32Array;
  /** The translations it was rendered from. */
  translations: VersionState['translations'];
}

/** The last stamps file of each language, per nodes map (a translation write keeps the map). */
const renderedStamps = new WeakMap<VersionState['nodes'], Map<string, RenderedStamps>>();

/**
 * `.stamps/{lang}.json` of a state, or null when the version has no translation in that language (the file goes).
 * A write changes one stamp of a file of one line per node: the file rendered last for the same
 * nodes is patched where its stamps differ (same length, as ISO stamps are) instead of rendered
 * again, which cost about a millisecond per write at 2,000 nodes.
 */
export function renderTranslationStamps(state: Pick<VersionState, 'nodes' | 'translations'>, language: string): string | null {
  const slugs = slugsOf(state.nodes);
  let byLanguage = renderedStamps.get(state.nodes);
  const last = byLanguage?.get(language);
  if (last !== undefined) {
    // Only the slugs whose translations changed since (translation-changes.ts): not a look at every node.
    const places = placesOf(state.nodes);
    let text: string | null = last.text;
    // Changed in place: this entry gives way to the one made now, patched or rendered anew.
    const stamps = last.stamps;
    for (const slug of changedTranslationSlugs(last.translations, state.translations)) {
      const i = places.get(slug);
      if (i === undefined) continue;
      const was = stamps[i];
      const now = state.translations.get(slug)?.get(language)?.updatedAt;
      if (now === was) continue;
      if (now === undefined || was === undefined || now.length !== was.length) {
        text = null;
        break;
      }
      stamps[i] = now;
      text = text.slice(0, last.at[i]) + now + text.slice(last.at[i] + was.length);
    }
    if (text !== null) {
      byLanguage!.set(language, { text, stamps, at: last.at, translations: state.translations });
      return text;
    }
  }
  const stamps = slugs.map((slug) => state.translations.get(slug)?.get(language)?.updatedAt);
  const at = new Int32Array(slugs.length).fill(-1);
  let out = '';
  for (let i = 0; i < slugs.length; i++) {
    const stamp = stamps[i];
    if (stamp === undefined) continue;
    out += `${out === '' ? '' : ','}\n  "${slugs[i]}": "`;
    at[i] = out.length + 1;
    out += `${stamp}"`;
  }
  if (out === '') return null;
  const text = `{${out}\n}\n`;
  if (byLanguage === undefined) renderedStamps.set(state.nodes, (byLanguage = new Map()));
  byLanguage.set(language, { text, stamps, at, translations: state.translations });
  return text;
}

/** Each slug's place in slugsOf() order, kept per nodes map. */
const slugPlaces = new WeakMap<VersionState['nodes'], Map<string, number>>();

function placesOf(nodes: VersionState['nodes']): Map<string, number> {
  let places = slugPlaces.get(nodes);
  if (places === undefined) slugPlaces.set(nodes, (places = new Map(slugsOf(nodes).map((slug, i) => [slug, i]))));
  return places;
}

/** A stamps file of a state by its path (null: no such file), or undefined when `path` names no stamps file. */
export function renderStampsFile(state: VersionState, path: string): string | null | undefined {
  if (path === NODE_STAMPS) return renderNodeStamps(state);
  const language = languageOf(path);
  return language === null ? undefined : renderTranslationStamps(state, language);
}

/** The stamps files a state is stored with: the nodes file, and one per language that has translations. */
export function* stampsPaths(state: VersionState): Generator<string> {
  yield NODE_STAMPS;
  for (const language of state.meta.languages) {
    for (const byLanguage of state.translations.values()) {
      if (!byLanguage.has(language)) continue;
      yield translationStampsPath(language);
      break;
    }
  }
}

/**
 * Reads one stamps file into `into`. The service writes these files; one that cannot be read is a
 * warning, and the stamps the content files carry (or the fallback) are used instead, as before
 * the file existed.
 */
export function readStampsFile(path: string, text: string, into: StoredStamps, problems: ProblemList): void {
  const ignored = (why: string) => problems.warn(path, `the service's stamps file ${why}; its stamps are ignored`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return ignored('is not JSON');
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(doc)) return ignored('is not a JSON object');
  const stamp = (value: unknown, name: string) => fileStamp(value, (why) => problems.warn(path, `${name} is not a timestamp and is ignored: ${why}`), () => 'write it as a string such as "2026-01-31T12:00:00Z"');
  const readMap = (map: Record<string, unknown>, at: string, out: Map<string, string>) => {
    for (const [slug, value] of Object.entries(map)) {
      const s = stamp(value, `${at}${JSON.stringify(slug)}`);
      if (s !== null) out.set(slug, s);
    }
  };
  if (path === NODE_STAMPS) {
    const version = doc.version;
    if (isObject(version)) {
      into.createdAt = stamp(version.createdAt, 'version.createdAt') ?? into.createdAt;
      into.updatedAt = stamp(version.updatedAt, 'version.updatedAt') ?? into.updatedAt;
    }
    if (isObject(doc.nodes)) readMap(doc.nodes, 'nodes.', into.nodes);
    return;
  }
  const language = languageOf(path);
  if (language === null) return ignored('is not one the service writes (.stamps/nodes.json or .stamps/{lang}.json)');
  const out = into.translations.get(language) ?? new Map<string, string>();
  readMap(doc, '', out);
  into.translations.set(language, out);
}
