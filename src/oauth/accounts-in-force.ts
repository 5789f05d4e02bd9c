import type { Account as OidcAccount, FindAccount, KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import { issuedBeforeRoleChange, mayConsent, revokedFor, type AccountBook } from '../auth/accounts.ts';
import type { OAuthStore } from './store.ts';

/**
 * What the authorization server may still do for an account, read from accounts.json at each use: a
 * disabled or deleted account gets nothing new, and a role change ends what the account granted with
 * its old role (its grants, codes and tokens), whether the server was running at the change or not;
 * so does a revocation by an administrator (`accounts revoke`), for one client or all of them.
 */

/** Removes a grant and everything issued under it (codes, access and refresh tokens). */
export async function revokeGrant(store: OAuthStore, grantId: string): Promise<void> {
  await store.revokeGrant(grantId);
  await store.delete('Grant', grantId);
}

/** oidc-provider's `findAccount`. */
export function findAccountIn(accounts: AccountBook): FindAccount {
  return (ctx, id, token) => {
    const account = accounts.active(id);
    if (token) {
      // A code, refresh token or access token presented: it stands only for an account that may hold
      // one now, and only when issued under the account's current role.
      if (!account || !mayConsent(account.role) || issuedBeforeRoleChange(account, token.iat) || revokedFor(account, token.clientId, token.iat)) return undefined;
    } else if (!account) {
      // The browser's session is of an account disabled or deleted since it signed in: that sign-in
      // ends, and the authorization request asks for a new one (the library would fail on the session).
      endSignIn(ctx, id);
      return undefined;
    }
    return claimsOf(account);
  };
}

const claimsOf = (account: Account): OidcAccount => ({ accountId: account.name, claims: () => ({ sub: account.name, name: account.name }) });
type Account = NonNullable<ReturnType<AccountBook['active']>>;

function endSignIn(ctx: KoaContextWithOIDC, id: string): void {
  const session = ctx.oidc?.session;
  if (!session || session.accountId !== id) return;
  // The session proxy refuses an empty accountId; deleting it is how a signed-out session looks.
  for (const field of ['accountId', 'loginTs', 'acr', 'amr'] as const) delete (session as unknown as Record<string, unknown>)[field];
  // Assigning marks the session as changed, so it is saved without the account or its clients' grants.
  session.authorizations = {};
}

/**
 * oidc-provider's `loadExistingGrant`: the session's grant for the client, unless it was given before
 * the account's role last changed, or was revoked; such a grant is revoked, and the person is asked
 * for consent again.
 */
export function loadExistingGrantIn(accounts: AccountBook, store: OAuthStore): (ctx: KoaContextWithOIDC) => Promise<InstanceType<KoaContextWithOIDC['oidc']['provider']['Grant']> | undefined> {
  return async (ctx) => {
    const grantId = ctx.oidc.result?.consent?.grantId || (ctx.oidc.client ? ctx.oidc.session?.grantIdFor(ctx.oidc.client.clientId) : undefined);
    if (!grantId) return undefined;
    const grant = await ctx.oidc.provider.Grant.find(grantId);
    if (!grant) return undefined;
    const account = accounts.active(grant.accountId ?? '');
    if (account && (issuedBeforeRoleChange(account, grant.iat) || revokedFor(account, grant.clientId, grant.iat))) {
      await revokeGrant(store, grantId);
      return undefined;
    }
    return grant;
  };
}

/**
 * Revokes an account's grants as soon as this server sees its role change (the lazy checks above
 * refuse them anyway; this also removes what was issued in the very second of the change).
 */
export function endGrantsOnRoleChange(accounts: AccountBook, store: OAuthStore, log: Logger): void {
  accounts.onRoleChange((account) => {
    const grants = [...store.all('Grant')].filter(([, payload]) => payload.accountId === account.name).map(([id]) => id);
    if (grants.length === 0) return;
    Promise.all(grants.map((id) => revokeGrant(store, id))).then(
      () => log.info({ account: account.name, role: account.role, grants: grants.length }, 'role changed; the account\'s grants were revoked'),
      (err: unknown) => log.error({ err, account: account.name }, 'revoking the grants of an account whose role changed failed'),
    );
  });
}

/**
 * Revokes the grants an administrator revoked (`accounts revoke`) as soon as this server sees it: the
 * lazy checks above refuse them anyway; this removes them, their codes and tokens from the store.
 */
export function endRevokedGrants(accounts: AccountBook, store: OAuthStore, log: Logger): void {
  accounts.onRevocation((account) => {
    const grants = [...store.all('Grant')]
      .filter(([, payload]) => payload.accountId === account.name && revokedFor(account, payload.clientId, payload.iat as number | undefined))
      .map(([id]) => id);
    if (grants.length === 0) return;
    Promise.all(grants.map((id) => revokeGrant(store, id))).then(
      () => log.info({ account: account.name, grants: grants.length }, 'grants revoked by an administrator were removed'),
      (err: unknown) => log.error({ err, account: account.name }, 'removing the grants an administrator revoked failed'),
    );
  });
}
