import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../config.ts';

/** A font file this service serves for PDF rendering in the browser (TrueType, which PDF libraries embed). */
export interface FontFile {
  /** File name under `/help/v1/fonts/`, and in a font folder (`HELP_FONT_DIR`, `vendor/fonts/`). */
  file: string;
  family: string;
  weight: 400 | 700;
  style: 'normal' | 'italic';
  /** Where the file is on disk. */
  path: string;
}

/**
 * Noto families by script; every family comes in regular and bold, the Latin one in italics too.
 * Licence: SIL Open Font License. The files served of the `required` families are in the project
 * (vendor/fonts/: 3 MB, where their packages take 18). The CJK families are optional: their packages
 * (259 MB for 8 served files of 59 MB) come with development installs only, and a production install
 * gets them through `HELP_FONT_DIR` (docs/portal.md#fonts). `pkg` is where the files come from, and
 * where a development install finds the optional ones.
 */
export const FONT_FAMILIES = [
  { id: 'noto-sans', family: 'Noto Sans', pkg: '@expo-google-fonts/noto-sans', stem: 'NotoSans', scripts: ['Latn', 'Cyrl', 'Grek'], required: true },
  { id: 'noto-sans-jp', family: 'Noto Sans JP', pkg: '@expo-google-fonts/noto-sans-jp', stem: 'NotoSansJP', scripts: ['Jpan'], required: false },
  { id: 'noto-sans-sc', family: 'Noto Sans SC', pkg: '@expo-google-fonts/noto-sans-sc', stem: 'NotoSansSC', scripts: ['Hans'], required: false },
  { id: 'noto-sans-tc', family: 'Noto Sans TC', pkg: '@expo-google-fonts/noto-sans-tc', stem: 'NotoSansTC', scripts: ['Hant'], required: false },
  { id: 'noto-sans-kr', family: 'Noto Sans KR', pkg: '@expo-google-fonts/noto-sans-kr', stem: 'NotoSansKR', scripts: ['Kore'], required: false },
  { id: 'noto-sans-arabic', family: 'Noto Sans Arabic', pkg: '@expo-google-fonts/noto-sans-arabic', stem: 'NotoSansArabic', scripts: ['Arab'], required: true },
  { id: 'noto-sans-thai', family: 'Noto Sans Thai', pkg: '@expo-google-fonts/noto-sans-thai', stem: 'NotoSansThai', scripts: ['Thai'], required: true },
] as const;

type Family = (typeof FONT_FAMILIES)[number];

/** The folder of the required families' files, in the project (from dist/ as from src/). */
export const VENDORED_FONTS = join(PROJECT_ROOT, 'vendor', 'fonts');

const require = createRequire(import.meta.url);

/** The folder of an installed package, or null when it is not installed. */
function packageRoot(pkg: string): string | null {
  try {
    return dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    return null;
  }
}

/** A family's files, each as served (`noto-sans-700-italic.ttf`) and as its package names it (`700Bold_Italic/NotoSans_700Bold_Italic.ttf`). */
export function fontFilesOf(f: Family): Array<{ file: string; inPackage: string; weight: 400 | 700; style: 'normal' | 'italic' }> {
  // Italics exist for the Latin family only: CJK, Arabic and Thai type has no italic style.
  const styles = f.id === 'noto-sans' ? (['normal', 'italic'] as const) : (['normal'] as const);
  return styles.flatMap((style) =>
    ([400, 700] as const).map((weight) => {
      const variant = `${weight === 400 ? '400Regular' : '700Bold'}${style === 'italic' ? '_Italic' : ''}`;
      return { file: `${f.id}-${weight}${style === 'italic' ? '-italic' : ''}.ttf`, inPackage: join(variant, `${f.stem}_${variant}.ttf`), weight, style };
    }),
  );
}

/** The fonts this service can serve, found at start (findFonts). */
export interface FontCatalog {
  /** Every servable file, by file name: the files of the families found whole. */
  readonly files: ReadonlyMap<string, FontFile>;
  /** Optional families not found whole: the languages of their scripts are uncovered. */
  readonly missing: readonly string[];
}

/**
 * The fonts in `dir` (`HELP_FONT_DIR`, files named as served: `noto-sans-jp-400.ttf`), then in
 * vendor/fonts/, then in the installed font packages (`packages: false` leaves them out, as a
 * production install does: tests). A family counts only whole, so a PDF never mixes a regular weight
 * with a bold drawn by the viewer. A required family not found is a broken install: it throws.
 */
export function findFonts(dir: string | null, { packages = true }: { packages?: boolean } = {}): FontCatalog {
  const files = new Map<string, FontFile>();
  const missing: string[] = [];
  for (const f of FONT_FAMILIES) {
    const root = packages ? packageRoot(f.pkg) : null;
    const found = fontFilesOf(f).map(({ file, inPackage, weight, style }) => {
      const path = [dir && join(dir, file), join(VENDORED_FONTS, file), root && join(root, inPackage)].find((p) => p && existsSync(p));
      return path ? { file, family: f.family, weight, style, path } : null;
    });
    if (found.every((x) => x !== null)) for (const x of found) files.set(x.file, x);
    else if (!f.required) missing.push(f.family);
    else throw new Error(`The font files of ${f.family} are missing from ${VENDORED_FONTS}: the installation is incomplete`);
  }
  return Object.freeze({ files, missing: Object.freeze(missing) });
}

/** The script a language is usually written in (`ja` → Jpan, `zh-TW` → Hant, `de` → Latn). */
export function scriptOf(language: string): string {
  try {
    return new Intl.Locale(language).maximize().script ?? 'Latn';
  } catch {
    return 'Latn';
  }
}

/**
 * The fonts that cover a set of languages: Noto Sans always (Latin text and code appear in every
 * language's help), plus the family of each other script. Languages whose script has no family
 * here, or whose family is not installed, are reported as `uncovered`, so a client can warn.
 */
export function fontsFor(languages: readonly string[], catalog: FontCatalog): { families: Array<{ id: string; family: string; languages: string[] }>; uncovered: string[] } {
  const chosen = new Map<string, { id: string; family: string; languages: string[] }>();
  chosen.set('noto-sans', { id: 'noto-sans', family: 'Noto Sans', languages: [] });
  const uncovered: string[] = [];
  for (const language of languages) {
    const script = scriptOf(language);
    const f = FONT_FAMILIES.find((x) => (x.scripts as readonly string[]).includes(script));
    if (!f || catalog.missing.includes(f.family)) {
      uncovered.push(language);
      continue;
    }
    if (!chosen.has(f.id)) chosen.set(f.id, { id: f.id, family: f.family, languages: [] });
    chosen.get(f.id)!.languages.push(language);
  }
  return { families: [...chosen.values()], uncovered };
}
