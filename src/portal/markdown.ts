import markdownIt, { type MarkdownIt, type Token } from 'markdown-it';
import { escapeHtml } from './html.ts';
import { highlight } from './highlight.ts';
import { githubAliases, HeadingIds, inlineText, slugify } from '../content/headings.ts';

/**
 * Markdown of untrusted authors to HTML. Raw HTML is never passed through (`html: false`: it shows
 * as text); links and images may only point to http(s), mailto and tel addresses or to paths on
 * this site (no `javascript:`, `vbscript:`, `data:` or `file:` — markdown-it's default allows some
 * data: images); bare URLs become links only when they name a scheme (no guessing from "file.md").
 * No plugin evaluates anything: highlighting is our own tokenizer.
 */

const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'tel:']);

/** Whether a link target (as markdown-it normalized it) is one a reader may follow. */
export function isSafeLink(url: string): boolean {
  // Browsers ignore control characters and spaces around and inside a scheme: `java\tscript:`.
  const compact = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(compact);
  if (scheme === null) return true;
  return SAFE_SCHEMES.has(`${scheme[1]}:`);
}

export { slugify };

function createRenderer(): MarkdownIt {
  const md = markdownIt({
    html: false,
    linkify: true,
    typographer: false,
    highlight: (code, info) => {
      const language = (info.trim().split(/\s+/)[0] ?? '').replace(/[^A-Za-z0-9+#_-]/g, '').slice(0, 20);
      const cls = language ? ` class="language-${escapeHtml(language.toLowerCase())}"` : '';
      // A pre that scrolls sideways must be reachable from the keyboard.
      return `<pre class="code" tabindex="0"><code${cls}>${highlight(code, language)}</code></pre>`;
    },
  });
  md.validateLink = isSafeLink;
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });

  // Ids on headings, unique within the page, and a link to each. The page's own ids (layout, dialog)
  // are taken already: a heading called "Main" gets `main-1`, so content cannot take them over.
  // A heading GitHub's preview gives another id also answers to that one (an empty span inside it
  // holds it), so a link written against the preview, or copied from it, still opens the section.
  md.core.ruler.push('heading_ids', (state) => {
    const ids = new HeadingIds();
    const tokens = state.tokens;
    const headings: Array<{ open: Token; text: string; id: string }> = [];
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i].type !== 'heading_open') continue;
      const text = inlineText(tokens[i + 1]);
      const id = ids.next(text);
      tokens[i].attrSet('id', id);
      headings.push({ open: tokens[i], text, id });
    }
    const aliases = githubAliases(
      headings.map((h) => h.text),
      headings.map((h) => h.id),
    );
    const aliasOf = new Map([...aliases].map(([alias, id]) => [id, alias]));
    for (const h of headings) h.open.meta = { text: h.text, alias: aliasOf.get(h.id) };
  });
  md.renderer.rules.heading_open = (tokens, idx, options, _e, self) => {
    const alias = (tokens[idx].meta as { alias?: string } | null)?.alias;
    return self.renderToken(tokens, idx, options) + (alias === undefined ? '' : `<span class="heading-alias" id="${escapeHtml(alias)}"></span>`);
  };
  md.renderer.rules.heading_close = (tokens, idx, _options, e) => {
    const open = tokens[idx - 2];
    const id = String(open.attrGet('id') ?? '');
    const text = (open.meta as { text?: string } | null)?.text ?? '';
    // The page's language names the link (heading.anchor); the heading's text tells the links apart.
    const label = (e as RenderEnv | undefined)?.anchorLabel ? `${(e as RenderEnv).anchorLabel}: ${text}` : `Link to “${text}”`;
    return ` <a class="anchor" href="#${escapeHtml(id)}" aria-label="${escapeHtml(label)}">#</a></${tokens[idx].tag}>\n`;
  };
  // Wide tables scroll inside their own box, which the keyboard can reach.
  md.renderer.rules.table_open = () => '<div class="table-wrap" tabindex="0" role="region" aria-label="Table">\n<table>\n';
  md.renderer.rules.table_close = () => '</table>\n</div>\n';
  // Internal links go where the content format says (LinkCheck); a dangling one is its text, not a link.
  md.renderer.rules.link_open = (tokens, idx, options, e, self) => {
    const env = (e ?? {}) as RenderEnv;
    const to = env.links?.(md.normalizeLinkText(String(tokens[idx].attrGet('href') ?? '')));
    if (to && 'broken' in to) {
      env.inBroken = true;
      return `<span class="broken-link" title="${escapeHtml(to.broken)}">`;
    }
    if (to) tokens[idx].attrSet('href', to.href);
    return self.renderToken(tokens, idx, options);
  };
  md.renderer.rules.link_close = (tokens, idx, options, e, self) => {
    const env = (e ?? {}) as RenderEnv;
    if (!env.inBroken) return self.renderToken(tokens, idx, options);
    env.inBroken = false;
    return '</span>';
  };
  const image = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    tokens[idx].attrSet('loading', 'lazy');
    tokens[idx].attrSet('decoding', 'async');
    return image(tokens, idx, options, env, self);
  };
  return md;
}


const renderer = createRenderer();

/** What becomes of a link (its destination as written): another address, a broken link's text (with why), or null to keep it. */
export type LinkCheck = (destination: string) => { href: string } | { broken: string } | null;

interface RenderEnv {
  links?: LinkCheck;
  inBroken?: boolean;
  /** The accessible name of the headings' anchor links, in the page's language. */
  anchorLabel?: string;
}

/** The HTML of a Markdown body: safe to put into a page as it is. `links` decides the page's internal links. */
export function renderMarkdown(markdown: string, links?: LinkCheck, anchorLabel?: string): string {
  return renderer.render(markdown, { links, anchorLabel } satisfies RenderEnv);
}
