/** A problem found in a content file, named by its path and, where known, its 1-based line. */
export interface ContentProblem {
  path: string;
  line?: number;
  message: string;
}

/** Collects errors and warnings while reading a file set, so all of them are reported at once. */
export class ProblemList {
  readonly errors: ContentProblem[] = [];
  readonly warnings: ContentProblem[] = [];

  error(path: string, message: string, line?: number): void {
    this.errors.push(line === undefined ? { path, message } : { path, line, message });
  }

  warn(path: string, message: string, line?: number): void {
    this.warnings.push(line === undefined ? { path, message } : { path, line, message });
  }
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
