import type { Deps } from '../deps.ts';
import { assertLanguageEnabled } from '../domain/translations.ts';
import { AppError, invalid } from '../errors.ts';
import type { FeedbackEntry, FeedbackSource } from '../feedback/feedback-store.ts';
import { readerOf, requireScope } from '../http/actor.ts';
import { endpoint } from '../http/api.ts';
import { language } from '../http/languages.ts';
import { readNode } from '../queries/content.ts';
import type { Reader } from '../queries/reader.ts';
import type { PageParams } from '../schemas/common.ts';

/** The body of POST /versions/{version}/topics/{slug}/feedback (FeedbackSubmit). */
export interface FeedbackBody {
  helpful: boolean;
  comment?: string;
  language?: string;
}

/** What a reader sends about a page, through any interface. */
export interface FeedbackInput {
  version: string;
  slug: string;
  helpful: boolean;
  comment?: string;
  language?: string;
}

/**
 * Counts a piece of feedback against its address's hourly allowance (HELP_FEEDBACK_PER_HOUR), before
 * anything it carries is looked at: 429 too_many_requests with Retry-After beyond it.
 */
export function admitFeedback({ feedback, config }: Pick<Deps, 'feedback' | 'config'>, address: string): void {
  const wait = feedback.admit(address);
  if (wait > 0) {
    throw new AppError('too_many_requests', `This address has sent ${config.feedback.perAddressPerHour} pieces of feedback within the hour; try again in ${wait} s`, {
      limit: 'HELP_FEEDBACK_PER_HOUR',
      max: config.feedback.perAddressPerHour,
      retryAfter: wait,
    });
  }
}

/**
 * Records feedback on a page the reader may see (a published one for the portal and anonymous
 * callers), in a language of its version; `field` prefixes the names of fields at fault. A comment
 * of white space only is none.
 */
export async function submitFeedback({ catalog, feedback }: Pick<Deps, 'catalog' | 'feedback'>, reader: Reader, input: FeedbackInput, source: FeedbackSource, field: string): Promise<FeedbackEntry> {
  const state = readNode(catalog, reader, input.version, input.slug);
  let lang: string | null = null;
  if (input.language !== undefined) {
    lang = language(input.language, `${field}/language`);
    assertLanguageEnabled(state, lang, `${field}/language`);
  }
  const comment = input.comment?.trim() ?? '';
  return feedback.add({ version: state.slug, slug: input.slug, language: lang, helpful: input.helpful, comment: comment === '' ? null : comment, source });
}

/** Entries per page of GET /feedback when the caller does not say. */
const DEFAULT_LIMIT = 100;

/** Feedback and what it is read with: for callers who may read drafts, as comments are for the writers. */
export function feedbackRoutes(deps: Deps) {
  return [
    endpoint<FeedbackBody>({
      method: 'post',
      path: '/versions/:version/topics/:slug/feedback',
      operationId: 'submitFeedback',
      summary: 'Say whether a page helped',
      description:
        'What the portal asks under each page ("Was this helpful?"), for programs: yes or no, and a comment of up to 1,000 characters. Anyone may send it about a page they may read; each client address may send `HELP_FEEDBACK_PER_HOUR` (30) pieces an hour, through the portal, the API and the tool server together (429 `too_many_requests` beyond, with `Retry-After`). Kept in the data directory, never in the content repository; nothing about the sender is kept.',
      tag: 'Feedback',
      access: 'public',
      body: 'FeedbackSubmit',
      bodyLimit: 16 * 1024,
      errors: ['not_found', 'language_not_enabled', 'too_many_requests'],
      responses: { 200: { description: 'The feedback as recorded', schema: 'FeedbackEntry' } },
      verify: (ctx) => admitFeedback(deps, ctx.ip),
      handle: async ({ actor, params, body }) => ({ body: await submitFeedback(deps, readerOf(actor), { version: params.version, slug: params.slug, ...body }, 'api', 'body') }),
    }),
    endpoint<unknown, PageParams & { version?: string; slug?: string; since?: string }>({
      method: 'get',
      path: '/feedback',
      operationId: 'listFeedback',
      summary: 'Reader feedback, with a summary per page',
      description:
        'The feedback readers gave (the portal\'s form, the API, agents through the tool server), newest first, a page at a time (`limit`, `cursor`), and per page of help the votes each way, the share of yes and the number of comments, over everything the filter matches. Needs a credential with `help:read`: comments are for the writers. The oldest entries are dropped once the file passes `HELP_FEEDBACK_MB`.',
      tag: 'Feedback',
      access: 'credential',
      query: 'FeedbackQuery',
      errors: ['insufficient_scope'],
      responses: { 200: { description: 'A page of feedback and the summary', schema: 'FeedbackList' } },
      handle: ({ actor, query }) => {
        requireScope(actor, 'help:read');
        return { body: listFeedback(deps, query) };
      },
    }),
  ];
}

/** A date-time as the stamps are written (UTC, milliseconds), for comparing with them; 400 for one no clock shows (a leap second). */
function instant(value: string, field: string): string {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw invalid(field, 'must be a date and time that exists, such as 2026-11-01T00:00:00Z');
  return new Date(ms).toISOString();
}

/** GET /feedback's answer (also the tool server's). */
export function listFeedback({ feedback }: Pick<Deps, 'feedback'>, query: PageParams & { version?: string; slug?: string; since?: string }) {
  const filter = { version: query.version, slug: query.slug, since: query.since === undefined ? undefined : instant(query.since, 'query/since') };
  const page = feedback.page(filter, query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit), query.cursor === undefined ? undefined : Number(query.cursor));
  return { entries: page.entries, summary: feedback.summary(filter), nextCursor: page.next };
}
