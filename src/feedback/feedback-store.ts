import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { fsyncDir, readTextIfExists, writeFileDurable } from '../storage/durable-fs.ts';

/** Where a piece of feedback came from: the portal's form, the API, or an agent through the tool server. */
export type FeedbackSource = 'portal' | 'api' | 'agent';

/** One reader's answer to "Was this helpful?" about one page. Nothing about the reader is kept. */
export interface FeedbackEntry {
  /** Its place in the order of arrival (a whole number, as text): the cursor of the listing. */
  id: string;
  at: string;
  version: string;
  slug: string;
  /** The language the page was read in, when known. */
  language: string | null;
  helpful: boolean;
  comment: string | null;
  source: FeedbackSource;
}

export type NewFeedback = Omit<FeedbackEntry, 'id' | 'at'>;

/** Counts attempts per key in windows; answers the seconds to wait, 0 when the attempt may go ahead (oauth/rate-limit.ts). */
export interface Limiter {
  take(key: string): number;
}

/** A topic's feedback in short. */
export interface TopicSummary {
  version: string;
  slug: string;
  yes: number;
  no: number;
  /** yes / (yes + no). */
  ratio: number;
  comments: number;
  lastAt: string;
}

export interface FeedbackFilter {
  version?: string;
  slug?: string;
  /** Entries at or after this time (ISO 8601). */
  since?: string;
}

/** A compaction keeps this share of the limit, so that it does not run again at the next append. */
const KEEP_SHARE = 0.75;

/**
 * Reader feedback, in `feedback.jsonl` in the data directory (never in the content repository: it is
 * no content, and a comment must not become history that every clone carries). Each entry is one
 * line appended and flushed to disk (fsync) before the reader is thanked. The file is bounded: when
 * it grows past `maxBytes` it is rewritten (atomically: temp file, fsync, rename) with the newest
 * entries that fill three quarters of it, so the oldest go first. The entries are held in memory as
 * well, loaded at start; a line cut short by a crash during an append is dropped then.
 */
export class FeedbackStore {
  readonly path: string;
  private readonly tempDir: string;
  private entries: FeedbackEntry[] = [];
  private bytes = 0;
  private nextId = 1;
  private writing: Promise<void> = Promise.resolve();
  /** Whether the file exists: the first append makes it, and its folder must be flushed too. */
  private onDisk = false;

  constructor(
    dataDir: string,
    private readonly maxBytes: number,
    private readonly limiter: Limiter,
    private readonly now: () => string,
    private readonly warn: (message: string, data: Record<string, unknown>) => void = () => undefined,
  ) {
    this.path = join(dataDir, 'feedback.jsonl');
    this.tempDir = join(dataDir, 'feedback.tmp');
    this.load();
  }

  /**
   * The seconds `address` must wait before its feedback is taken (0: it may send it now, and it is
   * counted). Every interface asks before it checks what was sent, so a flood of bad requests is limited too.
   */
  admit(address: string): number {
    return this.limiter.take(address);
  }

  /** Records a piece of feedback; resolves once it is on disk. */
  async add(given: NewFeedback): Promise<FeedbackEntry> {
    const entry: FeedbackEntry = { id: String(this.nextId++), at: this.now(), ...given };
    const line = `${JSON.stringify(entry)}\n`;
    this.entries.push(entry);
    this.bytes += Buffer.byteLength(line);
    const compact = this.bytes > this.maxBytes;
    if (compact) this.dropOldest();
    const text = compact ? this.entries.map((e) => `${JSON.stringify(e)}\n`).join('') : null;
    const done = this.writing.then(() => (text === null ? this.append(line) : this.rewrite(text)));
    this.writing = done.catch(() => undefined);
    await done;
    return entry;
  }

  /** Entries matching `filter`, newest first. */
  *matching(filter: FeedbackFilter): Generator<FeedbackEntry> {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i];
      if (filter.since !== undefined && e.at < filter.since) break;
      if (filter.version !== undefined && e.version !== filter.version) continue;
      if (filter.slug !== undefined && e.slug !== filter.slug) continue;
      yield e;
    }
  }

  /** One page of the entries matching `filter`, newest first, after the entry `after` (an id) when given. */
  page(filter: FeedbackFilter, limit: number, after?: number): { entries: FeedbackEntry[]; next: string | null } {
    const entries: FeedbackEntry[] = [];
    for (const e of this.matching(filter)) {
      if (after !== undefined && Number(e.id) >= after) continue;
      if (entries.length === limit) return { entries, next: entries[entries.length - 1].id };
      entries.push(e);
    }
    return { entries, next: null };
  }

  /** Per topic: votes each way, the share of yes, the comments; the topics with the most votes first. */
  summary(filter: FeedbackFilter): TopicSummary[] {
    const byTopic = new Map<string, TopicSummary>();
    for (const e of this.matching(filter)) {
      const key = `${e.version}\n${e.slug}`;
      let s = byTopic.get(key);
      if (s === undefined) {
        s = { version: e.version, slug: e.slug, yes: 0, no: 0, ratio: 0, comments: 0, lastAt: e.at };
        byTopic.set(key, s);
      }
      if (e.helpful) s.yes++;
      else s.no++;
      if (e.comment !== null) s.comments++;
    }
    const out = [...byTopic.values()];
    for (const s of out) s.ratio = Math.round((s.yes / (s.yes + s.no)) * 1000) / 1000;
    return out.sort((a, b) => b.yes + b.no - (a.yes + a.no) || a.ratio - b.ratio || a.slug.localeCompare(b.slug));
  }

  /** Resolves when every write asked for so far is on disk (or failed). */
  settled(): Promise<void> {
    return this.writing;
  }

  private dropOldest(): void {
    const keep = this.maxBytes * KEEP_SHARE;
    let bytes = 0;
    let from = this.entries.length;
    while (from > 0) {
      const size = Buffer.byteLength(JSON.stringify(this.entries[from - 1])) + 1;
      if (bytes + size > keep) break;
      bytes += size;
      from--;
    }
    // The newest entry stays even when it alone is past the share.
    if (from === this.entries.length) from--;
    this.entries = this.entries.slice(from);
    this.bytes = bytes;
  }

  private async append(line: string): Promise<void> {
    await appendDurable(this.path, line);
    if (!this.onDisk) {
      await fsyncDir(dirname(this.path));
      this.onDisk = true;
    }
  }

  private async rewrite(text: string): Promise<void> {
    await fs.promises.mkdir(this.tempDir, { recursive: true });
    await writeFileDurable(this.tempDir, this.path, text);
    this.onDisk = true;
  }

  private load(): void {
    let text = readTextIfExists(this.path);
    if (text === null) return;
    this.onDisk = true;
    // A crash during an append can leave the last line cut short: it is dropped, and the file cut
    // back to the last whole line, or the next append would be glued to it.
    const end = text.lastIndexOf('\n') + 1;
    if (end < text.length) {
      this.warn('feedback.jsonl ended in a line cut short (a stop during a write?); that line is dropped', { path: this.path, bytes: text.length - end });
      fs.truncateSync(this.path, Buffer.byteLength(text.slice(0, end)));
      text = text.slice(0, end);
    }
    let skipped = 0;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const entry = parseEntry(line);
      if (entry === null) {
        skipped++;
        continue;
      }
      this.entries.push(entry);
      this.bytes += Buffer.byteLength(line) + 1;
      this.nextId = Math.max(this.nextId, Number(entry.id) + 1);
    }
    if (skipped > 0) this.warn('feedback.jsonl holds lines that are no feedback entry; they are left out', { path: this.path, lines: skipped });
  }
}

/** Appends a line and flushes it to disk before resolving. */
async function appendDurable(path: string, line: string): Promise<void> {
  const handle = await fs.promises.open(path, 'a', 0o600);
  try {
    await handle.writeFile(line);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

const SOURCES: readonly string[] = ['portal', 'api', 'agent'];

function parseEntry(line: string): FeedbackEntry | null {
  let e: Partial<FeedbackEntry>;
  try {
    e = JSON.parse(line) as Partial<FeedbackEntry>;
  } catch {
    return null;
  }
  const ok =
    typeof e === 'object' && e !== null && typeof e.id === 'string' && /^\d{1,15}$/.test(e.id) && typeof e.at === 'string' && typeof e.version === 'string' && typeof e.slug === 'string' &&
    (e.language === null || typeof e.language === 'string') && typeof e.helpful === 'boolean' && (e.comment === null || typeof e.comment === 'string') && SOURCES.includes(e.source as string);
  return ok ? { id: e.id!, at: e.at!, version: e.version!, slug: e.slug!, language: e.language!, helpful: e.helpful!, comment: e.comment!, source: e.source! } : null;
}
