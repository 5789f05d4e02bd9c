import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Browser } from './helpers/browser.ts';
import { addAccount, originOf } from './helpers/oauth.ts';
import { createVersion, startTestServer, type TestServer } from './helpers/server.ts';

const REDIRECT = 'http://127.0.0.1:8766/oauth/callback';

/**
 * The SDK's OAuth client side, as a desktop MCP client implements it: it keeps what it registered
 * and the tokens, and "opens the browser" on the authorization URL — here a browser that signs in as
 * `account` on our pages, consents, and hands back the code from the redirect.
 */
class SigningInProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  code: string | null = null;
  authorizationUrls: URL[] = [];

  constructor(
    private readonly origin: string,
    private readonly account: { name: string; password: string },
  ) {}

  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Desktop assistant', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    const browser = new Browser(this.origin);
    let page = await browser.open(url.href);
    page = await browser.submit(page, '/login', { username: this.account.name, password: this.account.password });
    page = await browser.submit(page, '/confirm', { decision: 'allow' });
    this.code = new URL(page.url).searchParams.get('code');
  }
}

describe('Tool server with OAuth sign-in (the SDK\'s client and its OAuthClientProvider)', () => {
  let s: TestServer;
  const open: Client[] = [];

  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'guide', { status: 'published' });
  });
  after(async () => {
    await Promise.all(open.map((c) => c.close()));
    await s.close();
  });

  const connect = async (provider: SigningInProvider) => {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', originOf(s)), { authProvider: provider });
    const client = new Client({ name: 'mcp-oauth-test', version: '1.0.0' });
    await client.connect(transport);
    open.push(client);
    return { client, transport };
  };

  test('a write tool makes the client sign in; after consent it writes as the account, with a token only the tool endpoint takes', async () => {
    const account = await addAccount(s, 'edna', 'editor');
    const provider = new SigningInProvider(originOf(s), account);
    const first = await connect(provider);
    // Anonymous until a write: the read tools work without signing in.
    const tools = await first.client.listTools();
    assert.ok(!tools.tools.some((t) => t.name === 'create_node'), 'anonymous: read tools only');
    await assert.rejects(first.client.callTool({ name: 'create_version', arguments: { slug: 'from-assistant' } }), UnauthorizedError);
    assert.equal(provider.authorizationUrls.length, 1, 'the 401 challenge started sign-in');
    const asked = provider.authorizationUrls[0];
    assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(asked.searchParams.get('resource'), `${originOf(s)}/mcp`);
    assert.match(asked.searchParams.get('scope') ?? '', /help:write/);
    assert.ok(provider.code, 'consent sent the browser back with a code');
    await first.transport.finishAuth(provider.code!);
    assert.ok(provider.saved?.access_token);
    assert.ok(provider.saved?.refresh_token);

    const second = await connect(provider);
    const all = await second.client.listTools();
    assert.ok(all.tools.some((t) => t.name === 'create_node'), 'signed in: every tool');
    const created = await second.client.callTool({ name: 'create_version', arguments: { slug: 'from-assistant' } });
    assert.ok(!created.isError, JSON.stringify(created));
    assert.match(s.git('log', '-1', '--format=%an %s'), /edna .*from-assistant/);
    const who = await second.client.callTool({ name: 'whoami', arguments: {} });
    const me = who.structuredContent as { kind: string; accountName: string; audience: string; clientName: string };
    assert.equal(me.kind, 'oauth');
    assert.equal(me.accountName, 'edna');
    assert.equal(me.clientName, 'Desktop assistant');
    assert.equal(me.audience, `${originOf(s)}/mcp`);
    // The same token at the API: wrong audience.
    assert.equal((await s.request('GET', '/whoami', { key: provider.saved!.access_token })).status, 401);
  });

  test('an expired or revoked access token is refreshed by the client, never treated as anonymous', async () => {
    const account = await addAccount(s, 'ray', 'editor');
    const provider = new SigningInProvider(originOf(s), account);
    const first = await connect(provider);
    await assert.rejects(first.client.callTool({ name: 'create_version', arguments: { slug: 'ray-1' } }), UnauthorizedError);
    await first.transport.finishAuth(provider.code!);
    const oldRefresh = provider.saved!.refresh_token;
    // The access token stops working (as when it expires): the client refreshes with its refresh token.
    provider.saved = { ...provider.saved!, access_token: 'no-longer-valid' };
    const second = await connect(provider);
    const created = await second.client.callTool({ name: 'create_version', arguments: { slug: 'ray-2' } });
    assert.ok(!created.isError, JSON.stringify(created));
    assert.notEqual(provider.saved!.refresh_token, oldRefresh, 'the refresh token was rotated');
    assert.equal(provider.authorizationUrls.length, 1, 'no second sign-in');
  });

  test('a viewer\'s sign-in ends in access_denied: the client gets no token', async () => {
    const viewer = await addAccount(s, 'vic', 'viewer');
    const provider = new SigningInProvider(originOf(s), viewer);
    provider.redirectToAuthorization = async (url: URL) => {
      provider.authorizationUrls.push(url);
      const browser = new Browser(originOf(s));
      const page = await browser.submit(await browser.open(url.href), '/login', { username: viewer.name, password: viewer.password });
      assert.equal(new URL(page.url).searchParams.get('error'), 'access_denied');
    };
    const first = await connect(provider);
    await assert.rejects(first.client.callTool({ name: 'create_version', arguments: { slug: 'vic' } }), UnauthorizedError);
    assert.equal(provider.saved, undefined);
  });
});
