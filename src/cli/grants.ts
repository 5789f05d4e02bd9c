import { join } from 'node:path';
import { EVERY_CLIENT, revokedFor, type Account, type AccountFile } from '../auth/accounts.ts';
import { CliError } from './keys.ts';
import { readTextIfExists } from '../storage/durable-fs.ts';

/** One OAuth client an account has granted access to, as `accounts grants` shows it. */
export interface ClientGrant {
  clientId: string;
  /** The name the client registered with; null when it gave none or is gone. */
  clientName: string | null;
  scopes: string[];
  /** When the earliest grant still in force was given (ISO). */
  grantedAt: string;
  /** When a token was last issued under one of them (ISO), as far as the journal still tells; null when it does not. */
  lastUsedAt: string | null;
  /** Grants in force (one per browser session that gave consent). */
  grants: number;
}

interface JournalLine {
  op: 'set' | 'del';
  key: string;
  payload?: Record<string, unknown>;
  expiresAt?: number | null;
}

/**
 * What the authorization server's journal (oauth/journal.jsonl) holds now, replayed as the server
 * replays it at start. Only read: the running server is its only writer. A line torn by a crash or
 * cut by a write under way is skipped (the server appends whole lines and replaces the file whole).
 * Also the latest token issued per grant, seen on the way even if the token is gone since.
 */
function replayJournal(dataDir: string, now: number): { live: Map<string, Record<string, unknown>>; lastIssued: Map<string, number> } {
  const text = readTextIfExists(join(dataDir, 'oauth', 'journal.jsonl'));
  if (text === null) return { live: new Map(), lastIssued: new Map() };
  const live = new Map<string, Record<string, unknown>>();
  const lastIssued = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let entry: JournalLine;
    try {
      entry = JSON.parse(line) as JournalLine;
    } catch {
      continue;
    }
    if (entry.op === 'del') {
      live.delete(entry.key);
      continue;
    }
    if (entry.op !== 'set' || !entry.payload) continue;
    if (entry.expiresAt != null && entry.expiresAt <= now) live.delete(entry.key);
    else live.set(entry.key, entry.payload);
    const { grantId, iat } = entry.payload;
    if ((entry.key.startsWith('AccessToken:') || entry.key.startsWith('RefreshToken:')) && typeof grantId === 'string' && typeof iat === 'number') {
      lastIssued.set(grantId, Math.max(lastIssued.get(grantId) ?? 0, iat));
    }
  }
  return { live, lastIssued };
}

/** The scopes of a grant: OpenID's and those given for each resource (the API, the tool server). */
function scopesOf(grant: Record<string, unknown>): string[] {
  const words = [String((grant.openid as { scope?: string } | undefined)?.scope ?? '')];
  for (const scope of Object.values((grant.resources as Record<string, unknown> | undefined) ?? {})) words.push(String(scope));
  return words.flatMap((w) => w.split(' ')).filter((w) => w !== '');
}

const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString();

function findAccount(file: AccountFile, name: string): Account {
  const account = file.read().find((a) => a.name === name);
  if (!account) throw new CliError(`No account named "${name}"`);
  return account;
}

/** The clients `name` has granted access to and not seen revoked, from the journal; the account must exist. */
export function listGrants(file: AccountFile, dataDir: string, name: string, now = Date.now()): ClientGrant[] {
  const account = findAccount(file, name);
  const { live, lastIssued } = replayJournal(dataDir, now);
  const byClient = new Map<string, ClientGrant>();
  for (const [key, grant] of live) {
    if (!key.startsWith('Grant:') || grant.accountId !== name || typeof grant.clientId !== 'string') continue;
    const iat = typeof grant.iat === 'number' ? grant.iat : 0;
    // Revoked, and the server has not removed it yet (it does so when it next reads accounts.json).
    if (revokedFor(account, grant.clientId, iat)) continue;
    const client = live.get(`Client:${grant.clientId}`);
    const row = byClient.get(grant.clientId) ?? {
      clientId: grant.clientId,
      clientName: typeof client?.client_name === 'string' ? client.client_name : null,
      scopes: [],
      grantedAt: isoOf(iat),
      lastUsedAt: null,
      grants: 0,
    };
    row.grants++;
    row.scopes = [...new Set([...row.scopes, ...scopesOf(grant)])];
    if (isoOf(iat) < row.grantedAt) row.grantedAt = isoOf(iat);
    const used = lastIssued.get(key.slice('Grant:'.length));
    if (used !== undefined && (row.lastUsedAt === null || isoOf(used) > row.lastUsedAt)) row.lastUsedAt = isoOf(used);
    byClient.set(grant.clientId, row);
  }
  return [...byClient.values()].sort((a, b) => a.grantedAt.localeCompare(b.grantedAt));
}

/**
 * Revokes what `name` granted: to one client, or to every client. Recorded in accounts.json, which a
 * running server re-reads on its next request that looks at the account: from then its grants and
 * tokens of the client are refused, and removed; a server started later refuses them too.
 */
export async function revokeGrants(file: AccountFile, dataDir: string, opts: { name: string; client?: string }, now = new Date().toISOString()) {
  const { name, client } = opts;
  // A client id mistyped would revoke nothing and say it did: only a client the account granted access to is taken.
  const granted = listGrants(file, dataDir, name);
  if (client !== undefined && !granted.some((g) => g.clientId === client)) {
    throw new CliError(`Account "${name}" has granted no access to a client "${client}" (see accounts grants --name ${name})`);
  }
  const revoked = client === undefined ? granted : granted.filter((g) => g.clientId === client);
  await file.update((accounts) => {
    const at = accounts.findIndex((a) => a.name === name);
    if (at < 0) throw new CliError(`No account named "${name}"`);
    const a = accounts[at];
    // Revoking every client supersedes the earlier revocations of one client.
    const before = client === undefined ? {} : (a.grantsRevokedAt ?? {});
    const next: Account = { ...a, grantsRevokedAt: { ...before, [client ?? EVERY_CLIENT]: now }, updatedAt: now };
    return { accounts: accounts.map((x, i) => (i === at ? next : x)), result: undefined };
  });
  return { name, client: client ?? null, revokedAt: now, clients: revoked.map((g) => ({ clientId: g.clientId, clientName: g.clientName })) };
}
