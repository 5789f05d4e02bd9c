import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { contrast, DARK_BACKGROUND, parseHex } from '../src/domain/contrast.ts';
import { Assets } from '../src/portal/assets.ts';
import { PROJECT, runProcess } from './helpers/process.ts';
import { en } from '../src/portal/i18n/en.ts';
import { CATALOGUES, clientMessages, formatDate, messagesFor, placeholdersOf, type MessageKey } from '../src/portal/i18n/messages.ts';

const SHIPPED = ['en', 'de', 'fr', 'es', 'pt', 'ja', 'zh', 'zh-Hant', 'ko', 'ar', 'he', 'ru', 'it', 'nl', 'pl'];
const KEYS = Object.keys(en) as MessageKey[];

test('every shipped catalogue translates every key, with the same placeholders as English', () => {
  assert.deepEqual(Object.keys(CATALOGUES).sort(), [...SHIPPED].sort());
  for (const [language, catalogue] of Object.entries(CATALOGUES)) {
    const missing = KEYS.filter((k) => typeof catalogue[k] !== 'string' || catalogue[k]!.trim() === '');
    assert.deepEqual(missing, [], `${language} lacks ${missing.join(', ')}`);
    const unknown = Object.keys(catalogue).filter((k) => !(k in en));
    assert.deepEqual(unknown, [], `${language} has keys English does not: ${unknown.join(', ')}`);
    for (const key of KEYS) assert.deepEqual(placeholdersOf(catalogue[key]!), placeholdersOf(en[key]), `${language} ${key}: ${catalogue[key]}`);
  }
});

test('the interface text differs from English where a reader would notice (search, PDF, previous and next)', () => {
  for (const language of SHIPPED.filter((l) => l !== 'en')) {
    const t = messagesFor(language);
    for (const key of ['search.results', 'pdf.open', 'pager.previous', 'pager.next', 'pdf.contents'] as const) assert.notEqual(t(key), en[key], `${language} ${key}`);
  }
  assert.equal(messagesFor('de')('pdf.open'), 'PDF herunterladen');
  assert.equal(messagesFor('ja')('pdf.contents'), '目次');
});

test('a language without a catalogue reads English, and a regional or script tag its base language', () => {
  assert.equal(messagesFor('sv')('search.button'), 'Search');
  assert.equal(messagesFor('pt-BR')('pager.next'), messagesFor('pt')('pager.next'));
  // Chinese by script: Taiwan and Hong Kong read Traditional, China and a bare zh Simplified.
  assert.equal(messagesFor('zh-Hant')('search.button'), '搜尋');
  assert.equal(messagesFor('zh-TW')('search.button'), '搜尋');
  assert.equal(messagesFor('zh-HK')('search.button'), '搜尋');
  assert.equal(messagesFor('zh-CN')('search.button'), '搜索');
  assert.equal(messagesFor('zh')('search.button'), '搜索');
  assert.equal(messagesFor('not a tag')('search.button'), 'Search');
});

test('a catalogue missing a key falls back to English for that string only', () => {
  const de = CATALOGUES.de as Record<string, string>;
  const saved = de['pager.next'];
  delete de['pager.next'];
  try {
    // A fresh language tag, so that no cached lookup hides the change.
    const t = messagesFor('de-AT');
    assert.equal(t('pager.next'), 'Next');
    assert.equal(t('pager.previous'), 'Zurück');
  } finally {
    de['pager.next'] = saved;
  }
});

test('placeholders are filled with plain text; a missing value leaves the placeholder', () => {
  const t = messagesFor('en');
  assert.equal(t('search.many', { count: 3, query: '<b>' }), '3 pages match “<b>”.');
  assert.equal(t('updated'), 'Last updated {date}');
});

test('the browser gets the texts its scripts print, and nothing of the server-only pages', () => {
  const m = clientMessages('fr');
  assert.equal(m['code.copy'], 'Copier');
  assert.equal(m['pdf.contents'], 'Table des matières');
  assert.ok('pdf.preparing' in m && 'menu.close' in m && 'toc.title' in m);
  assert.ok(!('error.404.title' in m));
});

test('dates are written as the language writes them', () => {
  assert.equal(formatDate('en', '2026-03-01'), 'Mar 1, 2026');
  assert.equal(formatDate('de', '2026-03-01T22:10:00Z'), '01.03.2026');
  assert.match(formatDate('ja', '2026-03-01'), /2026\/03\/01|2026年3月1日/);
  assert.equal(formatDate('en', 'yesterday'), 'yesterday');
});

test('an accent that fails WCAG AA on the light background is refused at start, naming the setting and the ratio', () => {
  assert.throws(
    () => loadConfig({ HELP_PORTAL_ACCENT: '#f5c400' }),
    (err: Error) => err instanceof ConfigError && err.message.startsWith('HELP_PORTAL_ACCENT #f5c400') && /1\.\d\d:1/.test(err.message) && err.message.includes('4.5:1'),
  );
  assert.throws(() => loadConfig({ HELP_PORTAL_ACCENT: 'blue' }), (err: Error) => err instanceof ConfigError && err.message.startsWith('HELP_PORTAL_ACCENT'));
});

test('the service started with an unreadable accent exits at once, saying which setting and what ratio', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'accent-start-'));
  try {
    const env = { ...process.env, HOST: '127.0.0.1', PORT: '0', HELP_DATA_DIR: dir, HELP_SAMPLE_CONTENT: 'off', HELP_PORTAL_ACCENT: '#f5c400' };
    const run = await runProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: PROJECT, env, timeout: 30_000 });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /Configuration error: HELP_PORTAL_ACCENT #f5c400 has a contrast of 1\.64:1 against the light background #ffffff; WCAG AA needs at least 4\.5:1/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an accepted accent gets a dark variant that passes on the dark background, and both reach the stylesheet', () => {
  const portal = loadConfig({ HELP_PORTAL_ACCENT: '#6a1b9a' }).portal;
  assert.equal(portal.accent?.light, '#6a1b9a');
  const dark = portal.accent!.dark;
  assert.ok(contrast(parseHex(dark)!, parseHex(DARK_BACKGROUND)!) >= 4.5, `${dark} on ${DARK_BACKGROUND}`);
  const assets = new Assets(portal);
  const css = assets.get(assets.name('css'))!.body.toString('utf8');
  assert.match(css, /:root \{ --accent: #6a1b9a; --link: #6a1b9a;/);
  assert.match(css, new RegExp(`@media \\(prefers-color-scheme: dark\\) \\{ :root \\{ --accent: ${dark};`));
  // The right-to-left rules come with the stylesheet.
  assert.match(css, /\[dir="rtl"\]/);
  // Without the setting, the stylesheet keeps its own colours (and its name: a release's pages stay cacheable).
  assert.doesNotMatch(new Assets().get(new Assets().name('css'))!.body.toString('utf8'), /HELP_PORTAL_ACCENT/);
});

test('a favicon file is served as the icon, with its type; one of another kind, or missing, is refused at start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'favicon-'));
  try {
    const png = join(dir, 'brand.png');
    writeFileSync(png, Buffer.from('89504e470d0a1a0a', 'hex'));
    const portal = loadConfig({ HELP_PORTAL_FAVICON: png }).portal;
    const assets = new Assets(portal);
    assert.match(assets.name('icon'), /^icon\.[0-9a-f]{12}\.png$/);
    assert.equal(assets.type('icon'), 'image/png');
    assert.deepEqual(assets.get(assets.name('icon'))!.body, Buffer.from('89504e470d0a1a0a', 'hex'));
    writeFileSync(join(dir, 'brand.gif'), 'GIF89a');
    assert.throws(() => loadConfig({ HELP_PORTAL_FAVICON: join(dir, 'brand.gif') }), (err: Error) => err instanceof ConfigError && err.message.startsWith('HELP_PORTAL_FAVICON'));
    assert.throws(() => loadConfig({ HELP_PORTAL_FAVICON: join(dir, 'none.svg') }), (err: Error) => err instanceof ConfigError && err.message.startsWith('HELP_PORTAL_FAVICON'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the PDF layout script carries the PDF texts of every shipped language', () => {
  const assets = new Assets();
  const js = assets.get(assets.name('pdfLayout'))!.body.toString('utf8');
  const texts = JSON.parse(/export const PDF_TEXTS = (.*);\n$/.exec(js)![1]);
  assert.equal(texts.de['pdf.contents'], 'Inhalt');
  assert.equal(texts.ar['pdf.contents'], 'المحتويات');
  assert.deepEqual(Object.keys(texts).sort(), [...SHIPPED].sort());
});

test('the PDF speaks its own language: contents heading, date, notes and page numbers; English when it has no font for it', async () => {
  const layout = await import(new URL('../src/portal/client/pdf-document.js', import.meta.url).href);
  const { default: markdownit } = await import('markdown-it');
  const assets = new Assets();
  const table = JSON.parse(/export const PDF_TEXTS = (.*);\n$/.exec(assets.get(assets.name('pdfLayout'))!.body.toString('utf8'))![1]);
  const bundle = (uncovered: string[]) => ({
    language: 'de',
    template: { title: 'Tasklane', subtitle: 'Deutsch', date: '2026-03-01', titlePage: true, tableOfContents: true, header: 'Tasklane', footer: '{page} / {pages}', direction: 'ltr', pageSize: 'A4', fontFamily: 'Noto Sans', uncoveredLanguages: uncovered },
    entries: [
      { slug: 'a', kind: 'topic', level: 1, heading: false, title: 'A', summary: '', bodyMd: 'Text.', language: 'en', fallback: true },
      { slug: 'b', kind: 'topic', level: 1, heading: false, title: 'B', summary: '', bodyMd: 'Text.', language: 'de', fallback: false },
    ],
    fonts: [],
  });
  assert.equal(layout.pdfTexts(table, 'zh-TW')['pdf.contents'], '目錄');
  assert.equal(layout.pdfTexts(table, 'zh-CN')['pdf.contents'], '目录');
  assert.equal(layout.pdfTexts(table, 'sv')['pdf.contents'], 'Contents');
  const ctx = { md: markdownit(), images: new Map(), fonts: { familyFor: () => 'Noto Sans' }, measure: null, texts: layout.pdfTexts(table, 'de-AT'), pageBase: 'http://127.0.0.1/' };
  const doc = layout.buildDocument(bundle([]), ctx);
  assert.equal(doc.language, 'de');
  assert.equal(doc.content[0].stack[2].text, '01.03.2026');
  assert.equal(doc.content[1].toc.title.text, 'Inhalt');
  assert.equal(doc.content[2].stack[1].text, 'Noch nicht auf Deutsch verfügbar; angezeigt auf Englisch.');
  assert.equal(doc.footer(2, 5).text, '2 / 5');
  const unfonted = layout.buildDocument(bundle(['de']), ctx);
  assert.equal(unfonted.content[1].toc.title.text, 'Contents');
  assert.match(unfonted.content[0].stack[3].text, /^This help service has no font for German/);
});
