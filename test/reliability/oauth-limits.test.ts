import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { addAccount, authorizationRequest, originOf, REDIRECT_URI, registerClient, signIn } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The authorization server's limits: what anyone may register or begin anonymously is bounded in
 * rate, in size and in the store's total, and no spelling of an endpoint's path goes round a limit.
 */

const CLIENT = { redirect_uris: [REDIRECT_URI], client_name: 'Limits test', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };

async function register(s: TestServer, metadata: Record<string, unknown> = {}, path = '/oauth/register') {
  const res = await fetch(`${originOf(s)}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...CLIENT, ...metadata }), signal: AbortSignal.timeout(10_000) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

/** A pushed authorization request (RFC 9126), sent as is: the client library takes no 503. */
const push = (s: TestServer, config: oidc.Configuration, params: Record<string, string> = {}) =>
  fetch(`${originOf(s)}/oauth/par`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: config.clientMetadata().client_id, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'help:read', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', ...params }),
    signal: AbortSignal.timeout(10_000),
  });

const journalPath = (s: TestServer) => join(s.dataDir, 'oauth', 'journal.jsonl');
const journalSize = (s: TestServer) => statSync(journalPath(s), { throwIfNoEntry: false })?.size ?? 0;
/** The last line recorded for `key`. */
const lastLine = (s: TestServer, key: string) =>
  readFileSync(journalPath(s), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { key: string; expiresAt: number | null })
    .filter((l) => l.key === key)
    .at(-1)!;

describe('OAuth limits: registration', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_RATE_LIMIT_REGISTER: '3' } });
  });
  after(() => s.close());

  test('registrations are limited per address, whatever the spelling of the path: 429 in OAuth\'s shape with Retry-After', async () => {
    // Each spelling reaches the registration endpoint (the library takes any case and a trailing slash) and counts.
    for (const path of ['/oauth/register', '/oauth/register/', '/oauth/REGISTER']) {
      const res = await register(s, {}, path);
      assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
    }
    for (const path of ['/oauth/register', '/oauth/Register/', '/oauth/register/']) {
      const res = await register(s, {}, path);
      assert.equal(res.status, 429, `${path}: ${JSON.stringify(res.body)}`);
      const wait = Number(res.headers.get('retry-after'));
      assert.ok(wait > 0 && wait <= 3600, `Retry-After ${wait}`);
      assert.equal(res.headers.get('access-control-allow-origin'), '*', 'a browser-based client can read the refusal');
      assert.deepEqual(res.body, { error: 'temporarily_unavailable', error_description: `Too many client registrations from this address; retry in ${wait} seconds` });
    }
  });
});

describe('OAuth limits: the token endpoint\'s limit holds for every spelling of its path', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_RATE_LIMIT_TOKEN: '3' } });
  });
  after(() => s.close());

  test('POST /oauth/token/ and /oauth/TOKEN count and are refused with /oauth/token', async () => {
    const post = (path: string) =>
      fetch(`${originOf(s)}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&code=nothing&client_id=x&code_verifier=y', signal: AbortSignal.timeout(10_000) });
    // The library answers these spellings as its token endpoint (an OAuth error, not a 404).
    for (const path of ['/oauth/token/', '/oauth/TOKEN', '/oauth/token']) {
      const res = await post(path);
      assert.ok(res.status === 400 || res.status === 401, `${path}: ${res.status}`);
      assert.equal(typeof ((await res.json()) as { error?: unknown }).error, 'string');
    }
    for (const path of ['/oauth/token', '/oauth/token/', '/oauth/TOKEN', '/oauth/Token/']) {
      const res = await post(path);
      assert.equal(res.status, 429, path);
      assert.equal(((await res.json()) as { error?: unknown }).error, 'temporarily_unavailable');
    }
  });
});

describe('OAuth limits: what a client may register', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_RATE_LIMIT_REGISTER: '1000' } });
  });
  after(() => s.close());

  test('a long name, a name with control or bidirectional characters, too many or too long URIs are refused, naming the field', async () => {
    const refused: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ client_name: 'n'.repeat(101) }, 'invalid_client_metadata', /^client_name .*100 characters/],
      [{ client_name: 'x'.repeat(55_000) }, 'invalid_client_metadata', /^client_name /],
      [{ client_name: 'Docs \u202eloot.exe' }, 'invalid_client_metadata', /^client_name .*bidirectional/],
      [{ client_name: 'Docs\nAdmin' }, 'invalid_client_metadata', /^client_name .*control/],
      [{ client_name: 'Docs\u2067Admin' }, 'invalid_client_metadata', /^client_name /],
      [{ redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${9000 + i}/cb`) }, 'invalid_redirect_uri', /^redirect_uris .*at most 10/],
      [{ redirect_uris: [`https://app.example.com/${'a'.repeat(2100)}`] }, 'invalid_redirect_uri', /^redirect_uris .*2048/],
      [{ logo_uri: `https://app.example.com/${'a'.repeat(2100)}` }, 'invalid_client_metadata', /^logo_uri .*2048/],
      [{ post_logout_redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example.com/${i}`) }, 'invalid_client_metadata', /^post_logout_redirect_uris .*at most 10/],
    ];
    const before = journalSize(s);
    for (const [metadata, error, description] of refused) {
      const res = await register(s, metadata);
      assert.equal(res.status, 400, `${JSON.stringify(metadata).slice(0, 80)}: ${JSON.stringify(res.body).slice(0, 200)}`);
      assert.equal(res.body.error, error, JSON.stringify(res.body).slice(0, 200));
      assert.match(res.body.error_description, description);
    }
    assert.equal(journalSize(s), before, 'nothing refused was stored');
    // At the limits: accepted.
    const ok = await register(s, { client_name: `Ünïcode ${'n'.repeat(92)}`, redirect_uris: Array.from({ length: 10 }, (_, i) => `http://127.0.0.1:${9000 + i}/cb`) });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  test('plain-http redirect URIs are refused unless they name a loopback address (OAuth 2.1)', async () => {
    for (const redirect_uris of [['http://app.example.com/cb'], ['https://app.example.com/cb', 'http://app.example.com/cb'], ['http://10.0.0.5:8080/cb']]) {
      const res = await register(s, { redirect_uris });
      assert.equal(res.status, 400, `${redirect_uris}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error, 'invalid_redirect_uri');
      assert.match(res.body.error_description, /^redirect_uris must use https/);
    }
    for (const redirect_uris of [['http://127.0.0.1:8765/cb'], ['http://localhost:8765/cb'], ['http://[::1]:8765/cb'], ['https://app.example.com/cb'], ['https://app.example.com/cb', 'http://127.0.0.1/cb']]) {
      const res = await register(s, { redirect_uris });
      assert.equal(res.status, 201, `${redirect_uris}: ${JSON.stringify(res.body)}`);
    }
  });
});

describe('OAuth limits: authorization requests', () => {
  let s: TestServer;
  let config: oidc.Configuration;
  before(async () => {
    s = await startTestServer();
    config = await registerClient(s);
  });
  after(() => s.close());

  test('a state, nonce or hint beyond its bound is refused with an OAuth error, and nothing is kept', async () => {
    const before = journalSize(s);
    for (const params of <Record<string, string>[]>[{ state: 's'.repeat(513) }, { state: 's'.repeat(15_000) }, { nonce: 'n'.repeat(513), scope: 'openid help:read' }, { login_hint: 'h'.repeat(2049) }]) {
      const { url } = await authorizationRequest(s, config, { params });
      const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
      assert.equal(res.status, 303, `${Object.keys(params)[0]}: ${res.status}`);
      const to = new URL(res.headers.get('location')!);
      assert.equal(to.origin + to.pathname, REDIRECT_URI, 'the client gets the error, as any other');
      assert.equal(to.searchParams.get('error'), 'invalid_request');
      assert.match(to.searchParams.get('error_description')!, new RegExp(`^${Object.keys(params)[0]} must be at most`));
    }
    // Pushed (RFC 9126): refused as such.
    const pushed = await push(s, config, { state: 's'.repeat(15_000) });
    assert.equal(pushed.status, 400);
    assert.equal(((await pushed.json()) as { error?: string }).error, 'invalid_request');
    assert.equal(journalSize(s), before, 'no interaction or pushed request was stored');
    // At the bound: the sign-in begins.
    const { url } = await authorizationRequest(s, config, { params: { state: 's'.repeat(512), nonce: 'n'.repeat(512), scope: 'openid help:read' } });
    const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    assert.equal(res.status, 303);
    assert.match(res.headers.get('location')!, /\/oauth\/interaction\//);
  });
});

describe('OAuth limits: clients expire', () => {
  test('a registered client has a day to obtain a grant; once it has, it lives its idle days from its last use', async () => {
    const s = await startTestServer();
    try {
      const config = await registerClient(s);
      const id = config.clientMetadata().client_id;
      const registered = lastLine(s, `Client:${id}`).expiresAt ?? 0;
      const day = 86_400_000;
      assert.ok(Math.abs(registered - (Date.now() + day)) < 60_000, `expires a day after registration: ${registered}`);
      await signIn(s, config, await addAccount(s, 'edna', 'editor'));
      const used = lastLine(s, `Client:${id}`).expiresAt ?? 0;
      assert.ok(used > Date.now() + 89 * day && used < Date.now() + 92 * day, `90 days after its use: ${used}`);
    } finally {
      await s.close();
    }
  });

  test('with HELP_OAUTH_CLIENT_IDLE_DAYS=0 a client that obtained a grant is kept', async () => {
    const s = await startTestServer({ env: { HELP_OAUTH_CLIENT_IDLE_DAYS: '0' } });
    try {
      const config = await registerClient(s);
      const id = config.clientMetadata().client_id;
      assert.notEqual(lastLine(s, `Client:${id}`).expiresAt, null, 'not before it obtained a grant');
      await signIn(s, config, await addAccount(s, 'edna', 'editor'));
      assert.equal(lastLine(s, `Client:${id}`).expiresAt, null);
    } finally {
      await s.close();
    }
  });
});

describe('OAuth limits: the store\'s size', () => {
  test('at HELP_OAUTH_STORE_MB, new clients and sign-ins are refused (503, Retry-After) while tokens and refreshes go on; then room again', async () => {
    let s = await startTestServer({ env: { HELP_OAUTH_STORE_MB: '1' } });
    try {
      const editor = await addAccount(s, 'edna', 'editor');
      const config = await registerClient(s);
      const { tokens } = await signIn(s, config, editor);
      // Something else fills the store (sign-ins under way, say), until a few seconds from now.
      const fillsUntil = Date.now() + 8000;
      appendFileSync(journalPath(s), `${JSON.stringify({ op: 'set', key: 'Session:filler', payload: { pad: 'x'.repeat(1024 * 1024) }, expiresAt: fillsUntil })}\n`);
      s = await s.restart({ samePort: true });

      const refusedRegistration = await register(s);
      assert.equal(refusedRegistration.status, 503, JSON.stringify(refusedRegistration.body));
      assert.equal(refusedRegistration.body.error, 'temporarily_unavailable');
      assert.match(refusedRegistration.body.error_description, /store is full/);
      const wait = Number(refusedRegistration.headers.get('retry-after'));
      assert.ok(wait >= 1 && wait <= 9, `Retry-After ${wait}: when the filler expires`);
      const { url } = await authorizationRequest(s, config);
      const refusedSignIn = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
      assert.equal(refusedSignIn.status, 503);
      assert.ok(Number(refusedSignIn.headers.get('retry-after')) >= 1);
      // A browser is waiting: a page saying why, under the sign-in pages' policy.
      assert.match(refusedSignIn.headers.get('content-type') ?? '', /text\/html/);
      assert.match(refusedSignIn.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      assert.match(await refusedSignIn.text(), /store is full.*start again from the application/s);
      const pushed = await push(s, config);
      assert.equal(pushed.status, 503, 'a pushed authorization request is refused too');
      assert.equal(((await pushed.json()) as { error?: string }).error, 'temporarily_unavailable');

      // What exists goes on working.
      assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).status, 200);
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      assert.equal((await s.request('GET', '/whoami', { key: refreshed.access_token })).status, 200);

      // Once the filler has expired, there is room again.
      await new Promise((r) => setTimeout(r, Math.max(0, fillsUntil - Date.now()) + 1100));
      const again = await register(s);
      assert.equal(again.status, 201, JSON.stringify(again.body));
    } finally {
      await s.close();
    }
  });
});
