import type { Precondition } from '../domain/preconditions.ts';
import { deleteTranslation as removeTranslation, putTranslation as setTranslation, type TranslationInput } from '../domain/translations.ts';
import type { Author, Writer } from '../store/writer.ts';

/** Creates or replaces one translation: one Markdown file, one commit. */
export async function putTranslation(writer: Writer, author: Author, version: string, slug: string, language: string, input: TranslationInput, pre: Precondition | null) {
  return (await writeTranslation(writer, author, version, slug, language, input, pre)).translation;
}

/** putTranslation(), answering the version as written too (for what the answer says about it, such as its broken links). */
export function writeTranslation(writer: Writer, author: Author, version: string, slug: string, language: string, input: TranslationInput, pre: Precondition | null) {
  return writer.write(version, author, (ctx) => {
    const { state, translation, created } = setTranslation(ctx.read(version), slug, language, input, pre, ctx.now);
    return {
      changes: [{ slug: version, after: state }],
      message: `${created ? 'Add' : 'Update'} translation ${language}/${slug} in ${version}`,
      result: { translation: { slug, language, ...translation, created }, state },
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
