import type { PortalConfig } from '../config.ts';
import type { Assets } from './assets.ts';
import { html, trusted, type Html } from './html.ts';
import { clientMessages, messagesFor } from './i18n/messages.ts';
import { directionOf } from './site.ts';

/** What every page is built from besides its own content. */
export interface Site {
  readonly portal: PortalConfig;
  readonly assets: Assets;
  /** The API's path prefix (`/help/v1`): the page's script reads the PDF bundle and the tree there. */
  readonly apiBase: string;
}

export interface PageParts {
  /** The `<title>`: the page's own title comes first. */
  title: string;
  description?: string;
  /** Absolute URL of the page's canonical address. */
  canonical?: string;
  /** The page's Markdown twin, for agents and the "Copy as Markdown" button. */
  markdown?: string;
  /** `hreflang` alternates: the same page in other languages (absolute URLs). */
  alternates?: ReadonlyArray<{ language: string; href: string }>;
  language: string;
  /** Pages that should not be indexed (search results, errors). */
  noindex?: boolean;
  /** Home of the brand link (the version's start, or the portal's). */
  home: string;
  /** Header controls: the search box. */
  controls?: Html;
  /** The page has a drawer (`#drawer`: the switches and the tree) that a menu button opens on narrow screens. */
  drawer?: boolean;
  /** Everything below the header. */
  body: Html;
  /** `data-` attributes of `<body>` for the page's script. */
  data?: Record<string, string>;
}

/** A whole page: strict head (one stylesheet, one script module, no inline code), header, body, footer. */
export function page(site: Site, p: PageParts): string {
  const a = (id: Parameters<Assets['name']>[0]) => `${site.portal.path}/_assets/${site.assets.name(id)}`;
  const data = {
    ...p.data,
    api: site.apiBase,
    portal: site.portal.path,
    pdfScript: a('pdf'),
    pdfLayout: a('pdfLayout'),
    pdfmake: a('pdfmake'),
    courier: a('courier'),
    markdownIt: a('markdownIt'),
  };
  const attributes = Object.entries(data).map(([k, v]) => html` data-${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${v}"`);
  const t = messagesFor(p.language);
  // Data for the scripts, not code: the strict policy stays as it is. `<` never closes the element early.
  const messages = trusted(JSON.stringify(clientMessages(p.language)).replace(/</g, '\\u003c'));
  return html`<!doctype html>
<html lang="${p.language}" dir="${directionOf(p.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title}</title>
${p.description ? html`<meta name="description" content="${p.description}">\n` : ''}${p.noindex ? html`<meta name="robots" content="noindex">\n` : ''}${p.canonical ? html`<link rel="canonical" href="${p.canonical}">\n` : ''}${(p.alternates ?? []).map((alt) => html`<link rel="alternate" hreflang="${alt.language}" href="${alt.href}">\n`)}${p.markdown ? html`<link rel="alternate" type="text/markdown" href="${p.markdown}">\n` : ''}<link rel="icon" href="${a('icon')}" type="${site.assets.type('icon')}">
<link rel="stylesheet" href="${a('css')}">
<script type="module" src="${a('script')}"></script>
<script type="application/json" id="portal-messages">${messages}</script>
</head>
<body${attributes}>
<a class="skip-link" href="#main">${t('skip.content')}</a>
<header class="site-header">
${p.drawer ? menuControls(t('menu.open')) : ''}<a class="brand" href="${p.home}">${site.portal.logo ? html`<img src="${site.portal.logo}" alt="" width="32" height="32">` : ''}<span>${site.portal.title}</span></a>
${p.controls ?? ''}
</header>
${p.body}
<div class="announcer visually-hidden" id="announcer" role="status" aria-live="polite"></div>
<footer class="site-footer"><p>${site.portal.title}</p></footer>
</body>
</html>
`.text;
}

const MENU_ICON = trusted('<svg aria-hidden="true" focusable="false" width="20" height="20" viewBox="0 0 20 20"><path d="M3 5h14M3 10h14M3 15h14" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>');

/**
 * The menu button of narrow screens, which the script shows and wires to the drawer; without
 * JavaScript a link to the drawer, which then stands below the page.
 */
function menuControls(label: string): Html {
  return html`<button type="button" class="menu-button" id="menu-button" aria-controls="drawer" aria-expanded="false" hidden>${MENU_ICON}<span class="visually-hidden">${label}</span></button><a class="menu-link" href="#drawer">${MENU_ICON}<span class="visually-hidden">${label}</span></a>
`;
}
