import type { PortalConfig } from '../config.ts';
import type { Assets } from './assets.ts';
import { html, type Html } from './html.ts';
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
  /** Header controls: search box, version and language switches, the PDF button. */
  controls?: Html;
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
  return html`<!doctype html>
<html lang="${p.language}" dir="${directionOf(p.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title}</title>
${p.description ? html`<meta name="description" content="${p.description}">\n` : ''}${p.noindex ? html`<meta name="robots" content="noindex">\n` : ''}${p.canonical ? html`<link rel="canonical" href="${p.canonical}">\n` : ''}${(p.alternates ?? []).map((alt) => html`<link rel="alternate" hreflang="${alt.language}" href="${alt.href}">\n`)}${p.markdown ? html`<link rel="alternate" type="text/markdown" href="${p.markdown}">\n` : ''}<link rel="icon" href="${a('icon')}" type="image/svg+xml">
<link rel="stylesheet" href="${a('css')}">
<script type="module" src="${a('script')}"></script>
</head>
<body${attributes}>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<a class="brand" href="${p.home}">${site.portal.logo ? html`<img src="${site.portal.logo}" alt="" width="32" height="32">` : ''}<span>${site.portal.title}</span></a>
${p.controls ?? ''}
</header>
${p.body}
<footer class="site-footer"><p>${site.portal.title}</p></footer>
</body>
</html>
`.text;
}
