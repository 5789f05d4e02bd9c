import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { AccountFile, hashPassword, type Account } from '../../src/auth/accounts.ts';
import { createAccount, disableAccount, setRole } from '../../src/cli/accounts.ts';
import { Browser, type Page } from '../helpers/browser.ts';
import { addAccount, authorizationRequest, authorize, originOf, registerClient, signIn } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startUpstreamIdp, UPSTREAM_CLIENT_ID, UPSTREAM_CLIENT_SECRET, type UpstreamIdp, type UpstreamPeople } from '../helpers/upstream-idp.ts';

const resourceOf = (s: TestServer) => `${originOf(s)}/help/v1`;

/** A GET with a Host header fetch() would not send: straight over node:http. */
function getWithHost(s: TestServer, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: new URL(s.url).port, path, headers: { host }, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end();
  });
}

/** What a sign-in page must be: our policy with a nonce, no script, nothing from another site. */
function assertOurPage(page: Page, what: string) {
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/, `${what}: ${csp}`);
  assert.match(csp, /style-src 'nonce-[A-Za-z0-9_-]{16,}'/, what);
  assert.match(csp, /frame-ancestors 'none'/, what);
  assert.doesNotMatch(csp, /script-src/, `${what}: no script is allowed`);
  assert.doesNotMatch(page.html, /<script|@import|https?:\/\/(?!127\.0\.0\.1)/i, `${what}: no script, nothing fetched from elsewhere`);
  assert.equal(page.headers.get('cache-control'), 'no-store', what);
}

/** Waits past the current second: role changes are compared with tokens' issue times, which are whole seconds. */
const nextSecond = () => new Promise((r) => setTimeout(r, 1010 - (Date.now() % 1000)));

/** Refreshes, answering the OAuth error code when refused (or 'ok'). */
async function refresh(s: TestServer, config: oidc.Configuration, refreshToken: string): Promise<string> {
  try {
    await oidc.refreshTokenGrant(config, refreshToken, { resource: resourceOf(s) });
    return 'ok';
  } catch (err) {
    return String((err as { error?: string }).error ?? (err as Error).message);
  }
}

/** The live grants of an account, replayed from the authorization server's journal. */
function liveGrants(s: TestServer, account: string): string[] {
  const live = new Map<string, { accountId?: string }>();
  for (const line of readFileSync(join(s.dataDir, 'oauth', 'journal.jsonl'), 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { op: string; key: string; payload?: { accountId?: string } };
    if (!entry.key.startsWith('Grant:')) continue;
    if (entry.op === 'del') live.delete(entry.key);
    else live.set(entry.key, entry.payload ?? {});
  }
  return [...live].filter(([, p]) => p.accountId === account).map(([k]) => k);
}

describe('Sign-in: guesses at once', () => {
  let s: TestServer;

  before(async () => {
    // Five attempts per account in the window, fifteen per address (every request here comes from one).
    s = await startTestServer({ env: { HELP_RATE_LIMIT_LOGIN: '5' } });
  });
  after(() => s.close());

  test('guesses sent at once for one account: only the limit\'s number are checked; successes do not use it up', async () => {
    const target = await addAccount(s, 'target', 'editor');
    const config = await registerClient(s);
    // Right passwords, more of them than the limit: a success hands its attempt back.
    for (let i = 0; i < 6; i++) {
      const auth = await authorize(s, config, target, { decision: 'deny' });
      assert.equal(auth.pages[0].status, 200, `sign-in ${i + 1}`);
      assert.match(auth.pages[1].html, /name="decision"/, `sign-in ${i + 1} reached the consent page`);
    }
    // Eight wrong guesses at the same moment, the account's name in either case.
    const { url } = await authorizationRequest(s, config);
    const browser = new Browser(originOf(s));
    const login = await browser.open(url.href);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => browser.submit(login, '/login', { username: i % 2 ? 'TARGET' : 'target', password: `wrong-guess-${i}-0000` })));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [...Array(5).fill(401), ...Array(3).fill(429)], 'five guesses checked (the limit), the rest refused unchecked');
    // The address has one attempt left: the account's limit is what refuses the right password now.
    const right = await browser.submit(login, '/login', { username: target.name, password: target.password });
    assert.equal(right.status, 429, 'the right password waits too');
    assert.ok(Number(right.headers.get('retry-after')) > 0);
  });
});

describe('Sign-in: stale sessions, sign-out, consent', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('a browser whose session belongs to an account disabled since is asked to sign in again, not answered 500', async () => {
    const stale = await addAccount(s, 'stale', 'editor');
    const other = await addAccount(s, 'other', 'editor');
    const config = await registerClient(s);
    const first = await authorize(s, config, stale);
    assert.equal(first.callback.searchParams.get('error'), null);
    await disableAccount(new AccountFile(s.dataDir), { name: 'stale' });
    const { url } = await authorizationRequest(s, config);
    const page = await first.browser.open(url.href);
    assert.equal(page.status, 200, page.html.slice(0, 500));
    assert.match(page.html, /name="password"/, 'the login page');
    // Another person can sign in in that browser.
    const next = await first.browser.submit(page, '/login', { username: other.name, password: other.password });
    assert.match(next.html, /name="decision"/);
    assert.match(next.html, /other/);
  });

  test('sign-out with a Host that makes no URL is a 400, not a server error', async () => {
    // Hosts that make no URL on every Node.js line (xn--a makes one on some, and is then a host like another).
    for (const host of ['999.0.0.1', '1.2.3.4.5']) {
      for (const path of ['/oauth/logout', '/oauth/logout/confirm', '/oauth/logout/success']) {
        const res = await getWithHost(s, path, host);
        assert.equal(res.status, 400, `${path} with Host ${host}: ${res.body.slice(0, 300)}`);
      }
    }
  });

  test('the sign-out pages are ours: strict policy, no script, nothing from elsewhere, a button that signs out', async () => {
    const account = await addAccount(s, 'leaving', 'editor');
    const config = await registerClient(s);
    const auth = await authorize(s, config, account);
    const question = await auth.browser.open(`${originOf(s)}/oauth/logout`);
    assert.equal(question.status, 200);
    assertOurPage(question, 'the sign-out question');
    assert.match(question.html, /<button type="submit" class="primary" name="logout" value="yes">Sign out<\/button>/);
    const done = await auth.browser.submit(question, '/oauth/logout/confirm', { logout: 'yes' });
    assert.equal(done.status, 200);
    assert.match(done.url, /\/oauth\/logout\/success$/);
    assertOurPage(done, 'the signed-out page');
    assert.match(done.html, /Signed out/);
    // Signed out: the next authorization asks for the password again.
    const { url } = await authorizationRequest(s, config);
    assert.match((await auth.browser.open(url.href)).html, /name="password"/);
    // Nobody signed in: a page with a button, where the library submitted a form by script.
    const nobody = new Browser(originOf(s));
    const empty = await nobody.open(`${originOf(s)}/oauth/logout`);
    assert.equal(empty.status, 200);
    assertOurPage(empty, 'the sign-out page for nobody');
    assert.match(empty.html, /<button type="submit" class="primary">Continue<\/button>/);
    const after = await nobody.submit(empty, '/oauth/logout/confirm', {});
    assert.equal(after.status, 200);
    assertOurPage(after, 'the signed-out page');
  });

  test('the consent page lists exactly what the token will carry, in words', async () => {
    const account = await addAccount(s, 'reader', 'editor');
    const config = await registerClient(s);
    const narrow = await authorize(s, config, account, { params: { scope: 'profile' }, decision: 'deny' });
    const consent = narrow.pages[1].html;
    assert.doesNotMatch(consent, /help:read|help:write/, 'none of the help scopes were asked for');
    assert.match(consent, /No access to help content/);
    assert.match(consent, /See your account name <span class="muted">\(<code>profile<\/code>\)/);
    // And the token is indeed without them.
    const { tokens } = await signInWith(s, config, account, 'profile');
    assert.equal(tokens.scope ?? '', '');
    const write = await s.request('POST', '/versions', { key: tokens.access_token, body: { slug: 'nope', label: 'Nope', languages: ['en'] } });
    assert.equal(write.status, 403);

    const wide = await authorize(s, config, account, { params: { scope: 'openid profile offline_access help:read email' }, decision: 'deny' });
    const items = [...wide.pages[1].html.matchAll(/<li>([^<]+) <span class="muted">\(<code>([^<]+)<\/code>\)<\/span><\/li>/g)].map((m) => m[2]);
    assert.deepEqual(items, ['openid', 'profile', 'offline_access', 'help:read'], 'what the token carries; an unknown scope is not granted, so not listed');
    assert.match(wide.pages[1].html, /Confirm to the application which account you signed in with/);
    assert.match(wide.pages[1].html, /renews it without asking you again/);
    assert.doesNotMatch(wide.pages[1].html, /help:write|No access to help content/);
  });
});

/** Sign-in with a scope of the test's choosing, through consent, to tokens. */
async function signInWith(s: TestServer, config: oidc.Configuration, account: { name: string; password: string }, scope: string) {
  const auth = await authorize(s, config, account, { params: { scope } });
  const tokens = await oidc.authorizationCodeGrant(config, auth.callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource: resourceOf(s) });
  return { ...auth, tokens };
}

describe('Sign-in: a role change ends what the account granted', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('demoted to viewer, the refresh token stops working; promoted again, the old grant needs consent again', async () => {
    const account = await addAccount(s, 'flip', 'editor');
    const config = await registerClient(s);
    const first = await signIn(s, config, account);
    assert.equal(await refresh(s, config, first.tokens.refresh_token!), 'ok');
    const { tokens } = await signIn(s, config, account);
    const grantsBefore = liveGrants(s, 'flip');
    assert.ok(grantsBefore.length > 0);

    await setRole(new AccountFile(s.dataDir), { name: 'flip', role: 'viewer' });
    assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).status, 401);
    assert.equal(await refresh(s, config, tokens.refresh_token!), 'invalid_grant');
    // The running server revoked the grants once it saw the change.
    for (let i = 0; liveGrants(s, 'flip').length > 0 && i < 40; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(liveGrants(s, 'flip'), []);

    await setRole(new AccountFile(s.dataDir), { name: 'flip', role: 'editor' });
    assert.equal(await refresh(s, config, tokens.refresh_token!), 'invalid_grant');
    assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).status, 401);
    // The browser is still signed in; its old grant is gone, so consent is asked again.
    const { url } = await authorizationRequest(s, config);
    const again = await first.browser.open(url.href);
    assert.match(again.html, /name="decision"/, 'the consent page, not a code straight away');
  });

  test('a role changed while the server was down ends the grants and tokens issued before', async () => {
    const account = await addAccount(s, 'offline', 'editor');
    const config = await registerClient(s);
    const { tokens, browser } = await signIn(s, config, account);
    const port = Number(new URL(s.url).port);
    await s.service.close();
    await nextSecond();
    // Promoted: still a role that may use clients, yet what it granted as an editor ends.
    await setRole(new AccountFile(s.dataDir), { name: 'offline', role: 'admin' });
    s = await startTestServer({ dataDir: s.dataDir, port });
    assert.equal(await refresh(s, config, tokens.refresh_token!), 'invalid_grant');
    const who = await s.request('GET', '/whoami', { key: tokens.access_token });
    assert.equal(who.status, 401, who.text);
    const { url } = await authorizationRequest(s, config);
    assert.match((await browser.open(url.href)).html, /name="decision"/, 'consent is asked again');
    // What is granted after the change works.
    const fresh = await signIn(s, config, account);
    assert.equal((await s.request('GET', '/whoami', { key: fresh.tokens.access_token })).body.role, 'admin');
    assert.equal(await refresh(s, config, fresh.tokens.refresh_token!), 'ok');
  });
});

describe('Accounts: passwords and names', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('a password of only white space, or with control characters, is refused with a clear message; nothing is written', async () => {
    const file = new AccountFile(s.dataDir);
    const cases: Array<[string, RegExp]> = [
      [' '.repeat(12), /only spaces or other white space/],
      ['\t \u00a0\u3000'.repeat(4), /only spaces or other white space/],
      ['correct horse battery\u0007', /control characters/],
      ['correct horse\nbattery staple', /control characters/],
    ];
    for (const [password, message] of cases) {
      await assert.rejects(createAccount(file, { name: 'blank', role: 'editor', password }), message, JSON.stringify(password));
    }
    assert.equal(file.read().find((a) => a.name === 'blank'), undefined);
    // Spaces inside a password are fine.
    await createAccount(file, { name: 'spaced', role: 'editor', password: ' correct horse battery ' });
  });

  test('a name that differs from an existing one only in case is refused; a file that already holds such a pair still loads', async () => {
    const file = new AccountFile(s.dataDir);
    await addAccount(s, 'ed', 'editor');
    await assert.rejects(createAccount(file, { name: 'Ed', role: 'editor', password: 'a good long password' }), /"ed" exists, which differs from "Ed" only in case/);
    // Written before names were compared without case.
    const now = new Date().toISOString();
    const duplicate: Account = { name: 'ED', role: 'editor', password: await hashPassword('the other ED password'), upstream: null, disabled: false, createdAt: now, updatedAt: now };
    const doc = JSON.parse(readFileSync(file.path, 'utf8')) as { accounts: Account[] };
    writeFileSync(file.path, JSON.stringify({ accounts: [...doc.accounts, duplicate] }));
    const config = await registerClient(s);
    for (const who of [{ name: 'ed', password: 'ed-password-123' }, { name: 'ED', password: 'the other ED password' }]) {
      const { tokens } = await signIn(s, config, who);
      assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).body.accountName, who.name);
    }
  });
});

/** People at the upstream identity provider. */
const PEOPLE: UpstreamPeople = {
  'u-1': { preferred_username: 'Ursula', groups: ['help-editors'] },
};

describe('Sign-in through an upstream provider: names and errors', () => {
  let s: TestServer;
  let upstream: UpstreamIdp;

  before(async () => {
    // Single sign-on as the organisation has it: whoever asks is u-1, at once.
    upstream = await startUpstreamIdp({ people: PEOPLE, signedIn: 'u-1', redirectUri: () => `${originOf(s)}/oauth/upstream/callback` });
    s = await startTestServer({ env: { HELP_OIDC_ISSUER: upstream.issuer, HELP_OIDC_CLIENT_ID: UPSTREAM_CLIENT_ID, HELP_OIDC_CLIENT_SECRET: UPSTREAM_CLIENT_SECRET, HELP_OIDC_NAME: 'Example SSO', HELP_OIDC_EDITOR_VALUES: 'help-editors' } });
  });
  after(async () => {
    await s.close();
    await upstream.stop();
  });

  test('an upstream person whose name differs from an existing account\'s only in case gets a name of their own', async () => {
    await addAccount(s, 'ursula', 'editor');
    const config = await registerClient(s);
    const { url } = await authorizationRequest(s, config);
    const browser = new Browser(originOf(s), upstream.issuer);
    const login = await browser.open(url.href);
    const link = /<a href="([^"]+)">Sign in with Example SSO<\/a>/.exec(login.html);
    assert.ok(link);
    const consent = await browser.open(new URL(link[1].replace(/&amp;/g, '&'), login.url).href);
    assert.match(consent.html, /name="decision"/);
    const created = new AccountFile(s.dataDir).read().find((a) => a.upstream?.subject === 'u-1');
    assert.equal(created?.name, 'Ursula-2');
    assert.match(consent.html, /Ursula-2/);
  });

  test('a refused callback is a page with the error\'s status, not JSON', async () => {
    const res = await fetch(`${originOf(s)}/oauth/upstream/callback?code=abc&state=forged`, { signal: AbortSignal.timeout(5000) });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const page: Page = { url: res.url, status: res.status, headers: res.headers, html: await res.text() };
    assertOurPage(page, 'the callback\'s refusal');
    assert.match(page.html, /<h1>Sign-in could not continue<\/h1>/);
    assert.match(page.html, /unknown or has expired/);
  });
});
