/**
 * Turns a Starlight documentation site (the layout of Astro's own docs: `src/content/docs/{lang}/…/*.md`
 * and `.mdx`, a `title` and `description` in each page's front matter) into one version folder of the
 * content format, so that search quality can be judged on a real multilingual corpus:
 *
 *   git clone --depth 1 https://github.com/withastro/docs ../astro-docs
 *   npx tsx bench/quality/from-starlight.ts ../astro-docs ../judged/docs en,fr,ko,zh-cn,es
 *   npx tsx bench/search-quality.ts --dir ../judged
 *
 * Each page becomes a topic, its path the slug (`guides/deploy/netlify` → `guides-deploy-netlify`), its
 * `description` the summary, the rest the body (MDX's `import` lines dropped; components stay as the
 * HTML-like text a reader of the source sees). A page is kept in a translation only where the first
 * language has it too; the navigation lists the first language's pages in path order.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';

const [from, out, languageList = 'en'] = process.argv.slice(2);
if (from === undefined || out === undefined) {
  console.error('usage: npx tsx bench/quality/from-starlight.ts CHECKOUT OUT_VERSION_FOLDER [en,fr,…]');
  process.exit(2);
}
const languages = languageList.split(',');
/** `zh-cn` → `zh-CN`, as the service writes a language code. */
const canonical = (l: string) => l.replace(/-([a-z]+)$/, (_, region: string) => `-${region.length === 2 ? region.toUpperCase() : region}`);

function pagesOf(dir: string): string[] {
  if (!fs.existsSync(dir)) throw new Error(`${dir}: no such folder (is ${from} a Starlight checkout with this language?)`);
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((p) => /\.mdx?$/.test(p)).sort();
}

const slugOf = (path: string) => {
  const stem = path.replace(/\.mdx?$/, '').replace(/(^|\/)index$/, '');
  return (stem === '' ? 'home' : stem).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
};

/** The page in the content format, or null when it has no front matter with a title. */
function converted(text: string): string | null {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return null;
  let front: unknown;
  try {
    front = yaml.load(m[1], { schema: yaml.JSON_SCHEMA });
  } catch {
    return null;
  }
  const { title, description } = (front ?? {}) as { title?: unknown; description?: unknown };
  if (typeof title !== 'string') return null;
  const summary = typeof description === 'string' ? description.replace(/\s+/g, ' ').trim() : '';
  const body = text.slice(m[0].length).split('\n').filter((line) => !/^import\s/.test(line)).join('\n').trim();
  return `---\n${yaml.dump({ title, summary }, { lineWidth: -1 })}---\n${body}\n`;
}

fs.rmSync(out, { recursive: true, force: true });
const firstSlugs: string[] = [];
for (const [k, language] of languages.entries()) {
  const dir = join(from, 'src', 'content', 'docs', language);
  const folder = join(out, canonical(language));
  fs.mkdirSync(folder, { recursive: true });
  let written = 0;
  for (const path of pagesOf(dir)) {
    const slug = slugOf(path);
    if (k > 0 && !firstSlugs.includes(slug)) continue;
    const page = converted(fs.readFileSync(join(dir, path), 'utf8'));
    if (page === null || fs.existsSync(join(folder, `${slug}.md`))) continue;
    fs.writeFileSync(join(folder, `${slug}.md`), page);
    if (k === 0) firstSlugs.push(slug);
    written++;
  }
  console.log(`${canonical(language)}: ${written} pages`);
}
const version = { label: 'Judged corpus', status: 'published', isLatest: true, languages: languages.map(canonical), nav: firstSlugs.map((slug) => ({ slug, kind: 'topic' })) };
fs.writeFileSync(join(out, 'version.json'), `${JSON.stringify(version, null, 2)}\n`);
