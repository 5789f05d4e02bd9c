import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './browser/axe.ts';
import { launchChromium } from './browser/chromium.ts';
import { clientMessages, formatDate, messagesFor } from '../src/portal/i18n/messages.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

// The portal's interface text in each shipped language, in Chromium: the page's own controls, the
// search page, the messages the scripts read, the PDF's contents heading, right-to-left layouts and
// the brand's accent colour.

const LANGUAGES = ['en', 'de', 'fr', 'es', 'pt', 'ja', 'zh', 'zh-Hant', 'ko', 'ar', 'he', 'ru', 'it', 'nl', 'pl'];
const ACCENT = '#6a1b9a';
/** A 1 × 1 PNG: the brand's favicon. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkaPhfDwAEhgGAWY3c9wAAAABJRU5ErkJggg==', 'base64');

const title = (slug: string, language: string) => `${slug.toUpperCase()} ${language}`;
const translations = (slug: string) =>
  Object.fromEntries(LANGUAGES.map((l) => [l, { title: title(slug, l), bodyMd: `Text ${slug} ${l}.\n\n## Part one\n\nMore.\n\n\`\`\`bash\necho ${slug}\n\`\`\`\n\n## Part two\n\nEnd.\n` }]));

describe('The portal speaks the page’s language', () => {
  let s: TestServer;
  let origin: string;
  let browser: Browser;
  let scratch: string;
  const problems: string[] = [];

  async function open(path: string, viewport = { width: 1200, height: 860 }): Promise<Page> {
    const page = await browser.newPage({ viewport, acceptDownloads: true });
    page.on('pageerror', (err) => problems.push(`${path}: ${err.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`${path}: ${m.text()}`));
    await page.goto(`${origin}${path}`);
    return page;
  }

  const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').replace(/\s+/g, ' ').trim();

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'help-portal-i18n-'));
    const favicon = join(scratch, 'brand.png');
    writeFileSync(favicon, PNG);
    s = await startTestServer({ env: { HELP_PORTAL_ACCENT: ACCENT, HELP_PORTAL_FAVICON: favicon } });
    origin = new URL(s.url).origin;
    await createVersion(s, 'intl', { label: 'Tasklane', status: 'published', isLatest: true, languages: LANGUAGES });
    for (const slug of ['one', 'two', 'three']) await createNode(s, 'intl', { slug, translations: translations(slug) });
    await createNode(s, 'intl', { slug: 'more', kind: 'section', translations: translations('more') });
    await createNode(s, 'intl', { slug: 'four', parentSlug: 'more', translations: translations('four') });
    await createNode(s, 'intl', { slug: 'five', translations: { en: { title: 'FIVE en', bodyMd: 'English only.\n' } } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test('each shipped language (14, Chinese in both scripts) shows its own interface text: search, the PDF button and dialog, previous and next, switches, contents, copy buttons, dates, home and search pages', async () => {
    for (const language of LANGUAGES) {
      const t = messagesFor(language);
      const page = await open(`/support/intl/two?lang=${language}`);
      assert.equal(await page.getAttribute('html', 'lang'), language);
      assert.equal(await page.getAttribute('html', 'dir'), ['ar', 'he'].includes(language) ? 'rtl' : 'ltr', language);
      assert.equal(await text(page, 'form.search button[type="submit"]'), t('search.button'), `${language}: search button`);
      assert.equal(await page.getAttribute('form.search input[type="search"]', 'placeholder'), t('search.placeholder'), `${language}: search box`);
      await page.waitForSelector('#pdf-open:not([hidden])');
      assert.equal(await text(page, '#pdf-open'), t('pdf.open'), `${language}: PDF button`);
      assert.equal(await text(page, '.pager a[rel="prev"] span'), t('pager.previous'), `${language}: previous`);
      assert.equal(await text(page, '.pager a[rel="next"] span'), t('pager.next'), `${language}: next`);
      assert.ok((await text(page, '.pager a[rel="next"]')).includes(title('three', language)), `${language}: next names the page`);
      assert.equal(await page.textContent('.skip-link'), t('skip.content'), `${language}: skip link`);
      assert.equal(await text(page, 'label[for="switch-language"]'), t('switch.language'), `${language}: language switch`);
      assert.equal(await text(page, '.toc summary'), t('toc.title'), `${language}: on this page`);
      assert.equal(await text(page, '.code-copy'), t('code.copy'), `${language}: copy button`);
      const updated = formatDate(language, (await page.getAttribute('p.updated time', 'datetime'))!);
      assert.equal(await text(page, 'p.updated'), t('updated', { date: updated }), `${language}: last updated, as the language writes dates`);
      const messages = await page.evaluate(() => JSON.parse(document.getElementById('portal-messages')!.textContent!));
      assert.deepEqual(messages, clientMessages(language), `${language}: the scripts' messages`);
      // The dialog's own labels, in the page's language.
      await page.click('#pdf-open');
      await page.waitForSelector('#pdf-dialog[open]');
      assert.equal(await text(page, '#pdf-title'), t('pdf.title'), `${language}: dialog title`);
      assert.equal(await text(page, '#pdf-cancel'), t('pdf.close'), `${language}: close button`);
      await page.close();

      const home = await open(`/support/intl?lang=${language}`);
      assert.equal(await text(home, 'main h2'), t('home.sections'), `${language}: the version's home page`);
      assert.equal(await text(home, 'a.start'), t('home.start'), `${language}: start reading`);
      await home.close();

      const search = await open(`/support/intl/search?q=zzzqqq&lang=${language}`);
      assert.equal(await text(search, 'main h1'), t('search.results'), `${language}: search results heading`);
      assert.equal(await text(search, '.result-count'), t('search.none', { query: 'zzzqqq' }), `${language}: no results`);
      await search.close();
    }
    assert.deepEqual(problems, []);
  });

  test('a language without a catalogue reads English, string by string', async () => {
    await createVersion(s, 'sv', { label: 'Tasklane SV', status: 'published', languages: ['sv'] });
    await createNode(s, 'sv', { slug: 'ett', translations: { sv: { title: 'Ett', bodyMd: 'Hej.\n' } } });
    await createNode(s, 'sv', { slug: 'tva', translations: { sv: { title: 'Två', bodyMd: 'Hej igen.\n' } } });
    const page = await open('/support/sv/ett');
    assert.equal(await page.getAttribute('html', 'lang'), 'sv');
    assert.equal(await text(page, 'form.search button[type="submit"]'), 'Search');
    assert.equal(await text(page, '.pager a[rel="next"] span'), 'Next');
    await page.close();
  });

  test('the PDF’s contents heading, notes and progress are in the chosen language', async () => {
    for (const [language, heading] of [['de', 'Inhalt'], ['fr', 'Table des matières'], ['ja', '目次'], ['ar', 'المحتويات']] as const) {
      const page = await open(`/support/intl/one?lang=${language}&pdf=1&topics=one,five`);
      await page.waitForSelector('#pdf-dialog[open]');
      await page.waitForSelector('#pdf-topics input[value="five"]');
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: 90_000 }), page.click('#pdf-submit')]);
      const file = join(scratch, `${language}-${download.suggestedFilename()}`);
      await download.saveAs(file);
      assert.equal(readFileSync(file).subarray(0, 5).toString(), '%PDF-');
      const pages = execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8', timeout: 30_000 }).split('\f');
      assert.ok(pages[1].includes(heading), `${language}: "${heading}" heads the contents: ${pages[1].slice(0, 200)}`);
      assert.ok(!pages[1].includes('Contents'), `${language}: no English heading`);
      if (language === 'ar') {
        // The heading is the line below the running header, and it stands on the right.
        const boxes = execFileSync('pdftotext', ['-bbox', '-f', '2', '-l', '2', file, '-'], { encoding: 'utf8', timeout: 30_000 });
        const words = [...boxes.matchAll(/<word xMin="([0-9.]+)" yMin="([0-9.]+)"/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]) }));
        const line = words.filter((w) => w.y > 50 && w.y < 120);
        assert.ok(line.length > 0 && line.every((w) => w.x > 300), `the Arabic heading stands on the right: ${JSON.stringify(line)}`);
      }
      if (language === 'fr') assert.match(pages.join('\n'), /Pas\s+encore\s+disponible\s+en\s+français\s*;\s+affiché\s+en\s+anglais/, 'the note over an English entry');
      if (language === 'de') assert.match(pages.join('\n'), /Noch\s+nicht\s+auf\s+Deutsch\s+verfügbar;\s+angezeigt\s+auf\s+Englisch/, 'the note over an English entry');
      assert.ok(readFileSync(file).includes(`/Lang (${language})`), `${language}: the document says its language`);
      const info = execFileSync('pdfinfo', [file], { encoding: 'utf8', timeout: 30_000 });
      assert.match(info, /Tasklane/);
      await page.waitForFunction(() => /\.pdf/.test(document.getElementById('pdf-status')?.textContent ?? ''));
      const saved = messagesFor(language)('pdf.saved', { filename: download.suggestedFilename() });
      assert.equal(await text(page, '#pdf-status'), saved, `${language}: the dialog says it was saved`);
      await page.close();
    }
    // The title page's date as the language writes it: a German date is day.month.year.
    const page = await open('/support/intl/one?lang=de&pdf=1&topics=one');
    await page.waitForSelector('#pdf-dialog[open]');
    await page.waitForSelector('#pdf-topics input[value="one"]');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 90_000 }), page.click('#pdf-submit')]);
    const file = join(scratch, `date-${download.suggestedFilename()}`);
    await download.saveAs(file);
    const first = execFileSync('pdftotext', ['-enc', 'UTF-8', '-l', '1', file, '-'], { encoding: 'utf8', timeout: 30_000 });
    assert.match(first, /\b\d{2}\.\d{2}\.\d{4}\b/, first);
    await page.close();
  });

  test('Arabic and Hebrew pages are laid out right to left: the navigation stands right of the article', async () => {
    for (const language of ['ar', 'he']) {
      const page = await open(`/support/intl/two?lang=${language}`);
      const main = (await page.locator('main').boundingBox())!;
      const tree = (await page.locator('nav.tree').boundingBox())!;
      assert.ok(tree.x > main.x + main.width - 1, `${language}: the tree (x ${tree.x}) is right of the article (ends at ${main.x + main.width})`);
      // The previous page's link starts the pager on the right; next is on the left.
      const prev = (await page.locator('.pager a[rel="prev"]').boundingBox())!;
      const next = (await page.locator('.pager a[rel="next"]').boundingBox())!;
      assert.ok(prev.x > next.x, `${language}: previous (x ${prev.x}) right of next (x ${next.x})`);
      assert.deepEqual(await axeViolations(page), [], `${language}: axe-core`);
      await page.close();
    }
    // A closed section's chevron points the way Arabic reads.
    const arabic = await open('/support/intl/two?lang=ar');
    const chevron = await arabic.evaluate(() => getComputedStyle(document.querySelector('nav.tree .section.closed > a')!, '::after').content);
    assert.match(chevron, /‹/);
    await arabic.close();
    // On a phone the drawer slides in from the right.
    const phone = await open('/support/intl/two?lang=ar', { width: 390, height: 844 });
    await phone.click('#menu-button');
    await phone.waitForSelector('#drawer.open');
    const drawer = (await phone.locator('#drawer').boundingBox())!;
    assert.ok(Math.abs(drawer.x + drawer.width - 390) <= 1 && drawer.x > 0, `the drawer hugs the right edge: x ${drawer.x}, width ${drawer.width}`);
    await phone.close();
    const ltr = await open('/support/intl/two?lang=de');
    const main = (await ltr.locator('main').boundingBox())!;
    const tree = (await ltr.locator('nav.tree').boundingBox())!;
    assert.ok(tree.x + tree.width <= main.x + 1, 'German: the tree is left of the article');
    await ltr.close();
  });

  test('the accent setting colours links and the current page in the light scheme, a readable variant in the dark one, and the favicon is the brand\'s', async () => {
    const page = await open('/support/intl/two');
    const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    const linkColour = await page.evaluate(() => getComputedStyle(document.querySelector('.pager a')!).color);
    assert.equal(linkColour, rgb(ACCENT));
    const current = await page.evaluate(() => getComputedStyle(document.querySelector('nav.tree a[aria-current="page"]')!).backgroundColor);
    assert.equal(current, rgb(ACCENT));
    assert.equal(await page.locator('[style]').count(), 0, 'no inline styles');
    const icon = (await page.getAttribute('link[rel="icon"]', 'href'))!;
    assert.equal(await page.getAttribute('link[rel="icon"]', 'type'), 'image/png');
    const served = await fetch(`${origin}${icon}`);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await page.evaluate(() => getComputedStyle(document.querySelector('.pager a')!).color);
    assert.notEqual(dark, rgb(ACCENT));
    const [r, g, b] = dark.match(/\d+/g)!.map(Number);
    const lum = (c: number) => {
      const v = c / 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    const l = 0.2126 * lum(r) + 0.7152 * lum(g) + 0.0722 * lum(b);
    const background = 0.2126 * lum(0x14) + 0.7152 * lum(0x17) + 0.0722 * lum(0x1c);
    assert.ok((l + 0.05) / (background + 0.05) >= 4.5, `the dark variant ${dark} passes 4.5:1`);
    await page.close();
  });
});
