import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { readTextIfExists } from '../storage/durable-fs.ts';

/** What the authorization server stores: clients, grants, sessions, interactions, codes and tokens. */
export type Payload = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string; consumed?: number; clientId?: string };

interface Entry {
  payload: Payload;
  /** Epoch milliseconds; null for entries that do not expire (clients in use while idle expiry is off). */
  expiresAt: number | null;
  /** The size of the entry's line in a rewritten journal, newline included: what the store's limit counts. */
  bytes: number;
}

type Line = { op: 'set'; key: string; payload: Payload; expiresAt: number | null } | { op: 'del'; key: string };

export interface StoreOptions {
  /** Days a client may go unused before it expires; 0: never (`HELP_OAUTH_CLIENT_IDLE_DAYS`). */
  clientIdleDays?: number;
  /** Bytes of live entries beyond which `fullFor` refuses new work (`HELP_OAUTH_STORE_MB`). */
  maxBytes?: number;
  now?: () => number;
}

/** The journal is rewritten once it holds this many more lines than live entries. */
const COMPACT_SLACK = 1000;
/** Text a rewrite builds before it hands the event loop back (a write per slice). */
const SLICE_BYTES = 512 * 1024;
const DAY_MS = 86_400_000;
/** A client that never obtained a grant is gone after this long. */
const UNUSED_CLIENT_MS = DAY_MS;
/** Models whose saving means the client was used: it was granted access, or issued a token. */
const USES = new Set(['Grant', 'AccessToken', 'RefreshToken']);

class RewriteAborted extends Error {}

/**
 * oidc-provider's storage (its "adapter"), persisted in the data directory, so registered clients,
 * grants, sessions and refresh tokens survive a restart (the library's default keeps 1,000 entries in
 * memory). Entries live in memory; every change is appended to `oauth/journal.jsonl` and fsynced
 * before the call returns (changes waiting at the same time share one fsync). The journal is
 * replayed at start, skipping what has expired, and rewritten in the background when it has grown
 * well beyond what is live. Expired entries are never answered and are dropped at the next sweep.
 *
 * Registered clients expire: a day after registration unless they obtain a grant, then
 * `clientIdleDays` after their last use, never before the grants and tokens issued to them.
 */
export class OAuthStore {
  private readonly entries = new Map<string, Entry>();
  private readonly byGrant = new Map<string, Set<string>>();
  private readonly byUid = new Map<string, string>();
  private readonly byUserCode = new Map<string, string>();
  private readonly path: string;
  private readonly now: () => number;
  private readonly idleMs: number | null;
  private readonly maxBytes: number;
  /** Lines and bytes of the journal file, to tell when a rewrite pays. */
  private lines = 0;
  private fileBytes = 0;
  /** Bytes of live entries, as a rewritten journal would hold them. */
  private liveBytes = 0;
  private pending: string[] = [];
  private flushing: Promise<void> | null = null;
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private fd: number | null = null;
  private rewriting: Promise<void> | null = null;
  /** While a rewrite runs: every line appended since its snapshot, to go after the snapshot in the new journal. */
  private tail: string[] | null = null;
  /** While a rewrite swaps the files: appends wait, so none lands in the journal being replaced. */
  private holding = false;
  private closing = false;
  private rewriteFailedAt = -Infinity;
  private droppedAt = -Infinity;
  private nextExpiry: number | null = null;

  constructor(dataDir: string, private readonly log: Logger, options: StoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.idleMs = options.clientIdleDays === 0 ? null : (options.clientIdleDays ?? 90) * DAY_MS;
    this.maxBytes = options.maxBytes ?? Infinity;
    const dir = join(dataDir, 'oauth');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, 'journal.jsonl');
    this.replay();
    const settled = this.settleClients();
    this.dropExpired();
    if (settled > 0 || this.lines > this.entries.size) void this.compact();
  }

  get(model: string, id: string): Payload | undefined {
    const entry = this.entries.get(`${model}:${id}`);
    if (!entry) return undefined;
    if (entry.expiresAt !== null && entry.expiresAt <= this.now()) return undefined;
    return entry.payload;
  }

  idByUid(uid: string): string | undefined {
    return this.byUid.get(uid);
  }

  idByUserCode(userCode: string): string | undefined {
    return this.byUserCode.get(userCode);
  }

  set(model: string, id: string, payload: Payload, expiresInSeconds: number | undefined): Promise<void> {
    const key = `${model}:${id}`;
    let expiresAt = expiresInSeconds ? this.now() + expiresInSeconds * 1000 : null;
    if (model === 'Client') {
      // A new client gets a day to be used; a client saved again keeps the time it had.
      const old = this.entries.get(key);
      expiresAt = old ? old.expiresAt : this.now() + UNUSED_CLIENT_MS;
    }
    const texts = [this.record({ op: 'set', key, payload, expiresAt })];
    if (USES.has(model) && typeof payload.clientId === 'string') {
      const kept = this.keepClient(payload.clientId, expiresAt);
      if (kept) texts.push(kept);
    }
    return this.append(texts);
  }

  delete(model: string, id: string): Promise<void> {
    const key = `${model}:${id}`;
    if (!this.entries.has(key)) return Promise.resolve();
    return this.append([this.record({ op: 'del', key })]);
  }

  consume(model: string, id: string): Promise<void> {
    const key = `${model}:${id}`;
    const entry = this.entries.get(key);
    if (!entry) return Promise.resolve();
    const payload = { ...entry.payload, consumed: Math.floor(this.now() / 1000) };
    return this.append([this.record({ op: 'set', key, payload, expiresAt: entry.expiresAt })]);
  }

  /** Removes every entry of the grant (its codes, access and refresh tokens, the grant itself). */
  revokeGrant(grantId: string): Promise<void> {
    const keys = [...(this.byGrant.get(grantId) ?? [])];
    if (keys.length === 0) return Promise.resolve();
    return this.append(keys.map((key) => this.record({ op: 'del', key })));
  }

  /** Every live entry of a model, for sweeps such as "revoke the grants of a disabled account". */
  *all(model: string): Iterable<[string, Payload]> {
    const prefix = `${model}:`;
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (key.startsWith(prefix) && (entry.expiresAt === null || entry.expiresAt > now)) yield [key.slice(prefix.length), entry.payload];
    }
  }

  /** Bytes the live entries take in the journal (what the size limit counts). */
  get size(): number {
    return this.liveBytes;
  }

  /**
   * 0 while the store holds less than its limit; at the limit, the seconds until an entry expires
   * and may make room. New clients and sign-ins wait for it; what exists goes on working.
   */
  fullFor(): number {
    if (this.liveBytes < this.maxBytes) return 0;
    // What has expired still counts until dropped; a scan at most every second, however many ask.
    if (this.now() - this.droppedAt >= 1000) this.dropExpired();
    if (this.liveBytes < this.maxBytes) return 0;
    const wait = this.nextExpiry === null ? 3600 : Math.ceil((this.nextExpiry - this.now()) / 1000);
    return Math.min(3600, Math.max(1, wait));
  }

  /** Drops expired entries now (run on a timer), and rewrites the journal when that pays. */
  sweep(): void {
    this.dropExpired();
    if (this.lines - this.entries.size > COMPACT_SLACK / 10) void this.compact();
  }

  /**
   * Rewrites the journal with the live entries only, in slices so that requests go on meanwhile;
   * changes made during the rewrite are appended to both journals, and the new one replaces the
   * old atomically (a crash at any point keeps one whole journal). Never rejects: a failure is logged.
   */
  compact(): Promise<void> {
    if (this.closing) return Promise.resolve();
    this.rewriting ??= this.rewrite().finally(() => {
      this.rewriting = null;
    });
    return this.rewriting;
  }

  /** Resolves once what was written is on disk and no rewrite runs. */
  async settled(): Promise<void> {
    while (this.rewriting || this.flushing) await (this.rewriting ?? this.flushing);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.rewriting;
    await this.flushing;
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  /** Applies a change in memory; answers its journal line. */
  private record(line: Line): string {
    const text = JSON.stringify(line);
    this.apply(line, Buffer.byteLength(text) + 1);
    return text;
  }

  /**
   * The line that keeps a client past its use, or null when it already lives long enough. The time
   * is moved a day further than needed, so a client that is issued many tokens costs a line a day.
   */
  private keepClient(clientId: string, until: number | null): string | null {
    const key = `Client:${clientId}`;
    const client = this.entries.get(key);
    if (!client || client.expiresAt === null) return null;
    let expiresAt: number | null = null;
    if (this.idleMs !== null && until !== null) {
      expiresAt = Math.max(this.now() + this.idleMs, until);
      if (expiresAt <= client.expiresAt) return null;
      expiresAt += DAY_MS;
    }
    return this.record({ op: 'set', key, payload: client.payload, expiresAt });
  }

  /**
   * Clients recorded without an expiry (before clients expired, or while idle expiry was off) get
   * one at start: the idle time from now if anything was granted to them, otherwise a day.
   */
  private settleClients(): number {
    if (this.idleMs === null) return 0;
    const used = new Set<string>();
    for (const [key, entry] of this.entries) {
      if (USES.has(key.slice(0, key.indexOf(':'))) && typeof entry.payload.clientId === 'string') used.add(entry.payload.clientId);
    }
    const now = this.now();
    let settled = 0;
    for (const [key, entry] of [...this.entries]) {
      if (!key.startsWith('Client:') || entry.expiresAt !== null) continue;
      const expiresAt = now + (used.has(key.slice('Client:'.length)) ? this.idleMs : UNUSED_CLIENT_MS);
      this.record({ op: 'set', key, payload: entry.payload, expiresAt });
      settled++;
    }
    return settled;
  }

  /**
   * Drops from memory what has expired, and what belonged to a client that is gone without an expiry
   * of its own (its registration access token). The journal forgets them at its next rewrite; a
   * replay before that drops them again.
   */
  private dropExpired(): number {
    const now = this.now();
    let next: number | null = null;
    const gone: string[] = [];
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt !== null && entry.expiresAt <= now) gone.push(key);
      else if (entry.expiresAt !== null && (next === null || entry.expiresAt < next)) next = entry.expiresAt;
    }
    for (const key of gone) this.apply({ op: 'del', key }, 0);
    // After the clients that expired, so that what depended on them goes in the same scan.
    const orphans: string[] = [];
    for (const [key, entry] of this.entries) {
      const owner = entry.payload.clientId;
      if (entry.expiresAt === null && typeof owner === 'string' && !key.startsWith('Client:') && !this.entries.has(`Client:${owner}`)) orphans.push(key);
    }
    for (const key of orphans) this.apply({ op: 'del', key }, 0);
    this.nextExpiry = next;
    this.droppedAt = now;
    return gone.length + orphans.length;
  }

  private apply(line: Line, bytes: number): void {
    const old = this.entries.get(line.key);
    if (old) {
      this.unindex(line.key, old.payload);
      this.liveBytes -= old.bytes;
    }
    if (line.op === 'del') {
      this.entries.delete(line.key);
      return;
    }
    this.entries.set(line.key, { payload: line.payload, expiresAt: line.expiresAt, bytes });
    this.liveBytes += bytes;
    if (line.expiresAt !== null && (this.nextExpiry === null || line.expiresAt < this.nextExpiry)) this.nextExpiry = line.expiresAt;
    const p = line.payload;
    if (typeof p.grantId === 'string') {
      let set = this.byGrant.get(p.grantId);
      if (!set) this.byGrant.set(p.grantId, (set = new Set()));
      set.add(line.key);
    }
    if (typeof p.uid === 'string' && line.key.startsWith('Session:')) this.byUid.set(p.uid, line.key.slice('Session:'.length));
    if (typeof p.userCode === 'string') this.byUserCode.set(p.userCode, line.key.slice(line.key.indexOf(':') + 1));
  }

  private unindex(key: string, p: Payload): void {
    if (typeof p.grantId === 'string') {
      const set = this.byGrant.get(p.grantId);
      set?.delete(key);
      if (set?.size === 0) this.byGrant.delete(p.grantId);
    }
    if (typeof p.uid === 'string' && this.byUid.get(p.uid) === key.slice(key.indexOf(':') + 1)) this.byUid.delete(p.uid);
    if (typeof p.userCode === 'string') this.byUserCode.delete(p.userCode);
  }

  private append(texts: string[]): Promise<void> {
    this.pending.push(...texts);
    this.tail?.push(...texts);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.holding) this.flushing ??= this.flush();
    return done;
  }

  /** Writes what is pending with one fsync; changes that arrive meanwhile go in the next round. */
  private async flush(): Promise<void> {
    await Promise.resolve();
    while (this.pending.length > 0 && !this.holding) {
      const lines = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        this.fd ??= fs.openSync(this.path, 'a', 0o600);
        const fd = this.fd;
        const text = `${lines.join('\n')}\n`;
        await new Promise<void>((resolve, reject) => fs.write(fd, text, (err) => (err ? reject(err) : resolve())));
        await new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
        this.lines += lines.length;
        this.fileBytes += Buffer.byteLength(text);
        for (const w of waiters) w.resolve();
      } catch (err) {
        this.log.error({ err, path: this.path }, 'could not record sign-in data');
        for (const w of waiters) w.reject(err);
      }
    }
    this.flushing = null;
    if (this.holding || this.closing || this.now() - this.rewriteFailedAt < 60_000) return;
    // Many dead lines, or a journal far larger than what is live (a few big entries replaced often).
    if (this.lines > this.entries.size + COMPACT_SLACK || this.fileBytes > 2 * this.liveBytes + 8 * SLICE_BYTES) void this.compact();
  }

  private replay(): void {
    const text = readTextIfExists(this.path);
    if (text === null) return;
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (lines[i] === '') continue;
      this.lines++;
      try {
        this.apply(JSON.parse(lines[i]) as Line, Buffer.byteLength(lines[i]) + 1);
      } catch {
        // Only the last line can be torn (a crash mid-append); an earlier bad line is reported.
        if (i < lines.length - 2) this.log.warn({ path: this.path, line: i + 1 }, 'skipped an unreadable line of the sign-in journal');
      }
    }
    this.fileBytes = Buffer.byteLength(text);
  }

  private async rewrite(): Promise<void> {
    const temp = `${this.path}.rewrite.tmp`;
    let file: fs.promises.FileHandle | null = null;
    let lines = 0;
    let bytes = 0;
    try {
      // The snapshot: entries are replaced on change, never altered, so these stay as they are now.
      this.dropExpired();
      const snapshot = [...this.entries];
      this.tail = [];
      file = await fs.promises.open(temp, 'w', 0o600);
      let slice: string[] = [];
      let size = 0;
      const write = async () => {
        const text = slice.length > 0 ? `${slice.join('\n')}\n` : '';
        slice = [];
        size = 0;
        if (this.closing) throw new RewriteAborted();
        await file!.write(text);
        bytes += Buffer.byteLength(text);
      };
      for (const [key, entry] of snapshot) {
        const text = JSON.stringify({ op: 'set', key, payload: entry.payload, expiresAt: entry.expiresAt });
        slice.push(text);
        lines++;
        size += text.length;
        if (size >= SLICE_BYTES) await write();
      }
      await write();
      // The swap: from here no append goes to the old journal; the round in progress ends first.
      this.holding = true;
      while (this.flushing) await this.flushing;
      const tail = this.tail;
      this.tail = null;
      slice = tail;
      lines += tail.length;
      await write();
      await file.sync();
      await file.close();
      file = null;
      await fs.promises.rename(temp, this.path);
      const dir = await fs.promises.open(join(this.path, '..'), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
      if (this.fd !== null) fs.closeSync(this.fd);
      this.fd = null;
      this.lines = lines;
      this.fileBytes = bytes;
    } catch (err) {
      if (!(err instanceof RewriteAborted)) {
        this.rewriteFailedAt = this.now();
        this.log.error({ err, path: this.path }, 'could not rewrite the sign-in journal; it goes on growing until the next try');
      }
      await file?.close().catch(() => {});
      await fs.promises.rm(temp, { force: true }).catch(() => {});
    } finally {
      this.tail = null;
      this.holding = false;
      if (this.pending.length > 0) this.flushing ??= this.flush();
    }
  }
}

/** The adapter class oidc-provider asks for, one instance per model name, all backed by one store. */
export function adapterFor(store: OAuthStore) {
  return class {
    constructor(private readonly model: string) {}
    upsert(id: string, payload: Payload, expiresIn?: number) {
      return store.set(this.model, id, payload, expiresIn);
    }
    async find(id: string) {
      return store.get(this.model, id);
    }
    async findByUid(uid: string) {
      const id = store.idByUid(uid);
      return id === undefined ? undefined : store.get(this.model, id);
    }
    async findByUserCode(userCode: string) {
      const id = store.idByUserCode(userCode);
      return id === undefined ? undefined : store.get(this.model, id);
    }
    consume(id: string) {
      return store.consume(this.model, id);
    }
    destroy(id: string) {
      return store.delete(this.model, id);
    }
    revokeByGrantId(grantId: string) {
      return store.revokeGrant(grantId);
    }
  };
}
