import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { highlight } from '../src/portal/highlight.ts';
import { isSafeLink, renderMarkdown } from '../src/portal/markdown.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

// The reader portal's pages, without a browser: what they answer, what they hide, how they escape
// and cache. test/portal-browser.test.ts drives them in Chromium.

const HOSTILE = '<script>alert("body")</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1)) [data](data:text/html,<b>x</b>) ![pic](data:image/png;base64,AAAA)\n';

describe('The reader portal (server side)', () => {
  let s: TestServer;
  let origin: string;
  const page = (path: string, headers: Record<string, string> = {}) => fetch(`${origin}${path}`, { headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });

  before(async () => {
    s = await startTestServer();
    origin = new URL(s.url).origin;
    await createVersion(s, 'v1', { status: 'published', isLatest: true, languages: ['en', 'de'] });
    await createNode(s, 'v1', { slug: 'guide', kind: 'section', translations: { en: { title: 'Guide' }, de: { title: 'Anleitung' } } });
    await createNode(s, 'v1', {
      slug: 'install',
      parentSlug: 'guide',
      translations: {
        en: { title: 'Install <b>now</b>', summary: 'Set up in five minutes', bodyMd: '## Download\n\nGet the **installer**.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconst x = "<tag>";\n```\n' },
        de: { title: 'Installieren', summary: 'In fünf Minuten', bodyMd: '## Herunterladen\n\nLaden Sie das Programm.\n' },
      },
    });
    await createNode(s, 'v1', { slug: 'only-english', parentSlug: 'guide', translations: { en: { title: 'Only English', bodyMd: 'English text.\n' } } });
    await createNode(s, 'v1', { slug: 'hostile', translations: { en: { title: 'Hostile', bodyMd: HOSTILE } } });
    await createVersion(s, 'd1', { languages: ['en'] });
    await createNode(s, 'd1', { slug: 'secret', translations: { en: { title: 'Secret draft', bodyMd: 'Not yet.\n' } } });
    await createVersion(s, 'old', { status: 'published', languages: ['en'] });
    await createNode(s, 'old', { slug: 'install', translations: { en: { title: 'Old install' } } });
    assert.equal((await s.request('PATCH', '/versions/old', { body: { status: 'archived' } })).status, 200);
  });
  after(() => s.close());

  test('a topic page: HTML with a strict policy, title, description, canonical and hreflang alternates, the tree and breadcrumbs', async () => {
    const res = await page('/support/v1/install');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    const policy = res.headers.get('content-security-policy') ?? '';
    assert.match(policy, /script-src 'self';/);
    assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval/);
    assert.match(policy, /default-src 'none'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const html = await res.text();
    assert.match(html, /<title>Install &lt;b&gt;now&lt;\/b&gt; · Version v1 · Help<\/title>/);
    assert.match(html, /<meta name="description" content="Set up in five minutes">/);
    assert.match(html, new RegExp(`<link rel="canonical" href="${origin}/support/v1/install">`));
    assert.match(html, new RegExp(`<link rel="alternate" hreflang="de" href="${origin}/support/v1/install\\?lang=de">`));
    assert.match(html, /<li class="topic" data-slug="install"><a href="\/support\/v1\/install" aria-current="page">/);
    assert.match(html, /<nav class="breadcrumbs" aria-label="Breadcrumb">[\s\S]*Version v1[\s\S]*Guide[\s\S]*aria-current="page">Install &lt;b&gt;now/);
    assert.match(html, /<h2 id="download">Download/);
    assert.match(html, /<table>/);
    assert.match(html, /<span class="tok-k">const<\/span> x = <span class="tok-s">&quot;&lt;tag&gt;&quot;<\/span>/);
    assert.match(html, /<a class="next" rel="next" href="\/support\/v1\/only-english">/);
    assert.doesNotMatch(html, /<script>|<script (?!type="module" src="\/support\/_assets\/portal\.[0-9a-f]{12}\.js"|type="application\/json" id="portal-messages")/, 'the only script is the portal module (and its messages, which are data)');
    assert.doesNotMatch(html, /\sstyle=|\son[a-z]+=/, 'no inline styles or handlers');
  });

  test('the German page, the language switch and the version switch', async () => {
    const html = await (await page('/support/v1/install?lang=de')).text();
    assert.match(html, /<html lang="de" dir="ltr">/);
    assert.match(html, /<h1>Installieren<\/h1>/);
    assert.match(html, /<form class="switch languages" action="\/support\/_go" method="get">\s*<label for="switch-language">Sprache<\/label>/);
    assert.match(html, /<option value="\/support\/v1\/install" lang="en">English<\/option>/);
    assert.match(html, /<option value="\/support\/v1\/install\?lang=de" lang="de" selected>Deutsch<\/option>/);
    assert.match(html, /<input type="hidden" name="lang" value="de">/, 'search stays in German');
    assert.doesNotMatch(html, /\/support\/old/, 'an archived version is not listed');
    assert.doesNotMatch(html, /\/support\/d1/, 'nor a draft');
  });

  test('a topic without a German translation shows the English text with a notice and lang attributes', async () => {
    const html = await (await page('/support/v1/only-english?lang=de')).text();
    assert.match(html, /<p class="notice" role="note">[^<]*Deutsch[^<]*<span lang="en">English<\/span>/, 'in German, naming the language shown');
    assert.match(html, /<article class="content" lang="en" dir="ltr">\s*<h1>Only English<\/h1>/);
    assert.doesNotMatch(html, /<link rel="alternate" hreflang="de"/, 'no alternate for a language the page does not have');
  });

  test('untrusted Markdown shows as text: no script, no handler, no javascript: or data: links', async () => {
    const html = await (await page('/support/v1/hostile')).text();
    assert.match(html, /&lt;script&gt;alert\(&quot;body&quot;\)&lt;\/script&gt;/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.doesNotMatch(html, /href="javascript:|href="data:|src="data:/i);
    assert.doesNotMatch(html, /<img src=x/);
    for (const [url, safe] of [['javascript:alert(1)', false], ['JaVa\tScRiPt:x', false], [' vbscript:x', false], ['data:image/png;base64,AA', false], ['file:///etc/passwd', false], ['https://example.com', true], ['mailto:a@b.c', true], ['other-topic#x', true], ['/support/v1/x', true]] as const) {
      assert.equal(isSafeLink(url), safe, url);
    }
    assert.equal(highlight('<script>"x"</script>', 'html'), '&lt;script&gt;&quot;x&quot;&lt;/script&gt;');
    // A fence named like a property every object has names no grammar: the code shows as plain text.
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) assert.equal(highlight('x = "<1>"', name), 'x = &quot;&lt;1&gt;&quot;', name);
    assert.match(renderMarkdown('```constructor\nx = 1\n```\n'), /<pre[^>]*><code[^>]*>x = 1\n<\/code><\/pre>/);
    assert.doesNotMatch(renderMarkdown('```"><img src=x onerror=alert(1)>\ncode\n```\n'), /<img/);
    assert.match(renderMarkdown('# Main\n'), /<h1 id="main-1">/, "a heading does not take the page's own ids");
  });

  test('a published page asked for in a language its version lacks is a 404 that links the languages it has', async () => {
    for (const lang of ['fr', '<script>x</script>']) {
      const res = await page(`/support/v1/install?lang=${encodeURIComponent(lang)}`);
      assert.equal(res.status, 404);
      const html = await res.text();
      assert.match(html, /<h1>Not available in this language<\/h1>/);
      assert.match(html, lang === 'fr' ? /not available in [Ff]rançais \(fr\)\./ : /not available in “&lt;script&gt;x&lt;\/script&gt;”\./);
      assert.match(html, /<a href="\/support\/v1\/install\?lang=en" hreflang="en" lang="en">English<\/a>/);
      assert.match(html, /<a href="\/support\/v1\/install\?lang=de" hreflang="de" lang="de">Deutsch<\/a>/);
      assert.doesNotMatch(html, /<script>x/);
      assert.match(html, /<meta name="robots" content="noindex">/);
    }
  });

  test('drafts, archived versions and unknown pages are a 404 page, whatever the request carries', async () => {
    // In the language asked for when the version has it (a version the portal does not show: when a
    // shown one has it), else in the primary language: v1 has English and German, no French.
    const english = /<html lang="en" dir="ltr">[\s\S]*<h1>Page not found<\/h1>/;
    const german = /<html lang="de" dir="ltr">[\s\S]*<h1>Seite nicht gefunden<\/h1>[\s\S]*Zur Startseite der Hilfe/;
    const cases: Array<[string, RegExp]> = [
      ['/support/d1', english],
      ['/support/d1/secret', english],
      ['/support/old/install', english],
      ['/support/v1/nope', english],
      ['/support/nope/install', english],
      ['/support/d1/secret?lang=fr', english],
      ['/support/v1/a/b?lang=fr', english],
      ['/support/v1/nope?lang=de', german],
      ['/support/v1/a/b?lang=de', german],
      ['/support/d1/secret?lang=de', german],
      ['/support/v1/a/b', english],
      ['/support/_assets/portal.000000000000.css', english],
    ];
    for (const [path, expected] of cases) {
      for (const headers of [{}, { authorization: `Bearer ${s.key}` }, { authorization: 'Bearer wrong' }] as Array<Record<string, string>>) {
        const res = await page(path, headers);
        assert.equal(res.status, 404, `${path} ${JSON.stringify(headers)}`);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        const html = await res.text();
        assert.match(html, expected, path);
        assert.match(html, /<meta name="robots" content="noindex">/);
        assert.doesNotMatch(html, /Secret draft|Old install/);
      }
    }
    // A published page is served even beside a wrong credential: the portal reads as anyone.
    assert.equal((await page('/support/v1/install', { authorization: 'Bearer wrong' })).status, 200);
    const post = await fetch(`${origin}/support/v1/install`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });

  test('/support lists the versions; a version\'s start page shows its sections; latest stands for the version marked latest', async () => {
    const root = await page('/support');
    assert.equal(root.status, 200);
    const home = await root.text();
    assert.match(home, /<ul class="cards versions"><li class="card latest">\s*<h3><a href="\/support\/v1">Version v1<\/a>/, 'the latest version first');
    assert.doesNotMatch(home, /\/support\/(old|d1)/, 'no archived version, no draft');
    const start = await (await page('/support/v1')).text();
    assert.match(start, /<h1>Version v1<\/h1>/, "the version's label");
    assert.match(start, /<li class="card section">\s*<h3><a href="\/support\/v1\/guide">Guide<\/a><\/h3>[\s\S]*<a href="\/support\/v1\/install">Install &lt;b&gt;now&lt;\/b&gt;<\/a>/, 'a section with its first topics');
    const go = await page('/support/_go?to=%2Fsupport%2Fv1%2Finstall%3Flang%3Dde');
    assert.equal(go.status, 302, 'a switch without JavaScript goes to the chosen page');
    assert.equal(go.headers.get('location'), '/support/v1/install?lang=de');
    for (const to of ['https://evil.example/', '//evil.example/x', '/support/../x', '/support/%2E%2e/x', '/elsewhere', '/support/\\evil']) assert.equal((await page(`/support/_go?to=${encodeURIComponent(to)}`)).status, 404, to);
    const latest = await (await page('/support/latest/install?lang=de')).text();
    assert.match(latest, new RegExp(`<link rel="canonical" href="${origin}/support/v1/install\\?lang=de">`), 'canonical names the version');
    assert.match(latest, /<a href="\/support\/latest\/only-english\?lang=de">/, 'links stay on latest');
  });

  test('pages carry ETags like the API: 304 for the same generation, a new tag after a write', async () => {
    const first = await page('/support/v1/install');
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^W\/"/);
    assert.equal(first.headers.get('cache-control'), 'public, max-age=60');
    const again = await page('/support/v1/install', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    const put = await putTranslation(s, 'v1', 'install', 'de', { title: 'Installation', bodyMd: 'Neu.\n' });
    assert.equal(put.status, 200);
    const changed = await page('/support/v1/install?lang=de', { 'if-none-match': etag });
    assert.equal(changed.status, 200);
    assert.match(await changed.text(), /<h1>Installation<\/h1>/);
    assert.notEqual((await page('/support/v1/install')).headers.get('etag'), etag);
  });

  test('one stylesheet and one script module, content-hashed and cached for a year', async () => {
    const html = await (await page('/support/v1/install')).text();
    const css = /<link rel="stylesheet" href="(\/support\/_assets\/portal\.[0-9a-f]{12}\.css)">/.exec(html)?.[1];
    const js = /<script type="module" src="(\/support\/_assets\/portal\.[0-9a-f]{12}\.js)"><\/script>/.exec(html)?.[1];
    assert.ok(css && js);
    assert.equal([...html.matchAll(/rel="stylesheet"/g)].length, 1);
    assert.equal([...html.matchAll(/<script type="module"/g)].length, 1);
    assert.equal([...html.matchAll(/<script/g)].length, 2, 'the module and its messages');
    const lazy = ['pdf-script', 'pdf-layout', 'pdfmake', 'courier', 'markdown-it'].map((name) => new RegExp(`data-${name}="([^"]+)"`).exec(html)?.[1]);
    for (const url of [css, js, ...lazy]) {
      assert.ok(url, 'named by the page');
      const res = await page(url);
      assert.equal(res.status, 200, url);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.match(res.headers.get('content-type') ?? '', url.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      const text = await res.text();
      assert.doesNotMatch(text, /sourceMappingURL=/, url);
    }
    assert.match(await (await page(lazy[2]!)).text(), /pdfmake v0\.3/, "pdfmake's browser build, from node_modules");
  });

  test('the search page: the API\'s search by relevance, linked to the section that matched, the words marked', async () => {
    const res = await page('/support/v1/search?q=installer');
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<meta name="robots" content="noindex">/);
    assert.match(html, /<p class="result-count" role="status">1 page matches “installer”\.<\/p>/);
    // Through _open, which counts the opened result for the search report and redirects to install#download.
    assert.match(html, /<h2><a href="\/support\/v1\/_open\?q=installer&amp;to=install&amp;at=download">Install &lt;b&gt;now&lt;\/b&gt;<\/a><\/h2><p class="where"><span class="crumb">Guide<\/span>.*<span class="section">Download<\/span><\/p><p class="snippet">[^<]*<mark>installer<\/mark>/);
    const api = await s.request('GET', '/versions/v1/search?q=installer&lang=en&order=relevance', { key: null });
    assert.deepEqual(api.body.hits.map((h: { slug: string }) => h.slug), ['install']);
    assert.match(await (await page('/support/v1/search?q=alert')).text(), /&lt;script&gt;alert|<mark>alert<\/mark>/);
    assert.doesNotMatch(await (await page('/support/v1/search?q=%3Cscript%3E')).text(), /<script>/);
    assert.match(await (await page(`/support/v1/search?q=${'x'.repeat(201)}`)).text(), /at most 200 characters/);
    assert.match(await (await page('/support/v1/search?q=zzzz')).text(), /No pages match “zzzz”/);
    assert.equal((await page('/support/d1/search?q=secret')).status, 404);
  });

  test('sitemap.xml lists the published pages in their languages; robots.txt points to it', async () => {
    const res = await page('/support/sitemap.xml');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/xml/);
    const xml = await res.text();
    assert.match(xml, new RegExp(`<loc>${origin}/support/v1</loc>`), "the version's start page");
    assert.match(xml, new RegExp(`<loc>${origin}/support/v1\\?lang=de</loc>`));
    assert.match(xml, new RegExp(`<loc>${origin}/support/v1/install</loc>`));
    assert.match(xml, new RegExp(`<loc>${origin}/support/v1/install\\?lang=de</loc>`));
    assert.doesNotMatch(xml, /only-english\?lang=de/);
    assert.doesNotMatch(xml, /\/d1\/|\/old\//);
    const robots = await (await page('/robots.txt')).text();
    assert.match(robots, new RegExp(`Sitemap: ${origin}/support/sitemap.xml`));
    assert.match(robots, /Disallow: \/support\/\*\/search/);
  });

  test('the API is untouched beside the portal', async () => {
    const res = await s.request('GET', '/versions/v1/topics/install', { key: null });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal((await s.request('GET', '/versions/nope/tree', { key: null })).body.error.code, 'not_found');
  });
});

describe('Portal settings', () => {
  test('HELP_PORTAL_PATH, HELP_PORTAL_TITLE, HELP_PORTAL_LOGO and HELP_PORTAL_VERSIONS are read and checked', () => {
    assert.deepEqual(loadConfig({}).portal, { path: '/support', title: 'Help', logo: null, versions: 'all', accent: null, favicon: null });
    const c = loadConfig({ HELP_PORTAL_PATH: '/docs/', HELP_PORTAL_TITLE: 'Tasklane Help', HELP_PORTAL_LOGO: '/logo.png', HELP_PORTAL_VERSIONS: 'v2, v1' }).portal;
    assert.deepEqual(c, { path: '/docs', title: 'Tasklane Help', logo: '/logo.png', versions: ['v2', 'v1'], accent: null, favicon: null });
    assert.equal(loadConfig({ HELP_PORTAL_VERSIONS: 'latest' }).portal.versions, 'latest');
    for (const env of [{ HELP_PORTAL_PATH: '/help/v1' }, { HELP_PORTAL_PATH: 'support' }, { HELP_PORTAL_PATH: '/oauth' }, { HELP_PORTAL_PATH: '/mcp' }, { HELP_PORTAL_LOGO: 'javascript:alert(1)' }, { HELP_PORTAL_LOGO: 'http://x/logo.png' }, { HELP_PORTAL_VERSIONS: 'v1,../x' }]) {
      assert.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
    }
    // A segment . or .. would be resolved away by browsers and proxies: the pages would be asked for elsewhere.
    for (const path of ['/a/..', '/docs/./x', '/..']) {
      assert.throws(() => loadConfig({ HELP_PORTAL_PATH: path }), /HELP_PORTAL_PATH must be a path such as \/support \(segments of .*none of them "\." or "\.\."\)/, path);
    }
    assert.throws(() => loadConfig({ HELP_PORTAL_PATH: '/oauth/pages' }), /HELP_PORTAL_PATH must stay out of \/oauth: the service answers there/);
  });

  test('the portal serves only the versions HELP_PORTAL_VERSIONS lists, at HELP_PORTAL_PATH, with its title', async () => {
    const s = await startTestServer({ env: { HELP_PORTAL_PATH: '/docs', HELP_PORTAL_VERSIONS: 'v2', HELP_PORTAL_TITLE: 'Tasklane Help' } });
    try {
      for (const v of ['v1', 'v2']) {
        await createVersion(s, v, { status: 'published', languages: ['en'] });
        await createNode(s, v, { slug: 'intro' });
      }
      const origin = new URL(s.url).origin;
      const html = await (await fetch(`${origin}/docs/v2/intro`)).text();
      assert.match(html, /<title>Title intro · Version v2 · Tasklane Help<\/title>/);
      assert.equal((await fetch(`${origin}/docs/v1/intro`)).status, 404);
      assert.equal((await fetch(`${origin}/support/v2/intro`)).status, 404);
      assert.match(await (await fetch(`${origin}/docs`, { redirect: 'manual' })).text(), /<a href="\/docs\/v2">Version v2<\/a>/);
    } finally {
      await s.close();
    }
  });
});
