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
  /** Enabled languages, primary first. Default ['en', 'de', 'ja']. Any code works; en, de, fr, pt (pt-BR…) and ja get their own vocabulary. */
  languages?: string[];
  /** Size of each Markdown body in UTF-8 bytes (before the frontmatter). Default 500 to 20,000. */
  bodyBytes?: { min: number; max: number };
  /** Share of nodes that have each non-primary language (0 to 1). Default 1 (every node in every language). */
  translationRate?: number;
  /**
   * Share of nodes translated into each language named here (the others keep `translationRate`). The
   * choices are correlated, as translators start with the same much-read pages: for most nodes one draw
   * decides every language (so a node in the least translated language is usually in the others too),
   * for the rest each language draws on its own; each language's expected share stays its rate.
   */
  translationRates?: Record<string, number>;
  /** Deepest level of the tree (top level = 1). Default 4. */
  maxDepth?: number;
  /**
   * How the tree grows. `random` (default): each node goes under a random open section, so fan-out is
   * about even. `uneven`: `roots` top-level sections, each section getting from `fanOut.min` to
   * `fanOut.max` children, most few and some many (a skewed draw), fewer sections deeper down.
   */
  tree?: { kind: 'random' } | { kind: 'uneven'; roots: number; fanOut: { min: number; max: number } };
  /**
   * How body sizes spread over `bodyBytes`. `uniform` (default). `skewed`: most bodies a few KB
   * (log-normal around `median`, spread `sigma`), a `tail` share spread log-uniformly over the upper
   * range from `tailFrom` bytes to `bodyBytes.max`; every size clamped to `bodyBytes`.
   */
  bodySizes?: { kind: 'uniform' } | { kind: 'skewed'; median: number; sigma: number; tail: number; tailFrom: number };
  /** `basic` (default): headings, lists, code, tables, links. `rich` adds images, sub-headings, nested lists, block quotes, longer code and tables. */
  markdown?: 'basic' | 'rich';
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

  /** A standard normal draw (Box–Muller, one of the pair). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
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

const FR_WORDS = [
  'projet', 'tâche', 'tableau', 'équipe', 'compte', 'facture', 'rapport', 'filtre', 'étiquette', 'membre', 'espace', 'paramètre',
  'intégration', 'autorisation', 'rôle', 'modèle', 'calendrier', 'rappel', 'commentaire', 'pièce', 'aperçu', 'clé', 'sauvegarde',
  'historique', 'notification', 'abonnement', 'réglage', 'élément', 'créneau', 'accès',
];
const FR_VERBS = ['configurer', 'créer', 'gérer', 'partager', 'archiver', 'restaurer', 'vérifier', 'connecter', 'inviter', 'exporter', 'modifier', 'attribuer'];
const FR_GLUE = ['le', 'la', 'les', 'un', 'une', 'votre', 'chaque', 'avec', 'depuis', 'pour', 'lorsque', 'avant', 'après', 'et', 'ou', 'puis', 'seulement', 'aussi', 'pouvez', 'doit', 'où', 'déjà'];

const PT_WORDS = [
  'projeto', 'tarefa', 'quadro', 'equipe', 'conta', 'fatura', 'relatório', 'filtro', 'etiqueta', 'membro', 'espaço', 'configuração',
  'integração', 'permissão', 'função', 'modelo', 'calendário', 'lembrete', 'comentário', 'anexo', 'notificação', 'assinatura',
  'cobrança', 'senha', 'sessão', 'histórico', 'opção', 'ação', 'atualização', 'exportação',
];
const PT_VERBS = ['configurar', 'criar', 'gerenciar', 'compartilhar', 'arquivar', 'restaurar', 'revisar', 'conectar', 'convidar', 'exportar', 'alterar', 'atribuir'];
const PT_GLUE = ['o', 'a', 'os', 'as', 'um', 'uma', 'seu', 'cada', 'com', 'de', 'para', 'quando', 'antes', 'depois', 'e', 'ou', 'então', 'também', 'pode', 'deve', 'não', 'já'];

/** Katakana used for the probe words (no long-vowel mark, so runs stay one word for Intl.Segmenter). */
const KATAKANA = 'アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワ';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const ICONS = ['rocket', 'book-open', 'settings', 'credit-card', 'users', 'bell', 'shield', 'plug', 'calendar', 'search'];
const CODE_LANGS = ['bash', 'json', 'ts', 'yaml'];

type Vocabulary = 'en' | 'de' | 'fr' | 'pt' | 'ja';
function vocabularyOf(language: string): Vocabulary {
  const base = language.split('-')[0];
  return base === 'de' || base === 'fr' || base === 'pt' || base === 'ja' ? base : 'en';
}

/** The words, verbs and glue of the Latin-script vocabularies other than English and German (which keep their own sentence shapes). */
const ROMANCE = { fr: { words: FR_WORDS, verbs: FR_VERBS, glue: FR_GLUE, and: 'et' }, pt: { words: PT_WORDS, verbs: PT_VERBS, glue: PT_GLUE, and: 'e' } };

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
    private readonly rich = false,
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
      case 'fr':
      case 'pt': {
        const v = ROMANCE[this.vocabulary];
        return kind === 'section' ? `${capitalize(r.pick(v.words))} ${v.and} ${r.pick(v.words)}` : `${capitalize(r.pick(v.verbs))} ${r.pick(v.glue)} ${r.pick(v.words)}`;
      }
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
      case 'fr':
      case 'pt': {
        const v = ROMANCE[this.vocabulary];
        const words = [r.pick(v.glue), r.pick(v.words), r.pick(v.verbs), r.pick(v.glue), r.pick(v.words)];
        for (let i = r.int(0, 8); i > 0; i--) words.push(r.chance(0.4) ? r.pick(v.glue) : r.pick(v.words));
        return `${capitalize(words.join(' '))}.`;
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
      case 'fr':
      case 'pt':
        return this.r.pick(ROMANCE[this.vocabulary].words);
    }
  }

  /** One Markdown block: a heading with text, a list, code, a table, or a paragraph with a link (`rich`: more kinds). */
  block(): string {
    const r = this.r;
    if (this.rich && r.chance(0.4)) return this.richBlock();
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

  /** The blocks of real help pages the basic ones lack: screenshots, sub-headings, nested steps, notes, longer code and tables. */
  private richBlock(): string {
    const r = this.r;
    switch (r.int(0, 5)) {
      case 0: {
        const name = `${r.pick(EN_WORDS)}-${r.pick(EN_WORDS)}-${r.int(1, 99)}`;
        const image = `![${this.title('topic')}](../images/${name}.png)`;
        return r.chance(0.5) ? image : `${image}\n\n*${this.sentence()}*`;
      }
      case 1:
        return `### ${this.title('topic')}\n\n${this.paragraph()}`;
      case 2: {
        const items: string[] = [];
        for (let i = 1, n = r.int(2, 5); i <= n; i++) {
          items.push(`${i}. ${this.sentence()}`);
          for (let k = r.int(0, 3); k > 0; k--) items.push(`   - ${this.sentence()}`);
        }
        return items.join('\n');
      }
      case 3: {
        const kind = r.pick(['Note', 'Tip', 'Warning']);
        return `> **${kind}:** ${this.paragraph()}`;
      }
      case 4: {
        const lang = r.pick(CODE_LANGS);
        const lines: string[] = [];
        for (let i = r.int(6, 30); i > 0; i--) {
          lines.push(
            lang === 'json'
              ? `  "${r.pick(EN_WORDS)}_${r.int(1, 99)}": ${r.chance(0.5) ? r.int(0, 10_000) : `"${r.pick(EN_WORDS)}"`},`
              : `${' '.repeat(2 * r.int(0, 2))}${r.pick(EN_VERBS)}_${r.pick(EN_WORDS)}(${r.pick(EN_WORDS)}, ${r.int(1, 500)})`,
          );
        }
        return `\`\`\`${lang}\n${lines.join('\n')}\n\`\`\``;
      }
      default: {
        const columns = r.int(3, 5);
        const cells = (make: () => string) => `| ${Array.from({ length: columns }, make).join(' | ')} |`;
        const rows = [cells(() => this.word()), cells(() => '---')];
        for (let i = r.int(4, 12); i > 0; i--) rows.push(cells(() => (r.chance(0.5) ? this.word() : `\`${r.pick(EN_WORDS)}.${r.pick(EN_WORDS)}\``)));
        return rows.join('\n');
      }
    }
  }

  /** A body of about `bytes` UTF-8 bytes (at least that many), with `probe` in its first paragraph. */
  body(bytes: number, probe: string): string {
    const intro =
      this.vocabulary === 'ja'
        ? `${this.sentence()}この項目の識別名は「${probe}」です。`
        : this.vocabulary === 'de'
          ? `${this.sentence()} Der Referenzname lautet ${probe}.`
          : this.vocabulary === 'fr'
            ? `${this.sentence()} Son nom de référence est ${probe}.`
            : this.vocabulary === 'pt'
              ? `${this.sentence()} O nome de referência é ${probe}.`
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

type AddNode = (parent: Draft | null, kind: 'section' | 'topic') => Draft;

/** The default tree: a chain to the deepest level first (so every depth occurs), then each node under a random open section. */
function randomTree(r: Random, nodes: number, maxDepth: number, all: readonly Draft[], add: AddNode): void {
  const openSections: Draft[] = [];
  for (let i = 0; i < nodes; i++) {
    let parent: Draft | null;
    if (i === 0) parent = null;
    else if (i < maxDepth) parent = all[i - 1];
    else parent = openSections.length === 0 || r.chance(0.04) ? null : r.pick(openSections);
    const depth = parent ? parent.depth + 1 : 1;
    const kind: 'section' | 'topic' = depth < maxDepth && (i < maxDepth - 1 || r.chance(0.22)) ? 'section' : 'topic';
    const node = add(parent, kind);
    if (kind === 'section') openSections.push(node);
  }
}

/** Share of a section's children that are sections themselves, by the children's depth (fewer deeper down). */
const SECTION_SHARE = [0, 1, 0.3, 0.18, 0.1];

/**
 * A tree of uneven fan-out, grown breadth first: `roots` top-level sections, then each section in
 * turn gets min…max children, the number skewed toward few (min + (max − min + 1)·u³: with 2…30, two
 * sections in five get 2 or 3 children, one in seven 20 or more). The last section grown may get fewer
 * when the nodes run out; sections left without children then become topics.
 */
function unevenTree(r: Random, nodes: number, maxDepth: number, shape: { roots: number; fanOut: { min: number; max: number } }, add: AddNode): void {
  const queue: Draft[] = [];
  let count = 0;
  const grow = (parent: Draft | null, kind: 'section' | 'topic') => {
    const node = add(parent, kind);
    count++;
    if (kind === 'section') queue.push(node);
  };
  for (let k = 0; k < shape.roots && count < nodes; k++) grow(null, 'section');
  while (count < nodes) {
    const section = queue.shift();
    if (section === undefined) {
      grow(null, 'section');
      continue;
    }
    const { min, max } = shape.fanOut;
    const fan = Math.min(max, min + Math.floor((max - min + 1) * r.next() ** 3));
    const depth = section.depth + 1;
    const share = depth >= maxDepth ? 0 : (SECTION_SHARE[depth] ?? 0.1);
    for (let c = 0; c < fan && count < nodes; c++) grow(section, r.chance(share) ? 'section' : 'topic');
  }
  for (const d of queue) if (d.children.length === 0) d.kind = 'topic';
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

  const roots: Draft[] = [];
  const all: Draft[] = [];
  const used = new Set<string>();
  const hex = () => fixedWord('0123456789abcdef', 8, r.int(0, 0x7fffffff));
  const add = (parent: Draft | null, kind: 'section' | 'topic'): Draft => {
    const i = all.length;
    let slug = `${r.pick(EN_VERBS)}-${r.pick(EN_WORDS)}-${i.toString(36)}`;
    while (used.has(slug)) slug += '-x';
    used.add(slug);
    const node: Draft = {
      slug,
      kind,
      depth: parent ? parent.depth + 1 : 1,
      parent,
      icon: kind === 'section' && r.chance(0.6) ? r.pick(ICONS) : null,
      children: [],
      index: i,
      id: `${hex()}-${hex().slice(0, 4)}-4${hex().slice(0, 3)}-8${hex().slice(0, 3)}-${hex()}${hex().slice(0, 4)}`,
    };
    all.push(node);
    (parent ? parent.children : roots).push(node);
    return node;
  };
  if (opts.tree?.kind === 'uneven') unevenTree(r, opts.nodes, maxDepth, opts.tree, add);
  else randomTree(r, opts.nodes, maxDepth, all, add);

  const order: Draft[] = [];
  const walk = (list: Draft[]) => {
    for (const d of list) {
      order.push(d);
      walk(d.children);
    }
  };
  walk(roots);

  const makers = new Map(languages.map((l) => [l, new TextMaker(r, vocabularyOf(l), opts.markdown === 'rich')]));
  const sizes = opts.bodySizes ?? { kind: 'uniform' };
  const bodySize = (): number => {
    if (sizes.kind === 'uniform') return r.int(minBytes, maxBytes);
    const bytes = r.chance(sizes.tail) ? sizes.tailFrom * (maxBytes / sizes.tailFrom) ** r.next() : sizes.median * Math.exp(sizes.sigma * r.normal());
    return Math.round(Math.min(maxBytes, Math.max(minBytes, bytes)));
  };
  const rates = opts.translationRates;
  const nodes: GeneratedNode[] = [];
  const files: ContentFile[] = [];
  const byLanguage: Record<string, number> = Object.fromEntries(languages.map((l) => [l, 0]));
  const candidates: Record<string, SearchProbe[]> = {};
  let contentBytes = 0;
  const mdFiles: ContentFile[] = [];
  for (const d of order) {
    const translations: Record<string, GeneratedTranslation> = {};
    // One draw for the node (how much read it is), used by most of the per-language decisions below.
    const shared = rates ? r.next() : 0;
    for (const language of languages) {
      if (language !== primary) {
        const own = rates?.[language];
        if (own === undefined ? !r.chance(rate) : (r.chance(0.8) ? shared : r.next()) >= own) continue;
      }
      const maker = makers.get(language)!;
      const word = probeWord(language, d.index);
      const t: GeneratedTranslation = {
        title: maker.title(d.kind),
        summary: r.chance(0.85) ? maker.sentence() : '',
        bodyMd: d.kind === 'section' && r.chance(0.3) ? '' : maker.body(bodySize(), word),
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
