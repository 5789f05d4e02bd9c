import MiniSearch from 'minisearch';
import { plainText } from '../content/plain-text.ts';
import { orderIndexOf } from '../domain/tree.ts';
import type { Translation, VersionState } from '../domain/types.ts';
import { fold, foldWithMap, words } from './words.ts';

export const MAX_HITS = 50;
const SNIPPET_CHARS = 160;

interface Doc {
  id: string;
  title: string;
  summary: string;
  body: string;
}

interface LanguageIndex {
  mini: MiniSearch<Doc>;
  /** The translation each indexed document was built from, to patch only what a write changed. */
  docs: Map<string, Translation>;
}

export interface Hit {
  slug: string;
  title: string;
  summary: string;
  snippet: string;
}

/**
 * Full-text search: one MiniSearch index per version and language, built when a version is
 * loaded and patched document by document on every write.
 */
export class SearchIndex {
  private readonly versions = new Map<string, Map<string, LanguageIndex>>();

  /** Brings a version's indexes in line with its new state (null: the version is gone). */
  update(slug: string, state: VersionState | null): void {
    if (state === null) {
      this.versions.delete(slug);
      return;
    }
    let byLanguage = this.versions.get(slug);
    if (!byLanguage) this.versions.set(slug, (byLanguage = new Map()));
    for (const language of byLanguage.keys()) if (!state.meta.languages.includes(language)) byLanguage.delete(language);
    for (const language of state.meta.languages) {
      let index = byLanguage.get(language);
      if (!index) byLanguage.set(language, (index = { mini: newMiniSearch(language), docs: new Map() }));
      patch(index, state, language);
    }
  }

  /**
   * The version's index in a form that can be kept on disk beside a snapshot of its state, so a
   * restart adopts it instead of rebuilding it; null when the version is not indexed.
   */
  save(slug: string): Uint8Array | null {
    void slug;
    return null;
  }

  /**
   * Adopts an index made by save() for `state` (the same state it was saved with, as restored from
   * the snapshot). Returns false when `saved` cannot be used (another format); the caller then lets
   * update() build the index. Call it before the state is set in the catalog, so update() finds
   * nothing to do.
   */
  restore(slug: string, state: VersionState, saved: Uint8Array): boolean {
    void slug;
    void state;
    void saved;
    return false;
  }

  /** Topics where every word of `q` occurs as a word or word prefix, in document order, at most 50. */
  search(state: VersionState, language: string, q: string): Hit[] {
    const index = this.versions.get(state.slug)?.get(language);
    const terms = words(q, language).map(fold).filter(Boolean);
    if (!index || terms.length === 0) return [];
    const results = index.mini.search(terms.join(' '), { combineWith: 'AND', prefix: true, fuzzy: false });
    const slugs = results.map((r) => r.id as string).filter((s) => state.nodes.has(s));
    slugs.sort((a, b) => orderIndexOf(state, a) - orderIndexOf(state, b));
    return slugs.slice(0, MAX_HITS).map((slug) => {
      const t = state.translations.get(slug)!.get(language)!;
      return { slug, title: t.title, summary: t.summary, snippet: snippet(t, terms) };
    });
  }
}

function newMiniSearch(language: string): MiniSearch<Doc> {
  return new MiniSearch<Doc>({
    fields: ['title', 'summary', 'body'],
    tokenize: (text) => words(text, language),
    processTerm: (term) => fold(term) || null,
    searchOptions: { combineWith: 'AND', prefix: true },
  });
}

function patch(index: LanguageIndex, state: VersionState, language: string): void {
  for (const [slug, t] of index.docs) {
    const now = state.translations.get(slug)?.get(language);
    if (now === t) continue;
    index.mini.discard(slug);
    index.docs.delete(slug);
  }
  for (const [slug, byLanguage] of state.translations) {
    const t = byLanguage.get(language);
    if (!t || index.docs.get(slug) === t) continue;
    index.mini.add({ id: slug, title: t.title, summary: t.summary, body: plainText(t.bodyMd) });
    index.docs.set(slug, t);
  }
}

/** A short excerpt of plain text around the first match in the body (else the summary). */
function snippet(t: Translation, terms: string[]): string {
  for (const text of [plainText(t.bodyMd), t.summary]) {
    const { folded, source } = foldWithMap(text);
    let at = -1;
    for (const term of terms) {
      const i = findWordStart(folded, term);
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
    if (at < 0) continue;
    const start = Math.max(0, source[at] - SNIPPET_CHARS / 3);
    const end = Math.min(text.length, start + SNIPPET_CHARS);
    let s = text.slice(start, end);
    if (start > 0) s = `…${s.replace(/^\S*\s/, '')}`;
    if (end < text.length) s = `${s.replace(/\s\S*$/, '')}…`;
    return s;
  }
  const body = plainText(t.bodyMd) || t.summary;
  return body.length > SNIPPET_CHARS ? `${body.slice(0, SNIPPET_CHARS).replace(/\s\S*$/, '')}…` : body;
}

/** The first occurrence of `term` at the start of a word (any occurrence for scripts without spaces). */
function findWordStart(text: string, term: string): number {
  let from = 0;
  let any = -1;
  for (;;) {
    const i = text.indexOf(term, from);
    if (i < 0) return any;
    if (any < 0) any = i;
    if (i === 0 || !/[\p{L}\p{N}]/u.test(text[i - 1])) return i;
    from = i + 1;
  }
}
