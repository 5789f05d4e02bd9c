import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/**
 * Takes a screenshot of `page` into `folder` as `name`, checks that it shows something, and copies it
 * to HELP_PORTAL_SCREENSHOTS when that is set (how the pictures in the docs are made).
 */
export async function screenshot(page: Page, folder: string, name: string): Promise<void> {
  const path = join(folder, name);
  await page.screenshot({ path });
  assert.ok(readFileSync(path).length > 10_000, `${name} shows something`);
  const keep = process.env.HELP_PORTAL_SCREENSHOTS;
  if (keep) {
    mkdirSync(keep, { recursive: true });
    copyFileSync(path, join(keep, name));
  }
}
