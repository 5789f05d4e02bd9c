import type { Deps } from '../deps.ts';
import { assertLanguageEnabled } from '../domain/translations.ts';
import { readerOf, requireScope, type Actor } from '../http/actor.ts';
import { language } from '../http/languages.ts';
import { readableVersion } from '../queries/versions.ts';

/** The version a report is about, for a caller who may read drafts, and the language asked for (checked against it). */
export function reportVersion({ catalog }: Pick<Deps, 'catalog'>, actor: Actor | null, version: string, lang: string | undefined, field: string) {
  const reader = readerOf(requireScope(actor, 'help:read'));
  const state = readableVersion(catalog, reader, version);
  if (lang === undefined) return { state, lang: undefined };
  const canonical = language(lang, field);
  assertLanguageEnabled(state, canonical, field);
  return { state, lang: canonical };
}
