import { ancestors } from '../domain/tree.ts';
import { pickTranslation } from '../domain/translations.ts';
import type { VersionState } from '../domain/types.ts';
import { html, type Html } from './html.ts';
import { languageName, type Links } from './site.ts';

/** The navigation of a version's pages: the tree, breadcrumbs, the language and version switches, the search box. */

const titleOf = (state: VersionState, slug: string, language: string) => pickTranslation(state, slug, language)?.translation.title ?? slug;

/**
 * The tree: top-level nodes, and the children of each node on the way to the current one (which is
 * expanded and marked `aria-current`). Other sections stay closed, so a page of a large version
 * stays small; following a section opens it.
 */
export function navTree(state: VersionState, current: string | null, language: string, links: Links): Html {
  const open = new Set(current === null ? [] : [...ancestors(state, current), current]);
  const list = (slugs: readonly string[]): Html =>
    html`<ul>${slugs.map((slug) => {
      const node = state.nodes.get(slug)!;
      const expanded = open.has(slug) && node.children.length > 0;
      const cls = node.kind === 'section' ? (expanded ? 'section open' : node.children.length > 0 ? 'section closed' : 'section') : 'topic';
      return html`<li class="${cls}" data-slug="${slug}"><a href="${links.node(slug, language)}"${slug === current ? html` aria-current="page"` : ''}>${titleOf(state, slug, language)}</a>${expanded ? list(node.children) : ''}</li>`;
    })}</ul>`;
  return html`<nav class="tree" id="tree" aria-label="Contents">${list(state.roots)}</nav>`;
}

/** The path from the version down to the current page. */
export function breadcrumbs(state: VersionState, slug: string, language: string, links: Links): Html {
  return html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol>
<li><a href="${links.version(language)}">${state.meta.label}</a></li>
${ancestors(state, slug).map((a) => html`<li><a href="${links.node(a, language)}">${titleOf(state, a, language)}</a></li>`)}
<li><a href="${links.node(slug, language)}" aria-current="page">${titleOf(state, slug, language)}</a></li>
</ol></nav>`;
}

/** Links to the same page in each of the version's languages; those without a translation say so. */
export function languageSwitch(state: VersionState, slug: string | null, language: string, href: (l: string) => string): Html {
  const translated = slug === null ? null : state.translations.get(slug);
  return html`<details class="switch languages"><summary><span class="visually-hidden">Language: </span>${languageName(language)}</summary>
<ul>${state.meta.languages.map((l) => {
    const missing = translated !== null && translated !== undefined && !translated.has(l);
    return html`<li><a href="${href(l)}" hreflang="${l}" lang="${l}"${l === language ? html` aria-current="true"` : ''}>${languageName(l)}${missing ? html` <small lang="en">(not translated)</small>` : ''}</a></li>`;
  })}</ul></details>`;
}

/** Links to the same page (or the version's start) in each listed version, keeping the language where it has it. */
export function versionSwitch(versions: readonly VersionState[], current: VersionState, slug: string | null, language: string, base: string): Html {
  return html`<details class="switch versions"><summary><span class="visually-hidden">Version: </span>${current.meta.label}</summary>
<ul>${versions.map((v) => {
    const lang = v.meta.languages.includes(language) && language !== v.meta.languages[0] ? `?lang=${encodeURIComponent(language)}` : '';
    const path = slug !== null && v.nodes.has(slug) ? `${base}/${v.slug}/${slug}` : `${base}/${v.slug}`;
    return html`<li><a href="${path}${lang}"${v.slug === current.slug ? html` aria-current="true"` : ''}>${v.meta.label}${v.meta.isLatest ? html` <small>(latest)</small>` : ''}</a></li>`;
  })}</ul></details>`;
}

/** The search box of a version. */
export function searchForm(links: Links, language: string, q = '', id = 'q'): Html {
  return html`<form class="search" role="search" action="${links.search(links.primary)}" method="get">
<label class="visually-hidden" for="${id}">Search this version</label>
<input type="search" id="${id}" name="q" value="${q}" placeholder="Search" maxlength="200" required>
${language !== links.primary ? html`<input type="hidden" name="lang" value="${language}">` : ''}
<button type="submit">Search</button>
</form>`;
}

/**
 * The PDF download dialog (a native `<dialog>`): what to include, the language, and the button.
 * Inert without JavaScript; the page's script opens it and renders the PDF in the browser.
 */
export function pdfDialog(state: VersionState, section: { slug: string; title: string } | null, language: string): Html {
  return html`<dialog id="pdf-dialog" class="pdf-dialog" aria-labelledby="pdf-title">
<form id="pdf-form" method="dialog">
<h2 id="pdf-title">Download PDF</h2>
<fieldset class="scope"><legend>Include</legend>
<label><input type="radio" name="scope" value="all" checked> The whole version (${state.meta.label})</label>
${section ? html`<label><input type="radio" name="scope" value="section" data-slug="${section.slug}"> This section: ${section.title}</label>` : ''}
<label><input type="radio" name="scope" value="chosen"> Chosen topics</label>
</fieldset>
<fieldset class="pdf-topics" id="pdf-topics" hidden><legend>Topics</legend><p class="hint" id="pdf-topics-status">Loading the contents…</p></fieldset>
<p class="field"><label for="pdf-lang">Language</label>
<select id="pdf-lang" name="lang">${state.meta.languages.map((l) => html`<option value="${l}" lang="${l}"${l === language ? ' selected' : ''}>${languageName(l)}</option>`)}</select></p>
<div class="pdf-progress" id="pdf-progress" hidden><progress id="pdf-bar" max="100"></progress></div>
<p class="pdf-status" id="pdf-status" role="status" aria-live="polite"></p>
<p class="pdf-error" id="pdf-error" role="alert" hidden></p>
<div class="actions"><button type="submit" class="primary" id="pdf-submit">Download PDF</button> <button type="button" id="pdf-cancel">Close</button></div>
</form>
</dialog>`;
}
