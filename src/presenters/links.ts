import type { VersionState } from '../domain/types.ts';
import { movedIn } from '../queries/redirects.ts';
import type { LinkWarning, VersionLinks } from '../content/version-links.ts';

/** Broken links listed in one answer at most; a version with more says how many it left out. */
const MAX_REPORTED = 10_000;

/** `GET /versions/{version}/links`. */
export function presentLinks(state: VersionState, links: VersionLinks) {
  const listed = links.broken.slice(0, MAX_REPORTED);
  return {
    version: state.slug,
    broken: listed.map(({ path, line, link, target, anchor, language, reason }) => {
      const movedTo = reason === 'moved' ? movedIn(state, target)?.to : undefined;
      return { path, line, link, target, ...(anchor !== undefined ? { anchor } : {}), ...(language !== undefined ? { language } : {}), reason, ...(movedTo !== undefined ? { movedTo } : {}) };
    }),
    checked: links.checked,
    ...(links.broken.length > listed.length ? { omitted: links.broken.length - listed.length } : {}),
    ...(links.unchecked.length > 0 ? { unchecked: links.unchecked } : {}),
  };
}

/**
 * The links elsewhere in the version that a rename or a deletion left naming a slug no node has, as
 * warnings of that write: after a rename they still open the page (through its redirect), and are to be fixed.
 */
export function orphanedLinkWarnings(links: VersionLinks, gone: ReadonlySet<string>, max = 100): LinkWarning[] {
  return links.broken
    .filter((b) => (b.reason === 'missing_topic' || b.reason === 'moved') && gone.has(b.target))
    .slice(0, max)
    .map((b) => ({ code: 'broken_link', path: b.path, line: b.line, link: b.link, message: b.message }));
}

/** An answer with its warnings, the field left out when there are none (answers without any stay as they were). */
export const withWarnings = <T extends object>(body: T, warnings: readonly LinkWarning[]): T & { warnings?: LinkWarning[] } => (warnings.length > 0 ? { ...body, warnings: [...warnings] } : body);
