import { controlProblem } from '../domain/names.ts';
import { MAX_LISTED } from '../errors.ts';

/** A problem found in a content file, named by its path and, where known, its 1-based line. */
export interface ContentProblem {
  path: string;
  line?: number;
  message: string;
}

/** A line, or a way to find it that is run only when the problem is listed. */
export type LineRef = number | undefined | (() => number | undefined);

/**
 * Problems listed per kind; more are counted, not listed. Finding a problem's line scans the text,
 * so a file built to hold thousands of problems would otherwise cost time quadratic in its size.
 */
export { MAX_LISTED };

/** What a file reader says of text holding half a character, written by an escape: UTF-8 cannot store it, and the API refuses it. */
export const HALF_CHARACTER = 'holds a lone surrogate (an escape such as "\\ud800" that is no character)';

/** What is wrong with a title, summary or label a file holds, as the API would refuse it (a sentence part), or null. */
export const textProblem = (text: string): string | null => (text.isWellFormed() ? controlProblem(text) : HALF_CHARACTER);

/** Collects errors and warnings while reading a file set, so all of them are reported at once. */
export class ProblemList {
  readonly errors: ContentProblem[] = [];
  readonly warnings: ContentProblem[] = [];
  /** Problems found beyond the first MAX_LISTED of their kind. */
  omittedErrors = 0;
  omittedWarnings = 0;

  get hasErrors(): boolean {
    return this.errors.length > 0;
  }

  /** Every error found, listed or not. */
  get errorCount(): number {
    return this.errors.length + this.omittedErrors;
  }

  error(path: string, message: string, line?: LineRef): void {
    if (this.errors.length < MAX_LISTED) this.errors.push(problem(path, message, line));
    else this.omittedErrors++;
  }

  warn(path: string, message: string, line?: LineRef): void {
    if (this.warnings.length < MAX_LISTED) this.warnings.push(problem(path, message, line));
    else this.omittedWarnings++;
  }

  /** Takes over another list's problems, their paths prefixed (a folder's problems as the whole set's). */
  adopt(other: ProblemList, prefix: string): void {
    for (const p of other.errors) this.error(prefix + p.path, p.message, p.line);
    for (const p of other.warnings) this.warn(prefix + p.path, p.message, p.line);
    this.omittedErrors += other.omittedErrors;
    this.omittedWarnings += other.omittedWarnings;
  }

  /** The counts of problems not listed, for an answer: empty when every problem is listed. */
  omitted(): { omittedErrors?: number; omittedWarnings?: number } {
    return {
      ...(this.omittedErrors > 0 ? { omittedErrors: this.omittedErrors } : {}),
      ...(this.omittedWarnings > 0 ? { omittedWarnings: this.omittedWarnings } : {}),
    };
  }
}

function problem(path: string, message: string, ref: LineRef): ContentProblem {
  const line = typeof ref === 'function' ? ref() : ref;
  return line === undefined ? { path, message } : { path, line, message };
}

/** The 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The line where `needle` first occurs, if it does. */
export function lineOf(text: string, needle: string): number | undefined {
  const at = text.indexOf(needle);
  return at < 0 ? undefined : lineAt(text, at);
}

/** The line of the second appearance of `needle` in `text` (a repeat's), else of the first. */
export function lineOfRepeat(text: string, needle: string): number | undefined {
  const first = text.indexOf(needle);
  const second = first < 0 ? -1 : text.indexOf(needle, first + needle.length);
  return second < 0 ? lineOf(text, needle) : lineAt(text, second);
}
