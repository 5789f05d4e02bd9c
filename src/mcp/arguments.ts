import { invalid } from '../errors.ts';
import { registrySchema, type JsonSchema } from './schemas.ts';

/*
 * Arguments as an agent writes them. The REST routes take numbers and flags in query strings, as
 * text ("2", "true"); a model writing JSON writes 2 and true, and was told "must be a string". The
 * tools publish integers and booleans and still take the text the routes take; the route's own
 * schema then checks the value, so the limits and messages stay the route's.
 */

/**
 * Query parameters of the routes as a tool publishes them, by `{query schema}/{parameter}`: integers
 * and booleans as JSON, and descriptions in a tool's terms (no Link header, no HTTP statuses).
 */
const TYPED_QUERY: Record<string, JsonSchema> = {
  'VersionsQuery/cursor': { type: 'string', description: "The previous answer's nextCursor." },
  'LanguageQuery/language': { type: 'string', description: 'Default en; each node falls back to English, then the primary language.' },
  'PdfBundleQuery/lang': { type: 'string', description: "Default en, or the primary language when the version has no English; each entry falls back to English, then the primary language." },
  'VersionsQuery/includeWorkingCopies': { type: 'boolean', description: 'true adds the hidden working copies (with a credential).' },
  'VersionsQuery/limit': { type: 'integer', minimum: 1, maximum: 1000, description: 'At most this many versions; the answer\'s nextCursor is then the next page\'s cursor.' },
  'PdfBundleQuery/limit': { type: 'integer', minimum: 1, maximum: 200, description: 'Only the first N topics.' },
  'NodeHistoryQuery/limit': { type: 'integer', minimum: 1, maximum: 100, description: 'Entries per answer (default 20); the answer\'s next is then the next page\'s cursor.' },
  'DryRunQuery/dryRun': { type: 'boolean', description: 'true checks and reports without writing.' },
};

/** Every tool calls the language `language`; `lang`, the name of some routes (search, PDF, translations), is taken as well. */
export const LANGUAGE = 'language';
const LANGUAGE_ALIAS = 'lang';

/** A route parameter's name as a tool argument. */
export const argumentName = (name: string): string => (name === LANGUAGE_ALIAS ? LANGUAGE : name);

/** A query parameter as a tool publishes it: typed where the route takes text, and named as every tool names it. */
export function publishedQueryProperty(queryId: string, name: string, schema: JsonSchema): JsonSchema {
  return TYPED_QUERY[`${queryId}/${name}`] ?? schema;
}

/** A query argument as the route's schema checks it: integers and booleans as the text a query string carries. */
export function queryValue(queryId: string, name: string, value: unknown, field: string): unknown {
  const typed = TYPED_QUERY[`${queryId}/${name}`];
  if (typed === undefined || (typed.type !== 'boolean' && typed.type !== 'integer')) return value;
  if (typed.type === 'boolean') {
    if (typeof value === 'boolean') return String(value);
    if (value === 'true' || value === 'false') return value;
    throw invalid(field, 'must be true or false');
  }
  if (Number.isInteger(value)) return String(value);
  if (typeof value === 'string') return value;
  throw invalid(field, `must be a whole number from ${typed.minimum as number} to ${typed.maximum as number}`);
}

/** What a body field holds when it is a plain number or flag (through a `$ref` too), else null. */
function scalarKind(schema: JsonSchema | undefined): 'boolean' | 'number' | null {
  if (schema === undefined) return null;
  const resolved = typeof schema.$ref === 'string' ? registrySchema(schema.$ref) : schema;
  const types = ([] as unknown[]).concat(resolved.type ?? []);
  if (types.includes('boolean')) return 'boolean';
  if (types.includes('number') || types.includes('integer')) return 'number';
  return null;
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The body's top-level numbers and flags given as text ("true", "2.5") as the JSON values the body
 * schema checks: an agent that sends every argument as a string, as some do, is not refused for it.
 * Anything else is left for the schema to name.
 */
export function bodyScalars(bodyId: string, body: Record<string, unknown>): Record<string, unknown> {
  const properties = (registrySchema(bodyId) as { properties?: Record<string, JsonSchema> }).properties ?? {};
  const out = { ...body };
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string') continue;
    const kind = scalarKind(properties[name]);
    if (kind === 'boolean' && (value === 'true' || value === 'false')) out[name] = value === 'true';
    else if (kind === 'number' && JSON_NUMBER.test(value.trim())) out[name] = Number(value.trim());
  }
  return out;
}

/**
 * The language given under its other name, moved to the name the tool takes (`published`: the tool's
 * argument names); both names with different values are refused, as a query parameter given twice is.
 */
export function languageAlias(given: Record<string, unknown>, published: ReadonlySet<string>): Record<string, unknown> {
  if (!(LANGUAGE_ALIAS in given) || published.has(LANGUAGE_ALIAS) || !published.has(LANGUAGE)) return given;
  const { [LANGUAGE_ALIAS]: alias, ...rest } = given;
  if (rest[LANGUAGE] !== undefined && rest[LANGUAGE] !== alias) {
    throw invalid(`arguments/${LANGUAGE}`, `is given twice, as "${LANGUAGE}" and as "${LANGUAGE_ALIAS}", with different values; give it once`);
  }
  return { ...rest, [LANGUAGE]: alias };
}
