import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { LockedJsonFile } from './json-file.ts';
import { ReloadingFile } from './reloading.ts';

/**
 * People who sign in (to give an OAuth client their consent). An account has a role and either a
 * local password (scrypt, never stored or logged in clear) or an upstream identity. Accounts live in
 * `accounts.json` in the data directory (mode 600, written like keys.json), never in the content
 * repository.
 */
export const ROLES = ['admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Whether an account of this role may give an OAuth client its consent, and use the tokens it gave. */
export const mayConsent = (role: Role) => role === 'admin' || role === 'editor';
export const ACCOUNT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
/** Fewer characters than this are refused: a password guessed offline from a stolen hash must be long. */
export const MIN_PASSWORD_LENGTH = 12;

/**
 * Why `password` cannot be an account's password, or null when it can. Only white space is refused
 * whatever its length (twelve spaces are no secret), and control characters are: they are a line end
 * or a paste gone wrong more often than a choice, and no login form can type them.
 */
export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `The password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (/^\s*$/u.test(password)) return 'The password must not be only spaces or other white space';
  if (/\p{Cc}/u.test(password)) return 'The password must not contain control characters (line ends, tabs, escapes); give it on one line';
  return null;
}

/**
 * Whether `name` is taken among `accounts`, ignoring case: "Ed" and "ed" would be one person to the
 * people reading change records, and one key to the sign-in limit. Files that already hold such a
 * pair still load; only new names are checked.
 */
export const nameTaken = (accounts: readonly Account[], name: string): Account | undefined =>
  accounts.find((a) => a.name.toLowerCase() === name.toLowerCase());

export interface PasswordHash {
  algorithm: 'scrypt';
  /** Cost parameters, stored so that they can be raised later without breaking older hashes. */
  N: number;
  r: number;
  p: number;
  salt: string;
  hash: string;
}

export interface Account {
  name: string;
  role: Role;
  password: PasswordHash | null;
  /** An identity at an upstream OpenID Connect provider, instead of a password. */
  upstream: { issuer: string; subject: string } | null;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
  /**
   * When the role last changed (absent: never). What was granted before, with the role of then, ends:
   * grants and tokens issued before this are refused even when the change was made while the server
   * was down.
   */
  roleChangedAt?: string;
  /**
   * When an administrator revoked what the account granted (`accounts revoke`), by client id, `*` for
   * every client (absent: never). Grants and tokens issued to the client before are refused, even when
   * the revocation was made while the server was down.
   */
  grantsRevokedAt?: Record<string, string>;
}

/** The key of `grantsRevokedAt` that stands for every client (client ids are never `*`). */
export const EVERY_CLIENT = '*';

/**
 * Whether a grant or token of `clientId` issued at `iat` (epoch seconds) was revoked. Unlike a role
 * change, a revocation also ends what was issued in its own second: nothing signs in on its own at
 * the moment an administrator revokes, and a running server may not have seen the revocation yet.
 */
export function revokedFor(a: Account, clientId: string | undefined, iat: number | undefined): boolean {
  const revoked = a.grantsRevokedAt;
  if (!revoked) return false;
  for (const at of [revoked[EVERY_CLIENT], clientId === undefined ? undefined : revoked[clientId]]) {
    if (at === undefined) continue;
    const second = Math.floor(Date.parse(at) / 1000);
    if (!Number.isFinite(second) || (iat ?? 0) <= second) return true;
  }
  return false;
}

/** The account with `role`, and when its role changed if it did. */
export const withRole = (a: Account, role: Role, now: string): Account => (a.role === role ? a : { ...a, role, roleChangedAt: now, updatedAt: now });

/**
 * Whether something issued at `iat` (epoch seconds, as in tokens) came before the account's last role
 * change. Compared by whole seconds: a token issued in the second of the change (a sign-in that set the
 * role, then gave consent) is kept; one issued earlier in that second by a running server has been
 * revoked when that server saw the change.
 */
export function issuedBeforeRoleChange(a: Account, iat: number | undefined): boolean {
  if (!a.roleChangedAt) return false;
  const changed = Math.floor(Date.parse(a.roleChangedAt) / 1000);
  return !Number.isFinite(changed) || (iat ?? 0) < changed;
}

/** scrypt at N = 2^15, r = 8, p = 1: about 50 ms and 32 MB per check, which is what makes guessing slow. */
const COST = { N: 1 << 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

const derive = (password: string, salt: Buffer, cost: { N: number; r: number; p: number }) =>
  new Promise<Buffer>((resolve, reject) => {
    const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, COST);
  return { algorithm: 'scrypt', ...COST, salt: salt.toString('base64url'), hash: hash.toString('base64url') };
}

/** Whether `password` matches; compared in constant time. */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64url');
  const actual = await derive(password, Buffer.from(stored.salt, 'base64url'), stored);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A strong password for an account created without one: 144 random bits. */
export const newPassword = () => randomBytes(18).toString('base64url');

const isAccount = (r: unknown): boolean => {
  const a = r as Partial<Record<keyof Account, unknown>> | null;
  return typeof a === 'object' && a !== null && typeof a.name === 'string' && typeof a.role === 'string';
};

export class AccountFile {
  readonly path: string;
  private readonly file: LockedJsonFile<Account>;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'accounts.json');
    this.file = new LockedJsonFile<Account>(this.path, 'accounts', isAccount, 'an account (name, role)');
  }

  read(): Account[] {
    return this.file.read();
  }

  update<T>(change: (accounts: Account[]) => { accounts: Account[]; result: T }): Promise<T> {
    return this.file.update((records) => {
      const { accounts, result } = change(records);
      return { records: accounts, result };
    });
  }
}

/**
 * The server's view of the accounts: accounts.json re-read whenever the CLI changes it, so a
 * disabled account or a changed role is in force on the next request.
 */
export class AccountBook {
  private readonly byName: ReloadingFile<Map<string, Account>>;
  private known = new Map<string, Account>();
  private readonly roleListeners: Array<(account: Account) => void> = [];
  private readonly revocationListeners: Array<(account: Account) => void> = [];

  constructor(
    dataDir: string,
    private readonly log: Logger,
  ) {
    const file = new AccountFile(dataDir);
    this.byName = new ReloadingFile(file.path, () => this.noticeChanges(new Map(file.read().map((a) => [a.name, a]))), log, new Map());
  }

  /** The account, or null when it does not exist or is disabled. */
  active(name: string): Account | null {
    const account = this.byName.current().get(name);
    return account && !account.disabled ? account : null;
  }

  /** The account linked to an upstream identity, if any and active. */
  byUpstream(issuer: string, subject: string): Account | null {
    for (const a of this.byName.current().values()) if (!a.disabled && a.upstream?.issuer === issuer && a.upstream.subject === subject) return a;
    return null;
  }

  /** Calls `listener` with each account whose role this server sees change (the file is read on use, so: on the next request that looks). */
  onRoleChange(listener: (account: Account) => void): void {
    this.roleListeners.push(listener);
  }

  /** Calls `listener` with each account whose grants this server sees revoked (`accounts revoke`), when the file is next read. */
  onRevocation(listener: (account: Account) => void): void {
    this.revocationListeners.push(listener);
  }

  private noticeChanges(next: Map<string, Account>): Map<string, Account> {
    const before = this.known;
    this.known = next;
    for (const a of next.values()) {
      const was = before.get(a.name);
      if (!was) continue;
      if (was.role !== a.role || was.roleChangedAt !== a.roleChangedAt) this.tell(this.roleListeners, a, 'acting on a role change failed');
      if (JSON.stringify(was.grantsRevokedAt ?? {}) !== JSON.stringify(a.grantsRevokedAt ?? {})) this.tell(this.revocationListeners, a, 'acting on a revocation failed');
    }
    return next;
  }

  private tell(listeners: ReadonlyArray<(account: Account) => void>, account: Account, failure: string): void {
    for (const listener of listeners) {
      // A listener's failure must not pass for a file that could not be read (the old accounts would be kept).
      try {
        listener(account);
      } catch (err) {
        this.log.error({ err, account: account.name }, failure);
      }
    }
  }
}
