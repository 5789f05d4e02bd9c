import * as fs from 'node:fs';
import { join } from 'node:path';
import { readTextIfExists, writeFileDurable } from '../storage/durable-fs.ts';
import type { Catalog } from '../store/catalog.ts';

/** Characters of a query the report keeps; longer ones are cut (a query is words, not a document). */
export const MAX_QUERY_CHARS = 100;

/**
 * A query as the report counts it: lower case, runs of white space as one space, trimmed, at most
 * MAX_QUERY_CHARS characters (never half a surrogate pair). Nothing else about the search is kept.
 */
export function normalizeQuery(q: string): string {
  const text = q.normalize('NFC').toLowerCase().replace(/\s+/gu, ' ').trim();
  if (text.length <= MAX_QUERY_CHARS) return text;
  let end = MAX_QUERY_CHARS;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end).trimEnd();
}

/** What the report knows of one query in one version and language. */
export interface QueryStat {
  count: number;
  /** How many topics the last search of it found; null before one was answered in full (a cached answer says nothing new). */
  results: number | null;
  /** Results opened from the portal's result list. */
  opened: number;
  lastAt: string;
}

export interface ReportedQuery extends QueryStat {
  query: string;
  language: string;
}

/** A version's report: its most searched queries, those that found nothing, those whose results nobody opened. */
export interface VersionReport {
  enabled: boolean;
  since: string | null;
  searches: number;
  distinctQueries: number;
  top: ReportedQuery[];
  noResults: ReportedQuery[];
  notOpened: ReportedQuery[];
}

interface SavedReport {
  since: string;
  tables: Record<string, Record<string, QueryStat>>;
}

/** How often the counts are written to disk while they change. */
const SAVE_EVERY_MS = 60_000;
/** When a table is full, this share of its rarest queries is forgotten at once (so that eviction is not paid at every new query). */
const EVICT_SHARE = 0.1;

/**
 * Searches counted per version and language, by normalised query: how often, how many results the
 * last answer had, and how often a result was opened. Bounded: each version and language keeps at
 * most `maxQueries` distinct queries; when a new one comes to a full table, the rarest tenth (the
 * least searched, the least recent among equals) is forgotten. The frequent queries, which the report
 * is about, stay. Written to `search-report.json` in the data directory every minute while it changes
 * and at stop, and read at start. Off (`HELP_SEARCH_REPORT=off`), nothing is counted or written.
 */
export class SearchReport {
  readonly path: string;
  private readonly tempDir: string;
  private readonly tables = new Map<string, Map<string, QueryStat>>();
  private since: string | null = null;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    dataDir: string,
    readonly enabled: boolean,
    private readonly maxQueries: number,
    private readonly now: () => string,
    private readonly warn: (message: string, data: Record<string, unknown>) => void = () => undefined,
  ) {
    this.path = join(dataDir, 'search-report.json');
    this.tempDir = join(dataDir, 'search-report.tmp');
    if (enabled) this.load();
  }

  /** Counts a search of `q` in a version and language; `results` when the answer was computed (not served from a cache). */
  count(version: string, language: string, q: string, results?: number): void {
    const stat = this.stat(version, language, q, true);
    if (stat === undefined) return;
    stat.count++;
    stat.lastAt = this.now();
    if (results !== undefined) stat.results = results;
  }

  /** Records how many topics a search found, without counting it (the count is made where every answer is seen). */
  results(version: string, language: string, q: string, results: number): void {
    const stat = this.stat(version, language, q, true);
    if (stat !== undefined) stat.results = results;
  }

  /** Records that a result of a counted query was opened; a query the report does not hold is not added. */
  opened(version: string, language: string, q: string): void {
    const stat = this.stat(version, language, q, false);
    if (stat !== undefined) stat.opened++;
  }

  /** The report of one version, in one language or all; `limit` queries in each list. */
  report(version: string, language: string | undefined, limit: number): VersionReport {
    const all: ReportedQuery[] = [];
    for (const [key, table] of this.tables) {
      const [v, l] = key.split('\n');
      if (v !== version || (language !== undefined && l !== language)) continue;
      // A query whose results were recorded but that was not counted (a later page of results) is no search of its own.
      for (const [query, stat] of table) if (stat.count > 0) all.push({ query, language: l, ...stat });
    }
    const byCount = (a: ReportedQuery, b: ReportedQuery) => b.count - a.count || b.lastAt.localeCompare(a.lastAt) || a.query.localeCompare(b.query);
    all.sort(byCount);
    return {
      enabled: this.enabled,
      since: this.since,
      searches: all.reduce((n, q) => n + q.count, 0),
      distinctQueries: all.length,
      top: all.slice(0, limit),
      noResults: all.filter((q) => q.results === 0).slice(0, limit),
      notOpened: all.filter((q) => q.results !== null && q.results > 0 && q.opened === 0).slice(0, limit),
    };
  }

  /** Forgets every count of a version, in every language; whether it held any. */
  forgetVersion(version: string): boolean {
    let forgot = false;
    for (const key of this.tables.keys()) {
      if (key.slice(0, key.indexOf('\n')) !== version) continue;
      this.tables.delete(key);
      forgot = true;
    }
    if (forgot) this.dirty = true;
    return forgot;
  }

  /**
   * Follows the catalog from now on (the writer's commits on a primary, the fetched ones on a
   * replica): a deleted version's counts go with it. Kept, they would fill the file with queries
   * nobody can act on, and a new version under the same slug would inherit its predecessor's report.
   */
  follow(catalog: Pick<Catalog, 'subscribe'>): void {
    catalog.subscribe((slug, state) => {
      if (state === null) this.forgetVersion(slug);
    });
  }

  /** Distinct queries held, over every version and language. */
  size(): number {
    let n = 0;
    for (const table of this.tables.values()) n += table.size;
    return n;
  }

  /** Starts writing the counts to disk every minute while they change. */
  start(): void {
    if (!this.enabled || this.timer !== null) return;
    this.timer = setInterval(() => void this.save().catch((err: unknown) => this.warn('the search report could not be written', { err, path: this.path })), SAVE_EVERY_MS);
    this.timer.unref();
  }

  /** Stops the timer and writes what changed. */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.save().catch((err: unknown) => this.warn('the search report could not be written', { err, path: this.path }));
  }

  /** Writes the counts durably when they changed since the last write. */
  save(): Promise<void> {
    if (!this.enabled || !this.dirty) return this.saving;
    this.dirty = false;
    const saved: SavedReport = { since: this.since ?? this.now(), tables: {} };
    for (const [key, table] of this.tables) saved.tables[key] = Object.fromEntries(table);
    const text = `${JSON.stringify(saved)}\n`;
    const done = this.saving.then(async () => {
      await fs.promises.mkdir(this.tempDir, { recursive: true });
      await writeFileDurable(this.tempDir, this.path, text);
    });
    this.saving = done.catch(() => {
      this.dirty = true;
    });
    return done;
  }

  private stat(version: string, language: string, q: string, create: boolean): QueryStat | undefined {
    if (!this.enabled) return undefined;
    const query = normalizeQuery(q);
    if (query === '') return undefined;
    const key = `${version}\n${language}`;
    let table = this.tables.get(key);
    if (table === undefined) {
      if (!create) return undefined;
      table = new Map();
      this.tables.set(key, table);
    }
    let stat = table.get(query);
    if (stat === undefined) {
      if (!create) return undefined;
      if (table.size >= this.maxQueries) evictRarest(table, Math.max(1, Math.ceil(this.maxQueries * EVICT_SHARE)));
      stat = { count: 0, results: null, opened: 0, lastAt: this.now() };
      table.set(query, stat);
    }
    this.since ??= this.now();
    this.dirty = true;
    return stat;
  }

  private load(): void {
    const text = readTextIfExists(this.path);
    if (text === null) return;
    let saved: SavedReport;
    try {
      saved = JSON.parse(text) as SavedReport;
      if (typeof saved.since !== 'string' || typeof saved.tables !== 'object' || saved.tables === null) throw new Error('not { since, tables }');
    } catch (err) {
      // Counts are no content: a damaged file costs the report's past, never the start.
      this.warn('search-report.json could not be read; the search report starts anew', { path: this.path, reason: (err as Error).message });
      return;
    }
    this.since = saved.since;
    for (const [key, queries] of Object.entries(saved.tables)) {
      const table = new Map<string, QueryStat>();
      for (const [query, s] of Object.entries(queries ?? {})) {
        if (typeof s?.count !== 'number' || typeof s.opened !== 'number' || typeof s.lastAt !== 'string') continue;
        table.set(query, { count: s.count, results: typeof s.results === 'number' ? s.results : null, opened: s.opened, lastAt: s.lastAt });
      }
      while (table.size > this.maxQueries) evictRarest(table, table.size - this.maxQueries);
      if (table.size > 0 && key.includes('\n')) this.tables.set(key, table);
    }
  }
}

/** Forgets the `n` least searched queries of a table (the least recent among equals). */
function evictRarest(table: Map<string, QueryStat>, n: number): void {
  const order = [...table].sort(([, a], [, b]) => a.count - b.count || a.lastAt.localeCompare(b.lastAt));
  for (let i = 0; i < n && i < order.length; i++) table.delete(order[i][0]);
}
