import { createTwoFilesPatch } from 'diff';
import { translationPath } from '../content/file-set.ts';
import { parseMarkdownFile, renderMarkdownFile } from '../content/markdown-file.ts';
import { ProblemList } from '../content/problems.ts';
import { isOutdated, revisionOf } from '../content/translation-base.ts';
import { assertLanguageEnabled } from '../domain/translations.ts';
import { documentOrder } from '../domain/tree.ts';
import { primaryLanguage, type Translation, type VersionState } from '../domain/types.ts';
import { blobText } from '../storage/blob-text.ts';
import { catFileObjects, GitUnavailableError } from '../storage/cat-file.ts';
import type { Repository } from '../storage/repository.ts';

/** A node the language has no translation of. */
export interface MissingTranslation {
  slug: string;
  kind: 'section' | 'topic';
  /** The primary-language title, to say which page it is. */
  primaryTitle: string;
}

/** A translation the primary-language text has changed under since it was last written. */
export interface OutdatedTranslation {
  slug: string;
  kind: 'section' | 'topic';
  title: string;
  primaryTitle: string;
  /** The translation's stamp: when it was last written. */
  updatedAt: string;
  /** The primary translation's stamp, later. */
  primaryUpdatedAt: string;
  /** The primary text's revision the translation was brought in line with. */
  basedOn: string;
  /** The primary text's revision now. */
  primaryRevision: string;
}

export interface LanguageStatus {
  language: string;
  /** Nodes with a translation in the language. */
  translated: number;
  /** Translations that record no base (written by hand, or before bases were kept): their state is not known until they are next written. */
  untracked: number;
  missing: MissingTranslation[];
  outdated: OutdatedTranslation[];
}

export interface TranslationStatus {
  version: string;
  primaryLanguage: string;
  /** Each language other than the primary one (or the one asked for), in the version's order. */
  languages: LanguageStatus[];
}

/**
 * What each language of a version lacks and what lags behind its primary text, from the state in
 * memory (no git read): a translation is outdated when the primary's revision is no longer its base
 * (translation-base.ts). `language`, when given, must be enabled on the version; the primary
 * language is the reference, so asked for itself it has nothing missing or outdated.
 */
export function translationStatus(state: VersionState, language?: string): TranslationStatus {
  const primary = primaryLanguage(state.meta);
  if (language !== undefined) assertLanguageEnabled(state, language, 'query/lang');
  const languages = language !== undefined ? [language] : state.meta.languages.filter((l) => l !== primary);
  const order = documentOrder(state);
  return {
    version: state.slug,
    primaryLanguage: primary,
    languages: languages.map((lang) => languageStatus(state, order, primary, lang)),
  };
}

function languageStatus(state: VersionState, order: readonly string[], primary: string, language: string): LanguageStatus {
  const out: LanguageStatus = { language, translated: 0, untracked: 0, missing: [], outdated: [] };
  for (const slug of order) {
    const byLanguage = state.translations.get(slug);
    const source = byLanguage?.get(primary);
    const kind = state.nodes.get(slug)!.kind;
    const t = byLanguage?.get(language);
    if (t === undefined) {
      out.missing.push({ slug, kind, primaryTitle: source?.title ?? slug });
      continue;
    }
    out.translated++;
    if (language === primary || source === undefined) continue;
    if (t.basedOn === undefined) out.untracked++;
    else if (isOutdated(state, slug, language, t)) {
      out.outdated.push({ slug, kind, title: t.title, primaryTitle: source.title, updatedAt: t.updatedAt, primaryUpdatedAt: source.updatedAt, basedOn: t.basedOn, primaryRevision: revisionOf(source) });
    }
  }
  return out;
}

/** Characters of diff text one answer carries at most, all languages together; the diffs past it are left out and say so. */
export const DIFF_BUDGET = 200_000;
/** Milliseconds one diff may take: two long texts that share little cost jsdiff quadratic time. */
const DIFF_MS = 500;

export interface OutdatedWithDiff extends OutdatedTranslation {
  /** The primary text's changes since the base, as a unified diff of its file (front matter and body); null when it could not be given. */
  diff: string | null;
  /** Why `diff` is null. */
  diffOmitted?: 'budget' | 'base_not_stored' | 'too_complex' | 'git_unavailable';
}

export interface TranslationStatusWithDiffs extends Omit<TranslationStatus, 'languages'> {
  languages: Array<Omit<LanguageStatus, 'outdated'> & { outdated: OutdatedWithDiff[] }>;
}

/**
 * translationStatus() with each outdated item's diff: the primary's file at the base (one object
 * read by its id, all of them in one `git cat-file` run) against the primary's file now, both as
 * the service writes them without their `basedOn` line. The diffs together stay within `budget`
 * characters.
 */
export async function withDiffs(state: VersionState, status: TranslationStatus, repo: Repository, budget = DIFF_BUDGET): Promise<TranslationStatusWithDiffs> {
  const bases = [...new Set(status.languages.flatMap((l) => l.outdated.map((o) => o.basedOn)))];
  const texts = await baseTexts(repo, bases);
  let left = budget;
  const primary = status.primaryLanguage;
  const languages = status.languages.map((l) => ({
    ...l,
    outdated: l.outdated.map((o): OutdatedWithDiff => {
      if (texts === null) return { ...o, diff: null, diffOmitted: 'git_unavailable' };
      const before = texts.get(o.basedOn);
      if (before === undefined) return { ...o, diff: null, diffOmitted: 'base_not_stored' };
      if (left <= 0) return { ...o, diff: null, diffOmitted: 'budget' };
      const now = plainFile(state.translations.get(o.slug)!.get(primary)!);
      const path = `${state.slug}/${translationPath(primary, o.slug)}`;
      const diff = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, now, o.basedOn.slice(0, 12), o.primaryRevision.slice(0, 12), { context: 3, timeout: DIFF_MS });
      if (diff === undefined) return { ...o, diff: null, diffOmitted: 'too_complex' };
      if (diff.length > left) {
        left = 0;
        return { ...o, diff: null, diffOmitted: 'budget' };
      }
      left -= diff.length;
      return { ...o, diff };
    }),
  }));
  return { ...status, languages };
}

/** A primary text's file as written, without its base: what a translator compares. */
const plainFile = (t: Translation) => renderMarkdownFile({ title: t.title, summary: t.summary, bodyMd: t.bodyMd, updatedAt: t.updatedAt });

/**
 * The primary texts at the given revisions (blob ids), as plainFile() writes them; a revision the
 * repository does not hold (its text came from elsewhere: an export of another service, content
 * files) is left out. Null when git cannot be run.
 */
async function baseTexts(repo: Repository, oids: readonly string[]): Promise<Map<string, string> | null> {
  const out = new Map<string, string>();
  if (oids.length === 0) return out;
  try {
    await repo.reading(() =>
      catFileObjects(
        repo.gitdir,
        oids,
        (i, type, bytes) => {
          if (type !== 'blob') return;
          const md = parseMarkdownFile('base.md', blobText(bytes).text, new ProblemList());
          if (md !== null) out.set(oids[i], plainFile({ ...md, updatedAt: '' }));
        },
        () => undefined,
      ),
    );
  } catch (err) {
    // Without git the status is still answered, without its diffs.
    if (err instanceof GitUnavailableError) return null;
    throw err;
  }
  return out;
}

/** A translation to write or bring in line, as the attention report lists it. */
export interface TranslationGap {
  slug: string;
  language: string;
  state: 'outdated' | 'missing';
  /** Outdated ones: the primary text's stamp. */
  primaryUpdatedAt?: string;
}

/** translationStatus() as one list (outdated first, then missing; each in document order), without diffs. */
export function translationGaps(state: VersionState, language?: string): TranslationGap[] {
  const status = translationStatus(state, language);
  const outdated = status.languages.flatMap((l) => l.outdated.map((o): TranslationGap => ({ slug: o.slug, language: l.language, state: 'outdated', primaryUpdatedAt: o.primaryUpdatedAt })));
  const missing = status.languages.flatMap((l) => l.missing.map((m): TranslationGap => ({ slug: m.slug, language: l.language, state: 'missing' })));
  return [...outdated, ...missing];
}
