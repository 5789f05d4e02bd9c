import { documentOrder } from '../domain/tree.ts';
import type { VersionState } from '../domain/types.ts';
import { drainInSlices } from '../slices.ts';
import { translationPath } from './file-set.ts';
import { brokenMessage, checkBody, frontMatterLines, UNCHECKED_MESSAGE, type BrokenReason } from './link-check.ts';
import type { LinkScope } from './link-rules.ts';
import type { ProblemList } from './problems.ts';

/** A broken link of a version, at its file and line as a content repository has them. */
export interface BrokenLink {
  /** `{lang}/{slug}.md` in the version's folder. */
  path: string;
  /** The line in that file, front matter counted, from 1. */
  line: number;
  link: string;
  target: string;
  anchor?: string;
  language?: string;
  reason: BrokenReason;
  /** What a writer is told. */
  message: string;
}

export interface VersionLinks {
  broken: BrokenLink[];
  /** Internal links read. */
  checked: number;
  /** Files whose bodies were too long for all their links to be read. */
  unchecked: string[];
}

/** Translations checked between the points where a check may pause. */
const STEP = 64;

/**
 * Checks every body of the version, in document order and the version's language order, pausing
 * (yielding) every STEP translations. `fileText` gives a file as sent, where its front matter may take
 * other lines than the service would write.
 */
export function* versionLinkSteps(state: VersionState, scope: LinkScope, fileText?: (path: string) => string | undefined): Generator<void, VersionLinks> {
  const out: VersionLinks = { broken: [], checked: 0, unchecked: [] };
  let n = 0;
  for (const slug of documentOrder(state)) {
    const byLanguage = state.translations.get(slug);
    if (!byLanguage) continue;
    for (const language of state.meta.languages) {
      const t = byLanguage.get(language);
      if (!t) continue;
      const path = translationPath(language, slug);
      const body = checkBody(state, slug, language, t, scope);
      out.checked += body.checked;
      if (!body.complete) out.unchecked.push(path);
      if (body.broken.length > 0) {
        const offset = frontMatterLines(t, fileText?.(path));
        for (const b of body.broken) out.broken.push({ path, ...b, line: offset + b.line + 1, message: brokenMessage(state, language, b) });
      }
      if (++n % STEP === 0) yield;
    }
  }
  return out;
}

/** versionLinkSteps() in one piece. */
export function checkVersionLinks(state: VersionState, scope: LinkScope, fileText?: (path: string) => string | undefined): VersionLinks {
  const steps = versionLinkSteps(state, scope, fileText);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** versionLinkSteps(), letting other work run every `sliceMs` milliseconds. */
export async function checkVersionLinksInSlices(state: VersionState, scope: LinkScope, sliceMs: number): Promise<VersionLinks> {
  return drainInSlices(versionLinkSteps(state, scope), sliceMs);
}

/** Reports a version's broken links as warnings of a content check (import-files, publish requests, the push script). */
export function warnBrokenLinks(state: VersionState, scope: LinkScope, files: ReadonlyMap<string, string>, problems: ProblemList): void {
  const { broken, unchecked } = checkVersionLinks(state, scope, (path) => files.get(path));
  // First: a body's thousand broken links would otherwise leave this past the listed warnings.
  for (const path of unchecked) problems.warn(path, UNCHECKED_MESSAGE);
  for (const b of broken) problems.warn(b.path, b.message, b.line);
}

/** A warning in the answer to a write: a broken link in what was written, at its file and line. */
export interface LinkWarning {
  code: 'broken_link' | 'links_not_checked';
  path: string;
  line?: number;
  link?: string;
  message: string;
}

/** Warnings listed per write at most; the rest are counted in one more. */
const MAX_WARNINGS = 100;

/** The warnings of a write that stored these translations (slug, language): their broken links, as they now stand in the version. */
export function writtenLinkWarnings(state: VersionState, written: Iterable<readonly [string, string]>, scope: LinkScope): LinkWarning[] {
  const out: LinkWarning[] = [];
  let more = 0;
  for (const [slug, language] of written) {
    const t = state.translations.get(slug)?.get(language);
    if (!t) continue;
    const path = translationPath(language, slug);
    const body = checkBody(state, slug, language, t, scope);
    const offset = body.broken.length > 0 ? frontMatterLines(t) : 0;
    for (const b of body.broken) {
      if (out.length < MAX_WARNINGS) out.push({ code: 'broken_link', path, line: offset + b.line + 1, link: b.link, message: brokenMessage(state, language, b) });
      else more++;
    }
    if (!body.complete) out.push({ code: 'links_not_checked', path, message: UNCHECKED_MESSAGE });
  }
  if (more > 0) out.push({ code: 'broken_link', path: out[0].path, message: `${more} more broken link(s) not listed here; GET /versions/${state.slug}/links lists every one` });
  return out;
}
