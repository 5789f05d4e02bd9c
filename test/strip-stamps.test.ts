import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { filePaths, readFileSet, renderFile } from '../src/content/file-set.ts';
import { ProblemList } from '../src/content/problems.ts';
import { stripMarkdownStamps, stripVersionFileStamps } from '../src/push-script/strip-stamps.ts';
import { writeFiles } from './helpers/content.ts';
import { fetchPushScript, lines, run } from './helpers/push-script.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

/** A version as older services wrote it: every file stamped. */
function oldFiles(): Record<string, string> {
  const problems = new ProblemList();
  let n = 0;
  const state = readFileSet(
    new Map(
      Object.entries({
        'version.json': JSON.stringify({ label: 'Old', status: 'published', languages: ['en', 'de'], nav: [{ slug: 'start', icon: 'rocket', children: ['install', { slug: 'deep', children: ['leaf'] }] }, 'faq'] }),
        'en/start.md': '---\ntitle: Start\n---\nHello.\n',
        'en/install.md': '---\ntitle: Install\nsummary: "Set up: fast"\n---\n## Steps\r\n\r\n1. Run\n',
        'de/install.md': '---\ntitle: Installieren\n---\nLos.\n',
        'en/deep.md': '---\ntitle: Deep\n---\n---\nnot frontmatter\n',
        'en/leaf.md': '---\ntitle: Leaf\n---\nno newline at end',
        'en/faq.md': '---\ntitle: FAQ\n---\nQ&A\n',
      }),
    ),
    { slug: 'old', fallbackStamp: '2025-06-07T08:09:10.011Z', idFor: () => `id-${++n}` },
    problems,
  );
  assert.deepEqual(problems.errors, []);
  return Object.fromEntries([...filePaths(state!)].map((p) => [p, renderFile(state!, p, true)!]));
}

/** The same version as the service writes it now. */
function newFiles(): Record<string, string> {
  const old = oldFiles();
  const problems = new ProblemList();
  const state = readFileSet(new Map(Object.entries(old)), { slug: 'old', fallbackStamp: 'unused', idFor: () => 'unused' }, problems);
  return Object.fromEntries([...filePaths(state!)].map((p) => [p, renderFile(state!, p)!]));
}

describe('Stripping stamps from content files', () => {
  test('files as older services wrote them become, byte for byte, the files the service writes now', () => {
    const old = oldFiles();
    const now = newFiles();
    assert.match(old['version.json'], /"updatedAt"/);
    assert.match(old['en/leaf.md'], /updatedAt: '2025-06-07T08:09:10.011Z'/);
    for (const [path, text] of Object.entries(old)) {
      const stripped = path === 'version.json' ? stripVersionFileStamps(text) : stripMarkdownStamps(text);
      assert.equal(stripped, now[path], path);
      // Once stripped, nothing is left to strip.
      assert.equal(path === 'version.json' ? stripVersionFileStamps(stripped!) : stripMarkdownStamps(stripped!), null, path);
    }
  });

  test('version.json written by hand keeps its layout: only the stamps go, wherever they stand', () => {
    const text = '\ufeff{ "updatedAt": "2026-01-01", "label": "Docs", "createdAt": "2026-01-01",\n  "nav": [ {"slug":"a","updatedAt":"2026-01-02"}, { "updatedAt": "x", "slug": "b", "children": [ { "slug": "c", "id": "c1", "updatedAt": "2026-01-03" } ] }, "d" ],\n  "extra": { "updatedAt": "kept: not a nav entry" }, "updatedAt": "2026-01-04" }\n';
    assert.equal(
      stripVersionFileStamps(text),
      '\ufeff{ "label": "Docs", "nav": [ {"slug":"a"}, { "slug": "b", "children": [ { "slug": "c", "id": "c1" } ] }, "d" ],\n  "extra": { "updatedAt": "kept: not a nav entry" } }\n',
    );
    assert.equal(stripVersionFileStamps('{"createdAt":"2026-01-01","updatedAt":"2026-01-01"}'), '{}');
    assert.equal(stripVersionFileStamps('{ "label": "No stamps", "nav": ["a"] }'), null);
    assert.throws(() => stripVersionFileStamps('{ "label": "Broken", }'));
  });

  test('front matter: the stamp line goes (quoted keys, CRLF and values over several lines too), nothing else does', () => {
    assert.equal(stripMarkdownStamps("---\r\ntitle: A\r\nupdatedAt: '2026-01-01'\r\nsummary: S\r\n---\r\nBody\r\n"), '---\r\ntitle: A\r\nsummary: S\r\n---\r\nBody\r\n');
    assert.equal(stripMarkdownStamps('\ufeff---\n"updatedAt": 2026-01-01\ntitle: A\n---\nupdatedAt: in the body stays\n'), '\ufeff---\ntitle: A\n---\nupdatedAt: in the body stays\n');
    assert.equal(stripMarkdownStamps('---\ntitle: A\nupdatedAt: >\n  2026-01-01\n  12:00\nsummary: S\n---\n'), '---\ntitle: A\nsummary: S\n---\n');
    assert.equal(stripMarkdownStamps('---\ntitle: A\nupdatedAtX: kept\n---\n'), null);
    assert.equal(stripMarkdownStamps('No front matter.\nupdatedAt: 2026-01-01\n'), null);
    assert.equal(stripMarkdownStamps('---\ntitle: never closed\nupdatedAt: 2026-01-01\n'), null);
  });
});

describe('help-push strip-stamps (as the service serves it)', () => {
  let s: TestServer;
  let script: string;
  let repo: string;
  before(async () => {
    s = await startTestServer();
    script = await fetchPushScript(s.url);
    repo = mkdtempSync(join(tmpdir(), 'help-content-repo-'));
    writeFiles(join(repo, 'docs/v1'), oldFiles());
    writeFiles(join(repo, 'docs/v2'), newFiles());
    writeFiles(join(repo, 'docs/v2/.stamps'), { 'en.json': '{ "start": "2026-01-01T00:00:00.000Z" }\n' });
    writeFiles(repo, { 'docs/README.md': 'updatedAt: not a content file\n' });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.org' } });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'Content as an older service exported it');
  });
  after(async () => {
    await s.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(dirname(script), { recursive: true, force: true });
  });

  const strip = (args: string[]) => run(process.execPath, [script, 'strip-stamps', ...args], { cwd: repo, env: {} });
  const gitOut = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });

  test('--dry-run names the files that carry stamps and changes none', async () => {
    const r = await strip(['--dir', 'docs', '--dry-run']);
    assert.equal(r.code, 0, r.stderr);
    const out = lines(r.stdout);
    assert.deepEqual(out.slice(0, -1).sort(), Object.keys(oldFiles()).map((p) => `docs/v1/${p}: carries stamps`).sort());
    assert.equal(out.at(-1), `Dry run: ${Object.keys(oldFiles()).length} files of 2 version folders under docs carry stamps; nothing changed.`);
    assert.equal(gitOut('status', '--porcelain'), '');
  });

  test('a real run removes the stamps and only them: every changed line is a removed one, and the files read as the service writes them', async () => {
    const r = await strip(['--dir', 'docs']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal(lines(r.stdout).at(-1), `Done: stamps removed from ${Object.keys(oldFiles()).length} files of 2 version folders under docs.`);
    const changed = lines(gitOut('diff', '--name-only')).sort();
    assert.deepEqual(changed, Object.keys(oldFiles()).map((p) => `docs/v1/${p}`).sort());
    for (const path of changed) {
      const diff = lines(gitOut('diff', '--unified=0', '--', path)).filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l));
      const removed = diff.filter((l) => l.startsWith('-')).map((l) => l.slice(1));
      const added = diff.filter((l) => l.startsWith('+')).map((l) => l.slice(1));
      // A member of JSON that was last loses its stamp after it, and with it its comma: that line changes, no other.
      assert.ok(added.every((l) => removed.includes(`${l},`)), `${path}: ${added.join(' | ')}`);
      assert.ok(removed.filter((l) => !added.includes(l.replace(/,$/, ''))).every((l) => /updatedAt|createdAt/.test(l)), `${path}: only stamp lines go: ${removed.join(' | ')}`);
      if (path.endsWith('.md')) assert.deepEqual(added, [], path);
    }
    for (const [path, text] of Object.entries(newFiles())) assert.equal(readFileSync(join(repo, 'docs/v1', path), 'utf8'), text, path);
    // The service's own stamps file and files that are not content are not touched.
    assert.match(readFileSync(join(repo, 'docs/README.md'), 'utf8'), /updatedAt/);
    const again = await strip(['--dir', 'docs/v1']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(lines(again.stdout).at(-1), 'Done: stamps removed from 0 files of 1 version folder under docs/v1.');
  });

  test('the stripped folder still passes the offline check', async () => {
    const r = await run(process.execPath, [script, 'push', '--dir', 'docs/v1', '--version', 'v1', '--offline'], { cwd: repo, env: {} });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^v1: valid, 5 node\(s\) in en, de/);
  });

  test('a file it cannot read is named, left as it is, and the run exits 1', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'help-content-bad-'));
    try {
      writeFiles(bad, {
        'v/version.json': '{ "updatedAt": "2026-01-01", }',
        'v/en/a.md': "---\ntitle: A\nupdatedAt: '2026-01-01'\n---\n",
        'v/en/b.md': Buffer.from("---\ntitle: caf\xe9\nupdatedAt: '2026-01-01'\n---\n", 'latin1'),
        // As older services wrote a summary ending in blank lines: without the stamp after it, YAML would read one fewer.
        'v/en/c.md': "---\ntitle: C\nsummary: |+\n  Two lines\n\nupdatedAt: '2026-01-01'\n---\n",
      });
      const r = await run(process.execPath, [script, 'strip-stamps', '--dir', 'v'], { cwd: bad, env: {} });
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stderr, /^v\/version\.json: not read as JSON \(.*\); left as it is$/m);
      assert.match(r.stderr, /^v\/en\/b\.md:2: is not UTF-8: .*left as it is$/m);
      assert.match(r.stderr, /^v\/en\/c\.md: removing its stamp would change its summary: .*Write the summary in double quotes .*; left as it is$/m);
      assert.match(readFileSync(join(bad, 'v/en/c.md'), 'utf8'), /updatedAt/);
      assert.deepEqual(lines(r.stdout).slice(0, 1), ['v/en/a.md: stamps removed']);
      assert.equal(readFileSync(join(bad, 'v/version.json'), 'utf8'), '{ "updatedAt": "2026-01-01", }');
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  test('usage: --dir is required and must be a folder; push options are not its own; no version folder is a failure', async () => {
    const missing = await strip([]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^Missing --dir$/m);
    const notFolder = await strip(['--dir', 'docs/nowhere']);
    assert.equal(notFolder.code, 2);
    assert.match(notFolder.stderr, /docs\/nowhere is not a folder/);
    const other = await strip(['--dir', 'docs', '--version', 'v1']);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /--version is an option of push, not of strip-stamps/);
    writeFileSync(join(repo, 'notes.txt'), 'x');
    const none = await strip(['--dir', 'docs/v1/en']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^No version folders at or below docs\/v1\/en/m);
  });
});
