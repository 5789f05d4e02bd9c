import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type * as oidc from 'openid-client';
import { loadConfig } from '../../src/config.ts';
import { ClientAddresses } from '../../src/http/client-address.ts';
import { Browser, type Page } from '../helpers/browser.ts';
import { authorizationRequest, originOf, registerClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The client address `HELP_TRUSTED_PROXIES=setting` gives a request from `peer` carrying `forwarded` (X-Forwarded-For). */
function clientOf(setting: string, peer: string, forwarded?: string | string[]): string {
  const addresses = new ClientAddresses(loadConfig({ HELP_TRUSTED_PROXIES: setting }).trustedProxies);
  const req = { socket: { remoteAddress: peer }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } } as unknown as IncomingMessage;
  return addresses.of(req);
}

describe('ClientAddresses.of', () => {
  test('no trusted proxy: the connection\'s address, whatever X-Forwarded-For says', () => {
    assert.equal(clientOf('', '203.0.113.9', '198.51.100.1'), '203.0.113.9');
    assert.equal(clientOf('', '::ffff:203.0.113.9', '198.51.100.1'), '203.0.113.9', 'an IPv4 peer of a dual-stack socket is its IPv4 address');
    assert.equal(clientOf('', '2001:db8::7'), '2001:db8::7');
  });

  test('a number of hops: the address that many entries from the right, the nearest proxy\'s peer counting as the first', () => {
    // The client wrote an address of its own; the one proxy appended the client's real one.
    assert.equal(clientOf('1', '10.0.0.1', '6.6.6.6, 203.0.113.9'), '203.0.113.9');
    assert.equal(clientOf('2', '10.0.0.1', '6.6.6.6, 203.0.113.9, 10.0.0.2'), '203.0.113.9');
    // Fewer entries than hops: the leftmost there is.
    assert.equal(clientOf('3', '10.0.0.1', '203.0.113.9'), '203.0.113.9');
    // No header at all: the proxy itself.
    assert.equal(clientOf('1', '10.0.0.1'), '10.0.0.1');
    // Several header lines are one list, in order.
    assert.equal(clientOf('1', '10.0.0.1', ['6.6.6.6', '203.0.113.9']), '203.0.113.9');
  });

  test('a list of proxies: from the right, past every trusted address, the first that is not one', () => {
    const trusted = '127.0.0.1,10.0.0.0/8,2001:db8:ffff::/48';
    assert.equal(clientOf(trusted, '127.0.0.1', '203.0.113.9'), '203.0.113.9');
    // The leftmost entries are the client's own words: only what trusted proxies appended counts.
    assert.equal(clientOf(trusted, '127.0.0.1', '1.1.1.1, 6.6.6.6, 203.0.113.9, 10.1.2.3'), '203.0.113.9');
    assert.equal(clientOf(trusted, '::ffff:127.0.0.1', '203.0.113.9, 10.1.2.3'), '203.0.113.9', 'an IPv4-mapped peer is its IPv4 address');
    assert.equal(clientOf(trusted, '2001:db8:ffff::1', '2001:db8:1::5'), '2001:db8:1::5');
    // A peer that is no trusted proxy: its header is ignored.
    assert.equal(clientOf(trusted, '198.51.100.1', '203.0.113.9'), '198.51.100.1');
    assert.equal(clientOf(trusted, '::ffff:198.51.100.1', '203.0.113.9'), '198.51.100.1');
    // Every entry trusted: the leftmost (a client inside the trusted network).
    assert.equal(clientOf(trusted, '127.0.0.1', '10.9.9.9, 10.1.2.3'), '10.9.9.9');
    // A proxy that sent no header: the proxy.
    assert.equal(clientOf(trusted, '127.0.0.1'), '127.0.0.1');
  });

  test('ports and IPv4-mapped forms in X-Forwarded-For are the same address as without', () => {
    const trusted = '127.0.0.1';
    for (const [entry, address] of [
      ['203.0.113.9:51234', '203.0.113.9'],
      ['::ffff:203.0.113.9', '203.0.113.9'],
      ['[::ffff:203.0.113.9]:443', '203.0.113.9'],
      ['[2001:db8::1]:443', '2001:db8::1'],
      ['[2001:db8::1]', '2001:db8::1'],
      [' 2001:db8::1 ', '2001:db8::1'],
    ]) {
      assert.equal(clientOf(trusted, '127.0.0.1', entry), address, entry);
      assert.equal(clientOf('1', '10.0.0.1', entry), address, `${entry} (hops)`);
    }
  });

  test('an entry that is no address ends the walk: what is right of it is kept, nothing left of it is believed', () => {
    const trusted = '127.0.0.1,10.0.0.0/8';
    // Garbage written by the client, left of what the proxy appended.
    for (const junk of ['unknown', 'not an address', '<script>', '203.0.113.9:port', '2001:db8::1:443x', '', '999.1.1.1']) {
      assert.equal(clientOf(trusted, '127.0.0.1', `6.6.6.6, ${junk}, 203.0.113.9`), '203.0.113.9', junk);
    }
    // Garbage as the nearest entry: nothing in the header is believed, the proxy's address stands.
    assert.equal(clientOf(trusted, '127.0.0.1', '6.6.6.6, unknown'), '127.0.0.1');
    assert.equal(clientOf(trusted, '127.0.0.1', '6.6.6.6,'), '127.0.0.1');
    // Past a trusted proxy, garbage: the last address believed.
    assert.equal(clientOf(trusted, '127.0.0.1', 'junk, 10.1.2.3'), '10.1.2.3');
    assert.equal(clientOf('1', '10.0.0.1', 'unknown'), '10.0.0.1');
  });
});

describe('Sign-in limits per address behind a proxy', () => {
  /** One sign-in attempt with a wrong password for an account that does not exist, sent through the "proxy" as `client`. */
  async function attempt(s: TestServer, client: oidc.Configuration, from: string, n: number): Promise<Page> {
    const headers = { 'x-forwarded-for': `6.6.6.6, ${from}` };
    const { url } = await authorizationRequest(s, client);
    const browser = new Browser(originOf(s));
    const login = await browser.open(url.href, { headers });
    assert.equal(login.status, 200, login.html.slice(0, 500));
    return browser.submit(login, '/login', { username: `nobody-${from}-${n}`, password: 'wrong-password' }, headers);
  }

  /** Attempts from `from` until one is refused for the address's limit (at most 10); how many were made. */
  async function exhaust(s: TestServer, client: oidc.Configuration, from: string): Promise<number> {
    for (let n = 1; n <= 10; n++) {
      if ((await attempt(s, client, from, n)).status === 429) return n;
    }
    assert.fail(`10 attempts from ${from} were never refused`);
  }

  describe('with HELP_TRUSTED_PROXIES naming the proxy (127.0.0.1)', () => {
    let s: TestServer;
    let client: oidc.Configuration;
    before(async () => {
      s = await startTestServer({ env: { HELP_TRUSTED_PROXIES: '127.0.0.1', HELP_RATE_LIMIT_LOGIN: '1' } });
      client = await registerClient(s);
    });
    after(() => s.close());

    test('two clients behind it have a limit each: one that used its attempts up does not stop the other', async () => {
      // HELP_RATE_LIMIT_LOGIN=1: three attempts per address, then 429.
      assert.equal(await exhaust(s, client, '203.0.113.1'), 4);
      const other = await attempt(s, client, '203.0.113.2', 1);
      assert.equal(other.status, 401, 'the other client is asked for its password again, not told to wait');
      assert.equal((await attempt(s, client, '203.0.113.1', 5)).status, 429, 'the first one still waits');
    });
  });

  describe('without HELP_TRUSTED_PROXIES', () => {
    let s: TestServer;
    let client: oidc.Configuration;
    before(async () => {
      s = await startTestServer({ env: { HELP_RATE_LIMIT_LOGIN: '1' } });
      client = await registerClient(s);
    });
    after(() => s.close());

    test('X-Forwarded-For is ignored: every "client" is the connection\'s address, and shares its limit', async () => {
      assert.equal(await exhaust(s, client, '203.0.113.1'), 4);
      assert.equal((await attempt(s, client, '203.0.113.2', 1)).status, 429);
    });
  });
});
