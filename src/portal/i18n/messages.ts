import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { he } from './he.ts';
import { it } from './it.ts';
import { ja } from './ja.ts';
import { ko } from './ko.ts';
import { nl } from './nl.ts';
import { pl } from './pl.ts';
import { pt } from './pt.ts';
import { ru } from './ru.ts';
import { zh } from './zh.ts';
import { zhHant } from './zh-hant.ts';

/**
 * The portal's interface text in the page's language. A catalogue may lack keys (a new one, one
 * added since): those show in English, string by string, so a page is never half blank.
 */

export type MessageKey = keyof typeof en;
export type Catalogue = Partial<Record<MessageKey, string>>;
export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

/** The catalogues shipped, by language tag (the most specific that fits a page is used). */
export const CATALOGUES: Readonly<Record<string, Catalogue>> = { en, de, fr, es, pt, ja, zh, 'zh-Hant': zhHant, ko, ar, he, ru, it, nl, pl };

/** The keys, in the order of the English catalogue. */
export const MESSAGE_KEYS = Object.keys(en) as MessageKey[];

/**
 * The candidate tags of a language, most specific first: the tag, then the prefixes of its likely
 * full form without the bare language (`zh-TW` → `zh-Hant-TW`, `zh-Hant`), then the shorter prefixes
 * of the tag itself (`pt-BR` → `pt`).
 */
export function candidateTags(language: string): string[] {
  let tag = language;
  let full: string[] = [];
  try {
    const locale = new Intl.Locale(language);
    tag = locale.toString();
    full = locale.maximize().toString().split('-');
  } catch {
    // Not a tag Intl knows: as written.
  }
  const parts = tag.split('-');
  const out = [tag];
  for (let n = full.length; n > 1; n--) out.push(full.slice(0, n).join('-'));
  for (let n = parts.length - 1; n > 0; n--) out.push(parts.slice(0, n).join('-'));
  return [...new Set(out)];
}

/** The catalogue for a language: the first candidate tag shipped (see candidateTags), else none (English throughout). */
export function catalogueFor(language: string): { tag: string; messages: Catalogue } | null {
  for (const candidate of candidateTags(language)) {
    const found = Object.keys(CATALOGUES).find((k) => k.toLowerCase() === candidate.toLowerCase());
    if (found !== undefined) return { tag: found, messages: CATALOGUES[found] };
  }
  return null;
}

/** `{name}` replaced by `vars.name`; a placeholder without a value stays as written. */
export const fill = (text: string, vars?: Record<string, string | number>) =>
  vars === undefined ? text : text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(vars, name) ? String(vars[name]) : whole));

/** The placeholders a text takes, sorted (a catalogue's translation must take the same as English's). */
export const placeholdersOf = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

const cache = new Map<string, Translate>();

/** The interface text of a language, each key falling back to English; values are plain text (templates escape them). */
export function messagesFor(language: string): Translate {
  let t = cache.get(language);
  if (t === undefined) {
    const messages = catalogueFor(language)?.messages ?? {};
    t = (key, vars) => fill(messages[key] ?? en[key] ?? key, vars);
    if (cache.size < 200) cache.set(language, t);
  }
  return t;
}

/** The keys the browser's scripts use (copy buttons, the drawer, the PDF dialog and the PDF's own text). */
const CLIENT_PREFIXES = ['menu.', 'toc.', 'code.', 'markdown.', 'pdf.', 'heading.', 'feedback.'];

/** The interface text the page's scripts print, for the page's JSON messages element. */
export function clientMessages(language: string): Record<string, string> {
  const t = messagesFor(language);
  const out: Record<string, string> = {};
  for (const key of MESSAGE_KEYS) if (CLIENT_PREFIXES.some((p) => key.startsWith(p))) out[key] = t(key);
  return out;
}

/** A date (`2026-03-01`, or a full ISO time) as the language writes it, medium length (1 Mar 2026, 2026/03/01). */
export function formatDate(language: string, iso: string): string {
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T00:00:00Z` : iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeZone: 'UTC' };
  try {
    return new Intl.DateTimeFormat(language, options).format(date);
  } catch {
    return new Intl.DateTimeFormat('en', options).format(date);
  }
}

/**
 * A language's name as the page's language says it (`de` on a French page → allemand), for running
 * text such as "not yet available in …"; lists of languages to pick from name each in itself instead.
 */
export function displayLanguage(language: string, inLanguage: string): string {
  try {
    return new Intl.DisplayNames([inLanguage, 'en'], { type: 'language' }).of(language) ?? language;
  } catch {
    return language;
  }
}
