import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { md, versionJson, writeFiles } from './helpers/content.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { Clients, content } from './helpers/mcp.ts';
import { fetchPushScript, lines, run } from './helpers/push-script.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

// Internal links (docs/content-format.md#links): warnings on writes and imports with file and line,
// GET /versions/{version}/links, the portal's rendering of a dangling link, and bodies built to be costly.

describe('Links that work', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { languages: ['en', 'de'] });
    await createNode(s, 'v1', { slug: 'guide', kind: 'section', translations: { en: { title: 'Guide' }, de: { title: 'Anleitung' } } });
    await createNode(s, 'v1', {
      slug: 'install',
      parentSlug: 'guide',
      translations: { en: { title: 'Install', bodyMd: '## Download\n\nGet it.\n\n## Run the installer\n\nRun it.\n' }, de: { title: 'Installieren', bodyMd: '## Herunterladen\n\nLaden.\n' } },
    });
  });
  after(() => s.close());

  const report = async (version = 'v1', key?: string | null) => {
    const res = await s.request('GET', `/versions/${version}/links`, key === undefined ? {} : { key });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  describe('warnings on single writes', () => {
    test('a translation write answers its broken links with the file and the line, front matter counted; the write is made', async () => {
      const commits = s.commitCount();
      const body = 'Intro.\n\nSee [the download](install#herunterladen), [setup](../setup) and\n[a section](install#nowhere).\n';
      const res = await putTranslation(s, 'v1', 'guide', 'de', { title: 'Anleitung', summary: 'Alles', bodyMd: body });
      assert.equal(res.status, 200, res.text);
      assert.equal(s.commitCount(), commits + 1);
      // The file is `---`, title, summary, basedOn (the English text it follows), `---`: the body's line 3 is the file's line 8.
      assert.deepEqual(res.body.warnings, [
        { code: 'broken_link', path: 'de/guide.md', line: 8, link: '../setup', message: 'broken link "../setup": version v1 has no topic or section "setup"' },
        { code: 'broken_link', path: 'de/guide.md', line: 9, link: 'install#nowhere', message: 'broken link "install#nowhere": "install" has no heading with the anchor "#nowhere" (its headings: #herunterladen)' },
      ]);
      const stored = s.git('show', 'HEAD:v1/de/guide.md').split('\n');
      assert.match(stored[7], /\.\.\/setup/);
      assert.match(stored[8], /install#nowhere/);
    });

    test('a German page linking an English-only anchor is checked against the page a German reader gets', async () => {
      const res = await putTranslation(s, 'v1', 'guide', 'de', { title: 'Anleitung', bodyMd: '[Download](install#download) [Herunterladen](install#herunterladen) [en](install?lang=en#download)\n' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.warnings.map((w: { link: string }) => w.link), ['install#download']);
    });

    test('a write without broken links answers as before: no warnings field', async () => {
      const res = await putTranslation(s, 'v1', 'guide', 'en', {
        title: 'Guide',
        bodyMd: '## Here\n\nRead [install](install), [run](../install#run-the-installer), [file](install.md#download), [German](../de/install.md), [portal](/support/v1/install?lang=de#herunterladen), [top](#here), [site](https://example.com/nowhere), [mail](mailto:a@example.com) ![pic](missing.png)\n',
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body), ['translation']);
      const same = await putTranslation(s, 'v1', 'guide', 'en', { title: 'Guide', bodyMd: '[top](#there)\n' });
      assert.deepEqual(same.body.warnings.map((w: { link: string }) => w.link), ['#there'], 'an anchor of the same page is checked too');
    });

    test('links in table cells and anchors of a page without links are checked too', async () => {
      // install's German page has no link of its own: its headings are read when a link asks for one.
      const body = '| Step | Where |\n| --- | --- |\n| Get | [here](install#herunterladen) |\n| Run | [there](install#nirgends) |\n';
      const res = await putTranslation(s, 'v1', 'guide', 'de', { title: 'Anleitung', bodyMd: body });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.warnings.map((w: { path: string; line: number; link: string }) => `${w.path}:${w.line} ${w.link}`),
        ['de/guide.md:8 install#nirgends'],
      );
    });

    test('creating a node answers the broken links of each translation it writes', async () => {
      const res = await s.request('POST', '/versions/v1/nodes', {
        body: { slug: 'faq', translations: { en: { title: 'FAQ', bodyMd: '# Questions\n\n[gone](../gone)\n' }, de: { title: 'FAQ', bodyMd: '[weg](weg.md)\n' } } },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.warnings.map((w: { path: string; line: number; link: string }) => `${w.path}:${w.line} ${w.link}`),
        ['en/faq.md:6 ../gone', 'de/faq.md:5 weg.md'],
      );
    });
  });

  describe('GET /versions/{version}/links', () => {
    before(async () => {
      await createVersion(s, 'r1', { languages: ['en', 'de'] });
      await createNode(s, 'r1', { slug: 'target', translations: { en: { title: 'Target', bodyMd: '## Steps\n\nDo it.\n' } } });
      await createNode(s, 'r1', {
        slug: 'source',
        translations: {
          en: { title: 'Source', bodyMd: '[ok](target#steps)\n[no page](missing)\n[no anchor](target#nope)\n[no language](target?lang=fr)\n[outside](https://example.com)\n' },
          de: { title: 'Quelle', bodyMd: '[ok](../target)\n[file](../de/target.md)\n' },
        },
      });
    });

    test('lists every broken link with its file, line, target and reason, and counts the internal links checked', async () => {
      const r = await report('r1');
      assert.deepEqual(r, {
        version: 'r1',
        broken: [
          { path: 'en/source.md', line: 5, link: 'missing', target: 'missing', reason: 'missing_topic' },
          { path: 'en/source.md', line: 6, link: 'target#nope', target: 'target', anchor: 'nope', reason: 'missing_anchor' },
          { path: 'en/source.md', line: 7, link: 'target?lang=fr', target: 'target', language: 'fr', reason: 'missing_language' },
          { path: 'de/source.md', line: 6, link: '../de/target.md', target: 'target', language: 'de', reason: 'missing_language' },
        ],
        checked: 6,
      });
    });

    test('a draft needs a credential, as every read of it', async () => {
      const res = await s.request('GET', '/versions/r1/links', { key: null });
      assert.equal(res.status, 404, res.text);
    });

    test('renaming a topic leaves the links to it moved (the rename says so), and renaming it back clears them', async () => {
      const renamed = await s.request('PATCH', '/versions/r1/nodes/target', { body: { slug: 'goal' } });
      assert.equal(renamed.status, 200, renamed.text);
      assert.deepEqual(
        renamed.body.warnings.map((w: { path: string; line: number; link: string }) => `${w.path}:${w.line} ${w.link}`),
        ['en/source.md:4 target#steps', 'en/source.md:6 target#nope', 'en/source.md:7 target?lang=fr', 'de/source.md:5 ../target', 'de/source.md:6 ../de/target.md'],
      );
      const after = await report('r1');
      // They still open the page through its redirect, and are to be fixed: each is reported as moved.
      assert.ok(after.broken.filter((b: { target: string }) => b.target === 'target').every((b: { reason: string; movedTo: string }) => b.reason === 'moved' && b.movedTo === 'goal'), JSON.stringify(after));
      assert.equal(after.broken.length, 6);
      const back = await s.request('PATCH', '/versions/r1/nodes/goal', { body: { slug: 'target' } });
      assert.equal(back.status, 200, back.text);
      assert.equal(back.body.warnings, undefined);
      assert.equal((await report('r1')).broken.length, 4);
    });

    test('fixing the links clears them; a second read of the same state is the same answer', async () => {
      assert.equal((await putTranslation(s, 'r1', 'source', 'en', { title: 'Source', bodyMd: '[ok](target#steps)\n' })).status, 200);
      assert.equal((await putTranslation(s, 'r1', 'source', 'de', { title: 'Quelle', bodyMd: '[ok](../target)\n' })).status, 200);
      const first = await report('r1');
      assert.deepEqual(first, { version: 'r1', broken: [], checked: 2 });
      assert.deepEqual(await report('r1'), first);
    });

    test('deleting a topic answers the links left without it', async () => {
      const res = await s.request('DELETE', '/versions/r1/nodes/target');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.removed, ['target']);
      assert.deepEqual(
        res.body.warnings.map((w: { code: string; path: string; line: number; link: string }) => `${w.code} ${w.path}:${w.line} ${w.link}`),
        ['broken_link en/source.md:4 target#steps', 'broken_link de/source.md:5 ../target'],
      );
      assert.equal((await report('r1')).broken.length, 2);
    });
  });

  describe('the portal', () => {
    let origin: string;
    before(async () => {
      origin = new URL(s.url).origin;
      await createVersion(s, 'p1', { languages: ['en', 'de'] });
      await createNode(s, 'p1', { slug: 'home', translations: { en: { title: 'Home', bodyMd: '## Start\n\nHello.\n' }, de: { title: 'Start', bodyMd: '## Anfang\n' } } });
      await createNode(s, 'p1', {
        slug: 'page',
        translations: { en: { title: 'Page', bodyMd: 'A [dangling link](../nowhere) and [a missing *section*](home#end), [home](../home#start), [the file](home.md), [out](https://example.com/x).\n' } },
      });
      assert.equal((await s.request('PATCH', '/versions/p1', { body: { status: 'published' } })).status, 200);
    });

    test('a dangling internal link is its text, not a link; a valid one goes to the page it names, in the reader\'s language', async () => {
      const res = await fetch(`${origin}/support/p1/page`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /<span class="broken-link" title="No page &quot;nowhere&quot; in this version">dangling link<\/span>/);
      assert.match(html, /<span class="broken-link" title="[^"]*">a missing <em>section<\/em><\/span>/);
      assert.doesNotMatch(html, /href="[^"]*nowhere/);
      assert.doesNotMatch(html, /href="[^"]*#end"/);
      assert.match(html, /<a href="\/support\/p1\/home#start">home<\/a>/);
      assert.match(html, /<a href="\/support\/p1\/home">the file<\/a>/);
      assert.match(html, /<a href="https:\/\/example\.com\/x">out<\/a>/);
      const german = await (await fetch(`${origin}/support/p1/page?lang=de`, { signal: AbortSignal.timeout(10_000) })).text();
      assert.match(german, /<a href="\/support\/p1\/home\?lang=de">the file<\/a>/);
      // The German home page has no "start" heading: a German reader is not sent looking for it.
      assert.match(german, /<span class="broken-link" title="[^"]*">home<\/span>/);
    });

    test("a link written against GitHub's preview (the heading's id there) is no broken link, and the portal sends it to the heading", async () => {
      const body = '## Billing & invoices\n\nSee [the flag](#--force).\n\n## `--force`\n\nBack to [billing](#billing--invoices), [billing here](#billing-invoices), [home](home#start), [nowhere](#billing---invoices).\n';
      const res = await putTranslation(s, 'p1', 'page', 'en', { title: 'Page', bodyMd: body });
      assert.equal(res.status, 200, res.text);
      // Only the anchor that is neither the portal's id nor GitHub's is reported.
      assert.deepEqual(
        res.body.warnings.map((w: { link: string; message: string }) => [w.link, w.message]),
        [['#billing---invoices', 'broken link "#billing---invoices": "page" has no heading with the anchor "#billing---invoices" (its headings: #billing-invoices, #-force)']],
      );
      const other = await putTranslation(s, 'p1', 'home', 'en', { title: 'Home', bodyMd: '## Start\n\nHello. [Billing](page#billing--invoices), [force](page.md#--force).\n' });
      assert.equal(other.status, 200, other.text);
      assert.equal(other.body.warnings, undefined, JSON.stringify(other.body.warnings));

      const html = await (await fetch(`${origin}/support/p1/page`, { signal: AbortSignal.timeout(10_000) })).text();
      // Each heading answers to GitHub's id as well, and links within the page go to the portal's.
      assert.match(html, /<h2 id="billing-invoices"><span class="heading-alias" id="billing--invoices"><\/span>Billing &amp; invoices/);
      assert.match(html, /<h2 id="-force"><span class="heading-alias" id="--force"><\/span><code>--force<\/code>/);
      assert.match(html, /<a href="#-force">the flag<\/a>/);
      assert.match(html, /<a href="#billing-invoices">billing<\/a>/);
      assert.match(html, /<a href="#billing-invoices">billing here<\/a>/);
      assert.match(html, /<span class="broken-link" title="[^"]*">nowhere<\/span>/);
      const home = await (await fetch(`${origin}/support/p1/home`, { signal: AbortSignal.timeout(10_000) })).text();
      assert.match(home, /<a href="\/support\/p1\/page#billing-invoices">Billing<\/a>/);
      assert.match(home, /<a href="\/support\/p1\/page#-force">force<\/a>/);
      assert.doesNotMatch(home, /heading-alias/, 'a heading whose GitHub id is its id here gets no second one');
    });
  });

  describe('import-files and the push script\'s offline check', () => {
    const files = () => ({
      'version.json': versionJson({ label: 'Links', languages: ['en'], nav: ['a', 'b'] }),
      'en/a.md': md('A', '## One\n\n[b](b#one)\n[c](../c)\n', "summary: 'Short'\n"),
      'en/b.md': md('B', 'Back to [a](a.md#one).\n'),
    });

    test('import-files warns of each broken link at its path and line, as sent', async () => {
      const sent = Object.entries(files()).map(([path, content]) => ({ path: `docs/links/${path}`, content }));
      const res = await s.request('POST', '/versions/links/import-files?dryRun=true', { body: { files: sent } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.warnings, [
        { path: 'docs/links/en/a.md', line: 7, message: 'broken link "b#one": "b" has no heading with the anchor "#one"' },
        { path: 'docs/links/en/a.md', line: 8, message: 'broken link "../c": version links has no topic or section "c"' },
      ]);
    });

    test('the push script prints them as path:line: warning: and still goes', async () => {
      const script = await fetchPushScript(s.url);
      const repo = mkdtempSync(join(tmpdir(), 'help-links-repo-'));
      try {
        writeFiles(join(repo, 'docs/links'), files());
        const r = await run(process.execPath, [script, 'push', '--dir', 'docs/links', '--version', 'links', '--offline'], { cwd: repo, env: {} });
        assert.equal(r.code, 0, r.stderr);
        const err = lines(r.stderr);
        assert.ok(err.includes('docs/links/en/a.md:7: warning: broken link "b#one": "b" has no heading with the anchor "#one"'), r.stderr);
        assert.ok(err.includes('docs/links/en/a.md:8: warning: broken link "../c": version links has no topic or section "c"'), r.stderr);
        assert.match(r.stdout, /^links: valid/);
      } finally {
        rmSync(repo, { recursive: true, force: true });
        rmSync(dirname(script), { recursive: true, force: true });
      }
    });
  });

  describe('bodies built to be costly', () => {
    test('a body of 5 MB of links is written in bounded time; its links are checked up to the limit and the answer says so', async () => {
      await createVersion(s, 'big', { languages: ['en'] });
      await createNode(s, 'big', { slug: 'a', translations: { en: { title: 'A' } } });
      const started = performance.now();
      // 4.5 MB: a write's request body is at most 5 MB (HELP_BODY_LIMIT); import-files takes the 5 MB below.
      const res = await putTranslation(s, 'big', 'a', 'en', { title: 'A', bodyMd: '[a](b)'.repeat((4.5 * 1024 * 1024) / 6) });
      assert.equal(res.status, 200, res.text.slice(0, 300));
      const warnings = res.body.warnings as Array<{ code: string; line?: number }>;
      assert.equal(warnings.filter((w) => w.code === 'broken_link' && w.line !== undefined).length, 100, 'the first hundred listed');
      assert.ok(warnings.some((w) => w.code === 'links_not_checked'), JSON.stringify(warnings.slice(-2)));
      const links = await report('big');
      assert.equal(links.checked, 1000, 'the first thousand links of the body');
      assert.deepEqual(links.unchecked, ['en/a.md']);
      // A ceiling far above the few hundred milliseconds it takes, which a parse of the whole body (about 20 s) would break.
      assert.ok(performance.now() - started < 15_000, `${Math.round(performance.now() - started)} ms`);
    });

    test('import-files of a 5 MB body of links is checked in bounded time', async () => {
      const started = performance.now();
      const files = [
        { path: 'version.json', content: versionJson({ languages: ['en'], nav: ['a'] }) },
        { path: 'en/a.md', content: md('A', '[a](b)'.repeat((5 * 1024 * 1024) / 6)) },
      ];
      const res = await s.request('POST', '/versions/huge/import-files?dryRun=true', { body: { files } });
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.ok(res.body.warnings.some((w: { message: string }) => /not checked/.test(w.message)), JSON.stringify(res.body.warnings.slice(-2)));
      assert.ok(performance.now() - started < 15_000, `${Math.round(performance.now() - started)} ms`);
    });

    test('bracket soup, many paragraphs and many headings cost a bounded time to write and to report', async () => {
      for (const [slug, body] of [
        ['soup', '[['.repeat(500_000) + '](x'.repeat(100_000)],
        ['many', '[x](y)\n\n'.repeat(200_000)],
        ['heads', '# [a](b)\n'.repeat(100_000)],
      ] as const) {
        const started = performance.now();
        const res = await s.request('POST', '/versions/big/nodes', { body: { slug, translations: { en: { title: slug, bodyMd: body } } } });
        assert.equal(res.status, 200, res.text.slice(0, 300));
        assert.ok(performance.now() - started < 15_000, `${slug}: ${Math.round(performance.now() - started)} ms`);
      }
      const started = performance.now();
      const links = await report('big');
      assert.ok(performance.now() - started < 15_000);
      assert.ok(links.unchecked.includes('en/many.md') && links.unchecked.includes('en/heads.md'), JSON.stringify(links.unchecked));
    });
  });
});

describe('Links in a publish request', () => {
  test('a dry run warns of broken links at the path and line the pull request would have them', async () => {
    const gh = await new FakeGitHub().start();
    const s = await startTestServer({ env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url } });
    try {
      await createVersion(s, 'next', { languages: ['en'] });
      await createNode(s, 'next', { slug: 'a', translations: { en: { title: 'A', bodyMd: 'Intro.\n\n[b](b#nowhere) and [c](c)\n' } } });
      await createNode(s, 'next', { slug: 'b', translations: { en: { title: 'B', bodyMd: '## Somewhere\n' } } });
      const dry = await s.request('POST', '/versions/next/publish-request?dryRun=true');
      assert.equal(dry.status, 200, dry.text);
      const folder = (dry.body.files as Array<{ path: string }>).find((f) => f.path.endsWith('/en/a.md'))!.path.replace(/\/en\/a\.md$/, '');
      assert.deepEqual(
        dry.body.warnings.filter((w: { message: string }) => w.message.startsWith('broken link')),
        [
          { path: `${folder}/en/a.md`, line: 6, message: 'broken link "b#nowhere": "b" has no heading with the anchor "#nowhere" (its headings: #somewhere)' },
          { path: `${folder}/en/a.md`, line: 6, message: 'broken link "c": version next has no topic or section "c"' },
        ],
      );
    } finally {
      await s.close();
      await gh.stop();
    }
  });
});

describe('Links to the portal where it is set to be', () => {
  test('with HELP_PORTAL_PATH=/docs, import-files, the tool server and publish requests check /docs/… links, and take /support/… for another page of the site', async () => {
    const gh = await new FakeGitHub().start();
    let s: TestServer | undefined;
    const clients = new Clients(() => s!);
    try {
      s = await startTestServer({ env: { HELP_PORTAL_PATH: '/docs', HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url } });
      const body = 'See [gone](/docs/site/gone) and [elsewhere](/support/site/gone).\n';
      const files = [
        { path: 'version.json', content: versionJson({ label: 'Site', languages: ['en'], nav: ['a'] }) },
        { path: 'en/a.md', content: md('A', body) },
      ];
      const broken = (warnings: Array<{ message: string }>) => warnings.filter((w) => w.message.startsWith('broken link')).map((w) => w.message);
      const expected = ['broken link "/docs/site/gone": version site has no topic or section "gone"'];
      const rest = await s.request('POST', '/versions/site/import-files?dryRun=true', { body: { files } });
      assert.equal(rest.status, 200, rest.text);
      assert.deepEqual(broken(rest.body.warnings), expected);
      const client = await clients.connect(s.key);
      const tool = content(await client.callTool({ name: 'import_files', arguments: { version: 'site', files } }));
      assert.deepEqual(broken(tool.warnings), expected);
      await createVersion(s, 'next', { languages: ['en'] });
      await createNode(s, 'next', { slug: 'a', translations: { en: { title: 'A', bodyMd: body.replaceAll('/site/', '/next/') } } });
      const dry = await s.request('POST', '/versions/next/publish-request?dryRun=true');
      assert.equal(dry.status, 200, dry.text);
      assert.deepEqual(broken(dry.body.warnings), ['broken link "/docs/next/gone": version next has no topic or section "gone"']);
    } finally {
      await clients.closeAll();
      await s?.close();
      await gh.stop();
    }
  });
});
