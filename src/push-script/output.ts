/** A problem in a content file, as import-files and the offline check report it. */
export interface Problem {
  /** The file; absent for a problem with the request (the service's validation names a `field` instead). */
  path?: string;
  field?: string;
  line?: number;
  message: string;
}

// GitHub workflow commands: data escapes %, CR and LF; properties also escape : and ,.
const escapeData = (text: string) => String(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (text: string) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * What the script prints. Results (one line per version) go to stdout; progress, problems and
 * failures to stderr, problems as `path:line: message`. Inside GitHub Actions, problems, failures and
 * warnings are also workflow commands (`::error file=…,line=…::message`) on stdout, which GitHub shows
 * as annotations on the files and in the run's summary.
 */
export class Output {
  private readonly annotate: boolean;

  constructor(env: NodeJS.ProcessEnv, private readonly stdout: NodeJS.WritableStream = process.stdout, private readonly stderr: NodeJS.WritableStream = process.stderr) {
    this.annotate = env.GITHUB_ACTIONS === 'true';
  }

  /** A line on stderr: what is being done. */
  progress(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  /** A line on stdout: what was done. */
  result(text: string): void {
    this.stdout.write(`${text}\n`);
  }

  /** Problems in files, one line each. */
  problems(kind: 'error' | 'warning', problems: readonly Problem[] | undefined): void {
    for (const p of problems ?? []) {
      // A problem with the request rather than a file (a field of the service's validation) names no file.
      if (typeof p.path !== 'string') {
        this.failure(`${kind === 'warning' ? 'warning: ' : ''}${typeof p.field === 'string' ? `${p.field} ` : ''}${p.message}`);
        continue;
      }
      this.stderr.write(`${p.path}${p.line ? `:${p.line}` : ''}: ${kind === 'warning' ? 'warning: ' : ''}${p.message}\n`);
      if (this.annotate) this.stdout.write(`::${kind} file=${escapeProperty(p.path)}${p.line ? `,line=${p.line}` : ''}::${escapeData(p.message)}\n`);
    }
  }

  /** A failure not tied to a file; annotated only when asked (a failure whose problems are annotated already is not). */
  failure(text: string, annotate = true): void {
    this.stderr.write(`${text}\n`);
    if (this.annotate && annotate) this.stdout.write(`::error::${escapeData(text)}\n`);
  }

  /** Something that does not fail the run but needs a reader's attention. */
  warning(text: string): void {
    this.stderr.write(`warning: ${text}\n`);
    if (this.annotate) this.stdout.write(`::warning::${escapeData(text)}\n`);
  }
}
