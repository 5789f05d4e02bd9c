import { AppError } from '../errors.ts';
import { assertUnchanged, type Precondition } from './preconditions.ts';
import type { VersionMeta, VersionState, VersionStatus } from './types.ts';

export interface VersionInput {
  label?: string;
  status?: VersionStatus;
  languages?: string[];
  sortOrder?: number | null;
  isLatest?: boolean;
}

/** A new, empty version. */
export function newVersion(slug: string, input: VersionInput, now: string): VersionState {
  const meta: VersionMeta = {
    label: input.label ?? slug,
    status: input.status ?? 'draft',
    languages: input.languages ?? ['en'],
    sortOrder: input.sortOrder ?? null,
    isLatest: false,
    hidden: false,
    workingCopyOf: null,
    createdAt: now,
    updatedAt: now,
  };
  return withMeta({ slug, meta, nodes: new Map(), roots: [], translations: new Map() }, { isLatest: input.isLatest }, now);
}

/** A deep copy of a version under a new slug: a draft unless a status is given, never latest. */
export function duplicateVersion(source: VersionState, slug: string, input: { label?: string; status?: VersionStatus }, now: string): VersionState {
  const meta: VersionMeta = {
    ...source.meta,
    label: input.label ?? slug,
    status: input.status ?? 'draft',
    isLatest: false,
    hidden: false,
    workingCopyOf: null,
    createdAt: now,
    updatedAt: now,
  };
  return { ...source, slug, meta };
}

/** Changes a version's own fields; only supplied fields change. */
export function patchVersion(state: VersionState, input: VersionInput, pre: Precondition | null, now: string): VersionState {
  assertUnchanged(`Version "${state.slug}"`, state.meta.updatedAt, pre);
  if (Object.values(input).every((v) => v === undefined)) return state;
  if (input.languages !== undefined) assertLanguagesRemovable(state, input.languages);
  return withMeta(state, input, now);
}

function withMeta(state: VersionState, input: VersionInput, now: string): VersionState {
  const status = input.status ?? state.meta.status;
  let isLatest = input.isLatest ?? state.meta.isLatest;
  if (input.isLatest === true && status !== 'published') {
    throw new AppError('invalid_state', `Version "${state.slug}" must be published to be marked latest (its status would be ${status})`, { field: 'body/isLatest', status });
  }
  // Archiving (or moving back to draft) unpublishes, and only a published version can be latest.
  if (status !== 'published') isLatest = false;
  const meta: VersionMeta = {
    ...state.meta,
    label: input.label ?? state.meta.label,
    status,
    languages: input.languages ?? state.meta.languages,
    sortOrder: input.sortOrder !== undefined ? input.sortOrder : state.meta.sortOrder,
    isLatest,
    updatedAt: now,
  };
  return { ...state, meta };
}

/** The previous latest version, without the flag. */
export const demoteLatest = (state: VersionState, now: string): VersionState => ({ ...state, meta: { ...state.meta, isLatest: false, updatedAt: now } });

function assertLanguagesRemovable(state: VersionState, languages: readonly string[]): void {
  const keep = new Set(languages);
  const inUse = new Map<string, number>();
  for (const byLanguage of state.translations.values()) {
    for (const language of byLanguage.keys()) if (!keep.has(language)) inUse.set(language, (inUse.get(language) ?? 0) + 1);
  }
  if (inUse.size > 0) {
    const list = [...inUse].map(([l, n]) => `${l} (${n} translation${n === 1 ? '' : 's'})`).join(', ');
    throw new AppError('language_in_use', `Cannot remove ${list} from version "${state.slug}"; delete those translations first`, {
      field: 'body/languages',
      languages: [...inUse.keys()],
    });
  }
  const primary = languages[0];
  const missing = [...state.translations].filter(([, byLanguage]) => !byLanguage.has(primary)).length;
  if (primary !== state.meta.languages[0] && missing > 0) {
    throw new AppError('primary_language_required', `Cannot make ${primary} the primary language: ${missing} node(s) have no ${primary} translation`, { field: 'body/languages', language: primary });
  }
}
