import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../src/config.ts';
import { findFonts, VENDORED_FONTS } from '../src/pdf/fonts.ts';
import { validator } from '../src/schemas/registry.ts';
import { startService } from '../src/service.ts';
import { PROJECT } from './helpers/process.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

const titles = (body: any) => body.entries.map((e: any) => `${'  '.repeat(e.level - 1)}${e.slug}${e.heading ? ' (heading)' : ''}`);

describe('GET /versions/{version}/pdf-bundle', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { status: 'published', isLatest: true, languages: ['en', 'de', 'ja'] });
    await createNode(s, 'v1', { slug: 'intro', translations: { en: { title: 'Intro', bodyMd: 'Hello\n' }, de: { title: 'Einführung', bodyMd: 'Hallo\n' } } });
    await createNode(s, 'v1', { slug: 'guide', kind: 'section', translations: { en: { title: 'Guide', bodyMd: 'About the guide\n' } } });
    await createNode(s, 'v1', { slug: 'basics', kind: 'section', parentSlug: 'guide', translations: { en: { title: 'Basics' } } });
    await createNode(s, 'v1', { slug: 'install', parentSlug: 'basics', translations: { en: { title: 'Install', bodyMd: '## Steps\n' }, ja: { title: 'インストール', bodyMd: '手順\n' } } });
    await createNode(s, 'v1', { slug: 'configure', parentSlug: 'basics', translations: { en: { title: 'Configure' } } });
    await createNode(s, 'v1', { slug: 'faq', translations: { en: { title: 'FAQ' } } });
    await createVersion(s, 'draft1', { languages: ['en'] });
    await createNode(s, 'draft1', { slug: 'x' });
  });
  after(() => s.close());

  test('the whole version, in document order with levels, and the documented shape', async () => {
    const res = await s.request('GET', '/versions/v1/pdf-bundle', { key: null });
    assert.equal(res.status, 200);
    assert.deepEqual(titles(res.body), ['intro', 'guide', '  basics', '    install', '    configure', 'faq']);
    const validate = validator('PdfBundle');
    const valid = validate(res.body);
    assert.ok(valid, JSON.stringify(validate.errors));
    assert.equal(res.body.template.title, 'Version v1');
    assert.equal(res.body.template.tableOfContents, true);
    assert.equal(res.body.filename, 'version-v1-v1-en.pdf');
    assert.equal(res.body.entries[0].bodyMd, 'Hello\n');
  });

  test('latest stands for the version marked latest', async () => {
    const res = await s.request('GET', '/versions/latest/pdf-bundle?topics=faq', { key: null });
    assert.equal(res.status, 200);
    assert.equal(res.body.version.slug, 'v1');
  });

  test('chosen topics come in document order, sections bring their descendants, ancestors are headings', async () => {
    const res = await s.request('GET', '/versions/v1/pdf-bundle?topics=faq,basics', { key: null });
    assert.equal(res.status, 200);
    assert.deepEqual(titles(res.body), ['guide (heading)', '  basics', '    install', '    configure', 'faq']);
    assert.equal(res.body.entries[0].bodyMd, '', 'a heading carries no body');
    assert.equal(res.body.filename, 'version-v1-v1-en-3-topics.pdf');
  });

  test('one topic: its title is the subtitle, no table of contents, its slug in the file name', async () => {
    const res = await s.request('GET', '/versions/v1/pdf-bundle?topics=install&lang=ja', { key: null });
    assert.deepEqual(titles(res.body), ['guide (heading)', '  basics (heading)', '    install']);
    assert.equal(res.body.template.subtitle, 'インストール');
    assert.equal(res.body.template.tableOfContents, false);
    assert.equal(res.body.filename, 'version-v1-v1-ja-install.pdf');
  });

  test('one section: the PDF is called after the section, also when it holds a single topic', async () => {
    await createNode(s, 'v1', { slug: 'extras', kind: 'section', translations: { en: { title: 'Extras' }, de: { title: 'Extras DE' } } });
    await createNode(s, 'v1', { slug: 'tips', parentSlug: 'extras', translations: { en: { title: 'Tips', bodyMd: 'Tip\n' } } });
    const res = await s.request('GET', '/versions/v1/pdf-bundle?topics=extras&lang=de', { key: null });
    assert.deepEqual(titles(res.body), ['extras', '  tips']);
    assert.equal(res.body.template.subtitle, 'Extras DE');
    assert.equal(res.body.filename, 'version-v1-v1-de-extras.pdf');
    assert.equal((await s.request('DELETE', '/versions/v1/nodes/extras')).status, 200);
  });

  test('a language the version does not have is 400 naming query/lang, not a PDF under its name in another', async () => {
    const res = await s.request('GET', '/versions/v1/pdf-bundle?lang=fr', { key: null });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'language_not_enabled');
    assert.equal(res.body.error.field, 'query/lang');
    assert.deepEqual(res.body.error.languages, ['en', 'de', 'ja']);
  });

  test('each entry says which language it is in, marking fallbacks', async () => {
    const res = await s.request('GET', '/versions/v1/pdf-bundle?lang=de', { key: null });
    const intro = res.body.entries.find((e: any) => e.slug === 'intro');
    const faq = res.body.entries.find((e: any) => e.slug === 'faq');
    assert.deepEqual([intro.language, intro.fallback, intro.title], ['de', false, 'Einführung']);
    assert.deepEqual([faq.language, faq.fallback], ['en', true]);
    assert.equal(res.body.language, 'de');
  });

  test('limit keeps the first N topics', async () => {
    const res = await s.request('GET', '/versions/v1/pdf-bundle?limit=2', { key: null });
    assert.deepEqual(titles(res.body), ['intro', 'guide', '  basics', '    install']);
    for (const bad of ['0', '201', 'x', '-1']) {
      const r = await s.request('GET', `/versions/v1/pdf-bundle?limit=${bad}`, { key: null });
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error.field, 'query/limit');
    }
    assert.equal((await s.request('GET', '/versions/v1/pdf-bundle?limit=200', { key: null })).status, 200);
  });

  test('a version that is neither a slug nor latest is 400 saying both forms', async () => {
    const res = await s.request('GET', '/versions/Not%20A%20Slug/pdf-bundle', { key: null });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.field, 'path/version');
    assert.match(res.body.error.message, /version slug .*or "latest"/);
    assert.doesNotMatch(res.body.error.message, /constant/);
  });

  test('an unknown slug is 400 invalid_selection naming it', async () => {
    const res = await s.request('GET', '/versions/v1/pdf-bundle?topics=intro,nope', { key: null });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_selection');
    assert.deepEqual(res.body.error.unknown, ['nope']);
  });

  test('more than 200 topics is 400; with a limit it is served', async () => {
    await createVersion(s, 'big', { status: 'published', languages: ['en'] });
    const nodes = Array.from({ length: 201 }, (_, i) => ({ slug: `t${i}`, translations: { en: { title: `T${i}` } } }));
    assert.equal((await s.request('POST', '/versions/big/import', { body: { nodes } })).status, 200);
    const res = await s.request('GET', '/versions/big/pdf-bundle', { key: null });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_selection');
    assert.equal(res.body.error.max, 200);
    const limited = await s.request('GET', '/versions/big/pdf-bundle?limit=200', { key: null });
    assert.equal(limited.status, 200);
    assert.equal(limited.body.entries.length, 200);
  });

  test('a version that is not published is 404 to anonymous callers', async () => {
    assert.equal((await s.request('GET', '/versions/draft1/pdf-bundle', { key: null })).status, 404);
    assert.equal((await s.request('GET', '/versions/nope/pdf-bundle', { key: null })).status, 404);
  });

  test('the fonts cover the version\'s languages and are served by the service', async () => {
    const res = await s.request('GET', '/versions/v1/pdf-bundle', { key: null });
    const families = [...new Set(res.body.fonts.map((f: any) => f.family))];
    assert.deepEqual(families, ['Noto Sans', 'Noto Sans JP']);
    const jp = res.body.fonts.find((f: any) => f.family === 'Noto Sans JP');
    assert.deepEqual(jp.languages, ['ja']);
    for (const font of res.body.fonts) {
      assert.ok(font.url.startsWith(`${s.url}/fonts/`), font.url);
      const file = await fetch(font.url);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'font/ttf');
      const bytes = new Uint8Array(await file.arrayBuffer());
      assert.deepEqual([...bytes.slice(0, 4)], [0, 1, 0, 0], 'a TrueType file');
    }
    assert.equal((await fetch(`${s.url}/fonts/nope.ttf`)).status, 404);
  });
});

describe('PDF fonts: the CJK families are optional (a production install has none unless HELP_FONT_DIR gives them)', () => {
  const jpPackage = join(PROJECT, 'node_modules', '@expo-google-fonts', 'noto-sans-jp');
  let folder: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'help-fonts-'));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  /** A server as a production install runs it: no font package, the required families from vendor/fonts/. */
  async function withServer(dir: string | null, run: (s: TestServer) => Promise<void>) {
    const s = await startTestServer({ fonts: findFonts(dir, { packages: false }) });
    try {
      await createVersion(s, 'v1', { status: 'published', isLatest: true, languages: ['en', 'ja', 'ar'] });
      await createNode(s, 'v1', { slug: 'intro', translations: { en: { title: 'Intro' }, ja: { title: 'はじめに', bodyMd: '手順\n' } } });
      await run(s);
    } finally {
      await s.close();
    }
  }

  test('without them, Japanese is uncovered: the bundle names no Japanese font and says so, and the file is not served; Latin and Arabic are', async () => {
    assert.deepEqual(findFonts(null, { packages: false }).missing, ['Noto Sans JP', 'Noto Sans SC', 'Noto Sans TC', 'Noto Sans KR']);
    await withServer(null, async (s) => {
      const res = await s.request('GET', '/versions/v1/pdf-bundle?lang=ja', { key: null });
      assert.equal(res.status, 200);
      const validate = validator('PdfBundle');
      const valid = validate(res.body);
      assert.ok(valid, JSON.stringify(validate.errors));
      assert.deepEqual(res.body.template.uncoveredLanguages, ['ja']);
      assert.equal(res.body.template.fontFamily, 'Noto Sans', 'the text is set in Noto Sans');
      assert.deepEqual([...new Set(res.body.fonts.map((f: any) => f.family))], ['Noto Sans', 'Noto Sans Arabic']);
      assert.equal((await fetch(`${s.url}/fonts/noto-sans-jp-400.ttf`)).status, 404);
      const latin = await fetch(`${s.url}/fonts/noto-sans-700-italic.ttf`);
      assert.equal(latin.status, 200);
      assert.ok(Buffer.from(await latin.arrayBuffer()).equals(readFileSync(join(VENDORED_FONTS, 'noto-sans-700-italic.ttf'))), 'from vendor/fonts/');
    });
  });

  test('a family counts only whole: a folder with the regular weight alone leaves Japanese uncovered', () => {
    copyFileSync(join(jpPackage, '400Regular', 'NotoSansJP_400Regular.ttf'), join(folder, 'noto-sans-jp-400.ttf'));
    const fonts = findFonts(folder, { packages: false });
    assert.ok(fonts.missing.includes('Noto Sans JP'));
    assert.equal(fonts.files.has('noto-sans-jp-400.ttf'), false);
  });

  test('HELP_FONT_DIR with the two files, named as served, brings Japanese back: the bundle names them and the service serves them', async () => {
    copyFileSync(join(jpPackage, '400Regular', 'NotoSansJP_400Regular.ttf'), join(folder, 'noto-sans-jp-400.ttf'));
    copyFileSync(join(jpPackage, '700Bold', 'NotoSansJP_700Bold.ttf'), join(folder, 'noto-sans-jp-700.ttf'));
    assert.equal(loadConfig({ HELP_FONT_DIR: folder }).fontDir, folder);
    await withServer(folder, async (s) => {
      const res = await s.request('GET', '/versions/v1/pdf-bundle?lang=ja', { key: null });
      assert.deepEqual(res.body.template.uncoveredLanguages, []);
      assert.equal(res.body.template.fontFamily, 'Noto Sans JP');
      const jp = res.body.fonts.filter((f: any) => f.family === 'Noto Sans JP');
      assert.deepEqual(jp.map((f: any) => [f.weight, f.url.slice(s.url.length)]), [[400, '/fonts/noto-sans-jp-400.ttf'], [700, '/fonts/noto-sans-jp-700.ttf']]);
      const bold = await fetch(`${s.url}/fonts/noto-sans-jp-700.ttf`);
      assert.equal(bold.headers.get('content-type'), 'font/ttf');
      assert.ok(Buffer.from(await bold.arrayBuffer()).equals(readFileSync(join(folder, 'noto-sans-jp-700.ttf'))));
    });
  });

  test('a start warns, once, when a version has a language without a font, naming the languages and where to read how to add them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    const first = await startTestServer({ dataDir, fonts: findFonts(null, { packages: false }) });
    await createVersion(first, 'v1', { status: 'published', languages: ['en', 'ja', 'hi'] });
    await first.service.close();
    const startLogging = async (fonts: ReturnType<typeof findFonts>) => {
      const lines: Array<Record<string, any>> = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
          done();
        },
      });
      const service = await startService(loadConfig({ LOG_LEVEL: 'info' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null }), pino({ level: 'info' }, sink), { fonts });
      await service.ready;
      await service.close();
      return lines.filter((l) => /PDF font/.test(l.msg));
    };
    try {
      const [warning, ...more] = await startLogging(findFonts(null, { packages: false }));
      assert.equal(more.length, 0);
      assert.equal(warning.level, 40);
      assert.deepEqual(warning.languages, ['ja', 'hi'], 'Hindi has no family at all; Japanese has none installed');
      assert.match(warning.msg, /docs\/portal\.md#fonts \(HELP_FONT_DIR\)/);
      // With the CJK fonts only Hindi is left.
      assert.deepEqual((await startLogging(findFonts(null)))[0].languages, ['hi']);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a HELP_FONT_DIR that is not a folder stops the start, naming the setting', () => {
    for (const value of [join(folder, 'nope'), join(folder, 'noto-sans-jp-400.ttf')]) {
      assert.throws(() => loadConfig({ HELP_FONT_DIR: value }), (err: Error) => err instanceof ConfigError && err.message.startsWith('HELP_FONT_DIR'));
    }
  });
});
