import { canonicalLanguage } from '../domain/names.ts';
import { invalid } from '../errors.ts';

/** A language code from a request in canonical case (`pt-br` → `pt-BR`); 400 naming the field when invalid. */
export function language(value: string, field: string): string {
  const canonical = canonicalLanguage(value);
  if (canonical === null) throw invalid(field, `is not a valid BCP 47 language code (e.g. en, pt-BR): ${JSON.stringify(value)}`);
  return canonical;
}

export function languageList(values: readonly string[], field: string): string[] {
  const out = values.map((v, i) => language(v, `${field}/${i}`));
  const dup = out.find((l, i) => out.indexOf(l) !== i);
  if (dup) throw invalid(field, `lists ${dup} more than once`);
  return out;
}

/** A translations object with its keys in canonical case. */
export function byLanguage<T>(record: Record<string, T>, field: string): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, value] of Object.entries(record)) {
    const l = language(key, `${field}/${key}`);
    if (l in out) throw invalid(`${field}/${key}`, `repeats the language ${l}`);
    out[l] = value;
  }
  return out;
}
