import { ancestors } from '../domain/tree.ts';
import type { VersionState } from '../domain/types.ts';
import { pickTranslation } from '../domain/translations.ts';
import { fontsFor, type FontCatalog } from './fonts.ts';
import type { Selection } from './selection.ts';

const RTL_SCRIPTS = new Set(['Arab', 'Hebr', 'Thaa', 'Syrc']);

const languageName = (language: string) => {
  try {
    return new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language;
  } catch {
    return language;
  }
};

const fileSlug = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'help';

/**
 * Everything a browser needs to render the PDF without further calls: the entries in order with
 * their level and Markdown, the template (title page, running header and footer, table of contents),
 * the fonts (those of `available` the version's languages need, served by this service) and a file name.
 */
export function buildPdfBundle(state: VersionState, language: string, selection: Selection, fontBase: string, today: string, available: FontCatalog) {
  const entries = selection.entries.map(({ slug, heading }) => {
    const node = state.nodes.get(slug)!;
    const picked = pickTranslation(state, slug, language);
    return {
      slug,
      kind: node.kind,
      level: ancestors(state, slug).length + 1,
      heading,
      title: picked?.translation.title ?? slug,
      summary: heading ? '' : (picked?.translation.summary ?? ''),
      bodyMd: heading ? '' : (picked?.translation.bodyMd ?? ''),
      language: picked?.language ?? language,
      fallback: picked !== null && picked.language !== language,
    };
  });
  const { families, uncovered } = fontsFor(state.meta.languages, available);
  const fonts = families.flatMap((f) =>
    [...available.files.values()]
      .filter((file) => file.family === f.family)
      .map((file) => ({ family: file.family, weight: file.weight, style: file.style, format: 'truetype', url: `${fontBase}/${file.file}`, languages: f.languages })),
  );
  const label = state.meta.label;
  const chosen = entries.filter((e) => !e.heading && e.kind === 'topic');
  // Called after the one topic or section named (a section of one topic is still the section), else the one topic chosen.
  const single = entries.find((e) => e.slug === selection.named) ?? (selection.partial && chosen.length === 1 ? chosen[0] : undefined);
  const part = !selection.partial ? '' : single ? `-${single.slug}` : `-${chosen.length}-topics`;
  const script = new Intl.Locale(language).maximize().script ?? 'Latn';
  return {
    version: { slug: state.slug, label, status: state.meta.status, languages: state.meta.languages },
    language,
    template: {
      title: label,
      subtitle: single ? single.title : languageName(language),
      date: today,
      titlePage: true,
      tableOfContents: chosen.length > 1,
      header: label,
      footer: '{page} / {pages}',
      direction: RTL_SCRIPTS.has(script) ? 'rtl' : 'ltr',
      pageSize: 'A4',
      fontFamily: families.find((f) => f.languages.includes(language))?.family ?? 'Noto Sans',
      uncoveredLanguages: uncovered,
    },
    entries,
    fonts,
    filename: `${fileSlug(label)}-${state.slug}-${language}${part}.pdf`,
  };
}
