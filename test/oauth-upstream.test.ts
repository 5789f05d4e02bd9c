import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { AccountFile } from '../src/auth/accounts.ts';
import { Browser } from './helpers/browser.ts';
import { authorizationRequest, originOf, registerClient } from './helpers/oauth.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { startUpstreamIdp, UPSTREAM_CLIENT_ID, UPSTREAM_CLIENT_SECRET, type UpstreamIdp, type UpstreamPeople } from './helpers/upstream-idp.ts';

/** People at the upstream identity provider, and the groups it says they are in. */
const PEOPLE: UpstreamPeople = {
  'u-1001': { preferred_username: 'ursula', groups: ['staff', 'help-editors'] },
  'u-1002': { preferred_username: 'victor', groups: ['staff'] },
};

describe('Sign-in through an upstream OpenID Connect provider', () => {
  let s: TestServer;
  let upstream: UpstreamIdp;

  before(async () => {
    upstream = await startUpstreamIdp({ people: PEOPLE, signedIn: 'u-1001', redirectUri: () => `${originOf(s)}/oauth/upstream/callback` });
    s = await startTestServer({
      env: {
        HELP_OIDC_ISSUER: upstream.issuer,
        HELP_OIDC_CLIENT_ID: UPSTREAM_CLIENT_ID,
        HELP_OIDC_CLIENT_SECRET: UPSTREAM_CLIENT_SECRET,
        HELP_OIDC_NAME: 'Example SSO',
        HELP_OIDC_EDITOR_VALUES: 'help-editors',
      },
    });
  });
  after(async () => {
    await s.close();
    await upstream.stop();
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
    upstream.signInAs('u-1001');
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
    upstream.signInAs('u-1002');
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
