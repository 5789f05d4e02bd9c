import { ancestors } from '../domain/tree.ts';
import { pickTranslation } from '../domain/translations.ts';
import type { VersionState } from '../domain/types.ts';
import { html, type Html } from './html.ts';
import type { Translate } from './i18n/messages.ts';
import { languageName, type Links } from './site.ts';

/** The navigation of a version's pages: the tree, breadcrumbs, the language and version switches, the search box. */

export const titleOf = (state: VersionState, slug: string, language: string) => pickTranslation(state, slug, language)?.translation.title ?? slug;

/**
 * The tree: top-level nodes, and the children of each node on the way to the current one (which is
 * expanded and marked `aria-current`). Other sections stay closed, so a page of a large version
 * stays small; following a section opens it.
 */
export function navTree(state: VersionState, current: string | null, language: string, links: Links, t: Translate): Html {
  const open = new Set(current === null ? [] : [...ancestors(state, current), current]);
  const list = (slugs: readonly string[]): Html =>
    html`<ul>${slugs.map((slug) => {
      const node = state.nodes.get(slug)!;
      const expanded = open.has(slug) && node.children.length > 0;
      const cls = node.kind === 'section' ? (expanded ? 'section open' : node.children.length > 0 ? 'section closed' : 'section') : 'topic';
      return html`<li class="${cls}" data-slug="${slug}"><a href="${links.node(slug, language)}"${slug === current ? html` aria-current="page"` : ''}>${titleOf(state, slug, language)}</a>${expanded ? list(node.children) : ''}</li>`;
    })}</ul>`;
  return html`<nav class="tree" id="tree" aria-label="${t('nav.contents')}">${list(state.roots)}</nav>`;
}

/** The path from the version down to the current page. */
export function breadcrumbs(state: VersionState, slug: string, language: string, links: Links, t: Translate): Html {
  return html`<nav class="breadcrumbs" aria-label="${t('nav.breadcrumb')}"><ol>
<li><a href="${links.version(language)}">${state.meta.label}</a></li>
${ancestors(state, slug).map((a) => html`<li><a href="${links.node(a, language)}">${titleOf(state, a, language)}</a></li>`)}
<li><a href="${links.node(slug, language)}" aria-current="page">${titleOf(state, slug, language)}</a></li>
</ol></nav>`;
}

/** A choice that goes to another address: its label, that address, whether it is the page's own. */
interface Choice {
  label: string;
  href: string;
  current: boolean;
  lang?: string;
}

/**
 * A labelled `<select>` of addresses in a GET form. Without JavaScript the form's button goes
 * through `{portal}/_go`, which sends the reader on to the chosen address; with it, the page's
 * script hides the button and goes there as soon as the choice changes.
 */
function switcher(portal: string, id: string, cls: string, label: string, choices: readonly Choice[], t: Translate): Html {
  return html`<form class="switch ${cls}" action="${portal}/_go" method="get">
<label for="${id}">${label}</label>
<span class="switch-row"><select id="${id}" name="to">${choices.map(
    (c) => html`<option value="${c.href}"${c.lang ? html` lang="${c.lang}"` : ''}${c.current ? ' selected' : ''}>${c.label}</option>`,
  )}</select>
<button type="submit" class="switch-go">${t('switch.go')}</button></span>
</form>`;
}

/** The same page in each of the version's languages; those without a translation say so. */
export function languageSwitch(portal: string, state: VersionState, slug: string | null, language: string, href: (l: string) => string, t: Translate): Html {
  if (state.meta.languages.length < 2) return html``;
  const translated = slug === null ? null : state.translations.get(slug);
  return switcher(
    portal,
    'switch-language',
    'languages',
    t('switch.language'),
    state.meta.languages.map((l) => {
      const missing = translated !== null && translated !== undefined && !translated.has(l);
      return { label: missing ? `${languageName(l)} (${t('switch.notTranslated')})` : languageName(l), href: href(l), current: l === language, lang: l };
    }),
    t,
  );
}

/** The same page (or the version's start) in each listed version, keeping the language where it has it. */
export function versionSwitch(portal: string, versions: readonly VersionState[], current: VersionState, slug: string | null, language: string, t: Translate): Html {
  // One version: its label, where the switch would be, so a reader knows which version this is.
  if (versions.length < 2) return html`<p class="switch versions single"><span class="switch-label">${t('switch.version')}</span> ${current.meta.label}</p>`;
  return switcher(
    portal,
    'switch-version',
    'versions',
    t('switch.version'),
    versions.map((v) => {
      const lang = v.meta.languages.includes(language) && language !== v.meta.languages[0] ? `?lang=${encodeURIComponent(language)}` : '';
      const path = slug !== null && v.nodes.has(slug) ? `${portal}/${v.slug}/${slug}` : `${portal}/${v.slug}`;
      return { label: v.meta.isLatest ? `${v.meta.label} (${t('switch.latest')})` : v.meta.label, href: `${path}${lang}`, current: v.slug === current.slug };
    }),
    t,
  );
}

/** The search box of a version. */
export function searchForm(links: Links, language: string, t: Translate, q = '', id = 'q'): Html {
  return html`<form class="search" role="search" action="${links.search(links.primary)}" method="get">
<label class="visually-hidden" for="${id}">${t('search.label')}</label>
<input type="search" id="${id}" name="q" value="${q}" placeholder="${t('search.placeholder')}" maxlength="200" required>
${language !== links.primary ? html`<input type="hidden" name="lang" value="${language}">` : ''}
<button type="submit">${t('search.button')}</button>
</form>`;
}

/**
 * The PDF download dialog (a native `<dialog>`): what to include, the language, and the button.
 * Inert without JavaScript; the page's script opens it and renders the PDF in the browser.
 */
export function pdfDialog(state: VersionState, section: { slug: string; title: string } | null, language: string, t: Translate): Html {
  return html`<dialog id="pdf-dialog" class="pdf-dialog" aria-labelledby="pdf-title">
<form id="pdf-form" method="dialog">
<h2 id="pdf-title">${t('pdf.title')}</h2>
<fieldset class="scope"><legend>${t('pdf.include')}</legend>
<label><input type="radio" name="scope" value="all" checked> ${t('pdf.whole', { version: state.meta.label })}</label>
${section ? html`<label><input type="radio" name="scope" value="section" data-slug="${section.slug}"> ${t('pdf.section', { section: section.title })}</label>` : ''}
<label><input type="radio" name="scope" value="chosen"> ${t('pdf.chosen')}</label>
</fieldset>
<fieldset class="pdf-topics" id="pdf-topics" hidden><legend>${t('pdf.topics')}</legend><p class="hint" id="pdf-topics-status">${t('pdf.loadingTopics')}</p></fieldset>
<p class="field"><label for="pdf-lang">${t('pdf.language')}</label>
<select id="pdf-lang" name="lang">${state.meta.languages.map((l) => html`<option value="${l}" lang="${l}"${l === language ? ' selected' : ''}>${languageName(l)}</option>`)}</select></p>
<div class="pdf-progress" id="pdf-progress" hidden><progress id="pdf-bar" max="100"></progress></div>
<p class="pdf-status" id="pdf-status" role="status" aria-live="polite"></p>
<p class="pdf-error" id="pdf-error" role="alert" hidden></p>
<div class="actions"><button type="submit" class="primary" id="pdf-submit">${t('pdf.submit')}</button> <button type="button" id="pdf-cancel">${t('pdf.close')}</button></div>
</form>
</dialog>`;
}
