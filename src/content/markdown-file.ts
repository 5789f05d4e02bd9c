import yaml from 'js-yaml';
import type { Translation } from '../domain/types.ts';
import { fileStamp } from '../domain/stamps.ts';
import { readFrontMatter, simpleFrontMatter } from './front-matter.ts';
import { lineAt, textProblem, type ProblemList } from './problems.ts';

/** Frontmatter keys of `{lang}/{slug}.md`; anything else is kept out of the model and reported as a warning. */
const KNOWN_KEYS = new Set(['title', 'summary', 'updatedAt', 'basedOn', 'minor']);
export const TITLE_MAX = 200;
/** A summary at most, in characters: the API's limit (src/schemas/common.ts), and a file's. */
export const SUMMARY_MAX = 2000;

/**
 * js-yaml's default schema without its implicit timestamps: those are made with Date.UTC, which moves
 * `2026-13-45` into 2027 without a word. Dates stay text, and readStamp checks them.
 */
const { merge, binary, omap, pairs, set } = (yaml as unknown as { types: Record<string, yaml.Type> }).types; // not in @types/js-yaml
const SCHEMA = yaml.CORE_SCHEMA.extend({ implicit: [merge], explicit: [binary, omap, pairs, set] });

/**
 * The file is split as gray-matter 4 splits it (readFrontMatter, which does it in linear time), and
 * js-yaml 4 reads and writes the YAML. (gray-matter's bundled js-yaml 3 writes emoji and other astral
 * characters as `\U` escapes, which writers should not have to read.) Front matter of the common shape
 * is read without either (simpleFrontMatter), with the same result.
 *
 * gray-matter's split picks a parser from the text after the opening `---` (where gray-matter's own
 * `---js` engine runs the front matter through `eval`), so `parseMarkdownFile` refuses any opening
 * line other than a bare `---` before the split. Every other engine name gray-matter knows is given
 * one that refuses, so no path reaches an evaluating parser, and the refusal names the language.
 * js-yaml 4 has no JavaScript types (`!!js/function` is an unknown tag and fails), and aliases are
 * shared references, never copies, so a "billion laughs" file costs what its text costs.
 */
const refuse = (language: string) => () => {
  throw new FrontMatterLanguageError(language);
};
const engines = {
  yaml: { parse: (text: string) => yaml.load(text, { schema: SCHEMA }) },
  javascript: { parse: refuse('javascript') },
  json: { parse: refuse('json') },
  coffee: { parse: refuse('coffee') },
  toml: { parse: refuse('toml') },
};

class FrontMatterLanguageError extends Error {
  constructor(readonly language: string) {
    super(`front matter in "${language}" is not read`);
  }
}

/**
 * The opening line of front matter must be exactly `---` (trailing spaces allowed). Returns the
 * problem with any other line that starts with `---` (`---js`, `---toml`, `--- json`), or null.
 * A line of four or more dashes is a Markdown rule, not front matter, and is left to the title check.
 */
function openingProblem(text: string): string | null {
  if (!text.startsWith('---') || text.charAt(3) === '-') return null;
  const end = text.indexOf('\n');
  const line = (end < 0 ? text : text.slice(0, end)).replace(/\r$/, '');
  const language = line.slice(3).trim();
  if (language === '') return null;
  const shown = language.length > 40 ? `${language.slice(0, 40)}…` : language;
  return `front matter must open with a line of exactly "---" (YAML); "---${shown}" asks for another language, and only YAML front matter is read`;
}

/**
 * Writes a translation as Markdown with YAML frontmatter. The body follows the closing `---` byte
 * for byte, so `bodyMd` survives a round trip exactly (gray-matter's own stringify adds a newline).
 * The stamp stays out (the service keeps it in `.stamps/`, see stamps-file.ts); `stamped` writes it
 * as files did before, for digests that must stay comparable with ones recorded then.
 */
export function renderMarkdownFile(t: Translation, stamped = false): string {
  const data: Record<string, string> = { title: t.title };
  if (t.summary !== '') data.summary = t.summary;
  if (stamped) data.updatedAt = t.updatedAt;
  // Quoted, as a blob id may start with a digit (or read as a number): the common shape then reads it without YAML.
  const base = t.basedOn === undefined ? '' : `basedOn: "${t.basedOn}"\n`;
  const keys = Object.keys(data);
  const last = keys[keys.length - 1];
  // A last value that ends in a line break would be dumped as a block scalar kept to its end (`|+`),
  // and the front matter's closing "\n---" takes that block's final line break: quoted, it stays.
  if (!data[last].endsWith('\n')) return `---\n${yaml.dump(data, { lineWidth: -1 })}${base}---\n${t.bodyMd}`;
  const head = keys.length > 1 ? yaml.dump(Object.fromEntries(keys.slice(0, -1).map((k) => [k, data[k]])), { lineWidth: -1 }) : '';
  return `---\n${head}${yaml.dump({ [last]: data[last] }, { lineWidth: -1, forceQuotes: true, quotingType: '"' })}${base}---\n${t.bodyMd}`;
}

export interface ParsedMarkdown {
  title: string;
  summary: string;
  bodyMd: string;
  updatedAt: string | null;
  /** `basedOn`: the primary text's revision this translation was brought in line with (translation-base.ts). */
  basedOn?: string;
  /** `minor: true`: the writer says this change of a primary text outdates no translation. Never stored. */
  minor?: true;
}

/** Reads `{lang}/{slug}.md`; reports problems with their line and returns null when the file is unusable. */
export function parseMarkdownFile(path: string, text: string, problems: ProblemList): ParsedMarkdown | null {
  // Front matter of the common shape opens with a bare `---`, so its opening needs no check.
  const simple = simpleFrontMatter(text);
  const parsed = simple ?? fullFrontMatter(path, text, problems);
  if (parsed === null) return null;
  // The common shape holds no comments; others may cut a title short without a word (`title: FAQ #1`).
  if (simple === null) commentProblems(path, text, problems);
  const mapping = parsed.data ?? {};
  if (typeof mapping !== 'object' || Array.isArray(mapping)) {
    problems.error(path, 'frontmatter must be a YAML mapping', 2);
    return null;
  }
  const data = mapping as Record<string, unknown>;
  for (const key of Object.keys(data)) {
    if (!KNOWN_KEYS.has(key)) problems.warn(path, `unknown frontmatter key "${key}" is ignored`, () => frontmatterLine(text, key));
  }
  const title = data.title;
  if (title === undefined || title === null || (typeof title === 'string' && title.trim() === '')) {
    if (!opensFrontMatter(text)) problems.error(path, 'the file has no front matter: it must start with a line "---", then "title: …" and any other keys, then a line "---" before the body', 1);
    else problems.error(path, 'frontmatter "title" is required (1 to 200 characters)', () => frontmatterLine(text, 'title') ?? 1);
    return null;
  }
  // A number, a list or a mapping (`title: 12`, `title: [a, b]`) is there, but is no text: quoting it makes it one.
  if (typeof title !== 'string') {
    problems.error(path, `frontmatter "title" must be text, not ${yamlKind(title)} (put it in quotes to keep it as written)`, () => frontmatterLine(text, 'title'));
    return null;
  }
  // Counted in characters (code points), as the API's schema counts them.
  if ([...title].length > TITLE_MAX) {
    problems.error(path, `frontmatter "title" must be at most ${TITLE_MAX} characters`, () => frontmatterLine(text, 'title'));
    return null;
  }
  const summary = data.summary ?? '';
  if (typeof summary !== 'string') {
    problems.error(path, `frontmatter "summary" must be text, not ${yamlKind(summary)} (put it in quotes to keep it as written)`, () => frontmatterLine(text, 'summary'));
    return null;
  }
  if ([...summary].length > SUMMARY_MAX) {
    problems.error(path, `frontmatter "summary" must be at most ${SUMMARY_MAX} characters`, () => frontmatterLine(text, 'summary'));
    return null;
  }
  // YAML's escapes can write half a character, or any control character.
  for (const [key, value] of [['title', title], ['summary', summary]] as const) {
    const problem = textProblem(value);
    if (problem === null) continue;
    problems.error(path, `frontmatter "${key}" ${problem}`, () => frontmatterLine(text, key));
    return null;
  }
  closingLineProblem(path, text, problems);
  return { title, summary, bodyMd: parsed.content, updatedAt: readStamp(path, data.updatedAt, text, problems), ...(readMinor(path, data.minor, text, problems) ? { minor: true as const } : {}), ...readBase(path, data.basedOn, text, problems) };
}

/** A title or summary written plain with " #" in it: YAML reads the rest of the line as a comment. */
function commentProblems(path: string, text: string, problems: ProblemList): void {
  const close = closingAt(text);
  const lines = text.slice(0, close < 0 ? Math.min(text.length, 4096) : close).split('\n');
  lines.forEach((line, i) => {
    const m = /^(title|summary):[ \t]+([^'"\s[{|>].*?) #(.*)$/.exec(line.replace(/\r$/, ''));
    if (m) problems.warn(path, `frontmatter "${m[1]}": " #" starts a YAML comment, so it is read as "${m[2].trim().slice(0, 60)}"; put it in quotes to keep "#${m[3].slice(0, 40)}": ${m[1]}: "…"`, i + 1);
  });
}

/** Whether `text` starts with the `---` that opens front matter (a byte order mark before it is read past; `----` is a Markdown rule). */
const opensFrontMatter = (text: string) => /^\ufeff?---(?!-)/.test(text);

/** Where the line that closes front matter begins, less one (gray-matter's rule: the first "\n---"), or -1. */
const closingAt = (text: string) => text.indexOf('\n---', 3);

/** The front matter closes at the first line that starts with "---"; one that goes on (`----`) gives the rest of it to the body. */
function closingLineProblem(path: string, text: string, problems: ProblemList): void {
  const close = opensFrontMatter(text) ? closingAt(text) : -1;
  if (close < 0) return;
  let end = text.indexOf('\n', close + 1);
  if (end < 0) end = text.length;
  const line = text.slice(close + 1, end).replace(/\r$/, '');
  if (line.trimEnd() === '---') return;
  const shown = line.length > 40 ? `${line.slice(0, 40)}…` : line;
  problems.warn(path, `the front matter closes at "${shown}": the line should be "---" alone, and what follows the "---" is now the start of the body`, () => lineAt(text, close + 1));
}

/** What a YAML value that is not text is, as a writer would call it. */
function yamlKind(value: unknown): string {
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'true or false';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'binary data';
  if (typeof value === 'object' && value !== null) return 'a mapping';
  return `a ${typeof value}`;
}

/** Front matter of any shape, through gray-matter's split and js-yaml; reports why it cannot be read and returns null. */
function fullFrontMatter(path: string, text: string, problems: ProblemList): { data: unknown; content: string } | null {
  const opening = openingProblem(text);
  if (opening !== null) {
    problems.error(path, opening, 1);
    return null;
  }
  // Never closed, the whole file would be read as front matter: its body lost, or a YAML error past its end.
  if (opensFrontMatter(text) && closingAt(text) < 0) {
    problems.error(path, 'the front matter opened on line 1 is never closed: add a line "---" after its last key, before the body', 1);
    return null;
  }
  try {
    return readFrontMatter(text, engines);
  } catch (err) {
    if (err instanceof FrontMatterLanguageError) {
      problems.error(path, `only YAML front matter is read, not ${err.language}`, 1);
      return null;
    }
    const mark = (err as { mark?: { line?: number } }).mark;
    const reason = (err as { reason?: string }).reason ?? (err as Error).message;
    // A title or summary that YAML reads as more than text (`title: Setup: fast`, `title: [Beta] Editor`) is the usual cause.
    const unquoted = /indentation|flow collection|end of the stream|implicit|mapping pair|alias/.test(reason);
    const key = unquoted && mark?.line !== undefined ? /^(title|summary):/.exec(text.split('\n', mark.line + 1)[mark.line] ?? '')?.[1] : undefined;
    const hint = key ? ` (a ${key} holding ": " or " #", or starting with [, {, ", ', &, *, !, |, >, % or @, must be put in quotes: ${key}: "…")` : '';
    problems.error(path, `invalid YAML frontmatter: ${reason}${hint}`, mark?.line !== undefined ? mark.line + 1 : undefined);
    return null;
  }
}

/** A revision as the service writes it: a git object id (40 hex digits). Anything else is a warning, and the translation's base is unknown. */
function readBase(path: string, value: unknown, text: string, problems: ProblemList): { basedOn?: string } {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string' && /^[0-9a-f]{40}$/.test(value)) return { basedOn: value };
  problems.warn(path, 'frontmatter "basedOn" is not a revision the service wrote (40 hexadecimal digits) and is ignored: the translation counts as brought in line when it is next written', () => frontmatterLine(text, 'basedOn'));
  return {};
}

function readMinor(path: string, value: unknown, text: string, problems: ProblemList): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (value === true) return true;
  problems.warn(path, `frontmatter "minor" must be true or false, not ${yamlKind(value)}, and is ignored`, () => frontmatterLine(text, 'minor'));
  return false;
}

function readStamp(path: string, value: unknown, text: string, problems: ProblemList): string | null {
  return fileStamp(
    value,
    (why) => problems.warn(path, `frontmatter "updatedAt" is not a timestamp and is ignored: ${why}`, () => frontmatterLine(text, 'updatedAt')),
    (v) => `it is ${yamlKind(v)}; write it as 2026-01-31 or 2026-01-31T12:00:00Z`,
  );
}

/** The line of `key:` in the frontmatter block; reads line by line up to the closing `---` only. */
function frontmatterLine(text: string, key: string): number | undefined {
  let start = text.indexOf('\n') + 1;
  for (let line = 2; start > 0 && start < text.length; line++) {
    const end = text.indexOf('\n', start);
    const content = text.slice(start, end < 0 ? text.length : end);
    if (content.trimEnd() === '---') return undefined;
    if (content.startsWith(`${key}:`)) return line;
    start = end + 1;
  }
  return undefined;
}
