import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { PROJECT_ROOT } from '../src/config.ts';
import { axeViolations } from './browser/axe.ts';
import { launchChromium } from './browser/chromium.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

// The portal's layout in Chromium, with the sample content: the drawer of narrow screens, the title
// in a phone's first screen, no sideways scrolling at 320 px, "On this page", copy buttons, the
// switches with and without JavaScript, the start pages, printing, accessibility on every kind of
// page at a desktop's and a phone's width, and how much a topic page weighs.

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const NARROWEST = { width: 320, height: 640 };

describe('The portal\'s layout and reading comforts in a real browser', () => {
  let s: TestServer;
  let origin: string;
  let browser: Browser;
  const problems: string[] = [];

  async function open(path: string, viewport = DESKTOP, options: BrowserContextOptions = {}): Promise<Page> {
    const context = await browser.newContext({ viewport, ...options });
    const page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`${path}: ${err.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 404/.test(m.text())) problems.push(`${path}: ${m.text()}`);
    });
    await page.goto(`${origin}${path}`);
    if (options.javaScriptEnabled !== false) await page.waitForSelector('html.js');
    return page;
  }
  const close = (page: Page) => page.context().close();

  /**
   * Whether the element with `id` is where a link to it should bring it: at the top of the window,
   * or, near the end of a page too short to bring it there, in view with the page scrolled to its end.
   */
  async function landed(page: Page, id: string): Promise<string | null> {
    const at = await page.$eval(`[id="${id}"]`, (h) => ({ top: h.getBoundingClientRect().top, end: window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2, height: window.innerHeight }));
    if (at.top >= -1 && at.top < 80) return null;
    if (at.end && at.top >= 0 && at.top < at.height - 40) return null;
    return `#${id} is at ${at.top}px of ${at.height}px (scrolled to the end: ${at.end})`;
  }

  /** Whether the page scrolls sideways (its content is wider than the window). */
  const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

  before(async () => {
    s = await startTestServer({ sample: join(PROJECT_ROOT, 'content-sample') });
    origin = new URL(s.url).origin;
    // A second, older version, so the start page and the version switch have a choice.
    await createVersion(s, 'v0', { label: 'Tasklane 0.9', status: 'published', languages: ['en'] });
    await createNode(s, 'v0', { slug: 'welcome', translations: { en: { title: 'Welcome to Tasklane 0.9', bodyMd: 'The old version.\n' } } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('/support lists the versions a reader may pick, the latest first; each leads to its start page', async () => {
    const page = await open('/support');
    const cards = await page.$$eval('.cards.versions > li', (items) => items.map((i) => i.querySelector('h3 a')?.textContent));
    assert.deepEqual(cards, ['Tasklane 1.x', 'Tasklane 0.9']);
    assert.match((await page.textContent('.cards.versions > li:first-child .badge')) ?? '', /Latest/);
    await page.click('.cards.versions a:text("Tasklane 0.9")');
    await page.waitForURL(/\/support\/v0$/);
    assert.equal(await page.textContent('h1'), 'Tasklane 0.9');
    await close(page);
  });

  test("a version's start page shows its label, a search box, and its top-level sections as cards with summaries and first topics", async () => {
    const page = await open('/support/v1');
    assert.equal(await page.textContent('main h1'), 'Tasklane 1.x');
    assert.ok(await page.isVisible('main form[role="search"] input[name="q"]'));
    const cards = await page.$$eval('main .cards > li', (items) =>
      items.map((i) => ({ title: i.querySelector('h3')?.textContent, summary: i.querySelector('.summary')?.textContent ?? '', topics: [...i.querySelectorAll('.card-topics a')].map((a) => a.textContent) })),
    );
    const started = cards.find((c) => c.title === 'Getting started');
    assert.ok(started, JSON.stringify(cards.map((c) => c.title)));
    assert.match(started.summary, /\S/, 'the section\'s summary');
    assert.deepEqual(started.topics.slice(0, 3), ['Create your account', 'Set up your first project', 'Invite people']);
    await page.fill('main #q', 'slack');
    await page.press('main #q', 'Enter');
    await page.waitForURL(/\/support\/v1\/search\?q=slack/);
    assert.ok((await page.locator('.results li').count()) > 0);
    await close(page);
  });

  test('at 390 × 844 the tree is in a drawer: the menu button opens it with focus inside and the current page in view; Tab stays in it; Escape closes it and returns focus', async () => {
    const page = await open('/support/v1/webhooks', PHONE);
    assert.equal(await page.isVisible('.tree'), false, 'the tree is not on the page until asked for');
    const button = page.locator('#menu-button');
    assert.ok(await button.isVisible());
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    const header = await page.locator('.site-header').boundingBox();
    assert.ok(header && header.height <= 64, `the header is one compact row: ${header?.height}px`);
    await button.click();
    assert.equal(await button.getAttribute('aria-expanded'), 'true');
    assert.ok(await page.isVisible('#drawer .tree'));
    assert.ok(await page.evaluate(() => document.getElementById('drawer')!.contains(document.activeElement)), 'focus is inside the drawer');
    const current = page.locator('#drawer .tree a[aria-current="page"]');
    assert.equal(await current.textContent(), 'Webhooks');
    const box = (await current.boundingBox())!;
    assert.ok(box.y >= 0 && box.y + box.height <= PHONE.height, `the current page is in view: ${JSON.stringify(box)}`);
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await page.evaluate(() => document.getElementById('drawer')!.contains(document.activeElement)), `Tab ${i + 1} stays in the drawer`);
    }
    await page.keyboard.press('Shift+Tab');
    assert.ok(await page.evaluate(() => document.getElementById('drawer')!.contains(document.activeElement)), 'Shift+Tab too');
    assert.deepEqual(await axeViolations(page), [], 'the open drawer');
    await page.keyboard.press('Escape');
    assert.equal(await page.isVisible('#drawer .tree'), false, 'Escape closes it');
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'menu-button', 'and gives focus back to the button');
    // Following a link in the drawer goes there.
    await button.click();
    await page.click('#drawer .tree a:text("Slack integration")');
    await page.waitForURL(/\/support\/v1\/slack-integration$/);
    await close(page);
  });

  test("on a phone the article's title is in the first screen", async () => {
    for (const path of ['/support/v1/rest-api', '/support/v1/getting-started', '/support/v1']) {
      const page = await open(path, PHONE);
      const title = (await page.locator('main h1').boundingBox())!;
      assert.ok(title.y + title.height <= PHONE.height / 2, `${path}: the title ends at ${title.y + title.height}px`);
      await close(page);
    }
  });

  test('nothing scrolls sideways at 320 px: long code lines and tables scroll inside their own boxes', async () => {
    for (const path of ['/support', '/support/v1', '/support/v1/rest-api', '/support/v1/integrations', '/support/v1/search?q=token', '/support/v1/nope']) {
      const page = await open(path, NARROWEST);
      assert.equal(await scrollsSideways(page), false, `${path} scrolls sideways`);
      await close(page);
    }
    const page = await open('/support/v1/rest-api', NARROWEST);
    assert.ok(await page.$eval('pre.code:has-text("curl -X POST")', (pre) => pre.scrollWidth > pre.clientWidth), 'the long code line scrolls in its block');
    const table = await page.$eval('.table-wrap', (box) => ({ right: box.getBoundingClientRect().right, overflow: getComputedStyle(box).overflowX }));
    assert.ok(table.right <= NARROWEST.width && table.overflow === 'auto', `the table stays in its box, which scrolls: ${JSON.stringify(table)}`);
    // The PDF dialog fits too.
    await page.click('#pdf-open');
    const dialog = (await page.locator('#pdf-dialog').boundingBox())!;
    assert.ok(dialog.x >= 0 && dialog.x + dialog.width <= NARROWEST.width, `the dialog fits: ${JSON.stringify(dialog)}`);
    await page.locator('#pdf-submit').scrollIntoViewIfNeeded();
    assert.ok(await page.isVisible('#pdf-submit'));
    assert.equal(await scrollsSideways(page), false);
    await close(page);
  });

  test('"On this page" lists the ## and ### headings beside the article on wide screens; its links land on their sections; the section in view is marked', async () => {
    const page = await open('/support/v1/rest-api');
    const entries = await page.$$eval('#toc a', (links) => links.map((a) => ({ text: a.textContent, href: a.getAttribute('href') })));
    assert.deepEqual(
      entries.map((e) => e.text),
      ['Before you start', 'Authentication', 'Create a task', 'Common endpoints', 'Pagination', 'Rate limits'],
    );
    assert.equal(await page.getAttribute('#toc', 'open'), '', 'open on a wide screen');
    const toc = (await page.locator('#toc').boundingBox())!;
    const article = (await page.locator('article').boundingBox())!;
    assert.ok(toc.x >= article.x + article.width, 'beside the article');
    for (const entry of entries.slice(1)) {
      await page.click(`#toc a[href="${entry.href}"]`);
      await page.waitForURL(new RegExp(`${entry.href}$`));
      assert.equal(await landed(page, entry.href!.slice(1)), null, entry.text!);
      assert.ok(await page.locator(`#toc a[href="${entry.href}"]`).isVisible(), 'the contents stay in view (sticky)');
    }
    await page.evaluate(() => document.getElementById('authentication')!.scrollIntoView());
    await page.waitForSelector('#toc a[href="#authentication"][aria-current]');
    assert.equal(await page.locator('#toc a[aria-current]').count(), 1);
    await close(page);

    // On a phone: closed above the body, and a link still lands.
    const phone = await open('/support/v1/rest-api', PHONE);
    assert.equal(await phone.getAttribute('#toc', 'open'), null);
    const summary = (await phone.locator('#toc summary').boundingBox())!;
    const firstSection = (await phone.locator('#before-you-start').boundingBox())!;
    assert.ok(summary.y < firstSection.y, 'above the body');
    await phone.click('#toc summary');
    await phone.click('#toc a[href="#pagination"]');
    assert.equal(await landed(phone, 'pagination'), null, 'lands on its section');
    await close(phone);
  });

  test('a search hit and a heading anchor use the same ids: topic#anchor lands on the section', async () => {
    const page = await open('/support/v1/rest-api#rate-limits');
    assert.equal(await landed(page, 'rate-limits'), null);
    const anchor = page.locator('#rate-limits a.anchor');
    assert.equal(await anchor.getAttribute('href'), '#rate-limits');
    assert.match((await anchor.getAttribute('aria-label')) ?? '', /^Link to this section: Rate limits$/);
    assert.equal(await anchor.evaluate((a) => getComputedStyle(a).opacity), '0', 'hidden until hovered or focused');
    await anchor.focus();
    assert.equal(await anchor.evaluate((a) => getComputedStyle(a).opacity), '1', 'shown on focus');
    await close(page);
  });

  test('copy buttons put a code block on the clipboard and say so in a live region', async () => {
    const page = await open('/support/v1/rest-api', DESKTOP, { permissions: ['clipboard-read', 'clipboard-write'] });
    const blocks = page.locator('.code-block');
    assert.equal(await blocks.count(), await page.locator('article pre.code').count(), 'every block has one');
    const second = blocks.nth(1);
    // Reached by the keyboard: focus and Enter.
    await second.locator('.code-copy').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('announcer')?.textContent === 'Copied');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, await second.locator('code').textContent());
    assert.match(copied, /^curl https:\/\/api\.tasklane\.example\/v1\/projects \\\n {2}-H "Authorization: Bearer \$TASKLANE_TOKEN"\n$/);
    assert.equal(await second.locator('.code-copy').textContent(), 'Copied');
    assert.equal(await page.getAttribute('#announcer', 'aria-live'), 'polite');
    await close(page);
  });

  test('"last updated", previous and next with their titles', async () => {
    const page = await open('/support/v1/rest-api');
    const time = page.locator('.updated time');
    assert.match((await time.getAttribute('datetime')) ?? '', /^\d{4}-\d{2}-\d{2}T/);
    assert.match((await time.textContent()) ?? '', /^Last updated \w{3} \d{1,2}, \d{4}$/);
    assert.match((await page.textContent('.pager a[rel="prev"]')) ?? '', /Previous\s+Slack integration/);
    assert.match((await page.textContent('.pager a[rel="next"]')) ?? '', /Next\s+Webhooks/);
    await close(page);
  });

  test('the version and language switches are labelled selects: they go where they are set, with and without JavaScript', async () => {
    const page = await open('/support/v1/create-account');
    assert.equal(await page.isVisible('.switch-go'), false, 'no button needed with JavaScript');
    await page.selectOption('#switch-language', { label: 'Deutsch' });
    await page.waitForURL(/\/support\/v1\/create-account\?lang=de$/);
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    await page.selectOption('#switch-version', { label: 'Tasklane 0.9' });
    await page.waitForURL(/\/support\/v0$/, { timeout: 10_000 });
    await close(page);

    // With the keys, a step through the options does not leave the page: Enter does.
    const keys = await open('/support/v1/create-account');
    await keys.focus('#switch-language');
    await keys.keyboard.press('ArrowDown');
    await keys.waitForTimeout(300);
    assert.match(keys.url(), /\/support\/v1\/create-account$/, 'still on the page after an arrow key');
    assert.equal(await keys.inputValue('#switch-language'), '/support/v1/create-account?lang=de');
    assert.ok(await keys.isVisible('.languages .switch-go'), 'the button shows again');
    await keys.keyboard.press('Enter');
    await keys.waitForURL(/\/support\/v1\/create-account\?lang=de$/);
    await close(keys);

    const plain = await open('/support/v1/create-account', DESKTOP, { javaScriptEnabled: false });
    assert.ok(await plain.isVisible('.languages .switch-go'));
    await plain.selectOption('#switch-language', { label: 'Deutsch' });
    await plain.click('.languages .switch-go');
    await plain.waitForURL(/\/support\/v1\/create-account\?lang=de$/);
    assert.equal(await plain.textContent('label[for="switch-language"]'), 'Sprache');
    await close(plain);
  });

  test('without JavaScript on a phone the tree stands below the page and the menu link leads there', async () => {
    const page = await open('/support/v1/webhooks', PHONE, { javaScriptEnabled: false });
    assert.equal(await page.isVisible('#menu-button'), false);
    assert.ok(await page.isVisible('.menu-link'));
    const main = (await page.locator('main').boundingBox())!;
    const tree = (await page.locator('#drawer .tree').boundingBox())!;
    assert.ok(tree.y > main.y + main.height - 1, 'below the page');
    await page.click('.menu-link');
    await page.waitForURL(/#drawer$/);
    assert.ok(await page.locator('#drawer .tree a[aria-current="page"]').isVisible());
    await close(page);
  });

  test('printing shows the article across the page, without navigation or controls, with the addresses of outside links', async () => {
    const page = await open('/support/v1/slack-integration');
    await page.emulateMedia({ media: 'print' });
    for (const selector of ['#drawer', '.site-header .search', '.pager', '.toc-rail', '.page-actions', '.code-copy']) {
      if ((await page.locator(selector).count()) > 0) assert.equal(await page.locator(selector).first().isVisible(), false, `${selector} is not printed`);
    }
    const article = (await page.locator('article').boundingBox())!;
    assert.ok(article.width > DESKTOP.width * 0.8, `full width: ${article.width}`);
    const external = page.locator('article a[href^="http"]').first();
    if ((await external.count()) > 0) {
      const after = await external.evaluate((a) => getComputedStyle(a, '::after').content);
      assert.match(after, /attr\(href\)|http/);
    }
    await close(page);
  });

  test('axe-core finds no serious or critical violation on any kind of page, on a desktop and on a phone', async () => {
    const pages = ['/support', '/support/v1', '/support/v1/rest-api', '/support/v1/getting-started', '/support/v1/search?q=token', '/support/v1/nope', '/support/v1/create-account?lang=de'];
    for (const viewport of [DESKTOP, PHONE]) {
      for (const path of pages) {
        const page = await open(path, viewport);
        assert.deepEqual(await axeViolations(page), [], `${path} at ${viewport.width}px`);
        await close(page);
      }
    }
  });

  test('a topic page weighs under 60 KB compressed: its HTML, stylesheet and script (fonts and the PDF code load only for a PDF)', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const loaded: Array<{ url: string; type: string; bytes: number }> = [];
    page.on('response', async (res) => {
      const body = await res.body().catch(() => null);
      if (body) loaded.push({ url: res.url(), type: res.request().resourceType(), bytes: gzipSync(body).length });
    });
    await page.goto(`${origin}/support/v1/rest-api`);
    await page.waitForSelector('html.js');
    await page.waitForLoadState('networkidle');
    assert.ok(!loaded.some((r) => /\/(pdf|pdf-document|pdfmake|courier|markdown-it)\.[0-9a-f]{12}\.js$/.test(r.url)), 'no PDF code before the dialog is used');
    const counted = loaded.filter((r) => ['document', 'stylesheet', 'script'].includes(r.type));
    assert.deepEqual(counted.map((r) => r.type).sort(), ['document', 'script', 'stylesheet']);
    const total = counted.reduce((sum, r) => sum + r.bytes, 0);
    assert.ok(total < 60 * 1024, `${total} bytes compressed: ${JSON.stringify(counted)}`);
    await context.close();
    assert.deepEqual(problems, [], 'no script errors on any page');
  });
});
