// The portal's pictures in docs/images: a topic page, a version's start page and a page of search
// results, at a desktop's width (1280 × 800) and a phone's (390 × 844), the drawer open on a phone and
// the PDF dialog open on a desktop, from the sample content. Starts the service on a
// free port with a temporary data directory, and Chromium as the browser tests do (test/browser/chromium.ts).
//
//   npx tsx scripts/portal-screenshots.ts [folder]     (default: docs/images)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig, PROJECT_ROOT } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { launchChromium } from '../test/browser/chromium.ts';

const folder = resolve(process.argv[2] ?? join(PROJECT_ROOT, 'docs', 'images'));
mkdirSync(folder, { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'help-screenshots-'));
const config = loadConfig({ LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: join(PROJECT_ROOT, 'content-sample') });
const service = await startService(config, pino({ level: 'silent' }), {});
await service.ready;
const browser = await launchChromium();
try {
  const origin = new URL(service.url).origin;
  const shots: Array<[string, string, { width: number; height: number }]> = [
    ['portal-topic-desktop.png', '/support/v1/rest-api', { width: 1280, height: 800 }],
    ['portal-topic-phone.png', '/support/v1/rest-api', { width: 390, height: 844 }],
    ['portal-version-home-desktop.png', '/support/v1', { width: 1280, height: 800 }],
    ['portal-version-home-phone.png', '/support/v1', { width: 390, height: 844 }],
    ['portal-search-results.png', '/support/v1/search?q=project', { width: 1280, height: 800 }],
    ['portal-search-results-phone.png', '/support/v1/search?q=project', { width: 390, height: 844 }],
  ];
  for (const [name, path, viewport] of shots) {
    const page = await browser.newPage({ viewport, deviceScaleFactor: 1, colorScheme: 'light' });
    await page.goto(`${origin}${path}`);
    await page.waitForSelector('html.js');
    await page.screenshot({ path: join(folder, name) });
    await page.close();
    console.log(join(folder, name));
  }
  // The drawer open on a phone, over the page.
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'light' });
  await page.goto(`${origin}/support/v1/rest-api`);
  await page.click('#menu-button');
  await page.waitForSelector('#drawer.open');
  await page.screenshot({ path: join(folder, 'portal-drawer-phone.png') });
  console.log(join(folder, 'portal-drawer-phone.png'));
  await page.close();
  // The PDF dialog, opened from a topic page (its button shows once the script runs).
  const dialog = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, colorScheme: 'light' });
  await dialog.goto(`${origin}/support/v1/rest-api`);
  await dialog.click('#pdf-open');
  await dialog.waitForSelector('#pdf-dialog[open]');
  await dialog.screenshot({ path: join(folder, 'portal-pdf-dialog.png') });
  console.log(join(folder, 'portal-pdf-dialog.png'));
} finally {
  await browser.close();
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
