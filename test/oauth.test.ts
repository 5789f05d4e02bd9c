import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { AccountFile } from '../src/auth/accounts.ts';
import { disableAccount } from '../src/cli/accounts.ts';
import { addAccount, authorizationRequest, authorize, originOf, REDIRECT_URI, registerClient, signIn } from './helpers/oauth.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { createVersion, startTestServer, waitForStatus, type TestServer } from './helpers/server.ts';

describe('OAuth sign-in', () => {
  let s: TestServer;
  let editor: { name: string; password: string };

  before(async () => {
    s = await startTestServer();
    editor = await addAccount(s, 'edna', 'editor');
    await createVersion(s, 'draft-only');
  });
  after(() => s.close());

  test('authorization server metadata names S256 PKCE, registration and revocation', async () => {
    const res = await fetch(`${originOf(s)}/.well-known/oauth-authorization-server`);
    assert.equal(res.status, 200);
    const meta = await res.json();
    assert.equal(meta.issuer, originOf(s));
    assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(meta.response_types_supported, ['code'], 'OAuth 2.1: no implicit or hybrid flows');
    assert.ok(!meta.grant_types_supported.includes('implicit'));
    assert.equal(meta.registration_endpoint, `${originOf(s)}/oauth/register`);
    assert.equal(meta.revocation_endpoint, `${originOf(s)}/oauth/revoke`);
    assert.equal(meta.authorization_endpoint, `${originOf(s)}/oauth/authorize`);
    assert.equal(meta.token_endpoint, `${originOf(s)}/oauth/token`);
    assert.ok(meta.scopes_supported.includes('help:write'));
    // Every endpoint it names is one the service answers, below /oauth.
    assert.equal(meta.pushed_authorization_request_endpoint, `${originOf(s)}/oauth/par`);
    for (const [name, url] of Object.entries(meta)) {
      if (name.endsWith('_endpoint') || name === 'jwks_uri') assert.match(String(url), new RegExp(`^${originOf(s)}/oauth/`), name);
    }
  });

  test('behind a proxy that ends TLS, with HELP_PUBLIC_URL set, the metadata names the endpoints below it, https', async () => {
    const behind = await startTestServer({ env: { HELP_PUBLIC_URL: 'https://help.example.com' } });
    try {
      // The proxy forwards plain http, with the public host or its own: the service trusts neither.
      for (const host of [undefined, 'help.example.com']) {
        const res = await fetch(`${originOf(behind)}/.well-known/oauth-authorization-server`, { headers: host ? { 'x-forwarded-host': host, 'x-forwarded-proto': 'http' } : {} });
        const meta = await res.json();
        assert.equal(meta.issuer, 'https://help.example.com');
        for (const name of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'jwks_uri', 'pushed_authorization_request_endpoint']) {
          assert.match(meta[name], /^https:\/\/help\.example\.com\/oauth\//, `${name}: ${meta[name]}`);
        }
      }
    } finally {
      await behind.close();
    }
  });

  test('a pushed authorization request (RFC 9126) signs in like a plain one', async () => {
    const config = await registerClient(s);
    // The authorization URL carries only the client and the request_uri the push answered.
    const { url } = await authorizationRequest(s, config, { pushed: true });
    assert.deepEqual([...url.searchParams.keys()].sort(), ['client_id', 'request_uri']);
    const auth = await authorize(s, config, editor, { pushed: true });
    assert.equal(auth.pages.length, 2, 'a login page, then a consent page');
    const resource = `${originOf(s)}/help/v1`;
    const tokens = await oidc.authorizationCodeGrant(config, auth.callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    const who = await s.request('GET', '/whoami', { key: tokens.access_token });
    assert.equal(who.status, 200, who.text);
    assert.equal(who.body.accountName, 'edna');
  });

  test('sign-in with PKCE through the login and consent pages gives a token the API accepts', async () => {
    const config = await registerClient(s);
    const { tokens, pages } = await signIn(s, config, editor);
    assert.equal(pages.length, 2, 'a login page, then a consent page');
    assert.match(pages[1].html, /Test tool/);
    assert.match(pages[1].html, /127\.0\.0\.1:8765/);
    assert.match(pages[1].html, /help:write/);
    const who = await s.request('GET', '/whoami', { key: tokens.access_token });
    assert.equal(who.status, 200, who.text + JSON.stringify([...who.headers]));
    assert.equal(who.body.kind, 'oauth');
    assert.equal(who.body.accountName, 'edna');
    assert.deepEqual(who.body.scopes, ['help:read', 'help:write']);
    const draft = await s.request('GET', '/versions/draft-only/tree', { key: tokens.access_token });
    assert.equal(draft.status, 200);
    const write = await s.request('POST', '/versions', { key: tokens.access_token, body: { slug: 'by-oauth' } });
    assert.equal(write.status, 200, write.text);
    assert.match(s.git('log', '-1', '--format=%an'), /edna/);
    assert.ok(tokens.refresh_token, 'a refresh token without offline_access');
  });
});

describe('OAuth: what is refused', () => {
  let s: TestServer;
  let editor: { name: string; password: string };
  let config: oidc.Configuration;

  before(async () => {
    s = await startTestServer({ env: { HELP_RATE_LIMIT_LOGIN: '3' } });
    editor = await addAccount(s, 'edna', 'editor');
    config = await registerClient(s);
  });
  after(() => s.close());

  const errorOf = (auth: { callback: URL; pages: { html: string }[] }) => auth.callback.searchParams.get('error') ?? auth.pages.at(-1)?.html ?? '';

  test('an authorization request without PKCE, or with plain PKCE, is refused', async () => {
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'help:read', state: 'x' });
    const none = await fetch(url, { redirect: 'manual' });
    assert.equal(none.status, 303);
    const to = new URL(none.headers.get('location')!);
    assert.equal(to.origin + to.pathname, REDIRECT_URI);
    assert.equal(to.searchParams.get('error'), 'invalid_request');
    assert.match(to.searchParams.get('error_description')!, /PKCE/);
    const plain = await authorize(s, config, editor, { params: { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' } });
    assert.equal(plain.callback.searchParams.get('error'), 'invalid_request');
  });

  test('a wrong redirect URI is refused on the service\'s own page, never redirected to', async () => {
    const res = await fetch(oidc.buildAuthorizationUrl(config, { redirect_uri: 'http://127.0.0.1:8765/elsewhere', scope: 'help:read', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }), { redirect: 'manual' });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /redirect_uri/);
    // The error page cannot be framed, sniffed or made to load anything, as the sign-in pages.
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'.*frame-ancestors 'none'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  });

  test('a wrong verifier and a reused code are refused; the reuse revokes what the code gave', async () => {
    const auth = await authorize(s, config, editor);
    await assert.rejects(
      oidc.authorizationCodeGrant(config, auth.callback, { pkceCodeVerifier: oidc.randomPKCECodeVerifier(), expectedState: auth.state }),
      (err: { error?: string }) => err.error === 'invalid_grant',
    );
    const again = await authorize(s, config, editor);
    const tokens = await oidc.authorizationCodeGrant(config, again.callback, { pkceCodeVerifier: again.verifier, expectedState: again.state });
    assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).status, 200);
    await assert.rejects(
      oidc.authorizationCodeGrant(config, again.callback, { pkceCodeVerifier: again.verifier, expectedState: again.state }),
      (err: { error?: string }) => err.error === 'invalid_grant',
    );
    assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).status, 401, 'a replayed code revokes the tokens issued for it');
  });

  test('a forged state is caught by the client', async () => {
    const auth = await authorize(s, config, editor);
    await assert.rejects(
      oidc.authorizationCodeGrant(config, auth.callback, { pkceCodeVerifier: auth.verifier, expectedState: 'forged' }),
      (err: Error & { cause?: { message?: string } }) => /state/.test(`${err.message} ${err.cause?.message ?? ''}`),
    );
  });

  test('a form without its token, or posted from another site, is refused', async () => {
    const auth = await authorize(s, config, { name: 'nobody', password: 'x' }, {});
    const login = auth.pages[0];
    assert.match(login.html, /autocomplete="username"/);
    assert.match(login.html, /autocomplete="current-password"/);
    const forged = await auth.browser.submit(login, '/login', { username: editor.name, password: editor.password, csrf: 'forged' });
    assert.equal(forged.status, 401);
    assert.match(forged.html, /not from this sign-in/);
    const crossSite = await auth.browser.submit(login, '/login', { username: editor.name, password: editor.password }, { origin: 'https://evil.example' });
    assert.equal(crossSite.status, 401);
    assert.match(crossSite.html, /another site/);
    assert.match(login.headers.get('content-security-policy')!, /default-src 'none'/);
    assert.match(login.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
  });

  test('a viewer cannot give consent: the client gets access_denied', async () => {
    const viewer = await addAccount(s, 'vera', 'viewer');
    const auth = await authorize(s, config, viewer);
    assert.equal(auth.callback.searchParams.get('error'), 'access_denied', errorOf(auth));
    assert.equal(auth.pages.filter((p) => p.html.includes('name="decision"')).length, 0, 'no consent page is shown');
  });

  test('denying consent gives access_denied', async () => {
    const auth = await authorize(s, config, editor, { decision: 'deny' });
    assert.equal(auth.callback.searchParams.get('error'), 'access_denied');
  });

  test('sign-in attempts are limited per account: 429 with Retry-After', async () => {
    const target = await addAccount(s, 'target', 'editor');
    let last = null as null | { status: number; headers: Headers; html: string };
    for (let i = 0; i < 4; i++) {
      const auth = await authorize(s, config, { name: target.name, password: 'wrong-password-0' });
      last = auth.pages.at(-1)!;
    }
    assert.equal(last!.status, 429);
    assert.ok(Number(last!.headers.get('retry-after')) > 0);
    // Even the right password waits now.
    const right = await authorize(s, config, target);
    assert.equal(right.pages.at(-1)!.status, 429);
  });
});

describe('OAuth: tokens over time', () => {
  let s: TestServer;
  let editor: { name: string; password: string };
  let config: oidc.Configuration;

  before(async () => {
    s = await startTestServer({ env: { HELP_OAUTH_ACCESS_TOKEN_TTL: '60' } });
    editor = await addAccount(s, 'edna', 'editor');
    config = await registerClient(s);
  });
  after(() => s.close());

  test('a refresh rotates the refresh token; reusing the old one revokes the whole grant', async () => {
    const { tokens } = await signIn(s, config, editor);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    assert.equal((await s.request('GET', '/whoami', { key: refreshed.access_token })).status, 200);
    await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!), (err: { error?: string }) => err.error === 'invalid_grant');
    assert.equal((await s.request('GET', '/whoami', { key: refreshed.access_token })).status, 401, 'the reuse revoked the grant');
    await assert.rejects(oidc.refreshTokenGrant(config, refreshed.refresh_token!), (err: { error?: string }) => err.error === 'invalid_grant');
  });

  test('revocation (RFC 7009) of a refresh token ends the grant', async () => {
    const { tokens } = await signIn(s, config, editor);
    await oidc.tokenRevocation(config, tokens.refresh_token!);
    assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).status, 401);
    await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!));
  });

  test('a token for the tool endpoint is refused by the API (audience)', async () => {
    const { tokens } = await signIn(s, config, editor, `${originOf(s)}/mcp`);
    const res = await s.request('GET', '/whoami', { key: tokens.access_token });
    assert.equal(res.status, 401);
    assert.match(res.body.error.message, /issued for .*\/mcp/);
    assert.match(res.headers.get('www-authenticate')!, /error="invalid_token"/);
  });

  test('an unknown resource is refused at the token endpoint', async () => {
    const auth = await authorize(s, config, editor, { params: { resource: 'https://elsewhere.example/api' } });
    assert.equal(auth.callback.searchParams.get('error'), 'invalid_target');
  });

  test('disabling the account stops its tokens and its refresh tokens at once', async () => {
    const temp = await addAccount(s, 'temp', 'editor');
    const { tokens } = await signIn(s, config, temp);
    assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).status, 200);
    await disableAccount(new AccountFile(s.dataDir), { name: 'temp' });
    const res = await s.request('GET', '/whoami', { key: tokens.access_token });
    assert.equal(res.status, 401);
    assert.match(res.body.error.message, /disabled/);
    await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!), (err: { error?: string }) => err.error === 'invalid_grant');
  });

  test('clients, grants and refresh tokens survive a restart', async () => {
    const { tokens } = await signIn(s, config, editor);
    s = await s.restart({ samePort: true });
    assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).status, 200, 'the access token still works');
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.equal((await s.request('GET', '/whoami', { key: refreshed.access_token })).status, 200);
  });
});

describe('OAuth: scopes, metadata and limits', () => {
  let s: TestServer;
  let editor: { name: string; password: string };
  let config: oidc.Configuration;

  before(async () => {
    s = await startTestServer({ env: { HELP_OAUTH_ACCESS_TOKEN_TTL: '1', HELP_RATE_LIMIT_TOKEN: '40' } });
    editor = await addAccount(s, 'edna', 'editor');
    config = await registerClient(s);
  });
  after(() => s.close());

  test('protected-resource metadata (RFC 9728) for the API, the tool endpoint and the root', async () => {
    const origin = originOf(s);
    for (const [path, resource] of [['/help/v1', `${origin}/help/v1`], ['/mcp', `${origin}/mcp`], ['', `${origin}/help/v1`]]) {
      const res = await fetch(`${origin}/.well-known/oauth-protected-resource${path}`);
      assert.equal(res.status, 200, path);
      const doc = await res.json();
      assert.equal(doc.resource, resource);
      assert.deepEqual(doc.authorization_servers, [origin]);
      assert.deepEqual(doc.scopes_supported, ['help:read', 'help:write']);
      assert.deepEqual(doc.bearer_methods_supported, ['header']);
    }
    assert.equal((await fetch(`${origin}/.well-known/oauth-protected-resource/elsewhere`)).status, 404);
  });

  test('an anonymous write answers 401 with the challenge that starts sign-in', async () => {
    const res = await s.request('POST', '/versions', { key: null, body: { slug: 'anon' } });
    assert.equal(res.status, 401);
    const header = res.headers.get('www-authenticate')!;
    assert.match(header, /^Bearer /);
    assert.match(header, new RegExp(`resource_metadata="${originOf(s)}/.well-known/oauth-protected-resource/help/v1"`));
    assert.match(header, /scope="help:read help:write"/);
  });

  test('a token granted only help:read reads drafts but gets 403 insufficient_scope on writes', async () => {
    const auth = await authorize(s, config, editor, { params: { scope: 'help:read' } });
    const tokens = await oidc.authorizationCodeGrant(config, auth.callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state });
    assert.ok(auth.pages.some((p) => p.html.includes('help:read') && !p.html.includes('<code>help:write</code>')), 'the consent page names only the scope asked');
    const who = await s.request('GET', '/whoami', { key: tokens.access_token });
    assert.deepEqual(who.body.scopes, ['help:read']);
    const write = await s.request('POST', '/versions', { key: tokens.access_token, body: { slug: 'nope' } });
    assert.equal(write.status, 403);
    assert.equal(write.body.error.code, 'insufficient_scope');
    assert.match(write.headers.get('www-authenticate')!, /error="insufficient_scope"/);
  });

  test('an expired access token is a 401, not anonymous', async () => {
    const { tokens } = await signIn(s, config, editor);
    assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).status, 200);
    await new Promise((r) => setTimeout(r, 2100));
    const res = await s.request('GET', '/versions', { key: tokens.access_token });
    assert.equal(res.status, 401);
    assert.match(res.body.error.message, /expired/);
  });

  test('a native client redirecting to a loopback address may use any port; others must match exactly', async () => {
    const native = await registerClient(s);
    const other = await authorize(s, native, editor, { params: { redirect_uri: 'http://127.0.0.1:40123/callback' } });
    assert.equal(other.callback.origin, 'http://127.0.0.1:40123');
    assert.ok(other.callback.searchParams.get('code'));
    const web = await registerClient(s, { redirect_uris: ['https://app.example.com/cb'] });
    const res = await fetch(oidc.buildAuthorizationUrl(web, { redirect_uri: 'https://app.example.com:8443/cb', scope: 'help:read', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }), { redirect: 'manual' });
    assert.equal(res.status, 400);
  });

  test('a registration whose redirect URIs are not a list of strings is refused as such, never a server error', async () => {
    for (const redirect_uris of ['x', 'http://127.0.0.1:9/cb', [null], ['http://127.0.0.1/cb', 5], 7, { a: 1 }]) {
      const res = await fetch(`${originOf(s)}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris }) });
      const body = (await res.json()) as { error?: string; error_description?: string };
      assert.equal(res.status, 400, `${JSON.stringify(redirect_uris)}: ${JSON.stringify(body)}`);
      assert.equal(body.error, 'invalid_redirect_uri', JSON.stringify(body));
    }
  });

  test('the token endpoint is rate limited per address: 429 with Retry-After', async () => {
    let res: Response | null = null;
    for (let i = 0; i < 45; i++) {
      res = await fetch(`${originOf(s)}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=nothing&client_id=x' });
      if (res.status === 429) break;
    }
    assert.equal(res!.status, 429);
    assert.ok(Number(res!.headers.get('retry-after')) > 0);
    // OAuth's error shape, as the endpoint's other errors: a client's OAuth library reads it.
    assert.deepEqual(await res!.json(), { error: 'temporarily_unavailable', error_description: `Too many token requests from this address; retry in ${res!.headers.get('retry-after')} seconds` });
  });
});

describe('OAuth tokens and the lock on published versions', () => {
  let gh: FakeGitHub;
  const start = (adminPublishes: string) =>
    startTestServer({ env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url, HELP_OAUTH_ADMIN_PUBLISHES: adminPublishes } });
  before(async () => {
    gh = await new FakeGitHub().start();
  });
  after(() => gh.stop());

  test('with HELP_OAUTH_ADMIN_PUBLISHES on, an admin\'s token may write published versions; an editor\'s may not', async () => {
    const s = await start('on');
    try {
      const publisher = await s.createKey({ name: 'pub', publisher: true });
      await waitForStatus(s, publisher, 200);
      assert.equal((await s.request('POST', '/versions', { key: publisher, body: { slug: 'live', status: 'published' } })).status, 200);
      const config = await registerClient(s);
      const admin = (await signIn(s, config, await addAccount(s, 'alma', 'admin'))).tokens.access_token;
      const editor = (await signIn(s, config, await addAccount(s, 'edna', 'editor'))).tokens.access_token;
      const adminWho = await s.request('GET', '/whoami', { key: admin });
      assert.equal(adminWho.body.canWritePublished, true);
      assert.equal(adminWho.body.publishViaPr, true);
      assert.equal((await s.request('GET', '/whoami', { key: editor })).body.canWritePublished, false);
      const denied = await s.request('PATCH', '/versions/live', { key: editor, body: { label: 'By editor' } });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'published_read_only');
      const allowed = await s.request('PATCH', '/versions/live', { key: admin, body: { label: 'By admin' } });
      assert.equal(allowed.status, 200, allowed.text);
      assert.match(s.git('log', '-1', '--format=%an'), /alma/);
    } finally {
      await s.close();
    }
  });

  test('by default no OAuth token writes published versions, an admin\'s included', async () => {
    const s = await start('off');
    try {
      const config = await registerClient(s);
      const admin = (await signIn(s, config, await addAccount(s, 'alma', 'admin'))).tokens.access_token;
      assert.equal((await s.request('GET', '/whoami', { key: admin })).body.canWritePublished, false);
    } finally {
      await s.close();
    }
  });
});
