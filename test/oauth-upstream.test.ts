import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Provider from 'oidc-provider';
import * as oidc from 'openid-client';
import { AccountFile } from '../src/auth/accounts.ts';
import { Browser } from './helpers/browser.ts';
import { authorizationRequest, originOf, registerClient } from './helpers/oauth.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

/** People at the upstream identity provider, and the groups it says they are in. */
const PEOPLE: Record<string, { preferred_username: string; groups: string[] }> = {
  'u-1001': { preferred_username: 'ursula', groups: ['staff', 'help-editors'] },
  'u-1002': { preferred_username: 'victor', groups: ['staff'] },
};

/**
 * A second oidc-provider as the organisation's identity provider. Whoever the test names in
 * `signedIn` is already signed in there: its interactions finish at once, as a single sign-on would.
 */
async function startUpstream(redirectUri: () => string) {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const state = { signedIn: 'u-1001', provider: null as Provider | null };
  const attach = () => {
    const provider = new Provider(issuer, {
      clients: [{ client_id: 'help-service', client_secret: 'upstream-secret-0123456789', redirect_uris: [redirectUri()], token_endpoint_auth_method: 'client_secret_post' }],
      claims: { openid: ['sub'], profile: ['preferred_username', 'groups'] },
      findAccount: (_ctx, sub) => (PEOPLE[sub] ? { accountId: sub, claims: () => ({ sub, ...PEOPLE[sub] }) } : undefined),
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/sso/${interaction.uid}` },
      cookies: { keys: ['upstream-cookie-key'] },
    });
    provider.use(async (ctx, next) => {
      if (!ctx.path.startsWith('/sso/')) return next();
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      ctx.respond = false;
      if (details.prompt.name === 'login') {
        return provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: state.signedIn } }, { mergeWithLastSubmission: false });
      }
      const grant = new provider.Grant({ accountId: state.signedIn, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      return provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    });
    server.on('request', provider.callback());
    state.provider = provider;
  };
  return { issuer, server, state, attach };
}

describe('Sign-in through an upstream OpenID Connect provider', () => {
  let s: TestServer;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;

  before(async () => {
    upstream = await startUpstream(() => `${originOf(s)}/oauth/upstream/callback`);
    s = await startTestServer({
      env: {
        HELP_OIDC_ISSUER: upstream.issuer,
        HELP_OIDC_CLIENT_ID: 'help-service',
        HELP_OIDC_CLIENT_SECRET: 'upstream-secret-0123456789',
        HELP_OIDC_NAME: 'Example SSO',
        HELP_OIDC_EDITOR_VALUES: 'help-editors',
      },
    });
    upstream.attach();
  });
  after(async () => {
    await s.close();
    upstream.server.closeAllConnections();
    await new Promise((resolve) => upstream.server.close(resolve));
  });

  /** From the client's authorization request through the upstream provider to our consent page (or the client). */
  async function viaUpstream(config: oidc.Configuration) {
    const { url, verifier, state } = await authorizationRequest(s, config);
    const browser = new Browser(originOf(s), upstream.issuer);
    const login = await browser.open(url.href);
    const link = /<a href="([^"]+)">Sign in with Example SSO<\/a>/.exec(login.html);
    assert.ok(link, 'the login page offers the upstream provider');
    const after = await browser.open(new URL(link[1].replace(/&amp;/g, '&'), login.url).href);
    return { browser, after, verifier, state };
  }

  test('a person in the editors group signs in upstream, gets an account with the editor role, and consents', async () => {
    upstream.state.signedIn = 'u-1001';
    const config = await registerClient(s);
    const { browser, after, verifier, state } = await viaUpstream(config);
    assert.equal(after.status, 200, after.html);
    assert.match(after.html, /name="decision"/, 'our consent page follows the upstream sign-in');
    assert.match(after.html, /ursula/);
    const done = await browser.submit(after, '/confirm', { decision: 'allow' });
    assert.equal(done.status, 0, 'back at the client');
    const tokens = await oidc.authorizationCodeGrant(config, new URL(done.url), { pkceCodeVerifier: verifier, expectedState: state });
    const who = await s.request('GET', '/whoami', { key: tokens.access_token });
    assert.equal(who.body.accountName, 'ursula');
    assert.equal(who.body.role, 'editor');
    const account = new AccountFile(s.dataDir).read().find((a) => a.name === 'ursula')!;
    assert.deepEqual(account.upstream, { issuer: upstream.issuer, subject: 'u-1001' });
    assert.equal(account.password, null);
  });

  test('someone outside the admin and editor groups becomes a viewer and cannot consent', async () => {
    upstream.state.signedIn = 'u-1002';
    const config = await registerClient(s);
    const { after } = await viaUpstream(config);
    assert.equal(after.status, 0);
    assert.equal(new URL(after.url).searchParams.get('error'), 'access_denied');
    assert.equal(new AccountFile(s.dataDir).read().find((a) => a.name === 'victor')!.role, 'viewer');
  });

  test('a forged or replayed state at the callback is refused', async () => {
    const res = await fetch(`${originOf(s)}/oauth/upstream/callback?code=abc&state=forged`);
    assert.equal(res.status, 401);
    assert.match(await res.text(), /unknown or has expired/);
  });
});
