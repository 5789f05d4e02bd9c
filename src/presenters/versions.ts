import type { VersionState } from '../domain/types.ts';

/** The version object of the API. */
export function presentVersion(state: VersionState) {
  const m = state.meta;
  return {
    slug: state.slug,
    label: m.label,
    status: m.status,
    languages: m.languages,
    sortOrder: m.sortOrder,
    isLatest: m.isLatest,
    hidden: m.hidden,
    workingCopyOf: m.workingCopyOf,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}
