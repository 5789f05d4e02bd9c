import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverAndChromium } from './browser/chromium.ts';

describe('The API reference in a real browser', () => {
  const env = serverAndChromium();

  test('renders every tag of openapi.json, breaks no rule of its policy and asks no other host', async () => {
    const { s, browser } = env;
    const page = await browser.newPage();
    const problems: string[] = [];
    const hosts = new Set<string>();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('request', (r) => hosts.add(new URL(r.url()).host));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    await page.goto(`${s.url}/docs`);
    await page.waitForSelector('.opblock-tag', { timeout: 20_000 });
    const tags = await page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));
    const document = (await (await fetch(`${s.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
    const expected = new Set(Object.values(document.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? [])));
    assert.deepEqual(new Set(tags), expected);
    assert.deepEqual(problems, []);
    assert.deepEqual([...hosts], [new URL(s.url).host]);
    // HELP_SCREENSHOT=page.png keeps a picture of the page, to look at.
    if (process.env.HELP_SCREENSHOT) await page.screenshot({ path: process.env.HELP_SCREENSHOT });
  });
});
