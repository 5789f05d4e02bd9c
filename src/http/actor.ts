import type { Role } from '../auth/accounts.ts';
import type { Scope, StoredKey } from '../auth/key-file.ts';
import { AppError } from '../errors.ts';
import type { Reader } from '../queries/reader.ts';

/** Who is calling, once their credential checked out: an API key or an OAuth access token. */
export type Actor = KeyActor | OAuthActor;

interface ActorBase {
  /** The commit author: the key's or the account's name. */
  name: string;
  scopes: readonly Scope[];
  canWritePublished: boolean;
}

export interface KeyActor extends ActorBase {
  kind: 'api_key';
  key: StoredKey;
}

/** An access token issued by the service's authorization server to a client, on an account's consent. */
export interface OAuthActor extends ActorBase {
  kind: 'oauth';
  account: string;
  role: Role;
  clientId: string;
  clientName: string | null;
  /** The resource the token was issued for (its audience). */
  audience: string;
  issuedAt: string;
  expiresAt: string;
}

export const unauthorized = (message: string) => new AppError('unauthorized', message);

export function requireCredential(actor: Actor | null): Actor {
  if (!actor) throw unauthorized('This endpoint needs a credential: send "Authorization: Bearer <key or access token>"');
  return actor;
}

export function requireScope(actor: Actor | null, scope: Scope): Actor {
  const a = requireCredential(actor);
  if (!a.scopes.includes(scope)) {
    const who = a.kind === 'api_key' ? `Key "${a.name}"` : `The access token (account "${a.account}", client ${a.clientName ?? a.clientId})`;
    throw new AppError('insufficient_scope', `${who} lacks the scope ${scope} that this endpoint needs`, { required: scope, scopes: a.scopes });
  }
  return a;
}

/** Drafts, archived versions, bodies in lists and working copies are for callers who may read them. */
export const canReadUnpublished = (actor: Actor | null) => actor !== null && actor.scopes.includes('help:read');

/** The caller as the queries see them. */
export const readerOf = (actor: Actor | null): Reader => ({ unpublished: canReadUnpublished(actor) });
