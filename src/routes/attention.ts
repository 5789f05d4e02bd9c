import type { Deps } from '../deps.ts';
import type { Actor } from '../http/actor.ts';
import { endpoint } from '../http/api.ts';
import { linksFor, listedVersions } from '../portal/site.ts';
import { versionLinks } from '../queries/links.ts';
import { translationGaps, type TranslationGap } from '../queries/translation-status.ts';
import { reportVersion } from './report-version.ts';

/** A page with at least this many votes, of which fewer than this share said yes, needs attention. */
export const UNHELPFUL_MIN_VOTES = 3;
export const UNHELPFUL_BELOW = 0.5;
/** Items of each kind listed at most; `counts` says how many there are. */
const LISTED = 100;

/** What needs a writer's attention in a version: GET /versions/{version}/attention's answer (also the tool server's and the CLI's). */
export async function attentionOf(deps: Pick<Deps, 'catalog' | 'config' | 'feedback' | 'searchReport'>, actor: Actor | null, version: string, query: { lang?: string }, field = 'query/lang') {
  const { catalog, config, feedback, searchReport } = deps;
  const { state, lang } = reportVersion(deps, actor, version, query.lang, field);
  const shown = listedVersions(catalog, config.portal).some((s) => s.slug === state.slug);
  const pages = linksFor(config.portal, state, state.slug);
  const portal = (slug: string, l: string) => (shown ? pages.node(slug, l) : null);
  const api = (slug: string, l: string) => `${config.basePath}/versions/${state.slug}/topics/${slug}/translations/${l}`;
  const primary = state.meta.languages[0];

  const brokenLinks = (await versionLinks(state, config.portal.path)).broken.flatMap((b) => {
    const [l, file] = b.path.split('/');
    const slug = file.slice(0, -'.md'.length);
    if (lang !== undefined && l !== lang) return [];
    return [{ slug, language: l, path: b.path, line: b.line, link: b.link, reason: b.reason, message: b.message, portal: portal(slug, l), api: api(slug, l) }];
  });

  const unhelpfulPages = [];
  const summaries = lang === undefined ? feedback.summary({ version: state.slug }) : summaryIn(deps, state.slug, lang);
  for (const s of summaries) {
    if (s.yes + s.no < UNHELPFUL_MIN_VOTES || s.ratio >= UNHELPFUL_BELOW || !state.nodes.has(s.slug)) continue;
    const l = lang ?? primary;
    const feedbackPath = `${config.basePath}/feedback?${new URLSearchParams({ version: state.slug, slug: s.slug })}`;
    unhelpfulPages.push({ slug: s.slug, ...(lang !== undefined ? { language: lang } : {}), yes: s.yes, no: s.no, ratio: s.ratio, comments: s.comments, portal: portal(s.slug, l), api: api(s.slug, l), feedback: feedbackPath });
  }
  unhelpfulPages.sort((a, b) => a.ratio - b.ratio || b.yes + b.no - (a.yes + a.no));

  const failedSearches = searchReport.report(state.slug, lang, Number.MAX_SAFE_INTEGER).noResults.map((q) => ({
    query: q.query,
    language: q.language,
    count: q.count,
    lastAt: q.lastAt,
    portal: shown ? pages.search(q.language, q.query) : null,
  }));

  const gaps = translationGaps(state, lang);
  const gap = (g: TranslationGap) => ({ slug: g.slug, language: g.language, ...(g.primaryUpdatedAt !== undefined ? { primaryUpdatedAt: g.primaryUpdatedAt } : {}), portal: portal(g.slug, g.language), api: api(g.slug, g.language) });
  const outdatedTranslations = gaps.filter((g) => g.state === 'outdated').map(gap);
  const missingTranslations = gaps.filter((g) => g.state === 'missing').map(gap);

  return {
    version: state.slug,
    language: lang ?? null,
    counts: {
      brokenLinks: brokenLinks.length,
      unhelpfulPages: unhelpfulPages.length,
      failedSearches: failedSearches.length,
      outdatedTranslations: outdatedTranslations.length,
      missingTranslations: missingTranslations.length,
    },
    brokenLinks: brokenLinks.slice(0, LISTED),
    unhelpfulPages: unhelpfulPages.slice(0, LISTED),
    failedSearches: failedSearches.slice(0, LISTED),
    outdatedTranslations: outdatedTranslations.slice(0, LISTED),
    missingTranslations: missingTranslations.slice(0, LISTED),
  };
}

/** Votes per page of a version in one language (feedback that did not say its language is left out). */
function summaryIn({ feedback }: Pick<Deps, 'feedback'>, version: string, lang: string) {
  const byPage = new Map<string, { slug: string; yes: number; no: number; ratio: number; comments: number }>();
  for (const e of feedback.matching({ version })) {
    if (e.language !== lang) continue;
    const s = byPage.get(e.slug) ?? { slug: e.slug, yes: 0, no: 0, ratio: 0, comments: 0 };
    if (e.helpful) s.yes++;
    else s.no++;
    if (e.comment !== null) s.comments++;
    byPage.set(e.slug, s);
  }
  for (const s of byPage.values()) s.ratio = Math.round((s.yes / (s.yes + s.no)) * 1000) / 1000;
  return [...byPage.values()];
}

/** The attention report of a version. */
export function attentionRoutes(deps: Deps) {
  return [
    endpoint<unknown, { lang?: string }>({
      method: 'get',
      path: '/versions/:version/attention',
      operationId: 'getAttention',
      summary: 'What needs a writer\'s attention in a version',
      description:
        `Everything in one answer, each item with where to act (the page in the portal, the translation in this API): broken internal links at their file and line (as \`/links\` reports them), pages readers found unhelpful (at least ${UNHELPFUL_MIN_VOTES} votes, fewer than half of them yes), searches that found nothing (from the search report), and outdated and missing translations. \`lang\` keeps what concerns one language. Needs a credential with \`help:read\`.`,
      tag: 'Feedback',
      access: 'credential',
      query: 'AttentionQuery',
      errors: ['not_found', 'language_not_enabled', 'insufficient_scope'],
      responses: { 200: { description: 'What needs attention', schema: 'Attention' } },
      handle: async ({ actor, params, query }) => ({ body: await attentionOf(deps, actor, params.version, query) }),
    }),
  ];
}
