import { canonicalLanguage } from '../domain/names.ts';

/**
 * Which link destinations point into the version, and where (docs/content-format.md#links). A body
 * is read in two places: as the portal page `{portal}/{version}/{slug}` and as the file
 * `{version}/{lang}/{slug}.md` of a content repository, so the forms both use count:
 *
 * - `other`, `./other`, `../other`, `other.md`, `../other.md`: the page `other`, in the reader's language;
 * - `../de/other.md`: the German file of `other` (a language the version has);
 * - `/support/v2/other` (the portal's path), `../v2/other` and `.md` twins of those, when `v2` is this
 *   version (or `latest` while it is the latest, or the version a working copy copies);
 * - any of these with `?lang=de` (that language's page) and `#anchor` (a heading of the page), and
 *   `#anchor` alone (a heading of the same page).
 *
 * Everything else is not the version's to check: a scheme (`https:`, `mailto:`) or `//host`, other
 * paths of the site, another version, files that are not pages (`images/a.png`). The service never
 * fetches any of them.
 */

/** The version a body belongs to, as its links may name it. */
export interface LinkScope {
  /** The version's slug, and its other names in portal paths (`latest`, the slug a working copy copies). */
  readonly names: readonly string[];
  readonly languages: readonly string[];
  /** The portal's path prefix (HELP_PORTAL_PATH). */
  readonly portalPath: string;
}

/** The portal's path when none is configured (config.ts's default). */
export const DEFAULT_PORTAL_PATH = '/support';

/** Where an internal link goes. */
export interface LinkTarget {
  /** The node's slug; null for the page the link is on. */
  slug: string | null;
  anchor: string | null;
  /** A language the link names (`?lang=`, or a file's folder), as written; null when it names none. */
  language: string | null;
  /** True when the language is a file's folder: that translation itself must exist, not a page shown in its place. */
  file: boolean;
}

/** Pages of the portal below a version that are no nodes. */
const PORTAL_PAGES = new Set(['search', 'llms.txt', 'llms-full.txt']);

/** Where `destination` (as markdown-it reads it, escapes decoded) goes in the version, or null when it is no internal link. */
export function resolveLink(destination: string, scope: LinkScope): LinkTarget | null {
  if (/^[a-z][a-z0-9+.-]*:|^\/\/|^\\/i.test(destination)) return null;
  const hashAt = destination.indexOf('#');
  const fragment = hashAt < 0 ? '' : destination.slice(hashAt + 1);
  const beforeHash = hashAt < 0 ? destination : destination.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const path = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt < 0 ? '' : beforeHash.slice(queryAt + 1);
  const anchor = fragment === '' ? null : decode(fragment);
  const queryLanguage = query === '' ? null : new URLSearchParams(query).get('lang');
  const language = queryLanguage === '' ? null : queryLanguage;
  if (path === '') return anchor === null && language === null ? null : { slug: null, anchor, language, file: false };
  const page = (name: string | undefined, fileLanguage: string | null = null): LinkTarget | null => {
    if (name === undefined || name === '' || PORTAL_PAGES.has(name)) return null;
    const slug = name.endsWith('.md') ? name.slice(0, -3) : name;
    // A name with another extension is a file (an image, a PDF), not a page.
    if (slug === '' || slug.includes('.')) return null;
    return { slug: decode(slug), anchor, language: fileLanguage ?? language, file: fileLanguage !== null };
  };
  const isSelf = (name: string) => scope.names.includes(name);
  if (path.startsWith('/')) {
    if (!path.startsWith(`${scope.portalPath}/`)) return null;
    const [version, name, ...more] = path.slice(scope.portalPath.length + 1).split('/');
    return more.length === 0 && isSelf(version) ? page(name) : null;
  }
  const parts = path.replace(/^(?:\.\/)+/, '').replace(/\/$/, '').split('/');
  if (parts.length === 1) return page(parts[0]);
  if (parts.length === 2 && parts[0] === '..') return page(parts[1]);
  if (parts.length === 3 && parts[0] === '..') {
    if (isSelf(parts[1])) return page(parts[2]);
    if (parts[2].endsWith('.md') && canonicalLanguage(parts[1]) !== null) return page(parts[2], parts[1]);
  }
  return null;
}

/** The names a version goes by in its links. */
export function scopeOf(state: { slug: string; meta: { isLatest: boolean; workingCopyOf: string | null; languages: readonly string[] } }, portalPath = DEFAULT_PORTAL_PATH): LinkScope {
  const names = [state.slug];
  if (state.meta.isLatest) names.push('latest');
  if (state.meta.workingCopyOf !== null) names.push(state.meta.workingCopyOf);
  return { names, languages: state.meta.languages, portalPath };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
