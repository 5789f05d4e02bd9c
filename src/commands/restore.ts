import { createNode } from '../domain/nodes.ts';
import { assertUnchanged, type Precondition } from '../domain/preconditions.ts';
import { assertLanguageEnabled, nodeUpdatedAt, withTranslations } from '../domain/translations.ts';
import type { NodeRec, Translation, TranslationsOf, VersionState } from '../domain/types.ts';
import { AppError } from '../errors.ts';
import { nodeIdOf, readAtRevision, type HistorySources } from '../queries/history.ts';
import type { Reader } from '../queries/reader.ts';
import type { Author, Writer } from '../store/writer.ts';

export interface RestoreInput {
  revision: string;
  language?: string;
}

const sameText = (a: Translation | undefined, b: Translation) => a !== undefined && a.title === b.title && a.summary === b.summary && a.bodyMd === b.bodyMd && a.basedOn === b.basedOn;

/**
 * Writes a node's text as it was at a revision back, as one new commit: its translation in one
 * language, or every translation it had then. A node deleted since comes back with its id, its
 * translations and its place (under the parent it had, which must still exist). Equal text writes
 * nothing (no commit).
 */
export async function restoreNode(sources: HistorySources & { writer: Writer }, author: Author, reader: Reader, version: string, slug: string, input: RestoreInput, pre: Precondition | null) {
  // 404 for a node that neither exists nor ever did, before anything is read from git.
  nodeIdOf(sources, reader, version, slug);
  const past = await readAtRevision(sources, reader, version, slug, input.revision);
  const node = past.state.nodes.get(past.slug)!;
  const then = past.state.translations.get(past.slug) ?? new Map<string, Translation>();
  if (input.language !== undefined && !then.has(input.language)) {
    throw new AppError('not_in_revision', `Node "${past.slug}" had no ${input.language} translation at revision ${past.revision.slice(0, 7)}`, { resource: 'translation', version, slug: past.slug, language: input.language, revision: past.revision });
  }
  const short = past.revision.slice(0, 7);
  const result = await sources.writer.write(version, author, (ctx) => {
    const state = ctx.read(version);
    const current = [...state.nodes.values()].find((n) => n.id === node.id);
    if (current === undefined) {
      const next = recreate(state, node, past.state, then, ctx.now);
      return { changes: [{ slug: version, after: next }], message: `Restore deleted node ${node.slug} in ${version} to ${short}`, result: { slug: node.slug, languages: [...then.keys()], recreated: true } };
    }
    assertUnchanged(`Node "${current.slug}"`, nodeUpdatedAt(state, current.slug), pre);
    const languages = input.language !== undefined ? [input.language] : [...then.keys()];
    const byLanguage = new Map(state.translations.get(current.slug) ?? []);
    const written: string[] = [];
    for (const language of languages) {
      const text = then.get(language)!;
      assertLanguageEnabled(state, language, input.language !== undefined ? 'body/language' : 'body/revision');
      if (sameText(byLanguage.get(language), text)) continue;
      // The text as it was then, with the primary revision it was based on then.
      byLanguage.set(language, { title: text.title, summary: text.summary, bodyMd: text.bodyMd, updatedAt: ctx.now, ...(text.basedOn !== undefined ? { basedOn: text.basedOn } : {}) });
      written.push(language);
    }
    const what = input.language !== undefined ? `${input.language}/${current.slug}` : current.slug;
    return {
      changes: written.length === 0 ? [] : [{ slug: version, after: withTranslations(state, current.slug, byLanguage) }],
      message: `Restore ${what} in ${version} to ${short}`,
      result: { slug: current.slug, languages: written, recreated: false },
    };
  });
  const changed = result.recreated || result.languages.length > 0;
  const entries = sources.history.nodeEntries(version, node.id);
  const newest = entries.at(-1);
  return {
    version,
    id: node.id,
    slug: result.slug,
    restoredFrom: past.revision,
    recreated: result.recreated,
    languages: result.languages,
    revision: changed && newest ? sources.history.commit(newest.commit).revision : null,
  };
}

/** A deleted node again, as it was at the revision: its id, kind, icon, place and every translation it had. */
function recreate(state: VersionState, node: NodeRec, then: VersionState, translations: TranslationsOf, now: string): VersionState {
  let parentSlug: string | null = null;
  if (node.parentSlug !== null) {
    const parentId = then.nodes.get(node.parentSlug)?.id;
    const parent = [...state.nodes.values()].find((n) => n.id === parentId);
    if (parent === undefined) {
      throw new AppError('restore_parent_missing', `Node "${node.slug}" was under "${node.parentSlug}" at that revision, which no longer exists: restore "${node.parentSlug}" first`, { parentSlug: node.parentSlug });
    }
    parentSlug = parent.slug;
  }
  const input = {
    slug: node.slug,
    kind: node.kind,
    parentSlug,
    icon: node.icon,
    sortOrder: node.sortOrder,
    translations: Object.fromEntries([...translations].map(([language, t]) => [language, { title: t.title, summary: t.summary, bodyMd: t.bodyMd }])),
  };
  return createNode(state, input, now, node.id);
}
