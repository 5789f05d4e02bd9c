import { escapeHtml } from './html.ts';

/**
 * Syntax highlighting for fenced code, small on purpose: one pass over the text marking comments,
 * strings, numbers and keywords of common languages (no grammar library, nothing evaluated). Every
 * character of the input is escaped; the output only adds `<span class="tok-…">`. Linear in the text.
 */

interface Grammar {
  keywords: ReadonlySet<string>;
  /** Openers of comments that run to the end of the line. */
  line: readonly string[];
  /** An opener and closer of block comments. */
  block?: readonly [string, string];
  /** Quote characters; a backtick string may span lines, others end at the line's end. */
  quotes: string;
  /** Characters that may start an identifier besides letters and `_`. */
  identStart?: string;
}

const words = (text: string) => new Set(text.split(/\s+/).filter(Boolean));

const JS = words(`async await break case catch class const continue debugger default delete do else enum export extends false finally for from function
  get if implements import in instanceof interface let new null of package private protected public readonly return set static super switch this throw true try
  type typeof undefined var void while with yield as satisfies declare keyof namespace abstract any boolean number string unknown never`);
const PY = words(`and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal
  not or pass raise return True try while with yield self match case`);
const SH = words(`if then else elif fi for while until do done case esac in function return exit export local readonly set unset echo cd source shift true false`);
const SQL = words(`select from where insert into values update set delete create table drop alter add index primary key foreign references join left right inner
  outer on group by order having limit offset as and or not null is in like between distinct union all case when then else end default unique begin commit`);
const CLIKE = words(`auto bool break case catch char class const continue default do double else enum extern false final float for func go goto if implements import
  int interface long map nil new null package private protected public return short static struct super switch this throw throws true try type typedef
  unsigned var void volatile while fn let mut impl trait pub use mod crate match loop where string byte defer chan select fallthrough range`);
const CSS = words(`important media import supports keyframes font-face from to and not only`);
const YAML = words(`true false null yes no on off`);

const GRAMMARS: Record<string, Grammar> = {
  js: { keywords: JS, line: ['//'], block: ['/*', '*/'], quotes: `'"\``, identStart: '$' },
  json: { keywords: words('true false null'), line: [], quotes: '"' },
  sh: { keywords: SH, line: ['#'], quotes: `'"`, identStart: '$' },
  py: { keywords: PY, line: ['#'], quotes: `'"` },
  sql: { keywords: SQL, line: ['--'], block: ['/*', '*/'], quotes: `'"` },
  c: { keywords: CLIKE, line: ['//'], block: ['/*', '*/'], quotes: `'"\`` },
  css: { keywords: CSS, line: [], block: ['/*', '*/'], quotes: `'"`, identStart: '@-' },
  yaml: { keywords: YAML, line: ['#'], quotes: `'"` },
};

const ALIASES: Record<string, string> = {
  javascript: 'js', mjs: 'js', cjs: 'js', jsx: 'js', ts: 'js', tsx: 'js', typescript: 'js',
  bash: 'sh', shell: 'sh', zsh: 'sh', console: 'sh', shellsession: 'sh',
  python: 'py', python3: 'py',
  go: 'c', golang: 'c', java: 'c', kotlin: 'c', rust: 'c', rs: 'c', cpp: 'c', 'c++': 'c', cs: 'c', csharp: 'c', swift: 'c', php: 'c',
  scss: 'css', less: 'css', yml: 'yaml', toml: 'yaml', ini: 'yaml', jsonc: 'js', json5: 'js',
};

/** The grammar for a fence's language name, if there is one. The name is the writer's: `constructor` or `__proto__` names no grammar, not a property every object has. */
function grammarOf(language: string): Grammar | null {
  const name = language.toLowerCase();
  const key = Object.hasOwn(GRAMMARS, name) ? name : Object.hasOwn(ALIASES, name) ? ALIASES[name] : null;
  return key !== null && Object.hasOwn(GRAMMARS, key) ? GRAMMARS[key] : null;
}

const span = (kind: string, text: string) => `<span class="tok-${kind}">${escapeHtml(text)}</span>`;
const isDigit = (c: string) => c >= '0' && c <= '9';
const IDENT = /[\p{L}\p{N}_$-]/u;

/** Highlighted HTML of `code` (escaped, with token spans); plain escaped text when the language is unknown. */
export function highlight(code: string, language: string): string {
  const g = grammarOf(language);
  if (g === null) return escapeHtml(code);
  let out = '';
  let plain = '';
  const flush = () => {
    out += escapeHtml(plain);
    plain = '';
  };
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    const rest = (s: string) => code.startsWith(s, i);
    let end = -1;
    let kind = '';
    if (g.block && rest(g.block[0])) {
      const close = code.indexOf(g.block[1], i + g.block[0].length);
      end = close < 0 ? code.length : close + g.block[1].length;
      kind = 'c';
    } else if (g.line.some(rest) && !(c === '#' && i > 0 && /[\w$]/.test(code[i - 1]))) {
      const nl = code.indexOf('\n', i);
      end = nl < 0 ? code.length : nl;
      kind = 'c';
    } else if (g.quotes.includes(c)) {
      end = i + 1;
      while (end < code.length && code[end] !== c && (c === '`' || code[end] !== '\n')) end += code[end] === '\\' ? 2 : 1;
      end = Math.min(code.length, end + 1);
      kind = 's';
    } else if (isDigit(c) && (i === 0 || !IDENT.test(code[i - 1]))) {
      end = i + 1;
      while (end < code.length && /[\w.]/.test(code[end])) end++;
      kind = 'n';
    } else if (/[\p{L}_]/u.test(c) || (g.identStart?.includes(c) ?? false)) {
      end = i + 1;
      while (end < code.length && /[\p{L}\p{N}_$-]/u.test(code[end]) && !(code[end] === '-' && g !== GRAMMARS.css && g !== GRAMMARS.sh)) end++;
      const word = code.slice(i, end);
      const key = g === GRAMMARS.sql ? word.toLowerCase() : word.replace(/^[@$]/, '');
      if (g.keywords.has(key)) kind = 'k';
      else if (word.startsWith('$') && g === GRAMMARS.sh) kind = 'v';
      else {
        plain += word;
        i = end;
        continue;
      }
    }
    if (end < 0) {
      plain += c;
      i++;
      continue;
    }
    flush();
    out += span(kind, code.slice(i, end));
    i = end;
  }
  flush();
  return out;
}
