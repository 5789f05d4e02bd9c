import { AppError, notFound } from '../errors.ts';
import { assertUnchanged, type Precondition } from './preconditions.ts';
import { primaryLanguage, type NodeRec, type Translation, type TranslationsOf, type VersionState } from './types.ts';
import { noteTranslationsChanged } from './translation-changes.ts';

export interface TranslationInput {
  title: string;
  summary?: string;
  bodyMd?: string;
}

export function requireNode(state: VersionState, slug: string): NodeRec {
  const node = state.nodes.get(slug);
  if (!node) throw notFound('node', `No node "${slug}" in version "${state.slug}"`, { version: state.slug, slug });
  return node;
}

export function assertLanguageEnabled(state: VersionState, language: string, field: string): void {
  if (!state.meta.languages.includes(language)) {
    throw new AppError('language_not_enabled', `Language ${language} is not enabled on version "${state.slug}" (languages: ${state.meta.languages.join(', ')})`, {
      field,
      language,
      languages: state.meta.languages,
    });
  }
}

/**
 * The language a search or a PDF of `state` is in: `asked` (canonical) when the version has it, else
 * refused (it would find nothing, or print every page in another language under its name); without
 * one, English if the version has it, else its primary language.
 */
export function versionLanguage(state: VersionState, asked: string | undefined, field: string): string {
  if (asked === undefined) return state.meta.languages.includes('en') ? 'en' : primaryLanguage(state.meta);
  assertLanguageEnabled(state, asked, field);
  return asked;
}

/** Characters of a translation's text: its title, summary and body (what is indexed and exported). */
export const textChars = (t: Translation): number => t.title.length + t.summary.length + t.bodyMd.length;

/** The languages a node has translations in, in the order of the version's `languages`. */
export function languagesOf(state: VersionState, slug: string): string[] {
  const byLanguage = state.translations.get(slug);
  if (!byLanguage) return [];
  return [...state.meta.languages.filter((l) => byLanguage.has(l)), ...[...byLanguage.keys()].filter((l) => !state.meta.languages.includes(l))];
}

/** The node's stamp: the newest of its own fields' stamp and its translations' stamps. */
export function nodeUpdatedAt(state: VersionState, slug: string): string {
  let latest = state.nodes.get(slug)!.updatedAt;
  for (const t of state.translations.get(slug)?.values() ?? []) if (t.updatedAt > latest) latest = t.updatedAt;
  return latest;
}

/** A state whose translations for one node are replaced. */
export function withTranslations(state: VersionState, slug: string, byLanguage: TranslationsOf | null): VersionState {
  const translations = new Map(state.translations);
  if (byLanguage === null || byLanguage.size === 0) translations.delete(slug);
  else translations.set(slug, byLanguage);
  noteTranslationsChanged(state.translations, translations, [slug]);
  return { ...state, translations };
}

/** PUT: replaces (or creates) one translation in full. */
export function putTranslation(state: VersionState, slug: string, language: string, input: TranslationInput, pre: Precondition | null, now: string) {
  requireNode(state, slug);
  assertLanguageEnabled(state, language, 'path/lang');
  const existing = state.translations.get(slug)?.get(language) ?? null;
  if (pre !== null) assertUnchanged(`Translation ${language} of "${slug}"`, existing?.updatedAt ?? null, pre);
  const translation: Translation = { title: input.title, summary: input.summary ?? '', bodyMd: input.bodyMd ?? '', updatedAt: now };
  const byLanguage = new Map(state.translations.get(slug) ?? []);
  byLanguage.set(language, translation);
  return { state: withTranslations(state, slug, byLanguage), translation, created: existing === null };
}

/** DELETE: removes one translation; the primary language's stays while it is primary. */
export function deleteTranslation(state: VersionState, slug: string, language: string, pre: Precondition | null) {
  requireNode(state, slug);
  const existing = state.translations.get(slug)?.get(language);
  if (!existing) throw notFound('translation', `Node "${slug}" has no ${language} translation`, { version: state.slug, slug, language });
  assertUnchanged(`Translation ${language} of "${slug}"`, existing.updatedAt, pre);
  if (language === primaryLanguage(state.meta)) {
    throw new AppError('primary_language_required', `The ${language} translation of "${slug}" is in the primary language of version "${state.slug}" and cannot be deleted`, { field: 'path/lang', slug, language });
  }
  const byLanguage = new Map(state.translations.get(slug)!);
  byLanguage.delete(language);
  const next = withTranslations(state, slug, byLanguage);
  return { state: next, remainingLanguages: languagesOf(next, slug) };
}

/** The language a reader gets: the one asked for, else English, else the primary language, else any. */
export function pickTranslation(state: VersionState, slug: string, language: string): { language: string; translation: Translation } | null {
  const byLanguage = state.translations.get(slug);
  if (!byLanguage) return null;
  for (const candidate of [language, 'en', state.meta.languages[0]]) {
    const t = byLanguage.get(candidate);
    if (t) return { language: candidate, translation: t };
  }
  const first = byLanguage.entries().next().value;
  return first ? { language: first[0], translation: first[1] } : null;
}
