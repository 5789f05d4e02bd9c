import { AppError } from '../errors.ts';
import { assertUnchanged, type Precondition } from './preconditions.ts';
import { afterCreate, afterDelete, afterRename, redirectsOf, remembersRemovals, withRedirects } from './redirects.ts';
import { assertLanguageEnabled, nodeUpdatedAt, requireNode, withTranslations, type TranslationInput } from './translations.ts';
import { TreeDraft } from './tree.ts';
import { primaryLanguage, type NodeKind, type Translation, type VersionState } from './types.ts';

export interface NodeCreateInput {
  slug: string;
  kind?: NodeKind;
  parentSlug?: string | null;
  icon?: string | null;
  sortOrder?: number;
  translations: Record<string, TranslationInput>;
}

export interface NodePatchInput {
  slug?: string;
  kind?: NodeKind;
  parentSlug?: string | null;
  icon?: string | null;
  sortOrder?: number;
  translations?: Record<string, Partial<TranslationInput>>;
}

export function createNode(state: VersionState, input: NodeCreateInput, now: string, id: string): VersionState {
  if (state.nodes.has(input.slug)) throw new AppError('conflict', `Node "${input.slug}" already exists in version "${state.slug}"`, { field: 'body/slug', slug: input.slug });
  const languages = Object.keys(input.translations);
  for (const language of languages) assertLanguageEnabled(state, language, `body/translations/${language}`);
  const primary = primaryLanguage(state.meta);
  if (!languages.includes(primary)) {
    throw new AppError('primary_language_required', `A new node needs a translation in ${primary}, the primary language of version "${state.slug}"`, { field: `body/translations/${primary}`, language: primary });
  }
  const draft = new TreeDraft(state);
  draft.add({ id, slug: input.slug, kind: input.kind ?? 'topic', icon: input.icon ?? null, updatedAt: now });
  draft.place([{ slug: input.slug, parentSlug: input.parentSlug ?? null, sortOrder: input.sortOrder }], now, new Set([input.slug]));
  const byLanguage = new Map<string, Translation>();
  for (const language of languages) {
    const t = input.translations[language];
    byLanguage.set(language, { title: t.title, summary: t.summary ?? '', bodyMd: t.bodyMd ?? '', updatedAt: now });
  }
  // A new node under an old slug wins over its redirect.
  return withTranslations(withRedirects({ ...state, ...draft.finish() }, afterCreate(redirectsOf(state), [input.slug])), input.slug, byLanguage);
}

/** PATCH: renames, moves, changes kind or icon, and merges translations field by field. */
export function patchNode(state: VersionState, slug: string, input: NodePatchInput, pre: Precondition | null, now: string): VersionState {
  const node = requireNode(state, slug);
  assertUnchanged(`Node "${slug}"`, nodeUpdatedAt(state, slug), pre);
  if (Object.values(input).every((v) => v === undefined)) return state;
  const structural = input.slug !== undefined || input.parentSlug !== undefined || input.sortOrder !== undefined || input.kind !== undefined || input.icon !== undefined;
  let current = slug;
  let next: VersionState = state;
  // A patch of translations alone leaves version.json as it is: the node's stamp follows its translations.
  if (structural || input.translations === undefined) {
    const draft = new TreeDraft(state);
    if (input.slug !== undefined && input.slug !== slug) {
      if (state.nodes.has(input.slug)) throw new AppError('conflict', `Node "${input.slug}" already exists in version "${state.slug}"`, { field: 'body/slug', slug: input.slug });
      draft.rename(slug, input.slug);
      current = input.slug;
    }
    if (input.parentSlug !== undefined || input.sortOrder !== undefined) {
      const parentSlug = input.parentSlug === undefined ? node.parentSlug : input.parentSlug === slug ? current : input.parentSlug;
      draft.place([{ slug: current, parentSlug, sortOrder: input.sortOrder }], now);
    }
    const fields: { kind?: NodeKind; icon?: string | null; updatedAt: string } = { updatedAt: now };
    if (input.kind !== undefined) fields.kind = input.kind;
    if (input.icon !== undefined) fields.icon = input.icon;
    draft.update(current, fields);
    next = { ...state, ...draft.finish() };
  }
  if (current !== slug) {
    const translations = new Map(next.translations);
    const moved = translations.get(slug);
    translations.delete(slug);
    if (moved) translations.set(current, moved);
    next = withRedirects({ ...next, translations }, afterRename(redirectsOf(state), slug, current));
  }
  if (input.translations !== undefined) next = mergeTranslations(next, current, input.translations, now);
  return next;
}

function mergeTranslations(state: VersionState, slug: string, patch: Record<string, Partial<TranslationInput>>, now: string): VersionState {
  const byLanguage = new Map(state.translations.get(slug) ?? []);
  for (const [language, fields] of Object.entries(patch)) {
    assertLanguageEnabled(state, language, `body/translations/${language}`);
    const existing = byLanguage.get(language);
    const title = fields.title ?? existing?.title;
    if (title === undefined) {
      throw new AppError('validation_failed', `body/translations/${language}/title is required for a new translation`, { field: `body/translations/${language}/title` });
    }
    byLanguage.set(language, {
      title,
      summary: fields.summary ?? existing?.summary ?? '',
      bodyMd: fields.bodyMd ?? existing?.bodyMd ?? '',
      updatedAt: now,
    });
  }
  return withTranslations(state, slug, byLanguage);
}

/** DELETE: the node and its descendants. */
export function deleteNode(state: VersionState, slug: string, pre: Precondition | null) {
  requireNode(state, slug);
  assertUnchanged(`Node "${slug}"`, nodeUpdatedAt(state, slug), pre);
  const draft = new TreeDraft(state);
  const removed = draft.remove(slug);
  const translations = new Map(state.translations);
  for (const s of removed) translations.delete(s);
  const redirects = afterDelete(redirectsOf(state), removed, remembersRemovals(state));
  return { state: withRedirects({ ...state, ...draft.finish(), translations }, redirects), removed };
}

