import { canonicalLanguage } from '../domain/names.ts';
import type { VersionState } from '../domain/types.ts';
import { notFound } from '../errors.ts';
import type { PortalConfig } from '../config.ts';
import { scriptOf } from '../pdf/fonts.ts';
import { PUBLIC_READER } from '../queries/reader.ts';
import { listVersions, versionByRef } from '../queries/versions.ts';
import type { Catalog } from '../store/catalog.ts';

/**
 * Which versions the portal shows, and the addresses of its pages. The portal always reads as the
 * public reader: drafts, archived versions and working copies do not exist here, whatever the
 * request carries.
 */

/** The published versions the portal lists (HELP_PORTAL_VERSIONS), newest first or in the configured order. */
export function listedVersions(catalog: Catalog, portal: PortalConfig): VersionState[] {
  const visible = listVersions(catalog, PUBLIC_READER);
  if (portal.versions === 'all') return visible;
  if (portal.versions === 'latest') return visible.filter((s) => s.meta.isLatest);
  return portal.versions.flatMap((slug) => visible.filter((s) => s.slug === slug));
}

/** The version a path names (a slug, or `latest`), if the portal shows it; 404 otherwise. */
export function portalVersion(catalog: Catalog, portal: PortalConfig, ref: string): VersionState {
  const state = versionByRef(catalog, PUBLIC_READER, ref);
  if (!listedVersions(catalog, portal).some((s) => s.slug === state.slug)) throw notFound('version', `The portal does not show version "${ref}"`, { version: ref });
  return state;
}

/** The language a page is asked for (`?lang=`), or the version's primary language; 404 for one the version does not have. */
export function pageLanguage(state: VersionState, requested: string | undefined): string {
  if (requested === undefined || requested === '') return state.meta.languages[0];
  const language = canonicalLanguage(requested);
  if (language === null || !state.meta.languages.includes(language)) throw notFound('version', `Version "${state.slug}" is not available in ${requested}`, { language: requested, languages: state.meta.languages });
  return language;
}

const RTL_SCRIPTS = new Set(['Arab', 'Hebr', 'Thaa', 'Syrc', 'Nkoo', 'Adlm']);

/** `rtl` for languages written right to left. */
export const directionOf = (language: string): 'ltr' | 'rtl' => (RTL_SCRIPTS.has(scriptOf(language)) ? 'rtl' : 'ltr');

/** A language's name in itself: `de` → Deutsch, `ja` → 日本語. */
export function languageName(language: string): string {
  try {
    const name = new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language;
    return name.charAt(0).toLocaleUpperCase(language) + name.slice(1);
  } catch {
    return language;
  }
}

/** The addresses of one version's pages; `ref` is what the reader's path says (`latest` stays `latest`). */
export class Links {
  constructor(
    readonly base: string,
    readonly ref: string,
    readonly primary: string,
  ) {}

  private query(language: string, extra: Record<string, string> = {}): string {
    const params = new URLSearchParams(extra);
    if (language !== this.primary) params.set('lang', language);
    const q = params.toString();
    return q ? `?${q}` : '';
  }

  version(language: string): string {
    return `${this.base}/${this.ref}${this.query(language)}`;
  }

  node(slug: string, language: string): string {
    return `${this.base}/${this.ref}/${slug}${this.query(language)}`;
  }

  /** The page's Markdown twin (`{slug}.md`). */
  markdown(slug: string, language: string): string {
    return `${this.base}/${this.ref}/${slug}.md${this.query(language)}`;
  }

  /** The version's llms.txt, or with `full` its llms-full.txt. */
  llms(language: string, full = false): string {
    return `${this.base}/${this.ref}/${full ? 'llms-full' : 'llms'}.txt${this.query(language)}`;
  }

  /** The search page; `offset` > 0 skips that many results of better rank ("More results"). */
  search(language: string, q?: string, offset = 0): string {
    const extra: Record<string, string> = q === undefined ? {} : { q };
    if (offset > 0) extra.offset = String(offset);
    return `${this.base}/${this.ref}/search${this.query(language, extra)}`;
  }
}

/** Links for a version, as reached by `ref`. */
export const linksFor = (portal: PortalConfig, state: VersionState, ref: string) => new Links(portal.path, ref, state.meta.languages[0]);
