import type { Context } from 'koa';
import type { PortalConfig } from '../config.ts';
import { isNodeSlug } from '../domain/names.ts';
import type { VersionState } from '../domain/types.ts';
import { PUBLIC_READER } from '../queries/reader.ts';
import { movedIn, wasRemoved } from '../queries/redirects.ts';
import { versionByRef } from '../queries/versions.ts';
import type { Catalog } from '../store/catalog.ts';
import { html } from './html.ts';
import { page, type Site } from './layout.ts';
import { fallbackLanguage } from './error-language.ts';
import { messagesFor } from './i18n/messages.ts';
import { linksFor, portalVersion } from './site.ts';
import { prefersMarkdown } from './text-answers.ts';

/**
 * Pages whose address is an old one: a renamed topic's old slug answers 301 to its page now (the
 * Markdown twin `{old}.md` to the new twin, the query string kept), and a deleted topic that was
 * published answers 410 Gone with a page that leads to the version's start, so readers' bookmarks
 * and search engines learn what became of it. A node that has the slug again wins (this answers nothing).
 */
export interface OldAddressEnv {
  catalog: Catalog;
  portal: PortalConfig;
  site: Site;
  maxAge: number;
  /** The portal's own answer (with its security headers). */
  send: (ctx: Context, type: string, body: string, status: number) => void;
}

export function answerOldAddress(ctx: Context, env: OldAddressEnv, ref: string, segment: string): boolean {
  const markdown = segment.endsWith('.md');
  const slug = markdown ? segment.slice(0, -3) : segment;
  if (!isNodeSlug(slug)) return false;
  let state: VersionState;
  try {
    // Cheap first (every page view passes here): most addresses are a node's, or the version has no old ones.
    state = versionByRef(env.catalog, PUBLIC_READER, ref);
    if (state.redirects === undefined || state.nodes.has(slug)) return false;
    state = portalVersion(env.catalog, env.portal, ref);
  } catch {
    // The page's own path answers a version the portal does not show.
    return false;
  }
  const moved = movedIn(state, slug);
  const home = `${env.portal.path}/${ref}`;
  if (moved !== null) {
    ctx.state.route = `${env.portal.path}/:version/:slug`;
    const to = `${home}/${moved.to}${markdown ? '.md' : ''}`;
    ctx.set('Location', `${to}${ctx.querystring === '' ? '' : `?${ctx.querystring}`}`);
    ctx.set('Cache-Control', `public, max-age=${env.maxAge}`);
    env.send(ctx, TEXT, `Moved: this page is now at ${to}\n`, 301);
    return true;
  }
  if (!wasRemoved(state, slug)) return false;
  ctx.state.route = `${env.portal.path}/:version/:slug`;
  ctx.set('Cache-Control', 'no-cache');
  if (markdown || prefersMarkdown(ctx)) env.send(ctx, TEXT, `Gone: this page was removed from the help. Start from ${home} (or ${home}/search).\n`, 410);
  else env.send(ctx, HTML, gonePage(env, state, ref, fallbackLanguage(state, single(ctx.query.lang))), 410);
  return true;
}

const TEXT = 'text/plain; charset=utf-8';
const HTML = 'text/html; charset=utf-8';

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[value.length - 1] : value);

/** The 410 page: what happened, and where to go on, in the language the reader asked for when the version has it. */
function gonePage(env: OldAddressEnv, state: VersionState, ref: string, language: string): string {
  const t = messagesFor(language);
  const links = linksFor(env.portal, state, ref);
  const title = t('gone.title');
  const version = state.meta.label;
  return page(env.site, {
    title: `${title} · ${env.site.portal.title}`,
    language,
    noindex: true,
    home: links.version(language),
    body: html`<div class="layout single"><main id="main" tabindex="-1"><h1>${title}</h1><p>${t('gone.text', { version })}</p><ul class="next"><li><a href="${links.version(language)}">${t('gone.start', { version })}</a></li><li><a href="${links.search(language)}">${t('gone.search')}</a></li></ul></main></div>`,
  });
}
