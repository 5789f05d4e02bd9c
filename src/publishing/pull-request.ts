import { translationPath } from '../content/file-set.ts';
import type { FilesSummary } from '../domain/import-files.ts';
import type { VersionState } from '../domain/types.ts';

export type LanguageChanges = Record<string, { created: string[]; updated: string[]; deleted: string[] }>;

/** Per language, which translations a publish creates, changes and deletes. */
export function describeChanges(before: VersionState | null, after: VersionState): LanguageChanges {
  const out: LanguageChanges = {};
  const entry = (language: string) => (out[language] ??= { created: [], updated: [], deleted: [] });
  for (const [slug, byLanguage] of after.translations) {
    for (const [language, t] of byLanguage) {
      const old = before?.translations.get(slug)?.get(language);
      if (!old) entry(language).created.push(slug);
      else if (old.title !== t.title || old.summary !== t.summary || old.bodyMd !== t.bodyMd) entry(language).updated.push(slug);
    }
  }
  for (const [slug, byLanguage] of before?.translations ?? []) {
    for (const language of byLanguage.keys()) if (!after.translations.get(slug)?.has(language)) entry(language).deleted.push(slug);
  }
  return out;
}

interface Prepared {
  source: VersionState;
  targetSlug: string;
  target: VersionState | null;
  folder: string;
  summary: FilesSummary & { languages: LanguageChanges };
}

/**
 * Text written by people (titles, labels, names) as GitHub shows it, whatever it holds: a code span,
 * on one line. A title is the writer's to choose, and the description is what reviewers read: in
 * plain Markdown, `<!--` hid every line after it (deletions included), and links, images and
 * @-mentions would render as the title's author wished. A code span renders none of them.
 */
export function literal(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  // A span's renderer drops one space at each end when both are there: added where the text would lose its own, or start or end with a backtick.
  const pad = flat.startsWith('`') || flat.endsWith('`') || (flat.startsWith(' ') && flat.endsWith(' ') && flat.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** The pull request's description: what the publish changes, per language, for the reviewer. */
export function pullRequestBody(p: Prepared, author: string): string {
  const title = (slug: string, language: string) => literal(p.source.translations.get(slug)?.get(language)?.title ?? p.target?.translations.get(slug)?.get(language)?.title ?? slug);
  const lines = [
    `Publishes ${literal(p.source.meta.label)} (\`${p.targetSlug}\`) from \`${p.source.slug}\`, requested by ${literal(author)} through the help content service.`,
    '',
    `Topics: ${p.summary.created} created, ${p.summary.updated} updated, ${p.summary.deleted} deleted, ${p.summary.unchanged} unchanged.`,
    '',
    '| language | created | updated | deleted |',
    '|---|---|---|---|',
  ];
  const languages = Object.keys(p.summary.languages);
  for (const l of languages) {
    const c = p.summary.languages[l];
    lines.push(`| ${l} | ${c.created.length} | ${c.updated.length} | ${c.deleted.length} |`);
  }
  for (const l of languages) {
    const c = p.summary.languages[l];
    lines.push('', `### ${l}`);
    for (const [word, slugs] of [['Created', c.created], ['Updated', c.updated], ['Deleted', c.deleted]] as const) {
      for (const slug of slugs) lines.push(`- ${word}: \`${p.folder}/${translationPath(l, slug)}\` — ${title(slug, l)}`);
    }
  }
  if (languages.length === 0) lines.push('', 'No translation changes (only the navigation or version fields).');
  lines.push('', 'After merge, the content repository\'s automation posts these files to the service (import-files with the publisher key).');
  return lines.join('\n');
}
