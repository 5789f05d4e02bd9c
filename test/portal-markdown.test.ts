import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyFile } from '../src/auth/key-file.ts';
import { createKey } from '../src/cli/keys.ts';
import { rewriteLinks } from '../src/portal/markdown-links.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

// llms.txt, llms-full.txt and the Markdown twins of the portal's pages: their format, what they
// hold, content negotiation, what they hide, their validators, hostile input, and streaming.

const STORED = 'Plain text.\n\n## Part\n\nMore *text*, a [link](https://example.com/a).\n';
const LINKED = `See [configure](configure), [the part](intro#part), [German](configure?lang=de), [here](#top), [files](faq.md), [root](/support/v1/faq), [old](/support/old/install), [ext](https://example.com/x "Ext") ![pic](images/shot.png "Shot")
[up](../configure) [file](../de/intro.md#part)

\`[code](configure)\` and \`\`[x](faq) \`\` stay.

    [indented](configure)

\`\`\`md
[fenced](configure)
\`\`\`

[ref]: configure "Title"
`;

interface Listed {
  title: string;
  url: string;
  notes?: string;
}

/** llms.txt read by the llmstxt.org format: one H1 first, a blockquote, text without headings, then H2 sections holding only link lists. */
function parseLlms(text: string): { title: string; summary: string; sections: Array<{ title: string; links: Listed[] }> } {
  const lines = text.split('\n');
  assert.match(lines[0], /^# \S/, 'an H1 first');
  assert.equal(lines[1], '');
  assert.match(lines[2], /^> \S/, 'then a blockquote');
  assert.equal(lines.filter((l) => /^# /.test(l)).length, 1, 'one H1');
  const sections: Array<{ title: string; links: Listed[] }> = [];
  for (const line of lines.slice(3)) {
    if (line.startsWith('## ')) {
      sections.push({ title: line.slice(3), links: [] });
      continue;
    }
    assert.doesNotMatch(line, /^#/, `no other headings: ${line}`);
    if (sections.length === 0 || line === '') continue;
    const item = /^- \[((?:[^\]\\]|\\.)+)\]\((\S+)\)(?:: (.+))?$/.exec(line);
    assert.ok(item, `a section holds a list of links: ${JSON.stringify(line)}`);
    sections.at(-1)!.links.push({ title: item[1], url: item[2], notes: item[3] });
  }
  for (const s of sections) assert.ok(s.links.length > 0, `section ${s.title} lists links`);
  return { title: lines[0].slice(2), summary: lines[2].slice(2), sections };
}

describe('llms.txt and the Markdown twins', () => {
  let s: TestServer;
  let origin: string;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${origin}${path}`, { headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });

  before(async () => {
    s = await startTestServer();
    origin = new URL(s.url).origin;
    await createVersion(s, 'v1', { status: 'published', isLatest: true, languages: ['en', 'de'] });
    await createNode(s, 'v1', { slug: 'intro', translations: { en: { title: 'Intro', summary: 'Start here', bodyMd: STORED }, de: { title: 'Einführung', summary: 'Hier anfangen', bodyMd: 'Text.\n' } } });
    await createNode(s, 'v1', { slug: 'guide', kind: 'section', translations: { en: { title: 'Guide' }, de: { title: 'Anleitung' } } });
    await createNode(s, 'v1', { slug: 'install', parentSlug: 'guide', translations: { en: { title: 'Install [fast]', summary: 'Set up\nin two lines', bodyMd: LINKED }, de: { title: 'Installieren', bodyMd: LINKED } } });
    await createNode(s, 'v1', { slug: 'configure', parentSlug: 'guide', translations: { en: { title: 'Configure', bodyMd: 'English only.\n' } } });
    await createNode(s, 'v1', { slug: 'advanced', kind: 'section', parentSlug: 'guide', translations: { en: { title: 'Advanced', bodyMd: 'Advanced things.\n' } } });
    await createNode(s, 'v1', { slug: 'tuning', kind: 'section', parentSlug: 'advanced', translations: { en: { title: 'Tuning' } } });
    await createNode(s, 'v1', { slug: 'deep-topic', parentSlug: 'tuning', translations: { en: { title: 'Deep topic', summary: 'Fine detail' } } });
    await createNode(s, 'v1', { slug: 'api-reference', kind: 'section', translations: { en: { title: 'API reference' } } });
    await createNode(s, 'v1', { slug: 'endpoints', parentSlug: 'api-reference', translations: { en: { title: 'Endpoints' } } });
    await createNode(s, 'v1', { slug: 'faq', translations: { en: { title: 'FAQ' } } });
    await createVersion(s, 'd1', { languages: ['en'] });
    await createNode(s, 'd1', { slug: 'secret', translations: { en: { title: 'Secret draft', bodyMd: 'Not yet.\n' } } });
    await createVersion(s, 'old', { status: 'published', languages: ['en'] });
    await createNode(s, 'old', { slug: 'install', translations: { en: { title: 'Old install' } } });
    assert.equal((await s.request('PATCH', '/versions/old', { body: { status: 'archived' } })).status, 200);
    await createVersion(s, 'v2', { status: 'published', languages: ['en'] });
    await createNode(s, 'v2', { slug: 'other' });
  });
  after(() => s.close());

  test('llms.txt is the llmstxt.org format: H1, blockquote, an H2 per top-level node listing twins in document order, and Optional', async () => {
    const res = await get('/support/v1/llms.txt');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    const text = await res.text();
    const llms = parseLlms(text);
    assert.equal(llms.title, 'Version v1');
    assert.match(llms.summary, /^Help for Version v1, in English: 7 pages/);
    assert.match(text, new RegExp(`every page in one file: ${origin}/support/v1/llms-full\\.txt\\n`));
    assert.deepEqual(llms.sections.map((s) => s.title), ['Intro', 'Guide', 'FAQ', 'Optional']);
    const slugs = (i: number) => llms.sections[i].links.map((l) => /\/support\/v1\/([a-z0-9-]+)\.md$/.exec(l.url)?.[1]);
    // A section with text of its own is a page; one with a title only is not (llms.txt is its list).
    assert.deepEqual(slugs(1), ['install', 'configure', 'advanced']);
    // Optional: three levels below the top, and everything in a reference section, in document order.
    assert.deepEqual(slugs(3), ['deep-topic', 'endpoints']);
    assert.deepEqual(llms.sections[0].links[0], { title: 'Intro', url: `${origin}/support/v1/intro.md`, notes: 'Start here' });
    assert.deepEqual(llms.sections[1].links[0], { title: 'Install \\[fast\\]', url: `${origin}/support/v1/install.md`, notes: 'Set up in two lines' });
    for (const link of llms.sections.flatMap((s) => s.links)) {
      const twin = await fetch(link.url);
      assert.equal(twin.status, 200, link.url);
      assert.equal(twin.headers.get('content-type'), 'text/markdown; charset=utf-8', link.url);
      assert.match(await twin.text(), /^# /m);
    }
  });

  test('?lang= picks the language and every link carries it; the portal\'s llms.txt is the latest version\'s', async () => {
    const llms = parseLlms(await (await get('/support/v1/llms.txt?lang=de')).text());
    assert.match(llms.summary, /in Deutsch/);
    assert.deepEqual(llms.sections.map((s) => s.title).slice(0, 2), ['Einführung', 'Anleitung']);
    for (const link of llms.sections.flatMap((s) => s.links)) assert.match(link.url, /\.md\?lang=de$/);
    assert.ok(llms.sections[1].links.some((l) => l.title === 'Configure'), 'a page without German is listed in its fallback language');
    const root = await get('/support/llms.txt');
    assert.equal(root.status, 200);
    assert.equal(await root.text(), await (await get('/support/latest/llms.txt')).text());
    const robots = await get('/robots.txt');
    assert.equal(robots.headers.get('link'), `<${origin}/support/llms.txt>; rel="alternate"; type="text/plain"; title="llms.txt"`);
    assert.match(await robots.text(), new RegExp(`# llms\\.txt: ${origin}/support/llms\\.txt`));
  });

  test('a twin is the title, the summary as a blockquote and the body as stored', async () => {
    const res = await get('/support/v1/intro.md');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8');
    const stored = (await s.request('GET', '/versions/v1/topics/intro/translations/en', { key: null })).body;
    assert.equal(stored.bodyMd, STORED);
    assert.equal(await res.text(), `# Intro\n\n> Start here\n\n${stored.bodyMd}`);
    assert.equal(await (await get('/support/v1/intro.md?lang=de')).text(), '# Einführung\n\n> Hier anfangen\n\nText.\n');
    // A section's twin lists its pages, as its HTML page does.
    assert.equal(await (await get('/support/v1/guide.md')).text(), `# Guide\n\n- [Install \\[fast\\]](${origin}/support/v1/install.md): Set up in two lines\n- [Configure](${origin}/support/v1/configure.md)\n- [Advanced](${origin}/support/v1/advanced.md)\n`);
  });

  test('relative links become absolute: pages of the version to their twins (as the content format reads links), in the language read; code stays as written', async () => {
    const v1 = `${origin}/support/v1`;
    const twin = await (await get('/support/v1/install.md')).text();
    const expected = (at: string, lang: string) =>
      `# ${lang ? 'Installieren' : 'Install [fast]'}\n\n${lang ? '' : '> Set up\n> in two lines\n\n'}` +
      LINKED.replace('(configure)', `(${at}/configure.md${lang})`)
        .replace('(intro#part)', `(${at}/intro.md${lang}#part)`)
        .replace('(configure?lang=de)', `(${at}/configure.md?lang=de)`)
        .replace('(#top)', `(${at}/install.md${lang}#top)`)
        .replace('(faq.md)', `(${at}/faq.md${lang})`)
        .replace('(/support/v1/faq)', `(${at}/faq.md${lang})`)
        .replace('(../configure)', `(${at}/configure.md${lang})`)
        .replace('(../de/intro.md#part)', `(${at}/intro.md?lang=de#part)`)
        .replace('(/support/old/install)', `(${origin}/support/old/install)`)
        .replace('(images/shot.png', `(${at}/images/shot.png`)
        .replace('[ref]: configure', `[ref]: ${at}/configure.md${lang}`);
    assert.equal(twin, expected(v1, ''));
    assert.equal(await (await get('/support/v1/install.md?lang=de')).text(), expected(v1, '?lang=de'));
    assert.equal(await (await get('/support/latest/install.md')).text(), expected(`${origin}/support/latest`, ''));
  });

  test('the fallback notice is a line at the top, as on the HTML page', async () => {
    const text = await (await get('/support/v1/configure.md?lang=de')).text();
    assert.equal(text, 'This page is not yet available in Deutsch; showing English.\n\n# Configure\n\nEnglish only.\n');
  });

  test('Accept: text/markdown, ranked by q-values against text/html, answers the twin at the page\'s address; both carry Vary: Accept', async () => {
    const twin = await (await get('/support/v1/intro.md')).text();
    const cases: Array<[string, 'md' | 'html']> = [
      ['text/markdown', 'md'],
      ['text/html;q=0.9, text/markdown', 'md'],
      ['text/markdown, text/html', 'md'],
      ['text/*;q=0.5, text/markdown;q=0.8', 'md'],
      ['text/markdown;q=0.5, text/html', 'html'],
      ['text/html, text/markdown', 'html'],
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'html'],
      ['*/*', 'html'],
      ['text/markdown;q=0', 'html'],
      ['', 'html'],
    ];
    const tags = new Map<string, string>();
    for (const [accept, want] of cases) {
      const res = await get('/support/v1/intro', accept ? { accept } : {});
      assert.equal(res.status, 200, accept);
      assert.match(res.headers.get('vary') ?? '', /\bAccept\b/, accept);
      const body = await res.text();
      if (want === 'md') {
        assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8', accept);
        assert.equal(res.headers.get('content-location'), '/support/v1/intro.md');
        assert.equal(body, twin, accept);
      } else {
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/, accept);
        assert.match(body, /<link rel="alternate" type="text\/markdown" href="\/support\/v1\/intro\.md">/);
        assert.equal(res.headers.get('link'), '</support/v1/intro.md>; rel="alternate"; type="text/markdown"');
        assert.match(body, /<button type="button" id="copy-markdown" hidden>Copy as Markdown<\/button>/);
      }
      tags.set(want, res.headers.get('etag')!);
    }
    assert.notEqual(tags.get('md'), tags.get('html'), 'each answer has its own validator');
    assert.equal((await get('/support/v1/intro', { accept: 'text/markdown', 'if-none-match': tags.get('md')! })).status, 304);
    assert.equal((await get('/support/v1/intro', { 'if-none-match': tags.get('md')! })).status, 200, 'the HTML is not the twin');
    assert.match(await (await get('/support/v1/install?lang=de')).text(), /<link rel="alternate" type="text\/markdown" href="\/support\/v1\/install\.md\?lang=de">/);
    const missing = await get('/support/v1/nope', { accept: 'text/markdown' });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('content-type'), 'text/plain; charset=utf-8', 'an agent asking for Markdown gets a text error');
  });

  test('drafts, archived versions and working copies appear nowhere, whatever the request carries', async () => {
    const paths = ['/support/d1/llms.txt', '/support/d1/llms-full.txt', '/support/d1/secret.md', '/support/old/llms.txt', '/support/old/install.md', '/support/old/llms-full.txt', '/support/v1/secret.md'];
    for (const path of paths) {
      for (const headers of [{}, { authorization: `Bearer ${s.key}` }] as Array<Record<string, string>>) {
        const res = await get(path, headers);
        assert.equal(res.status, 404, path);
        assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8', path);
        assert.equal(await res.text(), 'Page not found: there is no published page at this address. It may have moved, or the version may not be published.\n');
      }
    }
    assert.equal((await get('/support/d1/secret', { accept: 'text/markdown', authorization: `Bearer ${s.key}` })).status, 404);
    const full = await (await get('/support/v1/llms-full.txt')).text();
    const index = await (await get('/support/v1/llms.txt')).text();
    for (const text of [full, index]) assert.doesNotMatch(text, /Secret draft|Old install|\/d1\/|\/old\/(?!install\))/);
  });

  test('llms-full.txt: every page in document order, each under its title and address', async () => {
    const res = await get('/support/v1/llms-full.txt');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    const text = await res.text();
    const titles = [...text.matchAll(/^# (.+)\n\nSource: (\S+)$/gm)].map((m) => [m[1], m[2].replace(`${origin}/support/v1/`, '')]);
    assert.deepEqual(titles, [
      ['Intro', 'intro.md'],
      ['Install [fast]', 'install.md'],
      ['Configure', 'configure.md'],
      ['Advanced', 'advanced.md'],
      ['Deep topic', 'deep-topic.md'],
      ['Endpoints', 'endpoints.md'],
      ['FAQ', 'faq.md'],
    ]);
    assert.ok(text.startsWith(`# Intro\n\nSource: ${origin}/support/v1/intro.md\n\n> Start here\n\n${STORED}\n# Install`));
    const german = await (await get('/support/v1/llms-full.txt?lang=de')).text();
    assert.match(german, new RegExp(`# Configure\\n\\nSource: ${origin}/support/v1/configure\\.md\\?lang=de\\n\\nThis page is not yet available in Deutsch; showing English\\.\\n\\nEnglish only\\.\\n`));
  });

  test('ETag and 304 on every answer; a write to another version leaves the tags, one to the version moves them', async () => {
    const paths = ['/support/v1/intro.md', '/support/v1/llms.txt', '/support/v1/llms-full.txt', '/support/v1/intro.md?lang=de'];
    const tags = new Map<string, string>();
    for (const path of paths) {
      const res = await get(path);
      const etag = res.headers.get('etag')!;
      assert.match(etag, /^W\/"/, path);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=60', path);
      assert.equal((await get(path, { 'if-none-match': etag })).status, 304, path);
      tags.set(path, etag);
    }
    assert.equal((await putTranslation(s, 'v2', 'other', 'en', { title: 'Changed elsewhere' })).status, 200);
    for (const path of paths) assert.equal((await get(path, { 'if-none-match': tags.get(path)! })).status, 304, `${path} after a write to v2`);
    assert.equal((await putTranslation(s, 'v1', 'faq', 'en', { title: 'Questions', bodyMd: 'Answers.\n' })).status, 200);
    for (const path of paths) {
      const res = await get(path, { 'if-none-match': tags.get(path)! });
      assert.equal(res.status, 200, `${path} after a write to v1`);
      if (!path.startsWith('/support/v1/intro')) assert.match(await res.text(), /Questions/);
    }
    // Through `latest`, the mark moving to another version moves the tag.
    const latest = await get('/support/llms.txt');
    assert.equal(parseLlms(await latest.text()).title, 'Version v1');
    assert.equal((await s.request('PATCH', '/versions/v2', { body: { isLatest: true } })).status, 200);
    const moved = await get('/support/llms.txt', { 'if-none-match': latest.headers.get('etag')! });
    assert.equal(moved.status, 200);
    assert.equal(parseLlms(await moved.text()).title, 'Version v2');
  });

  test('a hostile slug or language is a clear 404 in text, never an escape or a 500', async () => {
    const paths = [
      '/support/v1/..%2F..%2Fetc%2Fpasswd.md',
      '/support/v1/%2e%2e.md',
      '/support/v1/.md',
      '/support/v1/install.md.md',
      '/support/v1/INSTALL.md',
      '/support/v1/%00.md',
      `/support/v1/${'a'.repeat(500)}.md`,
      '/support/..%2Fv1/llms.txt',
      '/support/nope/llms-full.txt',
      '/support/v1/install.md?lang=%3Cscript%3E',
      '/support/v1/llms.txt?lang=..%2F..%2Fx',
      '/support/v1/llms-full.txt?lang=fr',
      '/support/v1/install.md?lang=de&lang=xx%00',
    ];
    for (const path of paths) {
      const res = await get(path);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8', path);
      const text = await res.text();
      assert.match(text, /^(Page not found|Not available in this language): /, path);
      assert.doesNotMatch(text, /<script>|\0/, path);
    }
    // Below a twin's or llms.txt's address is no text file: the portal's HTML 404 page.
    for (const path of ['/support/v1/install.md/x', '/support/v1/llms.txt/x']) {
      const res = await get(path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
    }
    const language = await (await get('/support/v1/install.md?lang=fr')).text();
    assert.equal(language, 'Not available in this language: this help is not available in "fr". Languages: en, de (?lang=en).\n');
    assert.equal((await get('/support/v1/install.md?lang=de&lang=en')).status, 200, 'the last of repeated parameters counts, as on the HTML pages');
  });

  test('the link rewriter is linear on hostile bodies and never touches code', () => {
    const resolve = (d: string) => `X${d}`;
    assert.equal(rewriteLinks('[a](b) `[c](d)` [e](f)', resolve), '[a](Xb) `[c](d)` [e](Xf)');
    assert.equal(rewriteLinks('``` `[a](b)` ```\n[c](d)', resolve), '``` `[a](b)` ```\n[c](Xd)');
    assert.equal(rewriteLinks('[a](<b c>) [d](e(f)) [g]()', resolve), '[a](<Xb c>) [d](e(f)) [g]()');
    assert.equal(rewriteLinks('a\r\n[b](c)\r\n', resolve), 'a\r\n[b](Xc)\r\n', 'line endings kept');
    assert.equal(rewriteLinks('~~~\n[a](b)\n~~~\n', resolve), '~~~\n[a](b)\n~~~\n');
    const bodies = ['`'.repeat(1) + ' `` '.repeat(50_000), '](x '.repeat(100_000), '[a]('.repeat(100_000), '`a` [b](c) '.repeat(50_000), `${'['.repeat(100_000)}]: x`, '```\n'.repeat(50_000)];
    for (const body of bodies) {
      const started = performance.now();
      rewriteLinks(body, resolve);
      assert.ok(performance.now() - started < 2000, `${JSON.stringify(body.slice(0, 12))}… took ${Math.round(performance.now() - started)} ms`);
    }
  });
});

describe('A working copy', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  before(async () => {
    gh = await new FakeGitHub().start();
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    const publisher = (await createKey(new KeyFile(dataDir), { name: 'release-bot', publisher: true })).key;
    s = await startTestServer({ dataDir, env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url } });
    await createVersion(s, 'v1', { languages: ['en'] });
    await createNode(s, 'v1', { slug: 'intro', translations: { en: { title: 'Introduction', bodyMd: 'Welcome.\n' } } });
    assert.equal((await s.request('PATCH', '/versions/v1', { body: { status: 'published', isLatest: true }, key: publisher })).status, 200);
    assert.equal((await s.request('POST', '/versions/v1/working-copy')).status, 201);
    assert.equal((await putTranslation(s, 'v1-wip', 'intro', 'en', { title: 'Work in progress', bodyMd: 'Unreviewed.\n' })).status, 200);
  });
  after(async () => {
    await s?.close();
    await gh?.stop();
  });

  test('appears in none of them: its own addresses are 404, and the version it copies shows what is published', async () => {
    const origin = new URL(s.url).origin;
    for (const path of ['/support/v1-wip/llms.txt', '/support/v1-wip/llms-full.txt', '/support/v1-wip/intro.md']) {
      for (const headers of [{}, { authorization: `Bearer ${s.key}` }] as Array<Record<string, string>>) assert.equal((await fetch(`${origin}${path}`, { headers })).status, 404, path);
    }
    assert.equal((await fetch(`${origin}/support/v1-wip/intro`, { headers: { accept: 'text/markdown' } })).status, 404);
    for (const path of ['/support/llms.txt', '/support/v1/llms-full.txt', '/support/v1/intro.md', '/support/v1/intro']) {
      const text = await (await fetch(`${origin}${path}`, { headers: { accept: 'text/markdown', authorization: `Bearer ${s.key}` } })).text();
      assert.match(text, /Introduction/, path);
      assert.doesNotMatch(text, /Work in progress|Unreviewed|v1-wip/, path);
    }
  });
});

describe('llms-full.txt of a large version', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_BODY_LIMIT: String(64 * 1024 * 1024) } });
  });
  after(() => s?.close());

  test('is streamed in many chunks, and the server\'s heap grows far less than the version\'s size', async (t) => {
    await createVersion(s, 'big', { status: 'published', languages: ['en'] });
    const paragraph = 'Open the settings page and change the options you need; see [the start](t0) for more.\n\n';
    const body = (i: number) => `## Part ${i}\n\n${paragraph.repeat(400)}`;
    const nodes = Array.from({ length: 300 }, (_, i) => ({ slug: `t${i}`, kind: 'topic', translations: { en: { title: `Topic ${i}`, summary: `About ${i}`, bodyMd: body(i) } } }));
    const size = nodes.reduce((n, node) => n + node.translations.en.bodyMd.length, 0);
    assert.ok(size > 10_000_000, `${size} characters of bodies`);
    assert.equal((await s.request('POST', '/versions/big/import', { body: { nodes }, timeout: 120_000 })).status, 200);
    nodes.length = 0;
    // The search index is built after the import: its memory comes and goes while it is.
    for (let i = 0; i < 600 && ((await (await fetch(`${new URL(s.url).origin}/healthz`)).json()) as { versions: { indexing: number } }).versions.indexing > 0; i++) await new Promise((r) => setTimeout(r, 100));

    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    gc();
    const baseline = process.memoryUsage().heapUsed;
    const res = await fetch(`${new URL(s.url).origin}/support/big/llms-full.txt`, { signal: AbortSignal.timeout(120_000) });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), null, 'sent as it is made');
    const etag = res.headers.get('etag')!;
    let chunks = 0;
    let bytes = 0;
    let peak = -Infinity;
    let pages = 0;
    let tail = '';
    const decoder = new TextDecoder();
    const reader = res.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const chunk = read.value;
      chunks++;
      bytes += chunk.length;
      // The tail is shorter than the marker: a marker across two chunks is counted once.
      const text = tail + decoder.decode(chunk, { stream: true });
      pages += text.split('\nSource: ').length - 1;
      tail = text.slice(-8);
      if (chunks % 50 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      }
    }
    assert.equal(pages, 300, 'every page');
    assert.ok(bytes > size, `${bytes} bytes sent`);
    assert.ok(chunks >= 20, `${chunks} chunks`);
    t.diagnostic(`${bytes} bytes in ${chunks} chunks; the heap grew by at most ${peak} bytes`);
    assert.ok(peak < size / 5, `the heap grew by ${peak} bytes while ${bytes} were streamed`);
    assert.equal((await fetch(`${new URL(s.url).origin}/support/big/llms-full.txt`, { headers: { 'if-none-match': etag } })).status, 304);
  });
});
