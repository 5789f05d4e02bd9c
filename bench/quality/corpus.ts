/**
 * The content the search quality is judged on: one of the bench's shapes, or the service's sample
 * content, read into version states and a SearchIndex exactly as the service loads them (and as
 * search-inproc.ts does), with every translation listed as a page for the judged set and the anchor.
 */
import * as fs from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { readFileSet } from '../../src/content/file-set.ts';
import { ProblemList } from '../../src/content/problems.ts';
import { readDirFiles } from '../../src/content/read-dir.ts';
import type { VersionState } from '../../src/domain/types.ts';
import { SearchIndex } from '../../src/index/search.ts';
import { readOptions } from '../../src/store/load.ts';
import { SHAPES } from '../lib/dataset.ts';
import { PROJECT_ROOT } from '../lib/util.ts';

/**
 * The shapes a judged set can be built from: the bench's two generated documentation shapes, the
 * sample content, and this project's own manual (docs/: real pages, long and short, written for readers).
 */
export const CORPUS_NAMES = ['flat', 'realistic', 'sample', 'manual'] as const;
/** A shape, or `dir:PATH`: content of one's own in the content format (see readCorpus). */
export type CorpusName = (typeof CORPUS_NAMES)[number] | `dir:${string}`;

/** One translation of one node: what a known-item query is made from and judged against. */
export interface Page {
  version: string;
  language: string;
  slug: string;
  title: string;
  summary: string;
  bodyMd: string;
}

export interface Corpus {
  name: CorpusName;
  /** Version slug → its state, as the service holds it. */
  states: Map<string, VersionState>;
  index: SearchIndex;
  /** Every translation, versions and languages in the order of their states, nodes in file order. */
  pages: Page[];
  /** Languages that have at least one page, in the versions' order. */
  languages: string[];
  /** Milliseconds to read the files, and to build the index (0 until indexCorpus()). */
  readMs: number;
  indexMs: number;
}

/** The sample content the service imports on its first start (config.ts: HELP_SAMPLE_CONTENT's default). */
export const SAMPLE_DIR = join(PROJECT_ROOT, 'content-sample');

/**
 * Reads a shape (`nodes`: the flat shape's size) into states and pages; indexCorpus() builds our index
 * over them. `dir:PATH` reads a version folder (`version.json` and `{lang}/{slug}.md`), or a folder of
 * them as content-sample/ is: a documentation set of one's own, judged like the shapes.
 */
export function readCorpus(name: CorpusName, nodes: number): Corpus {
  const t = performance.now();
  const folders = new Map<string, Map<string, string>>();
  if (name === 'sample') {
    readVersionFolders(SAMPLE_DIR, folders);
  } else if (name.startsWith('dir:')) {
    const dir = name.slice('dir:'.length);
    if (fs.existsSync(join(dir, 'version.json'))) folders.set(basename(resolve(dir)), readDirFiles(dir));
    else readVersionFolders(dir, folders);
    if (folders.size === 0) throw new Error(`${dir}: neither a version folder (with a version.json) nor a folder of them`);
  } else if (name === 'manual') {
    folders.set('manual', manualFiles());
  } else {
    folders.set('v1', new Map(SHAPES[name as 'flat' | 'realistic'].set(nodes).files.map((f) => [f.path, f.content])));
  }
  const states = new Map<string, VersionState>();
  for (const [slug, files] of [...folders].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const problems = new ProblemList();
    const state = readFileSet(files, readOptions(slug), problems);
    if (state === null) throw new Error(`${name}/${slug} does not load: ${JSON.stringify(problems.errors.slice(0, 3))}`);
    states.set(slug, state);
  }
  const pages: Page[] = [];
  const languages: string[] = [];
  for (const [version, state] of states) {
    for (const language of state.meta.languages) {
      let any = false;
      for (const [slug, byLanguage] of state.translations) {
        const tr = byLanguage.get(language);
        if (!tr) continue;
        pages.push({ version, language, slug, title: tr.title, summary: tr.summary, bodyMd: tr.bodyMd });
        any = true;
      }
      if (any && !languages.includes(language)) languages.push(language);
    }
  }
  return { name, states, index: new SearchIndex(), pages, languages, readMs: performance.now() - t, indexMs: 0 };
}

/** Each folder of `dir` that holds a version.json, as a version of that name. */
function readVersionFolders(dir: string, into: Map<string, Map<string, string>>): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && fs.existsSync(join(dir, entry.name, 'version.json'))) into.set(entry.name, readDirFiles(join(dir, entry.name)));
  }
}

/** The manual's folder (docs/ of the project: one page a subject). */
export const MANUAL_DIR = join(PROJECT_ROOT, 'docs');

/**
 * docs/ as a version in the content format: each page a topic, its `# ` line the title, the
 * paragraph under it the summary (its first 300 characters, cut at a space), the rest the body.
 */
function manualFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const slugs = fs.readdirSync(MANUAL_DIR).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)).sort();
  for (const slug of slugs) {
    const lines = fs.readFileSync(join(MANUAL_DIR, `${slug}.md`), 'utf8').split('\n');
    const h1 = lines.findIndex((l) => l.startsWith('# '));
    const title = h1 >= 0 ? lines[h1].slice(2).trim() : slug;
    let at = h1 + 1;
    while (at < lines.length && lines[at].trim() === '') at++;
    const paragraph: string[] = [];
    // The paragraph under the title, unless the page goes straight on with a heading, a list or a table.
    while (at < lines.length && lines[at].trim() !== '' && !/^(#|[-*|] |\d+\. |```)/.test(lines[at])) paragraph.push(lines[at++].trim());
    let summary = paragraph.join(' ');
    if (summary.length > 300) {
      const space = summary.lastIndexOf(' ', 300);
      summary = `${summary.slice(0, space > 0 ? space : 300)}…`;
    }
    const front = `---\ntitle: ${JSON.stringify(title)}\nsummary: ${JSON.stringify(summary)}\n---\n`;
    files.set(`en/${slug}.md`, `${front}${lines.slice(at).join('\n')}`);
  }
  const version = { label: 'Manual', status: 'published', isLatest: true, languages: ['en'], nav: slugs.map((slug) => ({ slug, kind: 'topic' })) };
  files.set('version.json', JSON.stringify(version, null, 2));
  return files;
}

/** Builds the corpus's SearchIndex as the service does when it loads the versions. */
export async function indexCorpus(corpus: Corpus): Promise<void> {
  const t = performance.now();
  for (const [slug, state] of corpus.states) await corpus.index.update(slug, state);
  await corpus.index.idle();
  corpus.indexMs = performance.now() - t;
}
