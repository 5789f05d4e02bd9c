import compose from 'koa-compose';
import type { Context, Middleware } from 'koa';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import { mayConsent, type AccountBook } from '../auth/accounts.ts';
import type { Scope } from '../auth/key-file.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { unauthorized, type OAuthActor } from '../http/actor.ts';
import { interactionRoutes } from './interactions.ts';
import { loadSecrets } from './keys.ts';
import { loadOidcProvider, type OidcProviderModule } from './library.ts';
import { createProvider, HELP_SCOPES, INTERACTION_PATH, OAUTH_ROUTES, type Resources } from './provider.ts';
import { RateLimit } from './rate-limit.ts';
import { OAuthStore } from './store.ts';
import { UpstreamSignIn, UPSTREAM_CALLBACK } from './upstream.ts';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** What a 401 or 403 tells a client about where to sign in (RFC 9728 §5.1, RFC 6750 §3). */
export interface Challenge {
  resourceMetadata: string;
  scope: string;
}

/**
 * The service's OAuth 2.1 authorization server and its protected resources (the API and the tool
 * endpoint): oidc-provider with a persistent store, our sign-in pages, rate limits on sign-in and on
 * the token endpoint, protected-resource metadata, and the check of access tokens presented to the
 * API and the tool endpoint.
 */
export class AuthorizationServer {
  readonly provider: Provider;
  readonly resources: Resources;
  readonly cookieKeys: string[];
  private readonly store: OAuthStore;
  private readonly sweeper: NodeJS.Timeout;
  private readonly upstream: UpstreamSignIn | null;

  /** Starts the authorization server for the service at `issuer` (its origin). */
  static async create(issuer: string, config: Config, accounts: AccountBook, log: Logger): Promise<AuthorizationServer> {
    return new AuthorizationServer(await loadOidcProvider(log), issuer, config, accounts, log);
  }

  private constructor(
    library: OidcProviderModule,
    readonly issuer: string,
    private readonly config: Config,
    private readonly accounts: AccountBook,
    private readonly log: Logger,
  ) {
    this.resources = { api: `${issuer}${config.basePath}`, mcp: `${issuer}${config.mcpPath}` };
    this.store = new OAuthStore(config.dataDir, log);
    const secrets = loadSecrets(config.dataDir);
    this.cookieKeys = secrets.cookieKeys;
    this.provider = createProvider(library, { issuer, resources: this.resources, config: config.oauth, store: this.store, secrets, accounts });
    this.provider.on('server_error', (_ctx: unknown, err: unknown) => log.error({ err }, 'authorization server error'));
    this.upstream = config.oauth.upstream ? new UpstreamSignIn(config.oauth.upstream, issuer, this.provider, config.dataDir, log) : null;
    this.sweeper = setInterval(() => this.store.sweep(), 10 * 60_000);
    this.sweeper.unref();
  }

  /** The routes of the authorization server, its sign-in pages and the protected-resource metadata. */
  middleware(): Middleware {
    const provide = compose(this.provider.middleware as Middleware[]);
    const windowMs = 15 * 60_000;
    const interactions = interactionRoutes({
      provider: this.provider,
      accounts: this.accounts,
      issuer: this.issuer,
      csrfKey: this.cookieKeys[0],
      limits: { perAccount: new RateLimit(this.config.oauth.loginLimit, windowMs), perAddress: new RateLimit(this.config.oauth.loginLimit * 3, windowMs) },
      upstream: this.upstream,
      log: this.log,
    }).routes() as Middleware;
    const tokenLimit = new RateLimit(this.config.oauth.tokenLimit, 60_000);
    const upstream = this.upstream?.callback();
    return async (ctx, next) => {
      const path = ctx.path;
      if (path === PROTECTED_RESOURCE_PATH || path.startsWith(`${PROTECTED_RESOURCE_PATH}/`)) return this.protectedResource(ctx, next);
      if (path.startsWith(`${INTERACTION_PATH}/`)) return interactions(ctx, next);
      if (upstream && path === UPSTREAM_CALLBACK) return upstream(ctx, next);
      if (!path.startsWith('/oauth/') && path !== '/.well-known/oauth-authorization-server' && path !== '/.well-known/openid-configuration') return next();
      if (path === OAUTH_ROUTES.token && ctx.method === 'POST') {
        const wait = tokenLimit.take(ctx.ip);
        if (wait > 0) {
          ctx.set('Retry-After', String(wait));
          throw new AppError('rate_limited', `Too many token requests from this address; retry in ${wait} seconds`, { retryAfter: wait });
        }
      }
      // Browser-based clients register themselves too; the library answers CORS on its other routes.
      if (path === OAUTH_ROUTES.registration) {
        ctx.set('Access-Control-Allow-Origin', '*');
        if (ctx.method === 'OPTIONS') {
          ctx.set('Access-Control-Allow-Methods', 'POST');
          ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization');
          ctx.status = 204;
          return;
        }
      }
      return provide(ctx, next);
    };
  }

  /** Protected-resource metadata (RFC 9728): for the tool endpoint, for the API, and at the root for the API. */
  private protectedResource(ctx: Context, next: () => Promise<unknown>) {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const suffix = ctx.path.slice(PROTECTED_RESOURCE_PATH.length);
    const resource = suffix === this.config.mcpPath ? this.resources.mcp : suffix === '' || suffix === this.config.basePath ? this.resources.api : null;
    if (resource === null) return next();
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = {
      resource,
      authorization_servers: [this.issuer],
      scopes_supported: HELP_SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: resource === this.resources.mcp ? 'Help content tool server' : 'Help content API',
      resource_documentation: `${this.issuer}${this.config.basePath}/docs`,
    };
  }

  /** Where a client learns how to get a token for the resource at `path`. */
  challengeFor(path: string): Challenge {
    return { resourceMetadata: `${this.issuer}${PROTECTED_RESOURCE_PATH}${this.isToolPath(path) ? this.config.mcpPath : this.config.basePath}`, scope: HELP_SCOPES.join(' ') };
  }

  /** The resource a request at `path` is for: the tool endpoint or the API. */
  audienceFor(path: string): string {
    return this.isToolPath(path) ? this.resources.mcp : this.resources.api;
  }

  private isToolPath(path: string): boolean {
    return path === this.config.mcpPath || path.startsWith(`${this.config.mcpPath}/`);
  }

  /**
   * The caller behind an access token: the token must be live (not expired, revoked or rotated away),
   * issued for `audience`, and its account active and allowed to consent (admin or editor) now.
   */
  async verify(token: string, audience: string): Promise<OAuthActor> {
    const at = await this.provider.AccessToken.find(token);
    if (!at) throw unauthorized('The access token is unknown, expired or revoked; sign in again');
    const aud = ([] as string[]).concat(at.aud ?? []);
    if (!aud.includes(audience)) throw unauthorized(`The access token was issued for ${aud.join(', ') || 'another resource'}, not for ${audience}; ask for a token with resource=${audience}`);
    const account = this.accounts.active(at.accountId ?? '');
    if (!account) throw unauthorized(`The account "${at.accountId}" is disabled or gone; its tokens no longer work`);
    if (!mayConsent(account.role)) throw unauthorized(`The account "${account.name}" is now a ${account.role}; only admin and editor accounts can use OAuth clients`);
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
