import { canonicalLanguage } from '../domain/names.ts';
import type { VersionState } from '../domain/types.ts';
import type { Catalog } from '../store/catalog.ts';
import type { PortalConfig } from '../config.ts';
import { listedVersions, portalVersion } from './site.ts';

/**
 * The language of a page that shows no topic (404, 410, a refused feedback post): the one asked for
 * when the version has it, else the version's primary language. Never a failure, as a topic's page
 * would be for a language its version lacks: the reader is already on the way to an error.
 */
export function fallbackLanguage(state: VersionState, requested: string | undefined): string {
  const asked = requested === undefined || requested === '' ? null : canonicalLanguage(requested);
  return asked !== null && state.meta.languages.includes(asked) ? asked : state.meta.languages[0];
}

/**
 * The same for an address whose version the portal may not show: that version's rule when it shows
 * it; else, so that a draft's or an unknown version's page says nothing of it, the one asked for when
 * a version the portal shows has it, else the primary language of the one it shows first.
 */
export function errorLanguage(catalog: Catalog, portal: PortalConfig, ref: string | undefined, requested: string | undefined): string {
  if (ref !== undefined && !ref.startsWith('_')) {
    try {
      return fallbackLanguage(portalVersion(catalog, portal, ref), requested);
    } catch {
      // Not a version the portal shows: as for the portal's own addresses.
    }
  }
  return portalLanguage(listedVersions(catalog, portal), requested);
}

/** The language asked for when a listed version has it, else the primary language of the first version shown (the latest first). */
export function portalLanguage(versions: readonly VersionState[], requested: string | undefined): string {
  const asked = requested === undefined || requested === '' ? null : canonicalLanguage(requested);
  if (asked !== null && versions.some((v) => v.meta.languages.includes(asked))) return asked;
  const first = versions.find((v) => v.meta.isLatest) ?? versions[0];
  return first?.meta.languages[0] ?? 'en';
}
