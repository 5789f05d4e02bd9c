import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './browser/axe.ts';
import { launchChromium } from './browser/chromium.ts';
import { screenshot as takeScreenshot } from './browser/screenshot.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// The portal's search in Debian's Chromium, over the sample content: typing in the search box,
// results ranked by relevance, "More results", "Did you mean", and axe-core on the results at
// desktop and phone widths. HELP_PORTAL_SCREENSHOTS=<folder> keeps the pictures of the results page.

const SAMPLE = fileURLToPath(new URL('../content-sample', import.meta.url));
const DESKTOP = { width: 1200, height: 900 };
const PHONE = { width: 390, height: 844 };

describe('The portal search in a real browser', () => {
  let s: TestServer;
  let origin: string;
  let browser: Browser;
  let scratch: string;
  const problems: string[] = [];

  async function open(path: string, viewport = DESKTOP): Promise<Page> {
    const page = await browser.newPage({ viewport });
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`${path}: ${m.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`${path}: ${err.message}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${origin}${path}`);
    return page;
  }

  const screenshot = (page: Page, name: string) => takeScreenshot(page, scratch, name);

  /** The titles of the results shown, in order. */
  const titles = (page: Page) => page.$$eval('.results h2 a', (links) => links.map((a) => a.textContent ?? ''));

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'help-portal-search-'));
    s = await startTestServer({ sample: SAMPLE });
    origin = new URL(s.url).origin;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  test('typing "slack" in the search box lists Slack integration first, with its trail and the words marked', async () => {
    const page = await open('/support/v1/welcome');
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'q', '"/" goes to the search box');
    await page.keyboard.type('slack');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/support\/v1\/search\?q=slack$/);
    assert.equal(await page.inputValue('#q'), 'slack', 'the box keeps the query');
    assert.match((await page.textContent('[role="status"].result-count')) ?? '', /^\d+ pages? match(es)? “slack”\.$/);
    assert.equal((await titles(page))[0], 'Slack integration');
    const first = page.locator('.results > li').first();
    assert.match((await first.locator('.where').textContent()) ?? '', /^Integrations( › |$)/, 'the trail starts at its section');
    const marks = await page.$$eval('.results mark', (ms) => ms.map((m) => m.textContent ?? ''));
    assert.ok(marks.length > 0 && marks.every((m) => /slack/i.test(m)), `marked: ${marks}`);
    await first.locator('h2 a').click();
    await page.waitForURL(/\/support\/v1\/slack-integration(#[\p{L}\p{N}_-]+)?$/u);
    assert.equal(await page.textContent('article h1'), 'Slack integration');
    const hash = new URL(page.url()).hash;
    if (hash) assert.ok(await page.isVisible(`[id="${decodeURIComponent(hash.slice(1))}"]`), 'the section the link names is on the page');
    await page.close();
  });

  test('"More results" shows the next ten, none of them shown before; axe finds nothing serious on the results', async () => {
    const page = await open('/support/v1/search?q=tasks');
    const firstTen = await titles(page);
    assert.equal(firstTen.length, 10);
    assert.match((await page.textContent('.result-count')) ?? '', /^\d+ pages match “tasks”\. Showing 1–10\.$/);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'portal-search-results.png');
    await page.click('text=More results');
    await page.waitForURL(/\/support\/v1\/search\?q=tasks&offset=10$/);
    const next = await titles(page);
    assert.ok(next.length > 0, 'a second page');
    assert.deepEqual(next.filter((t) => firstTen.includes(t)), [], 'nothing twice');
    assert.match((await page.textContent('.result-count')) ?? '', /Showing 11–\d+\./);
    assert.ok(await page.isVisible('.result-pages a[rel="prev"]'), 'a way back');
    assert.deepEqual(await axeViolations(page), []);
    await page.close();
  });

  test('at phone width the results read in one column; axe finds nothing serious there either', async () => {
    const page = await open('/support/v1/search?q=slack+notifications', PHONE);
    assert.ok((await titles(page)).length > 0);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `no sideways scrolling: ${width}px`);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'portal-search-results-phone.png');
    await page.close();
  });

  test('a query nothing matches says so and offers the search the version suggests', async () => {
    const page = await open('/support/v1/search?q=slekk');
    assert.match((await page.textContent('.result-count')) ?? '', /^No pages match “slekk”\.$/);
    const suggestion = page.locator('.suggestion a');
    assert.equal(await suggestion.count(), 1, 'Did you mean');
    const text = (await suggestion.textContent()) ?? '';
    await suggestion.click();
    await page.waitForURL((url) => url.searchParams.get('q') === text);
    assert.ok((await titles(page)).length > 0, 'the suggestion finds something');
    assert.deepEqual(await axeViolations(page), []);
    await page.close();
    assert.deepEqual(problems, [], 'no console errors, failed requests or policy violations');
  });
});
