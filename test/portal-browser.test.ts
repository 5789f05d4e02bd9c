import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './browser/axe.ts';
import { launchChromium } from './browser/chromium.ts';
import { screenshot as takeScreenshot } from './browser/screenshot.ts';
import { findFonts } from '../src/pdf/fonts.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

// The reader portal in Debian's Chromium: reading, switching, searching, the fallback notice, hostile
// Markdown, the PDF dialog and the PDFs it makes (read back with poppler's pdftotext and pdftoppm),
// and accessibility with axe-core. HELP_PORTAL_SCREENSHOTS=docs/images keeps the pictures the README and docs/portal.md show.


const SHARED = `![Icon](/help/v1/docs/favicon-32x32.png)

| Term | Meaning |
|---|---|
| Board | A view of tasks |

\`\`\`bash
echo "hello"   # a comment
\`\`\`

- one
- two
`;
const WELCOME_EN = `Start here.\n\n${SHARED}`;
const WELCOME_DE = `Hier geht es los. *Größe* und Übersicht.\n\n${SHARED}`;

describe('The reader portal in a real browser', () => {
  let s: TestServer;
  let origin: string;
  let browser: Browser;
  let scratch: string;
  const problems: string[] = [];
  const dialogs: string[] = [];

  async function open(path: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 860 }, acceptDownloads: true });
    page.on('console', (m) => {
      // The refused bundle of a selection over 200 topics is expected (and explained in the dialog).
      if (m.type() === 'error' && !m.location().url.includes('/pdf-bundle')) problems.push(`${path}: ${m.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`${path}: ${err.message}`));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().includes('/pdf-bundle')) problems.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${origin}${path}`);
    return page;
  }

  /** Clicks the dialog's Download button and saves the PDF the page makes; its text by page (pdftotext). */
  async function download(page: Page): Promise<{ name: string; file: string; pages: string[] }> {
    const [file] = await Promise.all([page.waitForEvent('download', { timeout: 90_000 }), page.click('#pdf-submit')]);
    const path = join(scratch, file.suggestedFilename());
    await file.saveAs(path);
    assert.equal(readFileSync(path).subarray(0, 5).toString(), '%PDF-');
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8', timeout: 30_000 });
    return { name: file.suggestedFilename(), file: path, pages: text.split('\f') };
  }

  /** Share of dark pixels on each page rendered by pdftoppm (a blank page has none). */
  function inkPerPage(pdf: string, prefix: string): number[] {
    execFileSync('pdftoppm', ['-r', '30', '-gray', pdf, join(scratch, prefix)], { timeout: 60_000 });
    return readdirSync(scratch)
      .filter((f) => f.startsWith(`${prefix}-`) && f.endsWith('.pgm'))
      .sort()
      .map((f) => {
        const bytes = readFileSync(join(scratch, f));
        const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 40).toString('latin1'))!;
        const pixels = bytes.subarray(header[0].length);
        let dark = 0;
        for (const p of pixels) if (p < 160) dark++;
        return dark / pixels.length;
      });
  }


  const screenshot = (page: Page, name: string) => takeScreenshot(page, scratch, name);

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'help-portal-'));
    s = await startTestServer();
    origin = new URL(s.url).origin;
    await createVersion(s, 'v1', { label: 'Tasklane 1', status: 'published', isLatest: true, languages: ['en', 'de'] });
    await createNode(s, 'v1', { slug: 'welcome', translations: { en: { title: 'Welcome', summary: 'Where to start', bodyMd: WELCOME_EN }, de: { title: 'Willkommen', bodyMd: WELCOME_DE } } });
    await createNode(s, 'v1', { slug: 'guide', kind: 'section', translations: { en: { title: 'Guide' }, de: { title: 'Anleitung' } } });
    await createNode(s, 'v1', { slug: 'install', parentSlug: 'guide', translations: { en: { title: 'Install', bodyMd: 'Download the installer.\n' }, de: { title: 'Installieren', bodyMd: 'Laden Sie das Installationsprogramm herunter.\n' } } });
    await createNode(s, 'v1', { slug: 'configure', parentSlug: 'guide', translations: { en: { title: 'Configure', bodyMd: 'Settings live in the **settings** page.\n' } } });
    await createNode(s, 'v1', { slug: 'hostile', translations: { en: { title: 'Hostile', bodyMd: '<script>alert("script ran")</script>\n\n<img src="x" onerror="alert(\'handler ran\')">\n\n[link](javascript:alert(1))\n' } } });
    await createVersion(s, 'jp', { label: 'タスクレーン', status: 'published', languages: ['ja'] });
    await createNode(s, 'jp', { slug: 'hajimeni', translations: { ja: { title: 'はじめに', bodyMd: 'タスクレーンへようこそ。日本語のヘルプです。\n\n## 設定\n\n設定画面を開きます。\n' } } });
    await createNode(s, 'jp', { slug: 'settei', translations: { ja: { title: '設定の変更', bodyMd: '通知の設定を変更できます。\n' } } });
    await createVersion(s, 'ar', { label: 'Tasklane AR', status: 'published', languages: ['ar'] });
    const arabic = `ALPHA ${'نص عربي '.repeat(6)}GAMMA ${'هذا نص عربي طويل لاختبار الاتجاه '.repeat(12)}\n\n- DELTA نص عربي في قائمة EPSILON\n\n1. KAPPA نص عربي LAMBDA\n\n| عمود | ZETA نص عربي ETA |\n|---|---|\n| خلية | THETA نص IOTA |\n`;
    await createNode(s, 'ar', { slug: 'intro', translations: { ar: { title: 'مرحبا بك', bodyMd: arabic } } });
    await createVersion(s, 'big', { status: 'published', languages: ['en'] });
    const nodes = Array.from({ length: 201 }, (_, i) => ({ slug: `t${i}`, kind: 'topic', translations: { en: { title: `Topic ${i}` } } }));
    assert.equal((await s.request('POST', '/versions/big/import', { body: { nodes } })).status, 200);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test('pages render in two languages; the language switch, the tree, previous and next, and search work', async () => {
    const page = await open('/support/v1/welcome');
    assert.equal(await page.textContent('h1'), 'Welcome');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.ok(await page.isVisible('#pdf-open'), 'the script shows the PDF button');
    await screenshot(page, 'portal-topic.png');
    await page.selectOption('#switch-language', { label: 'Deutsch' });
    await page.waitForURL(/\/support\/v1\/welcome\?lang=de$/);
    assert.equal(await page.textContent('h1'), 'Willkommen');
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    await page.click('.pager a[rel="next"]');
    await page.waitForURL(/\/support\/v1\/install\?lang=de$/);
    assert.equal(await page.textContent('h1'), 'Installieren');
    assert.equal(await page.textContent('.tree a[aria-current="page"]'), 'Installieren');
    await page.click('.tree a:text("Willkommen")');
    await page.waitForURL(/\/support\/v1\/welcome\?lang=de$/);
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'q', '"/" goes to the search box');
    await page.keyboard.type('Installationsprogramm');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/support\/v1\/search\?/);
    assert.equal(await page.textContent('.results a'), 'Installieren');
    assert.equal(await page.textContent('.results mark'), 'Installationsprogramm');
    await page.close();
  });

  test('a topic without the chosen language shows the fallback text with a notice', async () => {
    const page = await open('/support/v1/configure?lang=de');
    assert.match((await page.textContent('.notice')) ?? '', /Diese Seite gibt es noch nicht auf Deutsch; angezeigt wird English\./, 'in the page\'s language');
    assert.equal(await page.getAttribute('article', 'lang'), 'en');
    await page.close();
  });

  test('"Copy as Markdown" puts the page\'s Markdown twin on the clipboard', async () => {
    const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'], viewport: { width: 1200, height: 860 } });
    try {
      const page = await context.newPage();
      page.on('pageerror', (err) => problems.push(`copy: ${err.message}`));
      await page.goto(`${origin}/support/v1/welcome?lang=de`);
      const twin = await page.getAttribute('link[rel="alternate"][type="text/markdown"]', 'href');
      assert.equal(twin, '/support/v1/welcome.md?lang=de');
      await page.click('#copy-markdown');
      await page.waitForFunction(() => document.getElementById('copy-status')?.textContent !== '');
      assert.equal(await page.textContent('#copy-status'), 'Als Markdown kopiert.', 'said in the page\'s language');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert.equal(copied, await (await fetch(`${origin}${twin}`)).text());
      assert.ok(copied.startsWith(`# Willkommen\n\n${WELCOME_DE.slice(0, 20)}`), copied.slice(0, 80));
    } finally {
      await context.close();
    }
  });

  test('a Markdown body with <script> and <img onerror> shows text and runs nothing', async () => {
    const before = problems.length;
    const page = await open('/support/v1/hostile');
    await page.waitForTimeout(300);
    assert.match((await page.textContent('article')) ?? '', /<script>alert\("script ran"\)<\/script>/);
    assert.equal(await page.locator('article script, article img').count(), 0);
    assert.equal(await page.locator('article a[href^="javascript"]').count(), 0);
    assert.deepEqual(dialogs, [], 'no alert ran');
    assert.deepEqual(problems.slice(before), [], 'no console error from it');
    await page.close();
  });

  test('?pdf=1&topics=…&lang=de opens the dialog pre-filled; the PDF has a title page, contents and the chosen topics in document order', async () => {
    const page = await open('/support/v1/welcome?pdf=1&topics=configure,welcome&lang=de');
    await page.waitForSelector('#pdf-dialog[open]');
    assert.equal(await page.inputValue('#pdf-lang'), 'de');
    assert.ok(await page.isChecked('input[name="scope"][value="chosen"]'));
    await page.waitForSelector('#pdf-topics input[value="configure"]');
    const checked = await page.$$eval('#pdf-topics input:checked', (boxes) => boxes.map((b) => (b as HTMLInputElement).value));
    assert.deepEqual(checked, ['welcome', 'configure']);
    await screenshot(page, 'portal-pdf-dialog.png');
    const pdf = await download(page);
    assert.equal(pdf.name, 'tasklane-1-v1-de-2-topics.pdf');
    assert.match(pdf.pages[0], /Tasklane 1/, 'the title page');
    assert.match(pdf.pages[1], /Inhalt[\s\S]*Willkommen\s+3[\s\S]*Anleitung[\s\S]*Configure/, 'the table of contents, with page numbers, headed in the PDF\'s language');
    const body = pdf.pages.slice(2).join('\n');
    const at = ['Willkommen', 'Anleitung', 'Configure'].map((t) => body.indexOf(t));
    assert.ok(at.every((i) => i >= 0) && at[0] < at[1] && at[1] < at[2], `in document order: ${at}`);
    assert.match(body, /Noch\s+nicht\s+auf\s+Deutsch\s+verfügbar;\s+angezeigt\s+auf\s+Englisch/);
    assert.doesNotMatch(body, /Installieren|Hostile/, 'only the chosen topics');
    assert.match(await page.textContent('#pdf-status') ?? '', /tasklane-1-v1-de-2-topics\.pdf gespeichert/, 'the German page\'s dialog says so in German');
    await page.close();
  });

  test('the whole German version and a Japanese version: their text is in the PDF, and no page is blank', async () => {
    const de = await open('/support/v1/install?lang=de');
    await de.click('#pdf-open');
    const german = await download(de);
    const text = german.pages.join('\n');
    for (const words of ['Willkommen', 'Größe und Übersicht', 'Installieren', 'Laden Sie das Installationsprogramm herunter', 'echo "hello"', 'Board']) assert.ok(text.includes(words), words);
    const fonts = execFileSync('pdffonts', [german.file], { encoding: 'utf8', timeout: 30_000 });
    assert.match(fonts, /NotoSans-Italic/, `emphasis is set in the italic font (subset embedded):\n${fonts}`);
    const images = execFileSync('pdfimages', ['-list', german.file], { encoding: 'utf8', timeout: 30_000 });
    assert.match(images, /\bpng\b|\bimage\b/, `the same-origin image is embedded:\n${images}`);
    const ink = inkPerPage(german.file, 'de');
    assert.ok(ink.length >= 4, `pages: ${ink.length}`);
    for (const share of ink) assert.ok(share > 0.001, `a page with ink: ${ink}`);
    await de.close();

    const ja = await open('/support/jp/hajimeni');
    assert.equal(await ja.getAttribute('html', 'lang'), 'ja');
    await ja.click('#pdf-open');
    const japanese = await download(ja);
    assert.equal(japanese.name, 'help-jp-ja.pdf', 'a label without Latin letters gives "help"');
    const jtext = japanese.pages.join('\n');
    for (const words of ['タスクレーン', 'はじめに', 'タスクレーンへようこそ。日本語のヘルプです。', '設定の変更', '通知の設定を変更できます。']) assert.ok(jtext.includes(words), `${words} in ${jtext}`);
    for (const share of inkPerPage(japanese.file, 'ja')) assert.ok(share > 0.001, 'no blank page');
    await ja.close();
  });

  test('without the CJK fonts (a production install without HELP_FONT_DIR) a Japanese PDF is still made, and the dialog and its title page say which language has no font', async () => {
    const plain = await startTestServer({ fonts: findFonts(null, { packages: false }) });
    try {
      await createVersion(plain, 'jp', { label: 'タスクレーン', status: 'published', languages: ['ja'] });
      await createNode(plain, 'jp', { slug: 'hajimeni', translations: { ja: { title: 'はじめに', bodyMd: 'タスクレーンへようこそ。\n' } } });
      const page = await browser.newPage({ viewport: { width: 1200, height: 860 }, acceptDownloads: true });
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
      await page.goto(`${new URL(plain.url).origin}/support/jp/hajimeni`);
      await page.click('#pdf-open');
      const pdf = await download(page);
      assert.equal(pdf.name, 'help-jp-ja.pdf');
      // The title page says it in English (the PDF has no Japanese type to say it in); the dialog in the page's Japanese.
      const notice = /This help service has no font for Japanese: text in that script may show as empty boxes or be missing\./;
      assert.match(pdf.pages[0].replace(/\s+/g, ' '), notice, 'on the title page');
      assert.match((await page.textContent('#pdf-status')) ?? '', /このヘルプサービスには日本語のフォントがありません。/, 'in the dialog');
      const fonts = execFileSync('pdffonts', [pdf.file], { encoding: 'utf8', timeout: 30_000 });
      assert.match(fonts, /NotoSans-Regular/);
      assert.doesNotMatch(fonts, /NotoSansJP/);
      assert.deepEqual(errors, [], 'no page error, no failed request (no font asked for that is not served)');
      await page.close();
    } finally {
      await plain.close();
    }
  });

  test('right-to-left text is laid out right to left: a line starts on the right', async () => {
    const page = await open('/support/ar/intro');
    assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
    await page.click('#pdf-open');
    const pdf = await download(page);
    const boxes = execFileSync('pdftotext', ['-bbox', '-f', '2', '-l', '2', pdf.file, '-'], { encoding: 'utf8', timeout: 30_000 });
    const word = (w: string) => {
      const m = new RegExp(`<word xMin="([0-9.]+)" yMin="([0-9.]+)"[^>]*>${w}</word>`).exec(boxes);
      assert.ok(m, `${w} in ${boxes.slice(0, 2000)}`);
      return { x: Number(m[1]), y: Number(m[2]) };
    };
    const alpha = word('ALPHA');
    const gamma = word('GAMMA');
    assert.equal(alpha.y, gamma.y, 'both on the first line');
    assert.ok(alpha.x > gamma.x, `the first word is right of a later one: ${alpha.x} > ${gamma.x}`);
    assert.ok(alpha.x > 400, 'and the line starts at the right margin');
    // An ordered list's number is on the right of its item, as a right-to-left list has it.
    const number = /<word xMin="([0-9.]+)" yMin="([0-9.]+)"[^>]*>\.1<\/word>/.exec(boxes);
    assert.ok(number, `the item's number in ${boxes.slice(0, 3000)}`);
    assert.ok(Number(number[1]) > word('KAPPA').x, 'the number is right of the item text');
    // In a list item and in table cells too, the first word is on the right.
    for (const [first, later] of [['DELTA', 'EPSILON'], ['KAPPA', 'LAMBDA'], ['ZETA', 'ETA'], ['THETA', 'IOTA']]) {
      const a = word(first);
      const b = word(later);
      assert.equal(a.y, b.y, `${first} and ${later} on one line`);
      assert.ok(a.x > b.x, `${first} is right of ${later}: ${a.x} > ${b.x}`);
    }
    await page.close();
  });

  test('more than 200 topics is explained, not failed silently', async () => {
    const page = await open('/support/big/t0');
    await page.click('#pdf-open');
    await page.click('#pdf-submit');
    await page.waitForSelector('#pdf-error:not([hidden])');
    assert.match((await page.textContent('#pdf-error')) ?? '', /201 topics, and a PDF can hold at most 200/);
    await page.close();
  });

  test('axe-core finds no serious or critical violation on a topic page, the search page and the open dialog', async () => {
    const topic = await open('/support/v1/welcome?lang=de');
    assert.deepEqual(await axeViolations(topic), []);
    await topic.click('#pdf-open');
    await topic.check('input[name="scope"][value="chosen"]');
    await topic.waitForSelector('#pdf-topics input');
    assert.deepEqual(await axeViolations(topic), []);
    await topic.close();
    const search = await open('/support/v1/search?q=install');
    assert.deepEqual(await axeViolations(search), []);
    await screenshot(search, 'portal-search.png');
    await search.close();
    assert.deepEqual(problems, [], 'no console errors, failed requests or policy violations on any page');
  });
});
