import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { writeAtomic } from '../auth/json-file.ts';

/** What the authorization server stores: clients, grants, sessions, interactions, codes and tokens. */
export type Payload = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string; consumed?: number };

interface Entry {
  payload: Payload;
  /** Epoch milliseconds; null for entries that do not expire (registered clients). */
  expiresAt: number | null;
}

type Line = { op: 'set'; key: string; payload: Payload; expiresAt: number | null } | { op: 'del'; key: string };

/** The journal is rewritten once it holds this many more lines than live entries. */
const COMPACT_SLACK = 1000;

/**
 * oidc-provider's storage (its "adapter"), persisted in the data directory, so registered clients,
 * grants, sessions and refresh tokens survive a restart (the library's default keeps 1,000 entries in
 * memory). Entries live in memory; every change is appended to `oauth/journal.jsonl` and fsynced
 * before the call returns (changes waiting at the same time share one fsync). The journal is
 * replayed at start, skipping what has expired, and rewritten when it has grown well beyond what is
 * live. Expired entries are never answered and are dropped at the next rewrite.
 */
export class OAuthStore {
  private readonly entries = new Map<string, Entry>();
  private readonly byGrant = new Map<string, Set<string>>();
  private readonly byUid = new Map<string, string>();
  private readonly byUserCode = new Map<string, string>();
  private readonly path: string;
  private lines = 0;
  private pending: string[] = [];
  private flushing: Promise<void> | null = null;
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private fd: number | null = null;

  constructor(dataDir: string, private readonly log: Logger, private readonly now: () => number = Date.now) {
    const dir = join(dataDir, 'oauth');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, 'journal.jsonl');
    this.replay();
    this.compact();
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
    const expiresAt = expiresInSeconds ? this.now() + expiresInSeconds * 1000 : null;
    this.apply({ op: 'set', key, payload, expiresAt });
    return this.append({ op: 'set', key, payload, expiresAt });
  }

  delete(model: string, id: string): Promise<void> {
    const key = `${model}:${id}`;
    if (!this.entries.has(key)) return Promise.resolve();
    this.apply({ op: 'del', key });
    return this.append({ op: 'del', key });
  }

  consume(model: string, id: string): Promise<void> {
    const key = `${model}:${id}`;
    const entry = this.entries.get(key);
    if (!entry) return Promise.resolve();
    const payload = { ...entry.payload, consumed: Math.floor(this.now() / 1000) };
    this.apply({ op: 'set', key, payload, expiresAt: entry.expiresAt });
    return this.append({ op: 'set', key, payload, expiresAt: entry.expiresAt });
  }

  /** Removes every entry of the grant (its codes, access and refresh tokens, the grant itself). */
  async revokeGrant(grantId: string): Promise<void> {
    const keys = [...(this.byGrant.get(grantId) ?? [])];
    for (const key of keys) this.apply({ op: 'del', key });
    await Promise.all(keys.map((key) => this.append({ op: 'del', key })));
  }

  /** Every live entry of a model, for sweeps such as "revoke the grants of a disabled account". */
  *all(model: string): Iterable<[string, Payload]> {
    const prefix = `${model}:`;
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (key.startsWith(prefix) && (entry.expiresAt === null || entry.expiresAt > now)) yield [key.slice(prefix.length), entry.payload];
    }
  }

  async close(): Promise<void> {
    await this.flushing;
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private apply(line: Line): void {
    const old = this.entries.get(line.key);
    if (old) this.unindex(line.key, old.payload);
    if (line.op === 'del') {
      this.entries.delete(line.key);
      return;
    }
    this.entries.set(line.key, { payload: line.payload, expiresAt: line.expiresAt });
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

  private append(line: Line): Promise<void> {
    this.pending.push(JSON.stringify(line));
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.flushing ??= this.flush();
    return done;
  }

  /** Writes what is pending with one fsync; changes that arrive meanwhile go in the next round. */
  private async flush(): Promise<void> {
    await Promise.resolve();
    while (this.pending.length > 0) {
      const lines = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        this.fd ??= fs.openSync(this.path, 'a', 0o600);
        const fd = this.fd;
        await new Promise<void>((resolve, reject) => fs.write(fd, `${lines.join('\n')}\n`, (err) => (err ? reject(err) : resolve())));
        await new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
        this.lines += lines.length;
        for (const w of waiters) w.resolve();
      } catch (err) {
        this.log.error({ err, path: this.path }, 'could not record sign-in data');
        for (const w of waiters) w.reject(err);
      }
    }
    this.flushing = null;
    if (this.lines > this.entries.size + COMPACT_SLACK) this.compact();
  }

  private replay(): void {
    let text: string;
    try {
      text = fs.readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (lines[i] === '') continue;
      try {
        this.apply(JSON.parse(lines[i]) as Line);
      } catch {
        // Only the last line can be torn (a crash mid-append); an earlier bad line is reported.
        if (i < lines.length - 2) this.log.warn({ path: this.path, line: i + 1 }, 'skipped an unreadable line of the sign-in journal');
      }
    }
  }

  /** Rewrites the journal with the live entries only (atomically: a crash keeps the old one). */
  private compact(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    const now = this.now();
    const live: string[] = [];
    for (const [key, entry] of [...this.entries]) {
      if (entry.expiresAt !== null && entry.expiresAt <= now) {
        this.apply({ op: 'del', key });
        continue;
      }
      live.push(JSON.stringify({ op: 'set', key, payload: entry.payload, expiresAt: entry.expiresAt }));
    }
    writeAtomic(this.path, live.length > 0 ? `${live.join('\n')}\n` : '');
    this.lines = live.length;
  }

  /** Drops expired entries now (run on a timer; a rewrite happens only when it pays). */
  sweep(): void {
    if (this.flushing) return;
    const now = this.now();
    let expired = 0;
    for (const entry of this.entries.values()) if (entry.expiresAt !== null && entry.expiresAt <= now) expired++;
    if (expired > 0 && (expired > COMPACT_SLACK / 10 || this.lines > this.entries.size + COMPACT_SLACK)) this.compact();
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
