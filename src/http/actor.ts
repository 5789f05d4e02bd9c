import type { Scope, StoredKey } from '../auth/key-file.ts';
import { AppError } from '../errors.ts';
import type { Reader } from '../queries/reader.ts';

/** Who is calling, once their credential checked out. */
export interface Actor {
  kind: 'api_key';
  name: string;
  scopes: readonly Scope[];
  canWritePublished: boolean;
  key: StoredKey;
}

export const unauthorized = (message: string) => new AppError('unauthorized', message);

export function requireCredential(actor: Actor | null): Actor {
  if (!actor) throw unauthorized('This endpoint needs a credential: send "Authorization: Bearer <key>"');
  return actor;
}

export function requireScope(actor: Actor | null, scope: Scope): Actor {
  const a = requireCredential(actor);
  if (!a.scopes.includes(scope)) {
    throw new AppError('insufficient_scope', `Key "${a.name}" lacks the scope ${scope} that this endpoint needs`, { required: scope, scopes: a.scopes });
  }
  return a;
}

/** Drafts, archived versions, bodies in lists and working copies are for callers who may read them. */
export const canReadUnpublished = (actor: Actor | null) => actor !== null && actor.scopes.includes('help:read');

/** The caller as the queries see them. */
export const readerOf = (actor: Actor | null): Reader => ({ unpublished: canReadUnpublished(actor) });
