import type { Links } from './site.ts';

/** The segment of the address through which a search result is opened (`{portal}/{version}/_open`). */
export const OPEN_SEGMENT = '_open';

/**
 * A search result's link: through `_open`, which counts the opening for the search report and sends
 * the reader on to `slug` (at `anchor`) with a redirect, so it works without a script. A plain link
 * is all a reader sees; the query is the one they typed, already in the results page's own address.
 */
export function openLink(links: Links, q: string, slug: string, language: string, anchor?: string): string {
  const params = new URLSearchParams({ q, to: slug });
  if (language !== links.primary) params.set('lang', language);
  if (anchor !== undefined && anchor !== '') params.set('at', anchor);
  return `${links.base}/${links.ref}/${OPEN_SEGMENT}?${params}`;
}

/**
 * A search result's link as the results page prints it: through `_open` while the search report
 * counts (HELP_SEARCH_REPORT, on by default), else straight to the page, as there is nothing to count
 * and a redirect would only cost the reader a round trip.
 */
export function resultLink(links: Links, q: string, slug: string, language: string, anchor: string | undefined, counted: boolean): string {
  if (counted) return openLink(links, q, slug, language, anchor);
  return `${links.node(slug, language)}${anchor === undefined || anchor === '' ? '' : `#${fragment(anchor)}`}`;
}

/** A heading's id as a URL fragment: letters of every script stay readable, anything else is escaped. */
export const fragment = (anchor: string) => anchor.replace(/[^\p{L}\p{N}\p{M}_-]/gu, (c) => encodeURIComponent(c));
