import { TEXT_PATTERN } from '../domain/names.ts';
import { pagedQuery, withHint } from './common.ts';

/** Schemas of reader feedback, the search report and the attention report (docs/feedback.md). */

/** Characters of a feedback comment at most. */
export const COMMENT_MAX = 1000;

export const FeedbackSubmit = {
  $id: 'FeedbackSubmit',
  type: 'object',
  required: ['helpful'],
  additionalProperties: false,
  properties: {
    helpful: { type: 'boolean', description: 'The answer to "Was this helpful?".' },
    comment: { type: 'string', maxLength: COMMENT_MAX, pattern: TEXT_PATTERN, description: 'What could be better, at most 1,000 characters, without control characters other than tabs and line breaks; empty or absent for none.' },
    language: { $ref: 'LanguageCode', description: 'The language the page was read in, one of the version\'s `languages`.' },
  },
} as const;

export const FeedbackEntry = {
  $id: 'FeedbackEntry',
  type: 'object',
  required: ['id', 'at', 'version', 'slug', 'language', 'helpful', 'comment', 'source'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^[0-9]+$', description: 'Its place in the order of arrival.' },
    at: { $ref: 'Timestamp' },
    version: { $ref: 'VersionSlug' },
    slug: { $ref: 'NodeSlug' },
    language: { type: ['string', 'null'], description: 'The language the page was read in; null when not said.' },
    helpful: { type: 'boolean' },
    comment: { type: ['string', 'null'] },
    source: { enum: ['portal', 'api', 'agent'], description: 'The portal\'s form, the API, or an agent through the tool server (`submit_feedback`).' },
  },
} as const;

export const FeedbackQuery = {
  $id: 'FeedbackQuery',
  type: 'object',
  properties: {
    version: { $ref: 'VersionSlug', description: 'Only feedback on this version.' },
    slug: { $ref: 'NodeSlug', description: 'Only feedback on this page (with `version`, or in every version).' },
    since: { type: 'string', format: 'date-time', description: 'Only feedback given at or after this time (ISO 8601, e.g. 2026-11-01T00:00:00Z).' },
    ...pagedQuery({
      max: 1000,
      limit: 'Entries per page, 1 to 1,000 (default 100).',
      cursor: { pattern: '^[0-9]{1,15}$', description: 'Where the page starts: the `nextCursor` of the page before.', hint: 'must be the nextCursor of a previous page' },
    }),
  },
} as const;

const TopicSummary = {
  type: 'object',
  required: ['version', 'slug', 'yes', 'no', 'ratio', 'comments', 'lastAt'],
  additionalProperties: false,
  properties: {
    version: { $ref: 'VersionSlug' },
    slug: { $ref: 'NodeSlug' },
    yes: { type: 'integer', minimum: 0 },
    no: { type: 'integer', minimum: 0 },
    ratio: { type: 'number', minimum: 0, maximum: 1, description: 'yes / (yes + no), to three decimals.' },
    comments: { type: 'integer', minimum: 0 },
    lastAt: { $ref: 'Timestamp' },
  },
} as const;

export const FeedbackList = {
  $id: 'FeedbackList',
  type: 'object',
  required: ['entries', 'summary', 'nextCursor'],
  additionalProperties: false,
  properties: {
    entries: { type: 'array', items: { $ref: 'FeedbackEntry' }, description: 'Newest first, one page.' },
    summary: { type: 'array', items: TopicSummary, description: 'Per page of help, over every entry the filter matches (not only this page): the topics with the most votes first.' },
    nextCursor: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last.' },
  },
} as const;

export const SearchReportQuery = {
  $id: 'SearchReportQuery',
  type: 'object',
  properties: {
    lang: { $ref: 'LanguageCode', description: 'Only searches in this language (default: every language of the version).' },
    limit: withHint({ type: 'string', pattern: '^(?:[1-9][0-9]?|100)$', description: 'Queries in each list, 1 to 100 (default 20).' } as const, 'must be a whole number from 1 to 100'),
  },
} as const;

const ReportedQuery = {
  type: 'object',
  required: ['query', 'language', 'count', 'results', 'opened', 'lastAt'],
  additionalProperties: false,
  properties: {
    query: { type: 'string', description: 'Normalised: lower case, white space collapsed, at most 100 characters.' },
    language: { $ref: 'LanguageCode' },
    count: { type: 'integer', minimum: 0, description: 'Searches of it.' },
    results: { type: ['integer', 'null'], minimum: 0, description: 'Topics the last search found; null when no answer was computed since counting began (answers served from a cache count, but say nothing new).' },
    opened: { type: 'integer', minimum: 0, description: 'Results opened from the portal\'s result list.' },
    lastAt: { $ref: 'Timestamp' },
  },
} as const;

export const SearchReport = {
  $id: 'SearchReport',
  type: 'object',
  required: ['version', 'language', 'enabled', 'since', 'searches', 'distinctQueries', 'top', 'noResults', 'notOpened'],
  additionalProperties: false,
  properties: {
    version: { $ref: 'VersionSlug' },
    language: { type: ['string', 'null'], description: 'The language asked for; null: every language.' },
    enabled: { type: 'boolean', description: 'False when searches are not counted (`HELP_SEARCH_REPORT=off`).' },
    since: { type: ['string', 'null'], format: 'date-time', description: 'When counting began (kept across restarts); null before the first search.' },
    searches: { type: 'integer', minimum: 0, description: 'Searches counted of the queries held.' },
    distinctQueries: { type: 'integer', minimum: 0 },
    top: { type: 'array', items: ReportedQuery, description: 'The most searched queries.' },
    noResults: { type: 'array', items: ReportedQuery, description: 'Queries whose last search found nothing, the most searched first.' },
    notOpened: { type: 'array', items: ReportedQuery, description: 'Queries that found something, of which no result was ever opened from the portal.' },
  },
} as const;

export const AttentionQuery = {
  $id: 'AttentionQuery',
  type: 'object',
  properties: {
    lang: { $ref: 'LanguageCode', description: 'Only what concerns this language (default: every language of the version).' },
  },
} as const;

/** Where a writer acts on an item: the page in the portal (null when the portal does not show the version) and the translation in the API. */
const where = {
  portal: { type: ['string', 'null'], description: 'The page in the portal (a path on this service); null when the portal does not show the version.' },
  api: { type: 'string', description: 'The translation to read and PUT, a path of this API.' },
} as const;

const Gap = {
  type: 'object',
  required: ['slug', 'language', 'portal', 'api'],
  properties: {
    slug: { $ref: 'NodeSlug' },
    language: { $ref: 'LanguageCode' },
    primaryUpdatedAt: { $ref: 'Timestamp', description: 'When the primary language\'s text changed (outdated translations).' },
    ...where,
  },
} as const;

export const Attention = {
  $id: 'Attention',
  type: 'object',
  required: ['version', 'language', 'counts', 'brokenLinks', 'unhelpfulPages', 'failedSearches', 'outdatedTranslations', 'missingTranslations'],
  additionalProperties: false,
  properties: {
    version: { $ref: 'VersionSlug' },
    language: { type: ['string', 'null'] },
    counts: {
      type: 'object',
      required: ['brokenLinks', 'unhelpfulPages', 'failedSearches', 'outdatedTranslations', 'missingTranslations'],
      additionalProperties: false,
      description: 'How many of each there are; each list shows the first 100.',
      properties: Object.fromEntries(['brokenLinks', 'unhelpfulPages', 'failedSearches', 'outdatedTranslations', 'missingTranslations'].map((k) => [k, { type: 'integer', minimum: 0 }])),
    },
    brokenLinks: {
      type: 'array',
      description: 'Links to pages, anchors or languages that do not exist (`GET /versions/{version}/links`), at their file and line.',
      items: {
        type: 'object',
        required: ['slug', 'language', 'path', 'line', 'link', 'reason', 'message', 'portal', 'api'],
        additionalProperties: false,
        properties: {
          slug: { $ref: 'NodeSlug' },
          language: { $ref: 'LanguageCode' },
          path: { type: 'string' },
          line: { type: 'integer', minimum: 1 },
          link: { type: 'string' },
          reason: { enum: ['missing_topic', 'missing_anchor', 'missing_language', 'moved'] },
          message: { type: 'string' },
          ...where,
        },
      },
    },
    unhelpfulPages: {
      type: 'array',
      description: 'Pages with at least 3 votes of which fewer than half found them helpful, the lowest share first.',
      items: {
        type: 'object',
        required: ['slug', 'yes', 'no', 'ratio', 'comments', 'portal', 'api', 'feedback'],
        additionalProperties: false,
        properties: {
          slug: { $ref: 'NodeSlug' },
          language: { $ref: 'LanguageCode', description: 'Present when `lang` was asked for.' },
          yes: { type: 'integer', minimum: 0 },
          no: { type: 'integer', minimum: 0 },
          ratio: { type: 'number', minimum: 0, maximum: 1 },
          comments: { type: 'integer', minimum: 0 },
          ...where,
          feedback: { type: 'string', description: 'Its feedback with the comments (`GET /feedback`), a path of this API.' },
        },
      },
    },
    failedSearches: {
      type: 'array',
      description: 'Queries whose last search found nothing, the most searched first: words readers use that the pages do not.',
      items: {
        type: 'object',
        required: ['query', 'language', 'count', 'lastAt', 'portal'],
        additionalProperties: false,
        properties: {
          query: { type: 'string' },
          language: { $ref: 'LanguageCode' },
          count: { type: 'integer', minimum: 1 },
          lastAt: { $ref: 'Timestamp' },
          portal: { type: ['string', 'null'], description: 'The search in the portal; null when the portal does not show the version.' },
        },
      },
    },
    outdatedTranslations: { type: 'array', items: Gap, description: 'Translations whose primary text changed since they were brought in line with it (`GET /versions/{version}/translation-status` gives the changes as a diff).' },
    missingTranslations: { type: 'array', items: Gap, description: 'Pages without a translation in a language of the version.' },
  },
} as const;

export const feedbackSchemas = [FeedbackSubmit, FeedbackEntry, FeedbackQuery, FeedbackList, SearchReportQuery, SearchReport, AttentionQuery, Attention];
