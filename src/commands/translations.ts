import type { Precondition } from '../domain/preconditions.ts';
import { deleteTranslation as removeTranslation, putTranslation as setTranslation, type TranslationInput } from '../domain/translations.ts';
import type { Author, Writer } from '../store/writer.ts';
import { alignBases } from '../content/translation-base.ts';

/**
 * Creates or replaces one translation: one Markdown file, one commit. `minorEdit`: a change of the
 * primary text that outdates none of its translations (translation-base.ts).
 */
export async function putTranslation(writer: Writer, author: Author, version: string, slug: string, language: string, input: TranslationInput, pre: Precondition | null, minorEdit = false) {
  return (await writeTranslation(writer, author, version, slug, language, input, pre, minorEdit)).translation;
}

/** putTranslation(), answering the version as written too (for what the answer says about it, such as its broken links). */
export function writeTranslation(writer: Writer, author: Author, version: string, slug: string, language: string, input: TranslationInput, pre: Precondition | null, minorEdit = false) {
  return writer.write(version, author, (ctx) => {
    const before = ctx.read(version);
    const written = setTranslation(before, slug, language, input, pre, ctx.now);
    // Aligned here rather than only by the writer, so the answer (its link warnings' lines) is the file as stored.
    const bases = { minor: minorEdit ? new Set([slug]) : undefined };
    // written.state is this write's own: its map is aligned in place, not copied a second time.
    const state = alignBases(before, written.state, { ...bases, fresh: true });
    const { translation, created } = written;
    return {
      changes: [{ slug: version, after: state }],
      message: `${created ? 'Add' : 'Update'} translation ${language}/${slug} in ${version}`,
      result: { translation: { slug, language, ...translation, created }, state },
      bases,
    };
  });
}

/** Deletes one translation (never the primary language's); answers the languages left. */
export function deleteTranslation(writer: Writer, author: Author, version: string, slug: string, language: string, pre: Precondition | null): Promise<string[]> {
  return writer.write(version, author, (ctx) => {
    const { state, remainingLanguages } = removeTranslation(ctx.read(version), slug, language, pre);
    return { changes: [{ slug: version, after: state }], message: `Delete translation ${language}/${slug} in ${version}`, result: remainingLanguages };
  });
}
