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

/** The realistic shape's languages: English complete, the others partly translated, Japanese the CJK one. */
export const REALISTIC_LANGUAGES = ['en', 'de', 'fr', 'ja', 'pt-BR'];
export const REALISTIC_NODES = 400;
/**
 * Its seed: the first whose set has the size the issue names (400 nodes, 1,076 files, about 9 MB),
 * depth 4 and fan-out from 1–2 to about 30.
 */
export const REALISTIC_SEED = 4;

/**
 * A documentation set shaped like a real product's help: 400 nodes, 8 top-level sections of uneven
 * fan-out (2 to 30 children, most few), at most 4 levels; English complete, German, French and
 * Japanese each for 43 % of the nodes and Brazilian Portuguese for 40 % (mostly the same, much-read
 * nodes); bodies of 200 bytes to 60 KB, most of 1–5 KB (log-normal around 2.6 KB) and a long tail
 * (30 % spread log-uniformly from 5 to 60 KB), with headings, lists, tables, code, links and images.
 * `seed` other than REALISTIC_SEED gives another set of the same shape (P4 imports three of them).
 */
export function realisticSet(seed = REALISTIC_SEED, label = 'Realistic'): GeneratedSet {
  return generateDocSet({
    nodes: REALISTIC_NODES,
    seed,
    languages: REALISTIC_LANGUAGES,
    translationRates: { de: 0.43, fr: 0.43, ja: 0.43, 'pt-BR': 0.4 },
    bodyBytes: { min: 200, max: 60_000 },
    bodySizes: { kind: 'skewed', median: 2600, sigma: 0.55, tail: 0.3, tailFrom: 5000 },
    markdown: 'rich',
    maxDepth: 4,
    tree: { kind: 'uneven', roots: 8, fanOut: { min: 2, max: 30 } },
    label,
    status: 'published',
    isLatest: true,
  });
}

/** The many-versions shape's source version: 200 nodes in en and de, bodies and tree as in the realistic shape. */
export function manyVersionsSource(): GeneratedSet {
  return generateDocSet({
    nodes: 200,
    seed: 7,
    languages: ['en', 'de'],
    bodyBytes: { min: 200, max: 60_000 },
    bodySizes: { kind: 'skewed', median: 2600, sigma: 0.55, tail: 0.3, tailFrom: 5000 },
    markdown: 'rich',
    maxDepth: 4,
    tree: { kind: 'uneven', roots: 6, fanOut: { min: 2, max: 30 } },
    label: 'Many versions',
    status: 'published',
    isLatest: true,
  });
}

/** A documentation shape the P-rows run on. */
export interface DocShape {
  name: 'flat' | 'realistic';
  languages: string[];
  /** The read scenarios' set (`nodes`: --nodes, for the shapes whose size it sets). */
  set(nodes: number): GeneratedSet;
  /** Nodes of the read scenarios' set. */
  nodes(requested: number): number;
  /** The version the write scenarios (P3) work on; `nodes` its size. */
  writeSet(): GeneratedSet;
  writeNodes: number;
  /** P4's k-th set (1, 2, 3) for import-files: at most 2,000 files and 10 MiB. */
  importSet(k: number): { files: ContentFile[]; bytes: number };
}

export const FLAT: DocShape = {
  name: 'flat',
  languages: LANGUAGES,
  set: mainSet,
  nodes: (requested) => requested,
  writeSet: () => mainSet(2000),
  writeNodes: 2000,
  importSet: (k) => importFilesSet(100 + k),
};

export const REALISTIC: DocShape = {
  name: 'realistic',
  languages: REALISTIC_LANGUAGES,
  set: () => realisticSet(),
  nodes: () => REALISTIC_NODES,
  writeSet: () => realisticSet(),
  writeNodes: REALISTIC_NODES,
  importSet: (k) => realisticImportSet(k),
};

/** Other realistic sets (seeds 105, 106, …) that fit import-files: the first `k` that do, in seed order. */
function realisticImportSet(k: number): { files: ContentFile[]; bytes: number } {
  for (let seed = 105, found = 0; seed < 200; seed++) {
    const files = realisticSet(seed, `Import ${seed}`).files;
    const bytes = files.reduce((sum, f) => sum + Buffer.byteLength(f.content, 'utf8'), 0);
    if (files.length <= 2000 && bytes <= 10 * 1024 * 1024 && ++found === k) return { files, bytes };
  }
  throw new Error(`no realistic import set ${k}`);
}

export const SHAPES: Record<DocShape['name'], DocShape> = { flat: FLAT, realistic: REALISTIC };

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
  /** The ranked search's latency queries: two or three words of a title, every third with a typo (rankedQueries). */
  rankedQueries: Array<{ language: string; q: string }>;
}

/** The words of a title as a reader would type them (a dictionary segmenter for Japanese). */
function titleWords(title: string, language: string): string[] {
  let segmenter = segmenters.get(language);
  if (!segmenter) segmenters.set(language, (segmenter = new Intl.Segmenter(language, { granularity: 'word' })));
  return [...segmenter.segment(title)].filter((w) => w.isWordLike).map((w) => w.segment);
}
const segmenters = new Map<string, Intl.Segmenter>();

export function summarize(set: GeneratedSet, languages: readonly string[] = LANGUAGES, queriesPerLanguage = 40): SetSummary {
  const queries: SetSummary['queries'] = [];
  for (const language of languages) {
    // Every query from a node translated into the language, spread over those nodes.
    const translated = set.nodes.filter((n) => n.translations[language]);
    const step = Math.max(1, Math.floor(translated.length / queriesPerLanguage));
    const seen = new Set<string>();
    for (let i = 0; i < translated.length && seen.size < queriesPerLanguage; i += step) {
      const t = translated[i].translations[language];
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
    rankedQueries: rankedQueries(set, languages, queriesPerLanguage),
  };
}

/**
 * Queries as readers type them into a search by relevance: from titles spread over the nodes as P2's
 * are, two words or (every other one, where the title has them) three, and every third with a typo —
 * two adjacent letters swapped inside its longest Latin word of 5+ letters, not the first letter.
 */
export function rankedQueries(set: GeneratedSet, languages: readonly string[], perLanguage: number): SetSummary['queries'] {
  const queries: SetSummary['queries'] = [];
  for (const language of languages) {
    const translated = set.nodes.filter((n) => n.translations[language]);
    const step = Math.max(1, Math.floor(translated.length / perLanguage));
    const seen = new Set<string>();
    for (let i = 0, k = 0; i < translated.length && seen.size < perLanguage; i += step, k++) {
      const picked: string[] = [];
      for (const w of titleWords(translated[i].translations[language].title, language)) {
        if (w.length < 2 || picked.some((p) => fold(p) === fold(w))) continue;
        picked.push(w);
        if (picked.length === 2 + (k % 2)) break;
      }
      if (picked.length < 2) continue;
      if (k % 3 === 2) {
        const long = picked.map((w, at) => ({ w, at })).filter(({ w }) => /^\p{sc=Latin}{5,}$/u.test(w)).sort((a, b) => b.w.length - a.w.length)[0];
        if (long) {
          const chars = Array.from(long.w);
          let at = Math.floor(chars.length / 2);
          if (chars[at] === chars[at + 1]) at--;
          [chars[at], chars[at + 1]] = [chars[at + 1], chars[at]];
          picked[long.at] = chars.join('');
        }
      }
      const q = picked.join(' ');
      if (seen.has(q)) continue;
      seen.add(q);
      queries.push({ language, q });
    }
  }
  return queries;
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
