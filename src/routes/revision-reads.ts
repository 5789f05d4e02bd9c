import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { readerOf, type Actor } from '../http/actor.ts';
import { presentTopic, presentTranslation } from '../presenters/content.ts';
import { readAtRevision } from '../queries/history.ts';

/*
 * `?revision=` on the topic and translation reads: the same answers, from the version as it was at
 * that commit (read from git by object id), with the revision named in them.
 */

type Sources = Pick<Deps, 'catalog' | 'history' | 'revisions'>;

/** `GET /versions/{version}/topics/{slug}?revision=`: the topic as it was then (fallback rules as today's). */
export async function topicAtRevision(sources: Sources, actor: Actor | null, version: string, slug: string, language: string, revision: string) {
  await sources.history.settle();
  const past = await readAtRevision(sources, readerOf(actor), version, slug, revision);
  return { body: { ...presentTopic(past.state, past.slug, language), revision: past.revision } };
}

/** `GET /versions/{version}/topics/{slug}/translations/{lang}?revision=`: one translation as it was then, without fallback. */
export async function translationAtRevision(sources: Sources, actor: Actor | null, version: string, slug: string, language: string, revision: string) {
  await sources.history.settle();
  const past = await readAtRevision(sources, readerOf(actor), version, slug, revision);
  const translation = past.state.translations.get(past.slug)?.get(language);
  if (!translation) throw new AppError('not_in_revision', `Node "${past.slug}" had no ${language} translation at revision ${past.revision.slice(0, 7)}`, { resource: 'translation', version, slug: past.slug, language, revision: past.revision });
  return { body: { ...presentTranslation(past.state, past.slug, language, translation), revision: past.revision } };
}
