import { deleteTranslation, writeTranslation } from '../commands/translations.ts';
import { scopeOf } from '../content/link-rules.ts';
import { writtenLinkWarnings } from '../content/version-links.ts';
import type { TranslationInput } from '../domain/translations.ts';
import { endpoint } from '../http/api.ts';
import { longString } from '../http/encoded-json.ts';
import { language } from '../http/languages.ts';
import { readPrecondition } from '../http/preconditions.ts';
import { withWarnings } from '../presenters/links.ts';
import type { Deps } from '../deps.ts';

/** Replacing and deleting one translation: one Markdown file, one commit. */
export function translationRoutes({ writer, config }: Deps) {
  return [
    endpoint<TranslationInput & { expectedUpdatedAt?: string; minorEdit?: boolean }>({
      method: 'put',
      path: '/versions/:version/topics/:slug/translations/:lang',
      operationId: 'putTranslation',
      summary: 'Create or fully replace one translation',
      tag: 'Writing nodes and translations',
      access: 'write',
      body: 'TranslationPut',
      headers: ['If-Unmodified-Since'],
      errors: ['not_found', 'stale_write', 'language_not_enabled'],
      responses: { 200: { description: 'The stored translation', schema: 'TranslationPutResult' } },
      handle: async ({ ctx: http, actor, params, body: { expectedUpdatedAt, minorEdit, ...input } }) => {
        const lang = language(params.lang, 'path/lang');
        const pre = readPrecondition(http, expectedUpdatedAt);
        const { translation, state } = await writeTranslation(writer, actor!, params.version, params.slug, lang, input, pre, minorEdit === true);
        const warnings = writtenLinkWarnings(state, [[params.slug, lang]], scopeOf(state, config.portal.path));
        return { body: withWarnings({ translation: { ...translation, bodyMd: longString(translation.bodyMd) } }, warnings) };
      },
    }),
    endpoint({
      method: 'delete',
      path: '/versions/:version/topics/:slug/translations/:lang',
      operationId: 'deleteTranslation',
      summary: 'Delete one translation (not the primary language\'s)',
      tag: 'Writing nodes and translations',
      access: 'write',
      headers: ['If-Unmodified-Since'],
      errors: ['not_found', 'stale_write', 'primary_language_required'],
      responses: { 200: { description: 'Deleted; the languages left', schema: 'TranslationDeleteResult' } },
      handle: async ({ ctx: http, actor, params }) => {
        const lang = language(params.lang, 'path/lang');
        const pre = readPrecondition(http, undefined);
        const remainingLanguages = await deleteTranslation(writer, actor!, params.version, params.slug, lang, pre);
        return { body: { ok: true, remainingLanguages } };
      },
    }),
  ];
}
