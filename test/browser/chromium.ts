import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when it is missing). */
export const CHROMIUM = '/usr/bin/chromium';

/** Starts headless Chromium; throws with how to install it when it is missing, so the test fails rather than skips. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (CI installs it)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}
