import * as oidc from 'openid-client';
import { AccountFile } from '../../src/auth/accounts.ts';
import { createAccount } from '../../src/cli/accounts.ts';
import { Browser, type Page } from './browser.ts';
import type { TestServer } from './server.ts';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

/** The service's origin (the authorization server's issuer). */
export const originOf = (s: TestServer) => new URL(s.url).origin;

/** Creates an account with a known password, as `accounts create --password-stdin` does. */
export async function addAccount(s: TestServer, name: string, role: 'admin' | 'editor' | 'viewer', password = `${name}-password-123`) {
  await createAccount(new AccountFile(s.dataDir), { name, role, password });
  return { name, password };
}

/** Registers a public client dynamically (RFC 7591) through openid-client. */
export function registerClient(s: TestServer, metadata: Partial<oidc.ClientMetadata> = {}): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(
    new URL(originOf(s)),
    { redirect_uris: [REDIRECT_URI], client_name: 'Test tool', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...metadata },
    oidc.None(),
    { execute: [oidc.allowInsecureRequests] },
  );
}

/** A client's authorization request with PKCE S256 and a fresh state, for the API unless `params` say otherwise. */
export async function authorizationRequest(s: TestServer, config: oidc.Configuration, opts: { params?: Record<string, string>; verifier?: string; pushed?: boolean } = {}) {
  const verifier = opts.verifier ?? oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  // Pushed (RFC 9126): the parameters are posted first, and the URL carries only a request_uri.
  const build = opts.pushed ? oidc.buildAuthorizationUrlWithPAR : oidc.buildAuthorizationUrl;
  const url = await build(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'help:read help:write',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    resource: `${originOf(s)}/help/v1`,
    ...opts.params,
  });
  return { url, verifier, state };
}

export interface Authorization {
  /** The URL the browser was finally sent to (the client's redirect URI with code and state, or an error). */
  callback: URL;
  verifier: string;
  state: string;
  browser: Browser;
  /** The pages seen on the way: login, then consent (when shown). */
  pages: Page[];
}

/**
 * Runs the authorization request in a browser: the login page, then the consent page, deciding as
 * told. `params` overrides or adds authorization parameters (e.g. a `resource`, or a wrong method).
 */
export async function authorize(
  s: TestServer,
  config: oidc.Configuration,
  account: { name: string; password: string },
  opts: { params?: Record<string, string>; decision?: 'allow' | 'deny'; browser?: Browser; verifier?: string; pushed?: boolean } = {},
): Promise<Authorization> {
  const { url, verifier, state } = await authorizationRequest(s, config, { verifier: opts.verifier, params: opts.params, pushed: opts.pushed });
  const browser = opts.browser ?? new Browser(originOf(s));
  const pages: Page[] = [];
  let page = await browser.open(url.href);
  if (page.status === 200 && page.html.includes('name="password"')) {
    pages.push(page);
    page = await browser.submit(page, '/login', { username: account.name, password: account.password });
  }
  if (page.status === 200 && page.html.includes('name="decision"')) {
    pages.push(page);
    page = await browser.submit(page, '/confirm', { decision: opts.decision ?? 'allow' });
  }
  if (page.status !== 0) pages.push(page);
  return { callback: new URL(page.status === 0 ? page.url : 'about:blank'), verifier, state, browser, pages };
}

/** Authorization, then the code exchanged for tokens: what a client does to sign in. */
export async function signIn(s: TestServer, config: oidc.Configuration, account: { name: string; password: string }, resource = `${originOf(s)}/help/v1`) {
  const auth = await authorize(s, config, account, { params: { resource } });
  const tokens = await oidc.authorizationCodeGrant(config, auth.callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
  return { ...auth, tokens };
}
