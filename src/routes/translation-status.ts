import { readerOf, requireScope } from '../http/actor.ts';
import { endpoint } from '../http/api.ts';
import { language } from '../http/languages.ts';
import { translationStatus, withDiffs } from '../queries/translation-status.ts';
import { readableVersion } from '../queries/versions.ts';
import type { Deps } from '../deps.ts';

/** What each language of a version lacks, and what lags behind its primary text. */
export function translationStatusRoutes({ catalog, repo }: Deps) {
  return [
    endpoint<unknown, { lang?: string }>({
      method: 'get',
      path: '/versions/:version/translation-status',
      operationId: 'getTranslationStatus',
      summary: 'Missing and outdated translations of a version, with the primary text\'s changes since',
      description:
        "Per language: the nodes without a translation, and the translations whose primary-language text changed since they were last written (a write marked `minorEdit`, or a file with `minor: true`, changes none). Each outdated one comes with the primary file's unified diff since the translation's base, read from the repository by its id; the diffs of one answer stay within 200,000 characters. A writer's worklist, with earlier texts of pages in it: it needs a credential with `help:read`, as the other reports do (search report, attention).",
      tag: 'Reading content',
      access: 'credential',
      query: 'TranslationStatusQuery',
      errors: ['not_found', 'language_not_enabled', 'insufficient_scope'],
      responses: { 200: { description: 'Each language with what is missing and what is outdated', schema: 'TranslationStatusReport' } },
      handle: async ({ actor, params, query }) => {
        const state = readableVersion(catalog, readerOf(requireScope(actor, 'help:read')), params.version);
        const lang = query.lang === undefined ? undefined : language(query.lang, 'query/lang');
        return { body: await withDiffs(state, translationStatus(state, lang), repo) };
      },
    }),
  ];
}
