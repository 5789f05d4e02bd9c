import * as fs from 'node:fs';
import { join } from 'node:path';
import { drainInSlices } from '../slices.ts';
import type { Change, EntryFacts } from './history-changes.ts';

/*
 * The history index on disk: `history.jsonl` in the data directory, a header line and one line per
 * commit, appended as commits are made. Appending costs the same at the 10th commit as at the
 * 100,000th; a line lost to a crash (or a commit made while the service was stopped) is read back
 * from git log at the next start, so the file is not fsynced.
 *
 * Format 2: a version created as a copy of another (its nodes and files exactly those the other had
 * then) is one row naming that version and a fingerprint of what it copied, not a row per file; its
 * entries are derived again from the other's history when the file is read. A format 1 file (every
 * entry written out) is read as it is and written again in format 2.
 */

export const HISTORY_FILE = 'history.jsonl';
const FORMAT = 2;
/** Formats read as they are (their lines are format 2 lines without copies). */
const READABLE = [1, FORMAT];

/** What one commit did to one version; a copy's `entries` are those of `copyOf`'s nodes and files as they were. */
export interface VersionRecord {
  version: string;
  change: 'created' | 'updated' | 'deleted';
  entries: EntryFacts[];
  /** The version it was created as a copy of: in the file, instead of its entries. */
  copyOf?: string;
  /** The fingerprint of what it copied (see copyFingerprint), checked when its entries are derived again. */
  fingerprint?: string;
}

/** One commit as the index holds it: who, when, what for, and what it did to each version. */
export interface CommitRecord {
  revision: string;
  author: string;
  at: string;
  message: string;
  versions: VersionRecord[];
}

type Row = [string, string, string, string | null, (string | null)?, string?];
type Line = { r: string; a: string; t: string; m: string; v: Array<[string, string, Row[], string?, string?]> };

/** The line of a commit (entries as arrays: an import of 2,000 files is one line of about 200 KB, not 600). */
export function lineOf(c: CommitRecord): string {
  const line: Line = {
    r: c.revision,
    a: c.author,
    t: c.at,
    m: c.message,
    v: c.versions.map((v) => {
      if (v.copyOf !== undefined && v.fingerprint !== undefined) return [v.version, v.change, [], v.copyOf, v.fingerprint];
      return [v.version, v.change, v.entries.map((e) => {
        const row: Row = [e.id, e.change, e.slug, e.language];
        if (e.blob !== undefined || e.from !== undefined) row.push(e.blob ?? null);
        if (e.from !== undefined) row.push(e.from);
        return row;
      })];
    }),
  };
  return `${JSON.stringify(line)}\n`;
}

function recordOf(line: Line): CommitRecord {
  return {
    revision: line.r,
    author: line.a,
    at: line.t,
    message: line.m,
    versions: line.v.map(([version, change, rows, copyOf, fingerprint]) => ({
      version,
      change: change as VersionRecord['change'],
      entries: rows.map(([id, change, slug, language, blob, from]) => ({
        id,
        change: change as Change,
        slug,
        language,
        ...(language !== null ? { blob: blob ?? null } : {}),
        ...(from !== undefined ? { from } : {}),
      })),
      ...(copyOf !== undefined && fingerprint !== undefined ? { copyOf, fingerprint } : {}),
    })),
  };
}

/** Milliseconds of parsing between two turns of the event loop. */
const PARSE_SLICE_MS = 10;

/** The history file of a data directory. */
export class HistoryFile {
  readonly path: string;
  private fd: number | null = null;

  constructor(dataDir: string) {
    this.path = join(dataDir, HISTORY_FILE);
  }

  /**
   * The commits it holds, oldest first, or null when there is no file or it is not one this
   * service wrote (then it is rebuilt). A last line cut short by a crash is dropped. `older`: the
   * file is of an older format, to be written again.
   */
  async read(): Promise<{ commits: CommitRecord[]; older: boolean } | null> {
    let text: string;
    try {
      text = await fs.promises.readFile(this.path, 'utf8');
    } catch {
      return null;
    }
    // Tens of megabytes on a repository of many versions: parsed in slices, so requests go on meanwhile.
    return drainInSlices(this.parse(text), PARSE_SLICE_MS);
  }

  private *parse(text: string): Generator<void, { commits: CommitRecord[]; older: boolean } | null> {
    const lines = text.split('\n');
    let format: number | undefined;
    try {
      format = (JSON.parse(lines[0]) as { format?: number }).format;
    } catch {
      return null;
    }
    if (format === undefined || !READABLE.includes(format)) return null;
    const out: CommitRecord[] = [];
    let goodBytes = Buffer.byteLength(lines[0]) + 1;
    for (let i = 1; i < lines.length; i++) {
      if (lines[i] === '') continue;
      try {
        out.push(recordOf(JSON.parse(lines[i]) as Line));
        goodBytes += Buffer.byteLength(lines[i]) + 1;
      } catch {
        // A line cut short: what follows it cannot be trusted either; git log gives it back.
        fs.truncateSync(this.path, goodBytes);
        break;
      }
      yield;
    }
    return { commits: out, older: format !== FORMAT };
  }

  /** Starts the file anew with these commits (written beside it, then renamed over it). */
  rewrite(commits: readonly CommitRecord[]): void {
    this.closeFd();
    const temp = `${this.path}.tmp`;
    fs.writeFileSync(temp, `${JSON.stringify({ format: FORMAT })}\n${commits.map(lineOf).join('')}`);
    fs.renameSync(temp, this.path);
  }

  /** Adds commits at the end. */
  append(commits: readonly CommitRecord[]): void {
    if (commits.length === 0) return;
    this.fd ??= fs.openSync(this.path, 'a');
    fs.writeSync(this.fd, commits.map(lineOf).join(''));
  }

  close(): void {
    this.closeFd();
  }

  private closeFd(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
