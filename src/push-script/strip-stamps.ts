import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMarkdownFile } from '../content/markdown-file.ts';
import { ProblemList } from '../content/problems.ts';
import { notUtf8, notUtf8Problem } from '../storage/blob-text.ts';
import type { Problem } from './output.ts';

/**
 * Removes the stamps older versions of the service wrote into content files (`updatedAt` in front
 * matter and in version.json's nav entries, `createdAt` and `updatedAt` of version.json). The
 * service keeps its stamps apart now, and still reads files that carry them; this makes a working
 * copy's files what the service writes today, so the diffs of later edits show only what changed.
 * Only the lines of the stamps go: every other byte of a file is left as it was written.
 */

/** Top-level front matter keys that are stamps. */
const FRONT_MATTER_STAMP = /^(updatedAt|'updatedAt'|"updatedAt")[ \t]*:/;

/** `{lang}/{slug}.md` without its front matter stamp, or null when it has none (or no front matter to hold one). */
export function stripMarkdownStamps(text: string): string | null {
  const bom = text.startsWith('\ufeff') ? 1 : 0;
  const firstEnd = text.indexOf('\n', bom);
  if (firstEnd < 0 || text.slice(bom, firstEnd).replace(/\r$/, '').trimEnd() !== '---') return null;
  // The front matter ends at the first line that starts with "---", as the service reads it.
  const close = text.indexOf('\n---', firstEnd);
  if (close < 0) return null;
  const lines = text.slice(firstEnd + 1, close + 1).split(/(?<=\n)/);
  const kept: string[] = [];
  let dropping = false;
  for (const line of lines) {
    // A value that goes on over more lines (a block scalar) goes with its key: those lines are indented.
    if (dropping && /^[ \t]/.test(line)) continue;
    dropping = FRONT_MATTER_STAMP.test(line);
    if (!dropping) kept.push(line);
  }
  if (kept.length === lines.length) return null;
  return text.slice(0, firstEnd + 1) + kept.join('') + text.slice(close + 1);
}

/** A member of a JSON object, by offsets into the text: its key's opening quote and its value's end. */
interface Member {
  key: string;
  start: number;
  valueStart: number;
  valueEnd: number;
}

class JsonScan {
  /** Spans [from, to) to remove. */
  readonly cuts: Array<[number, number]> = [];
  private i = 0;

  constructor(private readonly text: string) {}

  /** Reads the whole document; throws on text that is not JSON. */
  document(): void {
    if (this.text.charCodeAt(0) === 0xfeff) this.i = 1;
    this.value('root');
    this.space();
    if (this.i !== this.text.length) throw new Error('text after the JSON value');
  }

  private space(): void {
    while (this.i < this.text.length && ' \t\r\n'.includes(this.text[this.i])) this.i++;
  }

  /** Reads a value; `role` says which objects hold stamps: the document itself, and nav entries. */
  private value(role: 'root' | 'nav' | 'entry' | 'children' | 'other'): void {
    this.space();
    const c = this.text[this.i];
    if (c === '{') this.object(role);
    else if (c === '[') this.array(role === 'nav' || role === 'children' ? 'entry' : 'other');
    else if (c === '"') this.string();
    else {
      const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(this.text.slice(this.i, this.i + 400));
      if (m === null) throw new Error(`unexpected ${c === undefined ? 'end' : JSON.stringify(c)}`);
      this.i += m[0].length;
    }
  }

  private string(): string {
    const start = this.i;
    this.i++;
    while (this.i < this.text.length && this.text[this.i] !== '"') this.i += this.text[this.i] === '\\' ? 2 : 1;
    if (this.i >= this.text.length) throw new Error('a string is never closed');
    this.i++;
    return JSON.parse(this.text.slice(start, this.i)) as string;
  }

  private array(role: 'entry' | 'other'): void {
    this.i++;
    this.space();
    if (this.text[this.i] === ']') {
      this.i++;
      return;
    }
    for (;;) {
      this.value(role);
      this.space();
      const c = this.text[this.i++];
      if (c === ']') return;
      if (c !== ',') throw new Error('expected "," or "]"');
    }
  }

  private object(role: 'root' | 'nav' | 'entry' | 'children' | 'other'): void {
    const open = this.i++;
    const members: Member[] = [];
    this.space();
    if (this.text[this.i] === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.space();
      const start = this.i;
      if (this.text[this.i] !== '"') throw new Error('expected a key');
      const key = this.string();
      this.space();
      if (this.text[this.i++] !== ':') throw new Error('expected ":"');
      this.space();
      const valueStart = this.i;
      const inner = role === 'root' && key === 'nav' ? 'nav' : role === 'entry' && key === 'children' ? 'children' : 'other';
      this.value(inner);
      members.push({ key, start, valueStart, valueEnd: this.i });
      this.space();
      const c = this.text[this.i++];
      if (c === '}') break;
      if (c !== ',') throw new Error('expected "," or "}"');
    }
    const stamp = (m: Member) => (role === 'root' && (m.key === 'createdAt' || m.key === 'updatedAt')) || (role === 'entry' && m.key === 'updatedAt');
    this.cutMembers(open, members, stamp);
  }

  /**
   * A member followed by a kept one goes from its key to the next key (its comma, and the line break
   * and indent the next key then takes over); trailing ones go from the end of the last kept value.
   */
  private cutMembers(open: number, members: Member[], stamp: (m: Member) => boolean): void {
    let tail = members.length;
    while (tail > 0 && stamp(members[tail - 1])) tail--;
    for (let k = 0; k < tail; k++) if (stamp(members[k])) this.cuts.push([members[k].start, members[k + 1].start]);
    if (tail < members.length) this.cuts.push([tail > 0 ? members[tail - 1].valueEnd : open + 1, members[members.length - 1].valueEnd]);
  }
}

/** version.json without its stamps, or null when it has none; throws when it is not JSON (left to the service's check to explain). */
export function stripVersionFileStamps(text: string): string | null {
  const scan = new JsonScan(text);
  scan.document();
  if (scan.cuts.length === 0) return null;
  let out = text;
  for (const [from, to] of [...scan.cuts].sort((a, b) => b[0] - a[0])) out = out.slice(0, from) + out.slice(to);
  return out;
}

export interface StripResult {
  /** Version folders found, as given below the folder searched. */
  versions: string[];
  /** Files that carried stamps (removed unless a dry run), paths joined to the folder searched. */
  changed: string[];
  /** Files that could not be read as their format, left as they were. */
  problems: Problem[];
}

/**
 * Strips the stamps of every version folder at or below `dir` (a folder holding version.json; hidden
 * folders are passed over, as the push script passes them over): its version.json and its
 * `{lang}/{slug}.md` files. With `dryRun`, only says which files carry stamps.
 */
export function stripStamps(dir: string, dryRun: boolean): StripResult {
  const result: StripResult = { versions: [], changed: [], problems: [] };
  const visit = (folder: string) => {
    if (statSync(join(folder, 'version.json'), { throwIfNoEntry: false })?.isFile()) {
      result.versions.push(folder);
      stripVersion(folder, dryRun, result);
      return;
    }
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) visit(join(folder, entry.name));
    }
  };
  visit(dir);
  return result;
}

function stripVersion(folder: string, dryRun: boolean, result: StripResult): void {
  const apply = (path: string, strip: (text: string) => string | null) => {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (err) {
      result.problems.push({ path, message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); left as it is` });
      return;
    }
    // Read as UTF-8 and written back, its other bytes would become U+FFFD.
    const bad = notUtf8(bytes);
    if (bad !== null) {
      result.problems.push({ path, line: bad.line, message: `${notUtf8Problem(bad)}; left as it is` });
      return;
    }
    let stripped: string | null;
    try {
      stripped = strip(bytes.toString('utf8'));
    } catch (err) {
      const why = path.endsWith('.json') ? `not read as JSON (${(err as Error).message})` : (err as Error).message;
      result.problems.push({ path, message: `${why}; left as it is` });
      return;
    }
    if (stripped === null) return;
    result.changed.push(path);
    if (!dryRun) writeFileSync(path, stripped);
  };
  apply(join(folder, 'version.json'), stripVersionFileStamps);
  const markdown = (path: string) => (text: string) => {
    const stripped = stripMarkdownStamps(text);
    if (stripped === null) return null;
    const changed = changedField(path, text, stripped);
    if (changed === 'title' || changed === 'summary') throw new Error(`removing its stamp would change its ${changed}: a YAML block ("|+") that ends in blank lines loses one when it ends the front matter. Write the ${changed} in double quotes ("…\\n\\n") and run again`);
    if (changed !== null) throw new Error(`removing its stamp would change its ${changed} as the service reads it`);
    return stripped;
  };
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const languageDir = join(folder, entry.name);
    for (const file of readdirSync(languageDir, { withFileTypes: true })) {
      if (file.isFile() && file.name.endsWith('.md')) apply(join(languageDir, file.name), markdown(join(languageDir, file.name)));
    }
  }
}

/**
 * What the service would read differently in the stripped file (`title`, `summary` or `body`), or null.
 * Checked with the service's own reader, so a file is never rewritten to say something else.
 */
function changedField(path: string, before: string, after: string): string | null {
  const a = parseMarkdownFile(path, before, new ProblemList());
  const b = parseMarkdownFile(path, after, new ProblemList());
  if (a === null) return null;
  if (b === null) return 'front matter';
  if (a.title !== b.title) return 'title';
  if (a.summary !== b.summary) return 'summary';
  return a.bodyMd === b.bodyMd ? null : 'body';
}
