import { resolveIn } from '../content/link-check.ts';
import { scopeOf } from '../content/link-rules.ts';
import type { VersionState } from '../domain/types.ts';
import type { LinkCheck } from './markdown.ts';
import type { Links } from './site.ts';

/**
 * Where the internal links of a page's body go (docs/content-format.md#links): to the page they
 * name in the reader's language (or the one they name), at the version as the path named it; a
 * link to a renamed node's old slug goes straight to the node (no 301 on the way); a link to a node,
 * heading or language the version does not have is shown as its text, so a reader never follows it.
 * Links to other sites are left as written.
 */
export function bodyLinks(state: VersionState, slug: string, language: string, links: Links): LinkCheck {
  const scope = scopeOf(state, links.base);
  return (destination) => {
    const to = resolveIn(state, slug, language, destination, scope);
    if (to === null) return null;
    if (to.reason === 'missing_topic') return { broken: `No page "${to.slug}" in this version` };
    if (to.reason === 'missing_language') return { broken: `This page is not available in "${to.language}"` };
    if (to.reason === 'missing_anchor') return { broken: `No section "${to.anchor}" on that page` };
    // A link within the page stays one: following it does not load the page again. One naming a
    // heading by its GitHub id goes to the heading's id here.
    if (destination.startsWith('#')) return to.anchor === null || destination === `#${to.anchor}` ? null : { href: `#${encodeURIComponent(to.anchor)}` };
    const anchor = to.anchor === null ? '' : `#${encodeURIComponent(to.anchor)}`;
    return { href: `${links.node(to.slug, to.language ?? language)}${anchor}` };
  };
}
