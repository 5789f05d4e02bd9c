import { UNKNOWN_KEY } from '../auth/key-file.ts';
import type { OperationExamples } from './examples.ts';
import { STAMPS } from './story.ts';

/** The examples of the feedback operations (merged into EXAMPLES; see examples.ts for the rules). */

const REQUEST_ID = '7d2c9e41-5a8b-4f30-b6e2-00000000002a';
const error = (code: string, message: string, details: Record<string, unknown> = {}) => ({ error: { code, message, ...details, requestId: REQUEST_ID } });

const NO_VERSION = { unknownVersion: { summary: 'An unknown version', sent: { path: { version: 'v9' } }, value: error('not_found', 'No version "v9"', { resource: 'version', version: 'v9' }) } };
const UNAUTHORIZED = { revoked: { summary: 'A revoked key', sent: { as: 'revoked key' as const }, value: error('unauthorized', UNKNOWN_KEY) } };
const ANONYMOUS = {
  anonymous: { summary: 'Without a credential', sent: { as: 'anonymous' as const }, value: error('unauthorized', 'This endpoint needs a credential: send "Authorization: Bearer <key or access token>"') },
};

const VOTE = { helpful: false, comment: 'The steps do not say where to find the invitation email.', language: 'de' };

export const FEEDBACK_EXAMPLES: Record<string, OperationExamples> = {
  submitFeedback: {
    parameters: { version: 'v2', slug: 'create-account' },
    requests: {
      notHelpful: { summary: 'A reader found the page unhelpful, and says why', value: VOTE },
      unknownLanguage: { summary: 'A language the version does not have', value: { helpful: true, language: 'fr' } },
    },
    responses: {
      200: {
        recorded: {
          summary: 'The feedback as recorded',
          value: { id: '1', at: STAMPS.now, version: 'v2', slug: 'create-account', language: 'de', helpful: false, comment: VOTE.comment, source: 'api' },
        },
      },
      400: {
        unknownLanguage: {
          summary: 'A language the version does not have',
          sent: { body: 'unknownLanguage' },
          value: error('language_not_enabled', 'Language fr is not enabled on version "v2" (languages: en, de)', { field: 'body/language', language: 'fr', languages: ['en', 'de'] }),
        },
      },
      404: NO_VERSION,
    },
  },
  listFeedback: {
    responses: {
      200: { none: { summary: 'No feedback yet', sent: { query: { version: 'v2' } }, value: { entries: [], summary: [], nextCursor: null } } },
      401: UNAUTHORIZED,
    },
  },
  getSearchReport: {
    parameters: { version: 'v2' },
    responses: {
      200: {
        none: {
          summary: 'Nothing searched yet',
          sent: { query: { lang: 'de' } },
          value: { version: 'v2', language: 'de', enabled: true, since: null, searches: 0, distinctQueries: 0, top: [], noResults: [], notOpened: [] },
        },
      },
      401: ANONYMOUS,
      404: NO_VERSION,
    },
  },
  getAttention: {
    parameters: { version: 'v2' },
    responses: {
      200: {
        nothing: {
          summary: 'Nothing in English needs attention',
          sent: { query: { lang: 'en' } },
          value: {
            version: 'v2',
            language: 'en',
            counts: { brokenLinks: 0, unhelpfulPages: 0, failedSearches: 0, outdatedTranslations: 0, missingTranslations: 0 },
            brokenLinks: [],
            unhelpfulPages: [],
            failedSearches: [],
            outdatedTranslations: [],
            missingTranslations: [],
          },
        },
      },
      401: ANONYMOUS,
      404: NO_VERSION,
    },
  },
};
