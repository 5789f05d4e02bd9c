import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { AccountBook } from '../auth/accounts.ts';
import type { OAuthConfig } from '../config.ts';
import { isLoopback } from '../http/loopback.ts';
import { findAccountIn, loadExistingGrantIn } from './accounts-in-force.ts';
import { authorizationParamBounds, clientMetadataProblem } from './client-rules.ts';
import type { ServerSecrets } from './keys.ts';
import { escapeHtml } from './pages.ts';
import { HELP_SCOPES, INTERACTION_PATH, OAUTH_ROUTES } from './paths.ts';
import type { OidcProviderModule } from './library.ts';
import { logoutPages } from './logout.ts';
import { adapterFor, type OAuthStore } from './store.ts';

/** A property no client sends: its validator runs for every client and marks loopback-only clients as native apps. */
const LOOPBACK_MARK = 'help_loopback_client';

/** An error page of the authorization server: text only. */
const ERROR_PAGE_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The resources tokens can be issued for, by canonical URL (no trailing slash). */
export interface Resources {
  api: string;
  mcp: string;
}

export interface ProviderOptions {
  issuer: string;
  resources: Resources;
  config: OAuthConfig;
  store: OAuthStore;
  secrets: ServerSecrets;
  accounts: AccountBook;
}

/**
 * The authorization server, on oidc-provider: authorization code with PKCE S256 for every client,
 * dynamic registration of public clients, refresh tokens rotated on every use (a reused one revokes
 * the grant), revocation, and resource indicators so that a token is for the API or for the tool
 * endpoint, never both.
 */
export function createProvider({ default: Provider, errors }: OidcProviderModule, o: ProviderOptions): Provider {
  const resources = new Set([o.resources.api, o.resources.mcp]);
  const configuration: Configuration = {
    adapter: adapterFor(o.store) as unknown as Configuration['adapter'],
    clients: [],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    jwks: { keys: [o.secrets.signingKey as never] },
    cookies: { keys: o.secrets.cookieKeys },
    scopes: ['openid', 'offline_access', ...HELP_SCOPES],
    claims: { openid: ['sub'], profile: ['name'] },
    // A disabled or deleted account, or one whose role changed since: its tokens stop working, and nothing new is issued on what it granted before.
    findAccount: findAccountIn(o.accounts),
    loadExistingGrant: loadExistingGrantIn(o.accounts, o.store),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: true, ...logoutPages },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? o.resources.api,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          const resource = indicator.replace(/\/+$/, '');
          if (!resources.has(resource)) throw new errors.InvalidTarget(`unknown resource; tokens are issued for ${[...resources].join(' and ')}`);
          return { scope: HELP_SCOPES.join(' '), audience: resource, accessTokenTTL: o.config.accessTokenTtl, accessTokenFormat: 'opaque' };
        },
      },
    },
    // OAuth 2.1: the authorization code flow only (no implicit, no hybrid).
    responseTypes: ['code'],
    pkce: { required: () => true },
    // Bounds on what an authorization request keeps (state, nonce, hints) until it is answered.
    extraParams: authorizationParamBounds((description) => new errors.InvalidRequest(description)),
    // Tool clients never ask for offline_access: every registered client that may refresh gets a refresh token.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    routes: OAUTH_ROUTES,
    ttl: {
      AccessToken: o.config.accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      RefreshToken: o.config.refreshTokenTtl,
      Grant: o.config.refreshTokenTtl,
      Session: 14 * 86_400,
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    extraClientMetadata: {
      properties: [LOOPBACK_MARK],
      validator: (ctx, key, _value, metadata) => {
        if (key !== LOOPBACK_MARK) return;
        // Only what is being registered (a request is under way): clients stored earlier go on loading, and expire when unused.
        const problem = ctx ? clientMetadataProblem(metadata) : null;
        if (problem) throw new errors.InvalidClientMetadata(problem);
        // RFC 8252: a native app listens on a loopback port it picks at each run; a client whose every
        // redirect URI is a plain-http loopback address is one, and may use any port.
        // Runs before oidc-provider checks the metadata's types: anything but a list of strings is left for it to refuse (400 invalid_redirect_uri).
        const uris: unknown = metadata.redirect_uris;
        const loopback = Array.isArray(uris) && uris.length > 0 && uris.every((u) => typeof u === 'string' && u.startsWith('http://') && isLoopback(u));
        if (loopback) metadata.application_type = 'native';
      },
    },
    renderError: (ctx: KoaContextWithOIDC, out) => {
      // The sign-in pages' own headers: no style, script or frame from anywhere (the page has none). nosniff is every answer's (http/logging.ts).
      ctx.set('Content-Security-Policy', ERROR_PAGE_POLICY);
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'html';
      ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head><body><main><h1>Sign-in could not continue</h1><p><code>${escapeHtml(String(out.error))}</code>: ${escapeHtml(String(out.error_description ?? ''))}</p></main></body></html>`;
    },
  };
  const provider = new Provider(o.issuer, configuration);
  return provider;
}
