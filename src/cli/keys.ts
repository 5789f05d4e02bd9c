import { displayPrefix, hashKey, KEY_NAME_PATTERN, KeyFile, newKeySecret, SCOPES, type Scope, type StoredKey } from '../auth/key-file.ts';

/** A command that could not be carried out (exit status 1). */
export class CliError extends Error {}
/** A command line that is wrong in itself: a missing or malformed option (exit status 2). */
export class UsageError extends CliError {}

export interface CreateOptions {
  name: string;
  scopes?: string;
  publisher?: boolean;
}

/** Issues a key; the secret is returned here once and only its hash is stored. */
export async function createKey(file: KeyFile, opts: CreateOptions) {
  if (!KEY_NAME_PATTERN.test(opts.name)) throw new UsageError(`--name must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit; got ${JSON.stringify(opts.name)}`);
  const scopes = parseScopes(opts.scopes);
  const secret = newKeySecret();
  const record: StoredKey = {
    name: opts.name,
    prefix: displayPrefix(secret),
    hash: hashKey(secret),
    scopes,
    canWritePublished: opts.publisher === true,
    createdAt: new Date().toISOString(),
  };
  await file.update((keys) => {
    if (keys.some((k) => k.name === opts.name)) throw new CliError(`A key named "${opts.name}" exists; revoke it first or choose another name`);
    return { keys: [...keys, record], result: undefined };
  });
  return { name: record.name, key: secret, prefix: record.prefix, scopes, canWritePublished: record.canWritePublished, createdAt: record.createdAt };
}

export function listKeys(file: KeyFile) {
  const usage = file.readUsage();
  return file.read().map((k) => ({
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    canWritePublished: k.canWritePublished,
    createdAt: k.createdAt,
    lastUsedAt: usage[k.prefix] ?? null,
  }));
}

export async function revokeKey(file: KeyFile, name: string) {
  return file.update((keys) => {
    const left = keys.filter((k) => k.name !== name);
    if (left.length === keys.length) throw new CliError(`No key named "${name}"`);
    return { keys: left, result: { revoked: name } };
  });
}

function parseScopes(value: string | undefined): Scope[] {
  if (value === undefined) return [...SCOPES];
  const scopes = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length > 0) throw new UsageError(`--scopes takes a comma-separated list of ${SCOPES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
  return [...new Set(scopes)] as Scope[];
}
