import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseMarkdownFile } from '../../src/content/markdown-file.ts';
import { ProblemList } from '../../src/content/problems.ts';
import { md, versionJson } from '../helpers/content.ts';
import { commitWithGit } from '../helpers/git.ts';
import { createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Front matter that, if any engine evaluated it, would leave a file behind (gray-matter's JavaScript
 * engine runs the text through `eval` in a CommonJS scope, where `require` exists).
 */
const evaluating = (marker: string) => `{ title: (require('fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid)), 'Owned') }`;

/** Every opening line that names a language other than a bare `---`. */
const OPENINGS = ['---js', '---javascript', '---JS', '--- js', '---coffee', '---cson', '---coffeescript', '---toml', '---json', '---yaml', '---__proto__', '---constructor', '---js\r'];

describe('Front matter is YAML opened by a bare "---" line, and nothing in a content file runs', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'help-fm-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test('any other opening line is an error on line 1 of that file, and the text is never evaluated', () => {
    for (const opening of OPENINGS) {
      const marker = join(scratch, `unit-${OPENINGS.indexOf(opening)}`);
      const problems = new ProblemList();
      const parsed = parseMarkdownFile('en/a.md', `${opening}\n${evaluating(marker)}\n---\nBody\n`, problems);
      assert.equal(parsed, null, opening);
      assert.equal(problems.errors.length, 1, opening);
      assert.deepEqual({ path: problems.errors[0].path, line: problems.errors[0].line }, { path: 'en/a.md', line: 1 }, opening);
      assert.match(problems.errors[0].message, /exactly "---"/, opening);
      assert.equal(existsSync(marker), false, `${opening} ran the front matter`);
    }
  });

  test('a bare "---" (with trailing spaces or CRLF) still opens YAML front matter', () => {
    for (const opening of ['---', '---  ', '---\r']) {
      const problems = new ProblemList();
      const parsed = parseMarkdownFile('en/a.md', `${opening}\ntitle: Hello\n---\nBody\n`, problems);
      assert.deepEqual(problems.errors, [], JSON.stringify(opening));
      assert.equal(parsed?.title, 'Hello');
    }
  });

  test('JavaScript and other language tags in the YAML are refused with their line', () => {
    for (const [yaml, line] of [
      ['title: !!js/function "function () { return 1 }"', 2],
      ['title: ok\nsummary: !!js/undefined ""', 3],
      ['title: !<tag:yaml.org,2002:js/regexp> /x/', 2],
      ['title: !!python/object:os.system "id"', 2],
    ] as const) {
      const problems = new ProblemList();
      assert.equal(parseMarkdownFile('en/a.md', `---\n${yaml}\n---\nBody\n`, problems), null, yaml);
      assert.match(problems.errors[0].message, /invalid YAML frontmatter: unknown tag/, yaml);
      assert.equal(problems.errors[0].line, line, yaml);
    }
  });

  test('an alias bomb is read in time linear in its text and refused as a title that is not a string', () => {
    const lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
    for (let i = 1; i < 40; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]`);
    lines.push('title: *a39');
    const problems = new ProblemList();
    const started = performance.now();
    assert.equal(parseMarkdownFile('en/a.md', `---\n${lines.join('\n')}\n---\nBody\n`, problems), null);
    // 9^40 strings if the aliases were copies; shared references make it a few hundred nodes.
    assert.ok(performance.now() - started < 1000, 'the alias bomb is not expanded');
    assert.match(problems.errors[0].message, /"title" must be text, not a list/);
  });

  describe('through every path that reads content files', () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer();
      await createVersion(s, 'live', { status: 'published' });
    });
    after(() => s.close());

    const hostileSet = (marker: string) => [
      { path: 'docs/version.json', content: versionJson({ label: 'Hostile', languages: ['en'], nav: ['a', 'b'] }) },
      { path: 'docs/en/a.md', content: md('Fine') },
      { path: 'docs/en/b.md', content: `---js\n${evaluating(marker)}\n---\nBody\n` },
    ];

    for (const query of ['?dryRun=true', '']) {
      test(`import-files${query ? ' (dry run, as a pull-request check sends it)' : ''} answers invalid_content naming the file and line 1`, async () => {
        const marker = join(scratch, `import${query ? '-dry' : ''}`);
        const commits = s.commitCount();
        const res = await s.request('POST', `/versions/hostile/import-files${query}`, { body: { files: hostileSet(marker) } });
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, 'invalid_content');
        assert.deepEqual(
          res.body.error.errors.map((e: { path: string; line?: number }) => ({ path: e.path, line: e.line })),
          [{ path: 'docs/en/b.md', line: 1 }],
        );
        assert.equal(existsSync(marker), false, 'the front matter was evaluated');
        assert.equal(s.commitCount(), commits, 'nothing is committed');
        assert.equal((await s.request('GET', '/versions/hostile/nodes')).status, 404);
      });
    }

    test('a file committed by hand with "---js" is never evaluated at start; its version is reported, others serve', async () => {
      const marker = join(scratch, 'start');
      commitWithGit(s.gitdir, { 'hand/version.json': versionJson({ label: 'Hand', languages: ['en'], status: 'published', nav: ['b'] }), 'hand/en/b.md': `---javascript\n${evaluating(marker)}\n---\nBody\n` }, 'A file committed by hand');
      s = await s.restart();
      assert.equal(existsSync(marker), false, 'the front matter was evaluated at start');
      assert.equal((await s.request('GET', '/versions/live/nodes', { key: null })).status, 200);
      const hand = await s.request('GET', '/versions/hand/nodes');
      assert.equal(hand.status, 503);
      assert.equal(hand.body.error.code, 'version_unavailable');
      assert.match(hand.body.error.reason, /en\/b\.md:1: front matter must open with a line of exactly "---"/);
    });
  });
});
