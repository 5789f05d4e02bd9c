import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { bigramTokenize } from '../bench/quality/anchor.ts';
import { MANUAL_DIR, readCorpus } from '../bench/quality/corpus.ts';
import { judgedSet, KINDS } from '../bench/quality/judged.ts';
import { folded, headingsOf } from '../bench/quality/kinds.ts';

/** The two texts differ by one swap of adjacent letters, not the first letter of a word. */
function oneTransposition(a: string, b: string): boolean {
  const x = Array.from(a);
  const y = Array.from(b);
  if (x.length !== y.length) return false;
  const at = x.findIndex((c, i) => c !== y[i]);
  return at > 0 && /\p{L}/u.test(x[at - 1]) && x[at] === y[at + 1] && x[at + 1] === y[at] && x.slice(at + 2).join('') === y.slice(at + 2).join('');
}

test('the judged set of the realistic shape is the same on every run, every kind present, each query judged by the rules of its kind', () => {
  const corpus = readCorpus('realistic', 0);
  const set = judgedSet(corpus.pages, { perKind: 60, seed: 1 });
  assert.deepEqual(judgedSet(readCorpus('realistic', 0).pages, { perKind: 60, seed: 1 }), set);
  for (const kind of KINDS) assert.equal(set.filter((q) => q.kind === kind).length, 60, kind);
  const page = (language: string, slug: string) => corpus.pages.find((p) => p.language === language && p.slug === slug)!;
  for (const q of set) {
    const from = page(q.language, q.from);
    assert.ok(q.relevant.includes(q.from), q.q);
    if (q.kind === 'title') {
      assert.equal(q.q, from.title);
      const same = corpus.pages.filter((p) => p.language === q.language && folded(p.title) === folded(q.q)).map((p) => p.slug);
      assert.deepEqual([...q.relevant].sort(), same.sort());
    }
    if (q.kind === 'summary') {
      assert.equal(folded(q.q).split(' ').length, 3, q.q);
      assert.ok(` ${folded(from.summary)} `.includes(` ${folded(q.q)} `), q.q);
    }
    if (q.kind === 'heading') assert.ok(headingsOf(from.bodyMd).includes(q.q), q.q);
    if (q.kind === 'typo') assert.ok(oneTransposition(from.title, q.q) || headingsOf(from.bodyMd).some((h) => oneTransposition(h, q.q)), q.q);
    if (q.kind === 'prefix') {
      assert.ok(from.title.startsWith(q.q) && from.title.length > q.q.length, q.q);
      assert.equal(Array.from(q.q.split(' ').at(-1)!).length, 4, q.q);
    }
    if (q.kind === 'cjk') {
      assert.equal(q.language, 'ja');
      assert.ok(from.summary.includes(q.q) && Array.from(q.q).length >= 4 && Array.from(q.q).length <= 8, q.q);
    }
  }
});

test("the anchor's tokenizer cuts runs of CJK characters into pairs and leaves other words as MiniSearch cuts them", () => {
  assert.deepEqual(bigramTokenize('タスクを設定 (Board-view) 権'), ['タス', 'スク', 'クを', 'を設', '設定', 'Board', 'view', '権']);
  assert.deepEqual(bigramTokenize('API設定'), ['API', '設定']);
});

test("the project's manual reads as a version of its own: every page of docs/ a topic, titled by its first heading, the paragraph under it its summary", () => {
  const docs = fs.readdirSync(MANUAL_DIR).filter((f) => f.endsWith('.md'));
  const corpus = readCorpus('manual', 0);
  assert.deepEqual(corpus.languages, ['en']);
  assert.deepEqual(corpus.pages.map((p) => `${p.slug}.md`).sort(), docs.sort());
  for (const p of corpus.pages) {
    const text = fs.readFileSync(join(MANUAL_DIR, `${p.slug}.md`), 'utf8');
    assert.ok(text.startsWith(`# ${p.title}\n`), p.slug);
    assert.ok(!p.bodyMd.split('\n').includes(`# ${p.title}`), `${p.slug}: the title is not in the body again`);
    // A page that goes straight on with a heading or a list has no summary, as on a real site.
    if (p.summary !== '') assert.ok(p.summary.length <= 301 && text.replace(/\s+/g, ' ').includes(p.summary.replace(/…$/, '')), p.slug);
  }
  assert.ok(corpus.pages.filter((p) => p.summary !== '').length >= corpus.pages.length / 2, 'most pages have a summary');
  const set = judgedSet(corpus.pages, { perKind: 60, seed: 1 });
  for (const kind of ['title', 'summary', 'heading', 'typo', 'prefix']) assert.ok(set.some((q) => q.kind === kind), kind);
});

test('a Starlight site converted by from-starlight.ts is judged from a folder of its own (--dir): its pages, languages and slugs as the site has them', async (t) => {
  const work = fs.mkdtempSync(join(tmpdir(), 'help-judged-dir-'));
  t.after(() => fs.rmSync(work, { recursive: true, force: true }));
  const site = join(work, 'site', 'src', 'content', 'docs');
  const page = (path: string, text: string) => {
    fs.mkdirSync(join(site, path, '..'), { recursive: true });
    fs.writeFileSync(join(site, path), text);
  };
  page('en/index.mdx', '---\ntitle: Welcome\ndescription: Start here.\n---\nimport Card from "./card.astro"\n\nHello **world**.\n');
  page('en/guides/deploy/netlify.md', '---\ntitle: "Deploy to Netlify: the basics"\ndescription: >\n  Put your site\n  online.\n---\n## Build command\n\nRun the build.\n');
  page('en/no-front-matter.md', 'Just text.\n');
  page('zh-cn/guides/deploy/netlify.md', '---\ntitle: 部署到 Netlify\ndescription: 把网站发布上线。\n---\n正文。\n');
  page('zh-cn/only-here.md', '---\ntitle: 只在这里\n---\n正文。\n');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'quality', 'from-starlight.ts'), join(work, 'site'), join(work, 'judged', 'docs'), 'en,zh-cn'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  for (const dir of [join(work, 'judged'), join(work, 'judged', 'docs')]) {
    const corpus = readCorpus(`dir:${dir}`, 0);
    assert.deepEqual([...corpus.states.keys()], ['docs']);
    assert.deepEqual(corpus.languages, ['en', 'zh-CN']);
    assert.deepEqual(
      corpus.pages.map((p) => [p.language, p.slug, p.title, p.summary]),
      [
        ['en', 'guides-deploy-netlify', 'Deploy to Netlify: the basics', 'Put your site online.'],
        ['en', 'home', 'Welcome', 'Start here.'],
        ['zh-CN', 'guides-deploy-netlify', '部署到 Netlify', '把网站发布上线。'],
      ],
    );
    assert.equal(corpus.pages[1].bodyMd.trim(), 'Hello **world**.', 'the import line is gone');
  }
  assert.throws(() => readCorpus(`dir:${work}`, 0), /neither a version folder \(with a version\.json\) nor a folder of them/);
});
