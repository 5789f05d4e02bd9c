import type { Context } from 'koa';

/** What the portal answers agents that ask for text: which representation they prefer, and its errors. */

/**
 * Whether the request ranks Markdown above HTML: by q-value, then by the more specific range, then by
 * which the header names first (Koa's negotiator); without `Accept`, or with only wildcards, HTML.
 */
export const prefersMarkdown = (ctx: Context): boolean => ctx.get('Accept') !== '' && ctx.accepts('text/html', 'text/markdown') === 'text/markdown';

/** The error of a text answer (a twin, llms.txt), in the words of the HTML error page. */
export function textError(status: number, missing?: { requested: string; languages: readonly string[] }): string {
  if (missing) {
    // Only what could be a language code is repeated back: the rest of a query is nobody's to echo.
    const asked = /^[A-Za-z0-9-]{1,35}$/.test(missing.requested) ? `"${missing.requested}"` : 'the language asked for';
    return `Not available in this language: this help is not available in ${asked}. Languages: ${missing.languages.join(', ')} (?lang=${missing.languages[0]}).\n`;
  }
  if (status === 404) return 'Page not found: there is no published page at this address. It may have moved, or the version may not be published.\n';
  if (status === 503) return 'Not available right now: this part of the help cannot be shown at the moment. Please try again shortly.\n';
  return 'Something went wrong: the page could not be shown. Please try again later.\n';
}
