import { filePaths, renderFile } from '../content/file-set.ts';
import { languagesOf, nodeUpdatedAt, textChars } from '../domain/translations.ts';
import { documentOrder, sortOrderOf } from '../domain/tree.ts';
import type { VersionState } from '../domain/types.ts';
import { presentVersion } from './versions.ts';
import { redirectList, redirectsOf } from '../domain/redirects.ts';
import { sliceEnd } from '../slices.ts';

/** One node of the export document: its fields and every translation with its body. */
export function exportNode(state: VersionState, slug: string) {
  const node = state.nodes.get(slug)!;
  const translations: Record<string, { title: string; summary: string; bodyMd: string; updatedAt: string; basedOn?: string }> = {};
  for (const language of languagesOf(state, slug)) {
    const t = state.translations.get(slug)!.get(language)!;
    translations[language] = { title: t.title, summary: t.summary, bodyMd: t.bodyMd, updatedAt: t.updatedAt, ...(t.basedOn !== undefined ? { basedOn: t.basedOn } : {}) };
  }
  return { id: node.id, slug, kind: node.kind, parentSlug: node.parentSlug, icon: node.icon, sortOrder: sortOrderOf(state, slug), updatedAt: nodeUpdatedAt(state, slug), translations };
}

/**
 * The export document `{ version, nodes }` as a stream of JSON text, a node at a time and a long body
 * a slice at a time, so a version of any size is sent without building the whole document, or one
 * string per node, in memory. The text is JSON.stringify's, character for character.
 */
export function* exportDocument(state: VersionState): Generator<string> {
  yield `{"version":${JSON.stringify(presentVersion(state))},"nodes":[`;
  let first = true;
  for (const slug of documentOrder(state)) {
    if (!first) yield ',';
    yield* nodeText(state, slug);
    first = false;
  }
  yield documentTail(state);
}

/**
 * The end of the document: the version's old addresses after its nodes (`redirects`: [{ from, to }],
 * `removed`: [slug]), when it has any, so an import of the document keeps answering them.
 */
function documentTail(state: VersionState): string {
  const r = redirectsOf(state);
  const moved = r.moved.size > 0 ? `,"redirects":${JSON.stringify(redirectList(r))}` : '';
  const removed = r.removed.length > 0 ? `,"removed":${JSON.stringify(r.removed)}` : '';
  return `]${moved}${removed}}`;
}

/** JSON.stringify(exportNode(state, slug)), in pieces: the node's fields, then each translation, its body in slices. */
function* nodeText(state: VersionState, slug: string): Generator<string> {
  const { translations, ...fields } = exportNode(state, slug);
  yield `${JSON.stringify(fields).slice(0, -1)},"translations":{`;
  let first = true;
  for (const [language, t] of Object.entries(translations)) {
    yield `${first ? '' : ','}${JSON.stringify(language)}:{"title":${JSON.stringify(t.title)},"summary":${JSON.stringify(t.summary)},"bodyMd":`;
    yield* stringText(t.bodyMd);
    yield `,"updatedAt":${JSON.stringify(t.updatedAt)}${t.basedOn !== undefined ? `,"basedOn":${JSON.stringify(t.basedOn)}` : ''}}`;
    first = false;
  }
  yield '}}';
}

/** Characters of a string escaped at once: its JSON text stays below V8's large-object size (a body of 60 K characters made one such object per node, and the heap grew while an export streamed). */
const SLICE_CHARS = 8 * 1024;

/** JSON.stringify(text), in pieces of about SLICE_CHARS characters (see sliceEnd). */
function* stringText(text: string): Generator<string> {
  if (text.length <= SLICE_CHARS) {
    yield JSON.stringify(text);
    return;
  }
  yield '"';
  for (let from = 0; from < text.length; ) {
    const to = sliceEnd(text, from, SLICE_CHARS);
    yield JSON.stringify(text.slice(from, to)).slice(1, -1);
    from = to;
  }
  yield '"';
}

/**
 * The export document as parts that say when their text is unchanged: the version's head, one unit
 * per node (its text is the same while the node's record, its translations, its place and its stamp
 * are), and the tail. Compressed exports reuse the bytes of unchanged parts (http/gzip-segments.ts).
 */
export function exportParts(state: VersionState) {
  const order = documentOrder(state);
  let chars = 0;
  for (const byLanguage of state.translations.values()) for (const t of byLanguage.values()) chars += textChars(t) + 120;
  return {
    head: `{"version":${JSON.stringify(presentVersion(state))},"nodes":[`,
    units: order.map((slug, i) => ({
      id: slug,
      signature: [i === 0, state.nodes.get(slug), state.translations.get(slug), state.meta.languages, sortOrderOf(state, slug), nodeUpdatedAt(state, slug)],
      text: () => `${i === 0 ? '' : ','}${JSON.stringify(exportNode(state, slug))}`,
    })),
    tail: documentTail(state),
    /** Characters of a node's text on average, with its translations. */
    averageChars: order.length === 0 ? 0 : Math.round(chars / order.length) + 200,
  };
}

/** The export document as one object, for answers that are not streamed (the tool server's). */
export function exportObject(state: VersionState) {
  const r = redirectsOf(state);
  return {
    version: presentVersion(state),
    nodes: documentOrder(state).map((slug) => exportNode(state, slug)),
    ...(r.moved.size > 0 ? { redirects: redirectList(r) } : {}),
    ...(r.removed.length > 0 ? { removed: [...r.removed] } : {}),
  };
}

/** The version as content files `{ files: [{ path, content }] }`, streamed file by file. */
export function* exportFiles(state: VersionState): Generator<string> {
  yield '{"files":[';
  let first = true;
  for (const path of filePaths(state)) {
    yield `${first ? '' : ','}${JSON.stringify({ path, content: renderFile(state, path) })}`;
    first = false;
  }
  yield ']}';
}
