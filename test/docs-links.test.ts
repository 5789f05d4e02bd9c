import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The README is the start and docs/ the manual; they link each other by relative paths and #anchors.
// Every such link must lead somewhere: the file exists, and its anchor is a heading of the target as
// GitHub names it (lowercase, spaces to '-', punctuation dropped except '-' and '_', a repeated heading
// getting -1, -2, …), or an in-page anchor of the file itself.

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** GitHub's id for a heading's text (github-slugger): markup removed, lowercase, punctuation dropped, spaces to '-'. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images: their alternative text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/<[^>]+>/g, '') // inline HTML tags
    .replace(/[`*]/g, '') // code spans and emphasis
    .trim();
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** The lines of a Markdown file outside fenced code blocks, with their line numbers. */
function proseLines(text: string): Array<{ line: string; n: number }> {
  const out: Array<{ line: string; n: number }> = [];
  let fence: string | null = null;
  text.split('\n').forEach((line, i) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (fence === null) fence = m[1][0].repeat(m[1].length);
      else if (m[1].startsWith(fence)) fence = null;
      return;
    }
    if (fence === null) out.push({ line, n: i + 1 });
  });
  return out;
}

/** The anchors a Markdown file offers: its headings' ids (duplicates numbered) and explicit `<a id>`/`<a name>`. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = githubSlug(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

/** The link targets of a Markdown file (inline links, images and reference definitions), outside code. */
function linksOf(text: string): Array<{ target: string; line: number }> {
  const links: Array<{ target: string; line: number }> = [];
  for (const { line, n } of proseLines(text)) {
    const prose = line.replace(/(`+)[\s\S]*?\1/g, ''); // code spans hold no links
    for (const m of prose.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: m[1].replace(/^<|>$/g, ''), line: n });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*(\S+)/.exec(prose);
    if (definition) links.push({ target: definition[1].replace(/^<|>$/g, ''), line: n });
  }
  return links;
}

/** Every relative link of `files` (absolute paths) that leads nowhere, as `file:line: target (why)`, paths relative to `root`. */
function brokenLinks(files: string[], root: string): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    let anchors = anchorCache.get(file);
    if (!anchors) anchorCache.set(file, (anchors = anchorsOf(fs.readFileSync(file, 'utf8'))));
    return anchors;
  };
  for (const file of files) {
    for (const { target, line } of linksOf(fs.readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http:, https:, mailto:
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
      const where = `${relative(root, file)}:${line}: ${target}`;
      const dest = pathPart === '' ? file : resolve(dirname(file), pathPart);
      if (!fs.existsSync(dest)) {
        problems.push(`${where} (no such file)`);
        continue;
      }
      if (anchor === null) continue;
      if (!dest.endsWith('.md') || fs.statSync(dest).isDirectory()) {
        problems.push(`${where} (an anchor into a file that is not Markdown)`);
        continue;
      }
      if (!anchorsIn(dest).has(anchor)) problems.push(`${where} (no heading or anchor "${anchor}" in ${relative(root, dest)})`);
    }
  }
  return problems;
}

test('every relative link and #anchor in README.md and docs/*.md leads to a file and a heading that exist', () => {
  const docs = join(PROJECT, 'docs');
  const files = [join(PROJECT, 'README.md'), ...fs.readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => join(docs, f))];
  assert.ok(files.length > 5, 'the README and the pages of docs/');
  const links = files.reduce((sum, f) => sum + linksOf(fs.readFileSync(f, 'utf8')).length, 0);
  assert.ok(links > 50, `the pages link each other (${links} links found)`);
  assert.deepEqual(brokenLinks(files, PROJECT), []);
});

test('the link check names GitHub ids as GitHub does and reports every kind of broken link', () => {
  assert.equal(githubSlug('Sign-in (OAuth 2.1)'), 'sign-in-oauth-21');
  assert.equal(githubSlug('Concurrency: `expectedUpdatedAt` and `If-Unmodified-Since`'), 'concurrency-expectedupdatedat-and-if-unmodified-since');
  assert.equal(githubSlug('`{lang}/{slug}.md`'), 'langslugmd');
  assert.equal(githubSlug('Many versions (M1–M6)'), 'many-versions-m1m6');
  assert.equal(githubSlug('snake_case and  two spaces'), 'snake_case-and--two-spaces');
  assert.equal(githubSlug('Größe & Übersicht'), 'größe--übersicht');

  const dir = fs.mkdtempSync(join(tmpdir(), 'docs-links-'));
  try {
    fs.mkdirSync(join(dir, 'docs'));
    fs.writeFileSync(
      join(dir, 'README.md'),
      [
        '# Title',
        '## Notes',
        '## Notes',
        'See [notes](#notes), [again](#notes-1), [a third](#notes-2) and [the guide](docs/guide.md#setup-step-1).',
        'A [missing page](docs/nope.md), a [missing heading](docs/guide.md#nowhere), [here](#title) and ![a picture](docs/pic.png).',
        '`[not a link](nowhere.md)` and [outside](https://example.com/x.md#y).',
        '```',
        '[in code](nowhere.md)',
        '```',
        '[ref]: docs/gone.md',
      ].join('\n'),
    );
    fs.writeFileSync(join(dir, 'docs', 'guide.md'), '# Guide\n\n## Setup: step 1\n\nBack to the [start](../README.md#notes).\n');
    assert.deepEqual(brokenLinks([join(dir, 'README.md'), join(dir, 'docs', 'guide.md')], dir), [
      'README.md:4: #notes-2 (no heading or anchor "notes-2" in README.md)',
      'README.md:5: docs/nope.md (no such file)',
      'README.md:5: docs/guide.md#nowhere (no heading or anchor "nowhere" in docs/guide.md)',
      'README.md:5: docs/pic.png (no such file)',
      'README.md:10: docs/gone.md (no such file)',
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
