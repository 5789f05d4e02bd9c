import { pickTranslation } from '../domain/translations.ts';
import type { Translation, VersionState } from '../domain/types.ts';
import { canonicalLanguage } from '../domain/names.ts';
import { redirectsOf } from '../domain/redirects.ts';
import { translationPath } from './file-set.ts';
import { PAGE_IDS } from './headings.ts';
import { resolveLink, type LinkScope } from './link-rules.ts';
import { MAX_INLINE_CHARS, MAX_LINKS, scanBody, type BodyScan } from './link-scan.ts';
import { renderMarkdownFile } from './markdown-file.ts';

/**
 * Internal links checked against a version: a link to a node the version does not have, to a
 * heading the page does not have, or to a language it does not have is broken. A link to a renamed
 * node's old slug still opens the page (the portal answers 301) but is reported as `moved`, so the
 * source is fixed before the redirect is ever dropped (a new node taking the old slug). Each body is read
 * once per translation record (records are immutable; a write makes new ones), so checking a
 * version again after a write reads only the bodies it changed.
 */

export type BrokenReason = 'missing_topic' | 'missing_anchor' | 'missing_language' | 'moved';

/** A link and where it goes, when it goes into the version. */
export interface ResolvedLink {
  /** The node the link opens: for a link to a renamed node's old slug, the node's slug now. */
  slug: string;
  /** The old slug the link names, when it names one (`reason` is then `moved`, or what is wrong with it on the page it opens). */
  movedFrom: string | null;
  anchor: string | null;
  /** The language of the page it opens, when the link names one (canonical case when valid). */
  language: string | null;
  reason: BrokenReason | null;
}

/** A broken link of one body; `line` counts from 0 in the body. */
export interface BodyBrokenLink {
  line: number;
  link: string;
  target: string;
  anchor?: string;
  language?: string;
  reason: BrokenReason;
}

const scans = new WeakMap<Translation, BodyScan>();

/** The body's links and anchors, read once per translation record. */
export function scanOf(t: Translation): BodyScan {
  let scan = scans.get(t);
  if (scan === undefined) {
    scan = scanBody(t.bodyMd);
    scans.set(t, scan);
  }
  return scan;
}

/** The slug a renamed node has now, for one of its old slugs (a live node wins over an old slug). */
const movedTo = (state: VersionState, slug: string): string | undefined => (state.nodes.has(slug) ? undefined : redirectsOf(state).moved.get(slug));

/** Where a link on the page `slug` read in `language` goes, and why it is broken if it is; null when it is no internal link. */
export function resolveIn(state: VersionState, slug: string, language: string, destination: string, scope: LinkScope): ResolvedLink | null {
  const target = resolveLink(destination, scope);
  if (target === null) return null;
  const given = target.slug ?? slug;
  const now = movedTo(state, given);
  const to = now ?? given;
  const movedFrom = now === undefined ? null : given;
  const named = target.language === null ? null : canonicalLanguage(target.language);
  const result = (reason: BrokenReason | null): ResolvedLink => ({ slug: to, movedFrom, anchor: target.anchor, language: named ?? target.language, reason });
  const fine = () => result(movedFrom === null ? null : 'moved');
  if (!state.nodes.has(to)) return result('missing_topic');
  if (target.language !== null && (named === null || !scope.languages.includes(named))) return result('missing_language');
  let page: Translation | undefined;
  if (target.file) {
    page = state.translations.get(to)?.get(named!);
    if (page === undefined) return result('missing_language');
  } else {
    page = pickTranslation(state, to, named ?? language)?.translation;
  }
  if (target.anchor === null || PAGE_IDS.includes(target.anchor)) return fine();
  const scan = page === undefined ? null : scanOf(page);
  // Past a body's scan budget its headings are unknown: no anchor is called missing there.
  if (scan === null || scan.anchors.has(target.anchor) || !scan.anchorsComplete) return fine();
  // A heading named by the id GitHub gives it (a link written against GitHub's preview) is found,
  // and the link goes to the heading's id here.
  const ours = scan.aliases.get(target.anchor);
  return ours === undefined ? result('missing_anchor') : { ...fine(), anchor: ours };
}

/** The internal links of one translation's body, checked: how many, the broken ones, and whether the whole body was read. */
export function checkBody(state: VersionState, slug: string, language: string, t: Translation, scope: LinkScope): { checked: number; broken: BodyBrokenLink[]; complete: boolean } {
  const scan = scanOf(t);
  let checked = 0;
  const broken: BodyBrokenLink[] = [];
  for (const link of scan.links) {
    const resolved = resolveIn(state, slug, language, link.destination, scope);
    if (resolved === null) continue;
    checked++;
    if (resolved.reason === null) continue;
    // A link naming an old slug is reported as moved whatever else is wrong with it: once it names the
    // node's slug now, a heading or language it lacks is reported as for any link.
    const moved = resolved.movedFrom !== null;
    broken.push({
      line: link.line,
      link: link.destination,
      target: moved ? resolved.movedFrom! : resolved.slug,
      ...(resolved.anchor !== null ? { anchor: resolved.anchor } : {}),
      ...(resolved.language !== null ? { language: resolved.language } : {}),
      reason: moved ? 'moved' : resolved.reason,
    });
  }
  return { checked, broken, complete: scan.complete };
}

/** What a writer is told of a broken link in a body in `language`. */
export function brokenMessage(state: VersionState, language: string, b: BodyBrokenLink): string {
  const where = `broken link "${b.link}"`;
  if (b.reason === 'missing_topic') return `${where}: version ${state.slug} has no topic or section "${b.target}"`;
  if (b.reason === 'moved') {
    const to = movedTo(state, b.target) ?? b.target;
    return `${where}: "${b.target}" moved to "${to}"; link to "${to}"`;
  }
  if (b.reason === 'missing_language') {
    return b.language !== undefined && state.meta.languages.includes(b.language)
      ? `${where}: "${b.target}" has no ${b.language} translation (${translationPath(b.language, b.target)})`
      : `${where}: version ${state.slug} has no language "${b.language}" (it has ${state.meta.languages.join(', ')})`;
  }
  const page = pickTranslation(state, b.target, b.language ?? language)?.translation;
  const anchors = page ? [...scanOf(page).anchors].slice(0, 5) : [];
  return `${where}: "${b.target}" has no heading with the anchor "#${b.anchor}"${anchors.length > 0 ? ` (its headings: ${anchors.map((a) => `#${a}`).join(', ')})` : ''}`;
}

/** What a writer is told of a body too long for its links all to be checked. */
export const UNCHECKED_MESSAGE = `links past the first ${MAX_INLINE_CHARS.toLocaleString('en')} characters of linked text or the first ${MAX_LINKS.toLocaleString('en')} links of this body are not checked`;

/** The lines the front matter of a translation's file takes before its body, as the service writes the file. */
export function frontMatterLines(t: Translation, fileText?: string): number {
  const text = fileText !== undefined && fileText.endsWith(t.bodyMd) ? fileText : renderMarkdownFile(t);
  let lines = 0;
  const end = text.length - t.bodyMd.length;
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) lines++;
  return lines;
}
