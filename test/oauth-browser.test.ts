import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { axeViolations } from './browser/axe.ts';
import { serverAndChromium } from './browser/chromium.ts';
import { addAccount, authorizationRequest, registerClient } from './helpers/oauth.ts';

/** The login and consent pages in a real browser: accessible, keyboard-usable, and a sign-in that ends at the client. */
describe('Sign-in pages in Chromium', () => {
  const env = serverAndChromium();

  test('login and consent pass axe-core, work from the keyboard, run no script, and send the browser back with a code', async () => {
    const { s, browser } = env;
    const account = await addAccount(s, 'edna', 'editor');
    const config = await registerClient(s);
    // The client, as a native app: listening on a loopback port of its choosing (RFC 8252).
    const client = createServer((_req, res) => res.end('back at the client'));
    await new Promise<void>((resolve) => client.listen(0, '127.0.0.1', resolve));
    const redirect = `http://127.0.0.1:${(client.address() as AddressInfo).port}/callback`;
    const { url, verifier, state } = await authorizationRequest(s, config, { params: { redirect_uri: redirect } });
    const page = await browser.newPage();
    const errors: string[] = [];
    // Script errors, and anything the Content-Security-Policy refused (the 401 of a wrong password and a missing favicon are not).
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && /Refused/.test(m.text()) && errors.push(m.text()));

    await page.goto(url.href);
    assert.equal(await page.title(), 'Sign in · Help content service');
    assert.deepEqual(await axeViolations(page), []);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'username', 'the account name field has the focus');
    await page.keyboard.type(account.name);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password');
    await page.keyboard.press('Enter');
    await page.waitForLoadState();
    await page.waitForSelector('#problem');
    assert.match(await page.textContent('#problem') ?? '', /wrong/);
    assert.deepEqual(await axeViolations(page), [], 'the page with its error too');
    await page.fill('#password', account.password);
    await page.press('#password', 'Enter');

    await page.waitForSelector('button[value="allow"]');
    assert.equal(await page.title(), 'Allow access · Help content service');
    assert.match(await page.textContent('main') ?? '', new RegExp(`Test tool.*returning to ${new URL(redirect).host}.*edna`, 's'));
    assert.deepEqual(await axeViolations(page), []);
    await page.focus('button[value="allow"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${redirect}**`);
    const back = new URL(page.url());
    assert.ok(back.searchParams.get('code'));
    assert.equal(await page.textContent('body'), 'back at the client');
    client.close();
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: state }, { redirect_uri: redirect });
    assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).body.accountName, 'edna');
    assert.deepEqual(errors, [], 'no script error, nothing refused by the page policy');
    await page.close();
  });
});
