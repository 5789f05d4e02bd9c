import { existsSync } from 'node:fs';
import { after, before } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when it is missing). */
export const CHROMIUM = '/usr/bin/chromium';

/** Starts headless Chromium; throws with how to install it when it is missing, so the test fails rather than skips. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (CI installs it)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/**
 * A test server and Chromium for the enclosing describe: started before its tests, closed after them.
 * Read the two through the returned object inside the tests (they exist once the hooks have run).
 */
export function serverAndChromium(): { readonly s: TestServer; readonly browser: Browser } {
  let s: TestServer | undefined;
  let browser: Browser | undefined;
  before(async () => {
    s = await startTestServer();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });
  return {
    get s() {
      return s!;
    },
    get browser() {
      return browser!;
    },
  };
}
