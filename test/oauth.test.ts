import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { addAccount, authorize, originOf, registerClient, signIn } from './helpers/oauth.ts';
import { createVersion, startTestServer, type TestServer } from './helpers/server.ts';

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
    assert.equal(meta.registration_endpoint, `${originOf(s)}/oauth/register`);
    assert.equal(meta.revocation_endpoint, `${originOf(s)}/oauth/revoke`);
    assert.equal(meta.authorization_endpoint, `${originOf(s)}/oauth/authorize`);
    assert.equal(meta.token_endpoint, `${originOf(s)}/oauth/token`);
    assert.ok(meta.scopes_supported.includes('help:write'));
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
