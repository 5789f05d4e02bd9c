import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import { issuedBeforeRoleChange, mayConsent, revokedFor, type AccountBook } from '../auth/accounts.ts';
import { KEY_PREFIX, type Scope } from '../auth/key-file.ts';
import type { Config } from '../config.ts';
import { unauthorized, type OAuthActor } from '../http/actor.ts';
import { endGrantsOnRoleChange, endRevokedGrants } from './accounts-in-force.ts';
import { interactionRoutes } from './interactions.ts';
import type { ServerSecrets } from './keys.ts';
import { loadOidcProvider, type OidcProviderModule } from './library.ts';
import { aroundLogout, isLogoutPath } from './logout.ts';
import { HELP_SCOPES, INTERACTION_PATH, OAUTH_ROUTES, UPSTREAM_CALLBACK } from './paths.ts';
import { createProvider } from './provider.ts';
import { RateLimit } from './rate-limit.ts';
import { RequestLimits } from './request-limits.ts';
import type { ProtectedResources } from './resource.ts';
import { routeOf } from './route.ts';
import { OAuthStore } from './store.ts';
import { UpstreamSignIn } from './upstream.ts';

/**
 * The service's OAuth 2.1 authorization server: oidc-provider with a persistent store, our sign-in
 * pages, rate limits on sign-in, client registration and the token endpoint (oauth/request-limits.ts),
 * a bounded store, and the check of access tokens presented
 * to the API and the tool endpoint. Built on first use (oauth/front.ts).
 */
export class AuthorizationServer {
  readonly provider: Provider;
  private readonly store: OAuthStore;
  private readonly sweeper: NodeJS.Timeout;
  private readonly upstream: UpstreamSignIn | null;

  /** Starts the authorization server for `resources` (their issuer is the service's origin). */
  static async create(resources: ProtectedResources, secrets: ServerSecrets, config: Config, accounts: AccountBook, log: Logger): Promise<AuthorizationServer> {
    return new AuthorizationServer(await loadOidcProvider(log), resources, secrets, config, accounts, log);
  }

  private constructor(
    library: OidcProviderModule,
    private readonly resources: ProtectedResources,
    private readonly secrets: ServerSecrets,
    private readonly config: Config,
    private readonly accounts: AccountBook,
    private readonly log: Logger,
  ) {
    const { issuer } = resources;
    this.store = new OAuthStore(config.dataDir, log, { clientIdleDays: config.oauth.clientIdleDays, maxBytes: config.oauth.storeBytes });
    this.provider = createProvider(library, { issuer, resources: { api: resources.api, mcp: resources.mcp }, config: config.oauth, store: this.store, secrets, accounts });
    this.provider.on('server_error', (_ctx: unknown, err: unknown) => log.error({ err }, 'authorization server error'));
    this.upstream = config.oauth.upstream ? new UpstreamSignIn(config.oauth.upstream, issuer, this.provider, config.dataDir, log) : null;
    endGrantsOnRoleChange(accounts, this.store, log);
    endRevokedGrants(accounts, this.store, log);
    this.sweeper = setInterval(() => this.store.sweep(), 10 * 60_000);
    this.sweeper.unref();
  }

  /** The routes of the authorization server and its sign-in pages (the paths of `isAuthorizationServerPath`). */
  middleware(): Middleware {
    const provide = compose(this.provider.middleware as Middleware[]);
    const windowMs = 15 * 60_000;
    const interactions = interactionRoutes({
      provider: this.provider,
      accounts: this.accounts,
      issuer: this.resources.issuer,
      csrfKey: this.secrets.cookieKeys[0],
      limits: { perAccount: new RateLimit(this.config.oauth.loginLimit, windowMs), perAddress: new RateLimit(this.config.oauth.loginLimit * 3, windowMs) },
      upstream: this.upstream,
      log: this.log,
    }).routes() as Middleware;
    const limits = new RequestLimits(this.config.oauth, this.store);
    const upstream = this.upstream?.callback();
    const publicUrl = this.config.publicUrl ? new URL(this.config.publicUrl) : null;
    return async (ctx, next) => {
      // The library builds its endpoints' URLs from the request. Behind a proxy that ends TLS the
      // request says http (the service trusts no forwarded headers): with HELP_PUBLIC_URL set, the
      // authorization server's requests are read as made to it, so its metadata names https
      // endpoints below the issuer, and its cookies are secure.
      if (publicUrl) {
        Object.defineProperty(ctx.request, 'protocol', { value: publicUrl.protocol.slice(0, -1), configurable: true });
        Object.defineProperty(ctx.request, 'host', { value: publicUrl.host, configurable: true });
      }
      const path = ctx.path;
      if (path.startsWith(`${INTERACTION_PATH}/`)) return interactions(ctx, next);
      if (upstream && path === UPSTREAM_CALLBACK) {
        ctx.state.route = UPSTREAM_CALLBACK;
        return upstream(ctx, next);
      }
      if (isLogoutPath(path)) return aroundLogout(ctx, () => provide(ctx, next));
      // Browser-based clients register themselves too; the library answers CORS on its other routes.
      if (routeOf(path) === 'registration') {
        ctx.set('Access-Control-Allow-Origin', '*');
        if (ctx.method === 'OPTIONS') {
          ctx.state.route = OAUTH_ROUTES.registration;
          ctx.set('Access-Control-Allow-Methods', 'POST');
          ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization');
          ctx.status = 204;
          return;
        }
      }
      if (limits.refuse(ctx)) return;
      return provide(ctx, next);
    };
  }

  /**
   * The caller behind an access token: the token must be live (not expired, revoked or rotated away),
   * issued for `audience`, and its account active and allowed to consent (admin or editor) now.
   */
  async verify(token: string, audience: string): Promise<OAuthActor> {
    const at = await this.provider.AccessToken.find(token);
    if (!at) throw unauthorized(`The access token is unknown, expired or revoked; sign in again (API keys start with ${KEY_PREFIX})`);
    const aud = ([] as string[]).concat(at.aud ?? []);
    if (!aud.includes(audience)) throw unauthorized(`The access token was issued for ${aud.join(', ') || 'another resource'}, not for ${audience}; ask for a token with resource=${audience}`);
    const account = this.accounts.active(at.accountId ?? '');
    if (!account) throw unauthorized(`The account "${at.accountId}" is disabled or gone; its tokens no longer work`);
    if (!mayConsent(account.role)) throw unauthorized(`The account "${account.name}" is now a ${account.role}; only admin and editor accounts can use OAuth clients`);
    if (issuedBeforeRoleChange(account, at.iat)) throw unauthorized(`The role of the account "${account.name}" changed after this token was issued; sign in again`);
    if (revokedFor(account, at.clientId, at.iat)) throw unauthorized(`An administrator revoked what the account "${account.name}" granted this client; sign in again`);
    const scopes = String(at.scope ?? '').split(' ').filter((s): s is Scope => (HELP_SCOPES as readonly string[]).includes(s));
    const clientId = at.clientId ?? '';
    const client = await this.provider.Client.find(clientId);
    return {
      kind: 'oauth',
      name: account.name,
      account: account.name,
      role: account.role,
      scopes,
      canWritePublished: this.config.oauth.adminPublishes && account.role === 'admin',
      clientId,
      clientName: (client?.clientName as string | undefined) ?? null,
      audience,
      issuedAt: new Date((at.iat ?? 0) * 1000).toISOString(),
      expiresAt: new Date((at.exp ?? 0) * 1000).toISOString(),
    };
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.store.close();
  }
}
