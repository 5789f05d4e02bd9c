import * as fs from 'node:fs';
import { join } from 'node:path';
import { KeyFile } from '../../src/auth/key-file.ts';
import { createKey } from '../../src/cli/keys.ts';
import { fold } from '../../src/index/words.ts';
import { generateDocSet, type ContentFile, type GeneratedSet } from '../../test/helpers/generate.ts';
import { contentGit, fastImport, gitInitBare, versionCommit } from './git.ts';

export const LANGUAGES = ['en', 'de', 'ja'];
/** The seed of the main documentation set (any fixed number: the generator is deterministic). */
export const MAIN_SEED = 1;

/** The documentation set of the read scenarios: `nodes` sections and topics, depth 4, bodies of 0.5–20 KB, en/de/ja. */
export function mainSet(nodes: number): GeneratedSet {
  return generateDocSet({ nodes, seed: MAIN_SEED, languages: LANGUAGES, bodyBytes: { min: 500, max: 20_000 }, maxDepth: 4, label: `Bench ${nodes}`, status: 'published', isLatest: true });
}

/**
 * A set of exactly 2,000 content files (version.json + 1,999 Markdown files) of at most 10 MiB, for
 * import-files: 667 nodes in three languages make 2,001 Markdown files, the last two Japanese ones are
 * dropped (translations other than the primary language's are optional).
 */
export function importFilesSet(seed: number): { files: ContentFile[]; bytes: number } {
  const set = generateDocSet({ nodes: 667, seed, languages: LANGUAGES, bodyBytes: { min: 500, max: 9_400 }, label: `Import ${seed}`, status: 'published' });
  const files = [...set.files];
  for (let dropped = 0, i = files.length - 1; dropped < 2; i--) {
    if (files[i].path.startsWith('ja/')) {
      files.splice(i, 1);
      dropped++;
    }
  }
  const bytes = files.reduce((sum, f) => sum + Buffer.byteLength(f.content, 'utf8'), 0);
  return { files, bytes };
}

/** What the scenarios need of a set once its files are in the repository (the big strings can go). */
export interface SetSummary {
  nodes: number;
  slugs: string[];
  files: number;
  contentBytes: number;
  translations: number;
  /** Two-word queries built from titles, per language. */
  queries: Array<{ language: string; q: string }>;
}

/** The words of a title as a reader would type them (a dictionary segmenter for Japanese). */
function titleWords(title: string, language: string): string[] {
  let segmenter = segmenters.get(language);
  if (!segmenter) segmenters.set(language, (segmenter = new Intl.Segmenter(language, { granularity: 'word' })));
  return [...segmenter.segment(title)].filter((w) => w.isWordLike).map((w) => w.segment);
}
const segmenters = new Map<string, Intl.Segmenter>();

export function summarize(set: GeneratedSet, queriesPerLanguage = 40): SetSummary {
  const queries: SetSummary['queries'] = [];
  for (const language of LANGUAGES) {
    const step = Math.max(1, Math.floor(set.nodes.length / queriesPerLanguage));
    const seen = new Set<string>();
    for (let i = 0; i < set.nodes.length && seen.size < queriesPerLanguage; i += step) {
      const t = set.nodes[i].translations[language];
      if (!t) continue;
      const picked: string[] = [];
      for (const w of titleWords(t.title, language)) {
        if (w.length < 2 || picked.some((p) => fold(p) === fold(w))) continue;
        picked.push(w);
        if (picked.length === 2) break;
      }
      if (picked.length < 2) continue;
      const q = picked.join(' ');
      if (seen.has(q)) continue;
      seen.add(q);
      queries.push({ language, q });
    }
  }
  return {
    nodes: set.stats.nodes,
    slugs: set.nodes.map((n) => n.slug),
    files: set.files.length,
    contentBytes: set.stats.contentBytes,
    translations: set.stats.translations,
    queries,
  };
}

/**
 * A data directory holding one version, written with `git fast-import` in the repository layout the
 * service uses (bare `content.git`, branch main, `<slug>/version.json`, `<slug>/<lang>/<node>.md`),
 * and a key with help:read and help:write.
 */
export async function prepareDataDir(dataDir: string, slug: string, files: readonly ContentFile[]): Promise<{ key: string; gitdir: string }> {
  fs.mkdirSync(dataDir, { recursive: true });
  const gitdir = contentGit(dataDir);
  gitInitBare(gitdir);
  // --depth=0: blobs stored whole, as the service writes them (loose, zlib only) and about as `git gc` packs
  // these bodies (at 10,000 nodes: 84 MB, delta chains ≤ 8). fast-import's default would chain each blob to the
  // previous one, up to 50 deep, which makes every later read (git's and the service's) 4–5× slower.
  await fastImport(gitdir, versionCommit(slug, files, `Generated documentation set ${slug}`), { depth: 0 });
  const { key } = await createKey(new KeyFile(dataDir), { name: 'bench' });
  return { key, gitdir };
}

export const dataDirIn = (work: string, name: string) => join(work, name);
