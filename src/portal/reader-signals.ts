import coBody from 'co-body';
import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { isNodeSlug } from '../domain/names.ts';
import { AppError, invalid } from '../errors.ts';
import { requestLog } from '../http/logging.ts';
import { PUBLIC_READER } from '../queries/reader.ts';
import { admitFeedback, submitFeedback } from '../routes/feedback.ts';
import { check } from '../schemas/registry.ts';
import { SENT_FRAGMENT } from './feedback-form.ts';
import { html } from './html.ts';
import { page, type Site } from './layout.ts';
import { PAGE_POLICY } from './page-policy.ts';
import { fragment, OPEN_SEGMENT } from './open-link.ts';
import { linksFor, pageLanguage, portalVersion } from './site.ts';
import { errorLanguage } from './error-language.ts';
import { messagesFor, type MessageKey } from './i18n/messages.ts';

/**
 * The portal's two addresses that record what readers do, besides its pages:
 * `POST {portal}/{version}/{slug}/feedback`, the "Was this helpful?" form, and
 * `GET {portal}/{version}/_open?q=…&to={slug}`, a search result opened from the results page, which
 * counts the opening for the search report and sends the reader on to the page (302). Both work
 * without a script. `to` must name a page of that version, so the address sends nobody elsewhere.
 */

/** Bytes a feedback form's body may have: a comment of 1,000 characters, each up to 4 bytes of UTF-8, percent-encoded, and the rest. */
export const FORM_LIMIT = 16 * 1024;

const HTML = 'text/html; charset=utf-8';

/** Answers the request when it is one of these two; false otherwise (the router goes on). */
export async function answerReaderSignals(ctx: Context, deps: Deps, site: Site): Promise<boolean> {
  const base = deps.config.portal.path;
  const parts = ctx.path.slice(base.length).split('/').filter((p) => p !== '');
  if (ctx.method === 'POST' && parts.length === 3 && parts[2] === 'feedback' && isNodeSlug(parts[1])) {
    ctx.state.route = `${base}/:version/:slug/feedback`;
    // The page's language is in the form (read by takeFeedback); refused before that, the version's primary language.
    const asked: { language?: string } = {};
    await guarded(ctx, deps, site, parts[0], () => asked.language, () => takeFeedback(ctx, deps, parts[0], parts[1], asked));
    return true;
  }
  if ((ctx.method === 'GET' || ctx.method === 'HEAD') && parts.length === 2 && parts[1] === OPEN_SEGMENT) {
    ctx.state.route = `${base}/:version/_open`;
    await guarded(ctx, deps, site, parts[0], () => single(ctx.query.lang), () => openResult(ctx, deps, parts[0]));
    return true;
  }
  return false;
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[value.length - 1] : value);

/** The form's post: checked, recorded, and the reader sent back to the page, at its thanks (303). */
async function takeFeedback(ctx: Context, deps: Deps, ref: string, slug: string, asked: { language?: string }): Promise<void> {
  refuseOtherSites(ctx, deps);
  admitFeedback(deps, ctx.ip);
  if (ctx.is('application/x-www-form-urlencoded') === false) {
    throw new AppError('unsupported_media_type', 'The feedback form is sent as application/x-www-form-urlencoded', { contentType: ctx.get('content-type') || null });
  }
  ctx.state.bodyLimit = FORM_LIMIT;
  const text = await coBody.text(ctx, { limit: FORM_LIMIT, encoding: 'utf8' });
  const form = new URLSearchParams(text);
  asked.language = form.get('lang') ?? undefined;
  const state = portalVersion(deps.catalog, deps.config.portal, ref);
  const language = pageLanguage(state, form.get('lang') ?? undefined);
  const helpful = form.get('helpful');
  if (helpful !== 'yes' && helpful !== 'no') throw invalid('form/helpful', 'must be yes or no: choose one of the two answers');
  const body = check<{ helpful: boolean; comment?: string }>('FeedbackSubmit', { helpful: helpful === 'yes', comment: comment(form), language }, 'form');
  await submitFeedback(deps, PUBLIC_READER, { version: state.slug, slug, helpful: body.helpful, comment: body.comment, language }, 'portal', 'form');
  const back = linksFor(deps.config.portal, state, ref).node(slug, language);
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 303;
  ctx.redirect(`${back}#${SENT_FRAGMENT}`);
}

/**
 * The form's comment with line breaks as one character each: a browser counts them so for the
 * textarea's maxlength, and sends each as CR LF.
 */
const comment = (form: URLSearchParams) => form.get('comment')?.replace(/\r\n?/g, '\n');

/**
 * A form posted from a page of another site (a browser says where in `Origin`, or `Sec-Fetch-Site`)
 * is refused: nobody's page can vote in their readers' names. Clients that are no browser send
 * neither; the limit per address holds for them.
 */
function refuseOtherSites(ctx: Context, deps: Deps): void {
  const origin = ctx.get('origin');
  const own = deps.config.publicUrl ?? `${ctx.protocol}://${ctx.host}`;
  const crossSite = ctx.get('sec-fetch-site') === 'cross-site' || (origin !== '' && origin !== own);
  if (crossSite) throw new AppError('forbidden_origin', 'Feedback is taken from the portal\'s own pages only', { origin: origin || null });
}

/** A result opened from the portal's search results: counted for its query, then on to the page. */
function openResult(ctx: Context, deps: Deps, ref: string): void {
  const state = portalVersion(deps.catalog, deps.config.portal, ref);
  const to = single(ctx.query.to) ?? '';
  if (!isNodeSlug(to) || !state.nodes.has(to)) throw new AppError('not_found', 'No such page', { resource: 'node' });
  const language = pageLanguage(state, single(ctx.query.lang));
  const q = single(ctx.query.q);
  if (q !== undefined) deps.searchReport.opened(state.slug, language, q);
  const anchor = single(ctx.query.at);
  // A fragment cannot lead off the page it is on: whatever it holds, the reader stays on `to`.
  const hash = anchor === undefined || anchor === '' ? '' : `#${fragment(anchor)}`;
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Robots-Tag', 'noindex');
  ctx.redirect(`${linksFor(deps.config.portal, state, ref).node(to, language)}${hash}`);
}

/**
 * What a refused post or link tells the reader, by the refusal's code: the refusals a reader can meet
 * from the form or a result link, each in its own words; any other says the feedback was not accepted.
 */
function refusalText(err: AppError | null, status: number): MessageKey {
  if (err === null || status >= 500) return 'signal.failed';
  if (err.code === 'too_many_requests') return 'signal.tooMany';
  if (err.code === 'forbidden_origin') return 'signal.otherSite';
  if (err.code === 'payload_too_large') return 'signal.tooLarge';
  if (err.code === 'not_found') return 'error.404.text';
  const field = typeof err.data.field === 'string' ? err.data.field : '';
  if (field.endsWith('helpful')) return 'signal.choose';
  if (field.endsWith('comment')) return 'signal.tooLarge';
  return 'signal.refused';
}

/** The language of a refusal's page (error-language.ts); English when the versions cannot be read. */
function refusalLanguage(deps: Deps, ref: string, requested: string | undefined): string {
  try {
    return errorLanguage(deps.catalog, deps.config.portal, ref, requested);
  } catch {
    return 'en';
  }
}

/** Runs `work`; a refusal becomes a short page with its status (and Retry-After), in the portal's frame and the reader's language. */
async function guarded(ctx: Context, deps: Deps, site: Site, ref: string, requested: () => string | undefined, work: () => Promise<void> | void): Promise<void> {
  try {
    await work();
  } catch (err) {
    const known = err instanceof AppError ? err : (err as { status?: number; type?: string }).type === 'entity.too.large' ? new AppError('payload_too_large', `The form is larger than ${FORM_LIMIT} bytes`, { limit: FORM_LIMIT }) : null;
    if (known === null || known.status >= 500) requestLog(ctx).error({ err }, 'portal feedback failed');
    const status = known?.status ?? 500;
    if (typeof known?.data.retryAfter === 'number') ctx.set('Retry-After', String(known.data.retryAfter));
    if (known?.code === 'payload_too_large') ctx.set('Connection', 'close');
    const language = refusalLanguage(deps, ref, requested());
    const t = messagesFor(language);
    const title = known?.code === 'not_found' ? t('error.404.title') : t('signal.title');
    // The refusal's own words too (a limit's number, the field), as the API gives them: they are the service's, in English.
    const detail = known !== null && status < 500 && known.code !== 'not_found' ? html`<p class="detail" lang="en" dir="ltr">${known.message}</p>` : '';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
    ctx.status = status;
    ctx.type = HTML;
    ctx.body = page(site, {
      title: `${title} · ${site.portal.title}`,
      language,
      noindex: true,
      home: site.portal.path,
      body: html`<div class="layout single"><main id="main" tabindex="-1"><h1>${title}</h1><p role="alert">${t(refusalText(known, status))}</p>${detail}<p><a href="${ctx.get('referer') && ctx.get('referer').startsWith(`${ctx.protocol}://${ctx.host}/`) ? ctx.get('referer') : site.portal.path}">${t('signal.back')}</a></p></main></div>`,
    });
  }
}

/**
 * Counts a search of the portal for the search report (`q` as the results page takes it). Later pages
 * of results are the same search read further, and are not counted again.
 */
export function countPortalSearch(deps: Pick<Deps, 'searchReport'>, version: string, language: string, query: Record<string, string | string[] | undefined>): void {
  const q = (single(query.q) ?? '').trim();
  const offset = single(query.offset);
  if (q === '' || q.length > 200 || (offset !== undefined && offset !== '0' && offset !== '')) return;
  deps.searchReport.count(version, language, q);
}
