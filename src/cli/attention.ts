import { parseArgs } from 'node:util';
import { isVersionSlug } from '../domain/names.ts';
import { call, refusal, Unreachable } from '../push-script/service.ts';
import { CliError, UsageError } from './keys.ts';

export const ATTENTION_USAGE = `  attention --version VERSION [--lang LANG] [--json]
      What needs attention in a version, from a running service (HELP_URL, HELP_KEY with help:read,
      from the environment): broken links as path:line, unhelpful pages, failed searches, outdated
      and missing translations, each with where to act.
`;

interface Item {
  slug?: string;
  language?: string;
  path?: string;
  line?: number;
  message?: string;
  yes?: number;
  no?: number;
  ratio?: number;
  comments?: number;
  query?: string;
  count?: number;
  portal?: string | null;
  api?: string;
  primaryUpdatedAt?: string;
}

/** `attention`: GET /versions/{version}/attention, printed for a person (or as the JSON it is). */
export async function attentionMain(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { version: { type: 'string' }, lang: { type: 'string' }, json: { type: 'boolean' } } });
  if (positionals.length > 0) throw new UsageError(`attention takes no argument "${positionals[0]}" (options start with --)`);
  if (!values.version || !isVersionSlug(values.version)) throw new UsageError('attention needs --version VERSION, a version slug');
  const url = process.env.HELP_URL;
  const key = process.env.HELP_KEY;
  if (!url || !key) throw new CliError('attention needs HELP_URL (the API base, such as https://help.example.com/help/v1) and HELP_KEY (a key with help:read) in the environment');
  const query = values.lang === undefined ? '' : `?lang=${encodeURIComponent(values.lang)}`;
  let answer;
  try {
    answer = await call({ url, key }, 'GET', `/versions/${values.version}/attention${query}`);
  } catch (err) {
    if (err instanceof Unreachable) throw new CliError(err.message);
    throw err;
  }
  if (answer.status !== 200) throw new CliError(refusal(answer));
  process.stdout.write(values.json ? `${JSON.stringify(answer.body)}\n` : formatAttention(answer.body));
  return 0;
}

/** The answer as lines a writer works through, one section per kind. */
export function formatAttention(a: { version: string; language: string | null; counts: Record<string, number> } & Record<string, Item[]>): string {
  const total = Object.values(a.counts).reduce((n, c) => n + c, 0);
  const where = (i: Item) => (i.portal ? `  ${i.portal}` : i.api ? `  ${i.api}` : '');
  const sections: Array<[string, string, (i: Item) => string]> = [
    ['brokenLinks', 'Broken links', (i) => `${i.path}:${i.line}  ${i.message}`],
    ['unhelpfulPages', 'Unhelpful pages', (i) => `${i.slug}${i.language ? ` (${i.language})` : ''}  ${i.yes} yes, ${i.no} no (${Math.round((i.ratio ?? 0) * 100)} % helpful), ${i.comments} comments${where(i)}`],
    ['failedSearches', 'Searches without results', (i) => `"${i.query}" (${i.language})  ${i.count} searches${where(i)}`],
    ['outdatedTranslations', 'Outdated translations', (i) => `${i.slug} (${i.language})  the primary text changed ${i.primaryUpdatedAt ?? ''}  ${i.api}`],
    ['missingTranslations', 'Missing translations', (i) => `${i.slug} (${i.language})  ${i.api}`],
  ];
  const scope = a.language === null ? '' : ` in ${a.language}`;
  let out = total === 0 ? `Nothing needs attention in version ${a.version}${scope}.\n` : `Version ${a.version}${scope}: ${total} ${total === 1 ? 'thing needs' : 'things need'} attention.\n`;
  for (const [key, title, line] of sections) {
    const count = a.counts[key] ?? 0;
    if (count === 0) continue;
    const items = a[key] ?? [];
    out += `\n${title} (${count})\n${items.map((i) => `  ${line(i)}\n`).join('')}${count > items.length ? `  … and ${count - items.length} more\n` : ''}`;
  }
  return out;
}
