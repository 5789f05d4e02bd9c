import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { serverAndChromium } from './browser/chromium.ts';
import { createNode, createVersion } from './helpers/server.ts';

// "Was this helpful?" in Chromium with JavaScript off: the form posts to the portal under the page's
// strict policy, the reader comes back to the page and is thanked in place of the form; the
// browser's own checks (an answer required, the comment's length) hold before anything is sent.

describe('Feedback from the portal in a browser without JavaScript', () => {
  const env = serverAndChromium();
  let context: BrowserContext;
  const problems: string[] = [];

  before(async () => {
    const { s } = env;
    await createVersion(s, 'v1', { status: 'published', isLatest: true, languages: ['en', 'de'] });
    await createNode(s, 'v1', { slug: 'install', translations: { en: { title: 'Install', bodyMd: 'Download the installer.\n' }, de: { title: 'Installieren', bodyMd: 'Laden Sie es herunter.\n' } } });
    context = await env.browser.newContext({ javaScriptEnabled: false });
  });

  async function open(path: string): Promise<Page> {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`${path}: ${m.text()}`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${new URL(env.s.url).origin}/support${path}`);
    return page;
  }

  const entries = async () => (await env.s.request('GET', '/feedback?version=v1')).body.entries as Array<{ slug: string; helpful: boolean; comment: string | null; language: string | null; source: string }>;

  test('a reader answers no with a comment: the page comes back thanking them, and the writers read it', async () => {
    const page = await open('/v1/install');
    const form = page.locator('#feedback form');
    assert.equal(await page.locator('#feedback legend').textContent(), 'Was this helpful?');
    assert.equal(await page.locator('#feedback-sent').isVisible(), false, 'no thanks before anything was sent');
    await form.getByLabel('No', { exact: true }).check();
    await form.getByLabel('What could be better?').fill('Which installer is for ARM?');
    await Promise.all([page.waitForURL(/\/support\/v1\/install#feedback-sent$/), form.getByRole('button', { name: 'Send' }).click()]);
    assert.equal(await page.locator('#feedback-sent').isVisible(), true);
    assert.equal(await page.locator('#feedback-sent').textContent(), 'Thank you for your feedback.');
    assert.equal(await page.locator('#feedback form').isVisible(), false, 'the form gives way to the thanks');
    const [latest] = await entries();
    assert.deepEqual(latest, { ...latest, slug: 'install', helpful: false, comment: 'Which installer is for ARM?', language: 'en', source: 'portal' });
    await page.close();
  });

  test('in German, in the page\'s words; yes without a comment', async () => {
    const page = await open('/v1/install?lang=de');
    assert.equal(await page.locator('#feedback legend').textContent(), 'War das hilfreich?');
    await page.locator('#feedback').getByLabel('Ja', { exact: true }).check();
    await Promise.all([page.waitForURL(/\/support\/v1\/install\?lang=de#feedback-sent$/), page.locator('#feedback').getByRole('button', { name: 'Senden' }).click()]);
    assert.equal(await page.locator('#feedback-sent').textContent(), 'Danke für Ihre Rückmeldung.');
    const [latest] = await entries();
    assert.deepEqual([latest.helpful, latest.comment, latest.language], [true, null, 'de']);
    await page.close();
  });

  test('the browser asks for an answer before sending, and keeps the comment within 1,000 characters', async () => {
    const before = (await entries()).length;
    const page = await open('/v1/install');
    const form = page.locator('#feedback form');
    await form.getByRole('button', { name: 'Send' }).click();
    // The required answer stops the post: still the page, nothing recorded.
    await page.waitForTimeout(300);
    assert.ok(!page.url().includes('#feedback-sent'));
    assert.equal((await entries()).length, before);
    await form.getByLabel('What could be better?').fill('a'.repeat(1200));
    assert.equal((await form.getByLabel('What could be better?').inputValue()).length, 1000);
    await form.getByLabel('Yes', { exact: true }).check();
    await Promise.all([page.waitForURL(/#feedback-sent$/), form.getByRole('button', { name: 'Send' }).click()]);
    assert.equal((await entries())[0].comment?.length, 1000);
    await page.close();
  });

  test('no console errors, no refused requests: the form works under the page\'s policy', () => {
    assert.deepEqual(problems, []);
  });
});
