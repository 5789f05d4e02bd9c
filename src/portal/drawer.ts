import type { VersionState } from '../domain/types.ts';
import { html, type Html } from './html.ts';
import type { Translate } from './i18n/messages.ts';
import { languageSwitch, navTree, versionSwitch } from './nav.ts';
import type { Links } from './site.ts';

/** What the drawer of a version's page shows. */
export interface DrawerParts {
  portal: string;
  versions: readonly VersionState[];
  state: VersionState;
  language: string;
  links: Links;
  /** The node being read (marked in the tree), or null on the version's other pages. */
  slug: string | null;
  /** The same page in another language. */
  href: (language: string) => string;
}

/**
 * The side column of a version's pages: the version and language switches above the tree. On wide
 * screens it stands beside the page; below 900 px the menu button opens it as a drawer (the script
 * traps focus in it and closes it on Escape), and without JavaScript it stands below the page,
 * where the header's menu link leads.
 */
export function drawer(d: DrawerParts, t: Translate): Html {
  return html`<div class="drawer" id="drawer">
<div class="drawer-head"><span class="drawer-title">${t('nav.contents')}</span><button type="button" class="drawer-close" id="drawer-close" hidden><span aria-hidden="true">×</span><span class="visually-hidden">${t('menu.close')}</span></button></div>
<div class="switches">
${versionSwitch(d.portal, d.versions, d.state, d.slug, d.language, t)}
${languageSwitch(d.portal, d.state, d.slug, d.language, d.href, t)}
</div>
${navTree(d.state, d.slug, d.language, d.links, t)}
</div>
<div class="drawer-backdrop" id="drawer-backdrop" hidden></div>`;
}
