import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** A font file this service serves for PDF rendering in the browser (TrueType, which PDF libraries embed). */
export interface FontFile {
  /** File name under `/help/v1/fonts/`. */
  file: string;
  family: string;
  weight: 400 | 700;
  style: 'normal' | 'italic';
  /** Where the file is on disk (in the font package). */
  path: string;
}

/** Noto families by script; every family comes in regular and bold, the Latin one in italics too. Licence: SIL Open Font License. */
const FAMILIES = [
  { id: 'noto-sans', family: 'Noto Sans', pkg: '@expo-google-fonts/noto-sans', stem: 'NotoSans', scripts: ['Latn', 'Cyrl', 'Grek'] },
  { id: 'noto-sans-jp', family: 'Noto Sans JP', pkg: '@expo-google-fonts/noto-sans-jp', stem: 'NotoSansJP', scripts: ['Jpan'] },
  { id: 'noto-sans-sc', family: 'Noto Sans SC', pkg: '@expo-google-fonts/noto-sans-sc', stem: 'NotoSansSC', scripts: ['Hans'] },
  { id: 'noto-sans-tc', family: 'Noto Sans TC', pkg: '@expo-google-fonts/noto-sans-tc', stem: 'NotoSansTC', scripts: ['Hant'] },
  { id: 'noto-sans-kr', family: 'Noto Sans KR', pkg: '@expo-google-fonts/noto-sans-kr', stem: 'NotoSansKR', scripts: ['Kore'] },
  { id: 'noto-sans-arabic', family: 'Noto Sans Arabic', pkg: '@expo-google-fonts/noto-sans-arabic', stem: 'NotoSansArabic', scripts: ['Arab'] },
  { id: 'noto-sans-thai', family: 'Noto Sans Thai', pkg: '@expo-google-fonts/noto-sans-thai', stem: 'NotoSansThai', scripts: ['Thai'] },
] as const;

const require = createRequire(import.meta.url);

function filesOf(f: (typeof FAMILIES)[number]): FontFile[] {
  const root = dirname(require.resolve(`${f.pkg}/package.json`));
  // Italics exist for the Latin family only: CJK, Arabic and Thai type has no italic style.
  const styles = f.id === 'noto-sans' ? (['normal', 'italic'] as const) : (['normal'] as const);
  return styles.flatMap((style) =>
    ([400, 700] as const).map((weight) => {
      const variant = `${weight === 400 ? '400Regular' : '700Bold'}${style === 'italic' ? '_Italic' : ''}`;
      return { file: `${f.id}-${weight}${style === 'italic' ? '-italic' : ''}.ttf`, family: f.family, weight, style, path: join(root, variant, `${f.stem}_${variant}.ttf`) };
    }),
  );
}

/** Every servable font file, by file name. */
export const FONT_FILES: ReadonlyMap<string, FontFile> = new Map(FAMILIES.flatMap(filesOf).map((f) => [f.file, f]));

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
 * here are reported as `uncovered`, so a client can warn before rendering.
 */
export function fontsFor(languages: readonly string[]): { families: Array<{ id: string; family: string; languages: string[] }>; uncovered: string[] } {
  const chosen = new Map<string, { id: string; family: string; languages: string[] }>();
  chosen.set('noto-sans', { id: 'noto-sans', family: 'Noto Sans', languages: [] });
  const uncovered: string[] = [];
  for (const language of languages) {
    const script = scriptOf(language);
    const f = FAMILIES.find((x) => (x.scripts as readonly string[]).includes(script));
    if (!f) {
      uncovered.push(language);
      continue;
    }
    if (!chosen.has(f.id)) chosen.set(f.id, { id: f.id, family: f.family, languages: [] });
    chosen.get(f.id)!.languages.push(language);
  }
  return { families: [...chosen.values()], uncovered };
}
