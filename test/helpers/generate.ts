/**
 * A deterministic generator of documentation sets, for tests and benchmarks.
 *
 * The same options (including `seed`) always give the same set, byte for byte: randomness comes
 * from a seeded PRNG (mulberry32), never from Math.random, dates or the environment.
 *
 * A set is returned both in the content format (docs/content-format.md: `version.json` plus one
 * `{lang}/{slug}.md` per node and language, hand-written style: no ids, no stamps) and as the
 * equivalent JSON import `nodes` (the shape of POST /versions/{v}/import), in document order.
 *
 * This module has no dependency on the test runner or the server, so bench/ can import it.
 */

export interface ContentFile {
  path: string;
  content: string;
}

export interface GeneratedTranslation {
  title: string;
  summary: string;
  bodyMd: string;
}

/** A node as POST /versions/{v}/import takes it. */
export interface GeneratedNode {
  id?: string;
  slug: string;
  kind: 'section' | 'topic';
  parentSlug: string | null;
  icon: string | null;
  sortOrder: number;
  translations: Record<string, GeneratedTranslation>;
}

/** A word that occurs in exactly one translation of the set: search for it to find `slug`. */
export interface SearchProbe {
  language: string;
  word: string;
  slug: string;
}

export interface GenerateOptions {
  /** Number of nodes (sections and topics). */
  nodes: number;
  /** PRNG seed; the same seed gives the same set. Default 1. */
  seed?: number;
  /** Enabled languages, primary first. Default ['en', 'de', 'ja']. Any code works; en, de and ja get their own vocabulary. */
  languages?: string[];
  /** Size of each Markdown body in UTF-8 bytes (before the frontmatter). Default 500 to 20,000. */
  bodyBytes?: { min: number; max: number };
  /** Share of nodes that have each non-primary language (0 to 1). Default 1 (every node in every language). */
  translationRate?: number;
  /** Deepest level of the tree (top level = 1). Default 4. */
  maxDepth?: number;
  /** version.json fields. */
  label?: string;
  status?: 'draft' | 'published' | 'archived';
  isLatest?: boolean;
  /** Write a node id into version.json and the import nodes (default false: hand-written files carry none). */
  ids?: boolean;
  /** A folder put in front of every file path (e.g. `docs/v2/`), as in a content repository. */
  pathPrefix?: string;
}

export interface GeneratedSet {
  /** The parsed content of version.json. */
  versionJson: Record<string, unknown>;
  /** version.json first, then each node's files in document order, languages in `languages` order. */
  files: ContentFile[];
  /** The same content as JSON import nodes, in document order. */
  nodes: GeneratedNode[];
  /** One probe word per language (where the language has translations), each found in one translation only. */
  probes: SearchProbe[];
  stats: { nodes: number; sections: number; topics: number; translations: number; translationsByLanguage: Record<string, number>; contentBytes: number; depth: number };
}

/** mulberry32: a small, fast, seeded PRNG (32-bit state). */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

const EN_WORDS = [
  'project', 'task', 'board', 'team', 'account', 'invoice', 'report', 'filter', 'label', 'member', 'workspace', 'setting',
  'integration', 'webhook', 'permission', 'role', 'template', 'calendar', 'reminder', 'comment', 'attachment', 'export',
  'import', 'dashboard', 'automation', 'rule', 'trigger', 'notification', 'subscription', 'billing', 'password', 'token',
  'session', 'archive', 'milestone', 'sprint', 'backlog', 'timeline', 'status', 'priority', 'owner', 'guest', 'domain',
  'search', 'shortcut', 'mobile', 'desktop', 'browser', 'sync', 'backup', 'history', 'audit', 'policy', 'quota',
];
const EN_VERBS = ['configure', 'create', 'manage', 'share', 'archive', 'restore', 'review', 'connect', 'invite', 'export', 'schedule', 'assign', 'track', 'filter', 'rename'];
const EN_GLUE = ['the', 'a', 'your', 'each', 'every', 'this', 'that', 'with', 'from', 'into', 'for', 'when', 'before', 'after', 'and', 'or', 'then', 'only', 'also', 'can', 'will', 'should'];

const DE_WORDS = [
  'Projekt', 'Aufgabe', 'Board', 'Team', 'Konto', 'Rechnung', 'Bericht', 'Filter', 'Etikett', 'Mitglied', 'Arbeitsbereich',
  'Einstellung', 'Integration', 'Berechtigung', 'Rolle', 'Vorlage', 'Kalender', 'Erinnerung', 'Kommentar', 'Anhang', 'Übersicht',
  'Größe', 'Straße', 'Benutzerkonto', 'Zugriffsschlüssel', 'Prüfung', 'Änderung', 'Fälligkeit', 'Öffnungszeit', 'Sicherung',
];
const DE_VERBS = ['konfigurieren', 'erstellen', 'verwalten', 'teilen', 'archivieren', 'wiederherstellen', 'prüfen', 'verbinden', 'einladen', 'exportieren', 'ändern', 'zuweisen'];
const DE_GLUE = ['der', 'die', 'das', 'ein', 'eine', 'Ihr', 'jede', 'mit', 'aus', 'für', 'wenn', 'vor', 'nach', 'und', 'oder', 'dann', 'nur', 'auch', 'können', 'müssen', 'über', 'schließlich'];

const JA_NOUNS = ['プロジェクト', 'タスク', 'ボード', 'チーム', 'アカウント', '請求書', 'レポート', 'フィルター', 'ラベル', 'メンバー', 'ワークスペース', '設定', '連携', '権限', '役割', 'テンプレート', 'カレンダー', 'リマインダー', 'コメント', '添付ファイル', '通知', '管理画面', '検索', '履歴'];
const JA_VERBS = ['を設定します', 'を作成します', 'を管理します', 'を共有します', 'をアーカイブします', 'を復元します', 'を確認します', 'に接続します', 'を招待します', 'をエクスポートします', 'を変更します', 'を割り当てます'];
const JA_GLUE = ['この画面で', '必要に応じて', 'まず', '次に', '最後に', '管理者は', 'すべてのメンバーが', '保存すると', '変更後に'];

/** Katakana used for the probe words (no long-vowel mark, so runs stay one word for Intl.Segmenter). */
const KATAKANA = 'アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワ';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const ICONS = ['rocket', 'book-open', 'settings', 'credit-card', 'users', 'bell', 'shield', 'plug', 'calendar', 'search'];
const CODE_LANGS = ['bash', 'json', 'ts', 'yaml'];

type Vocabulary = 'en' | 'de' | 'ja';
const vocabularyOf = (language: string): Vocabulary => (language === 'de' ? 'de' : language === 'ja' ? 'ja' : 'en');

/** A fixed-length word for an index: no probe word is a prefix of another. */
function fixedWord(alphabet: string, length: number, index: number): string {
  let out = '';
  let n = index;
  for (let i = 0; i < length; i++) {
    out = alphabet[n % alphabet.length] + out;
    n = Math.floor(n / alphabet.length);
  }
  return out;
}

/** The unique probe word of node `index` in a language (occurs in that translation's body only). */
export function probeWord(language: string, index: number): string {
  return vocabularyOf(language) === 'ja' ? `ゾルバ${fixedWord(KATAKANA, 3, index)}` : `zelkor${fixedWord(LETTERS, 4, index)}`;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

class TextMaker {
  constructor(
    private readonly r: Random,
    private readonly vocabulary: Vocabulary,
  ) {}

  title(kind: 'section' | 'topic'): string {
    const r = this.r;
    switch (this.vocabulary) {
      case 'en':
        return kind === 'section' ? `${capitalize(r.pick(EN_WORDS))} and ${r.pick(EN_WORDS)}s` : `${capitalize(r.pick(EN_VERBS))} ${r.pick(EN_WORDS)} ${r.pick(EN_WORDS)}s`;
      case 'de':
        return kind === 'section' ? `${r.pick(DE_WORDS)} und ${r.pick(DE_WORDS)}` : `${r.pick(DE_WORDS)} ${r.pick(DE_VERBS)}`;
      case 'ja':
        return kind === 'section' ? `${r.pick(JA_NOUNS)}と${r.pick(JA_NOUNS)}` : `${r.pick(JA_NOUNS)}${r.pick(JA_VERBS)}`;
    }
  }

  sentence(): string {
    const r = this.r;
    switch (this.vocabulary) {
      case 'en': {
        const words = [r.pick(EN_GLUE), r.pick(EN_WORDS), r.pick(EN_VERBS), r.pick(EN_GLUE), r.pick(EN_WORDS)];
        for (let i = r.int(0, 8); i > 0; i--) words.push(r.chance(0.4) ? r.pick(EN_GLUE) : r.pick(EN_WORDS));
        return `${capitalize(words.join(' '))}.`;
      }
      case 'de': {
        const words = [r.pick(DE_GLUE), r.pick(DE_WORDS), r.pick(DE_GLUE), r.pick(DE_WORDS)];
        for (let i = r.int(0, 7); i > 0; i--) words.push(r.chance(0.4) ? r.pick(DE_GLUE) : r.pick(DE_WORDS));
        words.push(r.pick(DE_VERBS));
        return `${capitalize(words.join(' '))}.`;
      }
      case 'ja': {
        let s = r.pick(JA_GLUE);
        for (let i = r.int(1, 3); i > 0; i--) s += `${r.pick(JA_NOUNS)}の`;
        return `${s}${r.pick(JA_NOUNS)}${r.pick(JA_VERBS)}。`;
      }
    }
  }

  paragraph(): string {
    const sentences: string[] = [];
    for (let i = this.r.int(2, 5); i > 0; i--) sentences.push(this.sentence());
    return sentences.join(this.vocabulary === 'ja' ? '' : ' ');
  }

  word(): string {
    switch (this.vocabulary) {
      case 'en':
        return this.r.pick(EN_WORDS);
      case 'de':
        return this.r.pick(DE_WORDS);
      case 'ja':
        return this.r.pick(JA_NOUNS);
    }
  }

  /** One Markdown block: a heading with text, a list, code, a table, or a paragraph with a link. */
  block(): string {
    const r = this.r;
    switch (r.int(0, 5)) {
      case 0:
        return `## ${this.title('section')}\n\n${this.paragraph()}`;
      case 1: {
        const ordered = r.chance(0.5);
        const items: string[] = [];
        for (let i = 1, n = r.int(2, 6); i <= n; i++) items.push(`${ordered ? `${i}.` : '-'} ${this.sentence()}`);
        return items.join('\n');
      }
      case 2: {
        const lang = r.pick(CODE_LANGS);
        const lines = [`help-cli ${r.pick(EN_VERBS)} --${r.pick(EN_WORDS)} ${r.int(1, 999)}`, `# ${this.word()}`, `export ${r.pick(EN_WORDS).toUpperCase()}_LIMIT=${r.int(1, 100)}`];
        return `\`\`\`${lang}\n${lines.slice(0, r.int(1, 3)).join('\n')}\n\`\`\``;
      }
      case 3: {
        const rows = [`| ${this.word()} | ${this.word()} | ${this.word()} |`, '| --- | --- | --- |'];
        for (let i = r.int(2, 5); i > 0; i--) rows.push(`| ${this.word()} | ${r.int(1, 500)} | \`${r.pick(EN_WORDS)}\` |`);
        return rows.join('\n');
      }
      case 4:
        return `${this.sentence()} [${this.word()}](https://help.example.org/${r.pick(EN_WORDS)}/${r.int(1, 9999)}) **${this.word()}** ${this.sentence()}`;
      default:
        return this.paragraph();
    }
  }

  /** A body of about `bytes` UTF-8 bytes (at least that many), with `probe` in its first paragraph. */
  body(bytes: number, probe: string): string {
    const intro =
      this.vocabulary === 'ja'
        ? `${this.sentence()}この項目の識別名は「${probe}」です。`
        : this.vocabulary === 'de'
          ? `${this.sentence()} Der Referenzname lautet ${probe}.`
          : `${this.sentence()} Its reference name is ${probe}.`;
    const blocks = [intro];
    let size = utf8(intro);
    while (size < bytes) {
      const b = this.block();
      blocks.push(b);
      size += utf8(b) + 2;
    }
    return `${blocks.join('\n\n')}\n`;
  }
}

interface Draft {
  slug: string;
  kind: 'section' | 'topic';
  depth: number;
  parent: Draft | null;
  icon: string | null;
  children: Draft[];
  index: number;
  id: string;
}

/** Quotes a string as a YAML double-quoted scalar (JSON strings are valid YAML). */
const yamlString = (s: string) => JSON.stringify(s);

/** Generates a documentation set. Deterministic for equal options. */
export function generateDocSet(opts: GenerateOptions): GeneratedSet {
  const r = new Random(opts.seed ?? 1);
  const languages = opts.languages ?? ['en', 'de', 'ja'];
  const [primary] = languages;
  const minBytes = opts.bodyBytes?.min ?? 500;
  const maxBytes = opts.bodyBytes?.max ?? 20_000;
  const rate = opts.translationRate ?? 1;
  const maxDepth = opts.maxDepth ?? 4;
  const prefix = opts.pathPrefix ?? '';

  // The tree: a chain to the deepest level first (so every depth occurs), then random placement.
  const roots: Draft[] = [];
  const all: Draft[] = [];
  const openSections: Draft[] = [];
  const used = new Set<string>();
  const hex = () => fixedWord('0123456789abcdef', 8, r.int(0, 0x7fffffff));
  for (let i = 0; i < opts.nodes; i++) {
    let parent: Draft | null;
    if (i === 0) parent = null;
    else if (i < maxDepth) parent = all[i - 1];
    else parent = openSections.length === 0 || r.chance(0.04) ? null : r.pick(openSections);
    const depth = parent ? parent.depth + 1 : 1;
    const kind: 'section' | 'topic' = depth < maxDepth && (i < maxDepth - 1 || r.chance(0.22)) ? 'section' : 'topic';
    let slug = `${r.pick(EN_VERBS)}-${r.pick(EN_WORDS)}-${i.toString(36)}`;
    while (used.has(slug)) slug += '-x';
    used.add(slug);
    const node: Draft = {
      slug,
      kind,
      depth,
      parent,
      icon: kind === 'section' && r.chance(0.6) ? r.pick(ICONS) : null,
      children: [],
      index: i,
      id: `${hex()}-${hex().slice(0, 4)}-4${hex().slice(0, 3)}-8${hex().slice(0, 3)}-${hex()}${hex().slice(0, 4)}`,
    };
    all.push(node);
    (parent ? parent.children : roots).push(node);
    if (kind === 'section') openSections.push(node);
  }

  const order: Draft[] = [];
  const walk = (list: Draft[]) => {
    for (const d of list) {
      order.push(d);
      walk(d.children);
    }
  };
  walk(roots);

  const makers = new Map(languages.map((l) => [l, new TextMaker(r, vocabularyOf(l))]));
  const nodes: GeneratedNode[] = [];
  const files: ContentFile[] = [];
  const byLanguage: Record<string, number> = Object.fromEntries(languages.map((l) => [l, 0]));
  const candidates: Record<string, SearchProbe[]> = {};
  let contentBytes = 0;
  const mdFiles: ContentFile[] = [];
  for (const d of order) {
    const translations: Record<string, GeneratedTranslation> = {};
    for (const language of languages) {
      if (language !== primary && !r.chance(rate)) continue;
      const maker = makers.get(language)!;
      const word = probeWord(language, d.index);
      const t: GeneratedTranslation = {
        title: maker.title(d.kind),
        summary: r.chance(0.85) ? maker.sentence() : '',
        bodyMd: d.kind === 'section' && r.chance(0.3) ? '' : maker.body(r.int(minBytes, maxBytes), word),
      };
      if (t.bodyMd !== '') (candidates[language] ??= []).push({ language, word, slug: d.slug });
      translations[language] = t;
      byLanguage[language]++;
      const front = [`title: ${yamlString(t.title)}`];
      if (t.summary !== '') front.push(`summary: ${yamlString(t.summary)}`);
      const content = `---\n${front.join('\n')}\n---\n${t.bodyMd}`;
      mdFiles.push({ path: `${prefix}${language}/${d.slug}.md`, content });
    }
    const siblings = d.parent ? d.parent.children : roots;
    const node: GeneratedNode = {
      slug: d.slug,
      kind: d.kind,
      parentSlug: d.parent ? d.parent.slug : null,
      icon: d.icon,
      sortOrder: siblings.indexOf(d),
      translations,
    };
    nodes.push(opts.ids ? { id: d.id, ...node } : node);
  }

  const navEntry = (d: Draft): unknown => {
    if (d.kind === 'topic' && d.children.length === 0 && d.icon === null && !opts.ids) return d.slug;
    const entry: Record<string, unknown> = { slug: d.slug, kind: d.kind };
    if (opts.ids) entry.id = d.id;
    if (d.icon !== null) entry.icon = d.icon;
    if (d.children.length > 0) entry.children = d.children.map(navEntry);
    return entry;
  };
  const versionJson: Record<string, unknown> = { label: opts.label ?? 'Generated documentation', status: opts.status ?? 'published' };
  if (opts.isLatest !== undefined) versionJson.isLatest = opts.isLatest;
  versionJson.languages = languages;
  versionJson.nav = roots.map(navEntry);
  files.push({ path: `${prefix}version.json`, content: `${JSON.stringify(versionJson, null, 2)}\n` }, ...mdFiles);
  for (const f of files) contentBytes += utf8(f.content);

  // The probe of each language is the middle candidate in document order (not the first node).
  const probes = languages.flatMap((l) => (candidates[l]?.length ? [candidates[l][Math.floor(candidates[l].length / 2)]] : []));
  const sections = order.filter((d) => d.kind === 'section').length;
  return {
    versionJson,
    files,
    nodes,
    probes,
    stats: {
      nodes: order.length,
      sections,
      topics: order.length - sections,
      translations: Object.values(byLanguage).reduce((a, b) => a + b, 0),
      translationsByLanguage: byLanguage,
      contentBytes,
      depth: Math.max(0, ...order.map((d) => d.depth)),
    },
  };
}
