import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { canonicalLanguage, controlProblem, isWindowsReserved, TEXT_PATTERN, TITLE_PATTERN } from '../domain/names.ts';
import { AppError, invalid, MAX_LISTED } from '../errors.ts';
import { commonSchemas, INLINE_PATTERN_HINTS, SCHEMA_PATTERN_HINTS } from './common.ts';
import { contentSchemas } from './content.ts';
import { identitySchemas } from './identity.ts';
import { pdfSchemas } from './pdf.ts';
import { publishingSchemas } from './publishing.ts';
import { importSchemas, transferSchemas } from './transfer.ts';
import { versionSchemas } from './versions.ts';
import { writeSchemas } from './writes.ts';
import { webhookSchemas } from './webhooks.ts';
import { historySchemas } from './history.ts';
import { feedbackSchemas } from './feedback.ts';
import { replicationSchemas } from './replication.ts';
import { redirectSchemas } from './redirects.ts';
import { translationStatusSchemas } from './translation-status.ts';

/** Every schema with an `$id`: what ajv validates with and what openapi.json publishes. */
export const allSchemas: ReadonlyArray<{ $id: string }> = [...commonSchemas, ...versionSchemas, ...contentSchemas, ...writeSchemas, ...transferSchemas, ...importSchemas, ...identitySchemas, ...pdfSchemas, ...publishingSchemas, ...webhookSchemas, ...feedbackSchemas, ...replicationSchemas, ...historySchemas, ...redirectSchemas, ...translationStatusSchemas];

/** The one ajv instance; each schema is compiled once, on first use. */
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
(addFormats as unknown as typeof addFormats.default)(ajv, ['date-time', 'date']);
// The same rule the content files are read with, so the API and the files accept the same codes.
ajv.addFormat('language-tag', (code: string) => canonicalLanguage(code) !== null);
// Not checked against the JSON Schema meta-schema here: compiling the meta-schema took a sixth of a
// start (40 ms). The schemas are fixed in the code; test/openapi.test.ts checks each one against it.
for (const schema of allSchemas) ajv.addSchema(schema, undefined, undefined, false);

export function validator(id: string): ValidateFunction {
  const fn = ajv.getSchema(id);
  if (!fn) throw new Error(`No schema ${id}`);
  return fn;
}

/** Checks `data` against the schema `id`; on failure throws 400 `validation_failed` naming every field at fault. */
export function check<T>(id: string, data: unknown, where: string): T {
  const fn = validator(id);
  if (fn(data)) return data as T;
  // A oneOf speaks for its branches: their own failures (one "required" per branch) only repeat it.
  const branches = (fn.errors ?? []).filter((e) => e.keyword === 'oneOf').map((e) => `${e.schemaPath}/`);
  // So does an anyOf of plain values ("a slug or latest"): each branch's failure tells half of what the value may be.
  const anyOf = new Set((fn.errors ?? []).filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const all = onePerField((fn.errors ?? []).filter((e) => !branches.some((b) => e.schemaPath.startsWith(b)) && (e.keyword === 'anyOf' || !anyOf.has(e.instancePath))));
  // A body can hold a problem per element of a large array: the first ones say what is wrong.
  const errors = all.slice(0, MAX_LISTED).map((e) => describe(e, where));
  const first = errors[0];
  const more = all.length > MAX_IN_MESSAGE ? `; and ${all.length - MAX_IN_MESSAGE} more` : '';
  throw new AppError('validation_failed', errors.slice(0, MAX_IN_MESSAGE).map((e) => `${e.field} ${e.message}`).join('; ') + more, {
    field: first.field,
    errors,
    ...(all.length > MAX_LISTED ? { omittedErrors: all.length - MAX_LISTED } : {}),
  });
}

/** The language's other name, as the contract spells it elsewhere (`lang` for search and PDFs, `language` for the rest), or null. */
export const otherSpelling = (name: string): string | null => (name === 'lang' ? 'language' : name === 'language' ? 'lang' : null);

/**
 * The query of an endpoint checked against its schema `id` (`repeated`: names given more than once
 * with different values). Unknown parameters are ignored (trackers and cache busters add their
 * own), except the other spelling of the language: the contract calls it `lang` for search and
 * PDFs and `language` elsewhere, and one sent under the other name was ignored without a word,
 * answering in English.
 */
export function checkQuery<T>(id: string, { values: query, repeated }: { values: Record<string, string>; repeated: ReadonlySet<string> }): T {
  const properties = (validator(id).schema as { properties?: Record<string, unknown> }).properties ?? {};
  // A parameter of the endpoint's given twice, differently (?lang=en&lang=de): which one was meant?
  for (const name of repeated) if (Object.hasOwn(properties, name)) throw invalid(`query/${name}`, 'is given twice, with different values; send it once');
  for (const given of Object.keys(query)) {
    const meant = otherSpelling(given);
    if (meant !== null && !Object.hasOwn(properties, given) && Object.hasOwn(properties, meant) && !Object.hasOwn(query, meant)) {
      throw invalid(`query/${given}`, `is not a parameter here: this endpoint takes the language as "${meant}"`);
    }
  }
  return check<T>(id, query, 'query');
}

/**
 * The failures of one value, one per field: an empty title breaks both its minimum length and its
 * pattern, a made-up language code both its format and its pattern, and one mistake read as two.
 * The one that says most plainly what to change stays, in the order its field first failed.
 */
function onePerField(errors: ErrorObject[]): ErrorObject[] {
  const best = new Map<string, ErrorObject>();
  for (const e of errors) {
    // Problems that name a field of their own (missing, unknown) are one per field by themselves.
    const key = e.keyword === 'required' || e.keyword === 'additionalProperties' ? `${e.instancePath}/${JSON.stringify(e.params)}` : `${e.instancePath}/${keyOf(e) ?? ''}`;
    const held = best.get(key);
    if (held === undefined) best.set(key, e);
    else if (rank(e) < rank(held)) best.set(key, e);
  }
  const kept = new Set(best.values());
  return errors.filter((e) => kept.has(e));
}

/** What says most plainly what is wrong with a value, first: its type, then what it may be, then its length, then its shape. */
const PLAINEST = ['required', 'additionalProperties', 'type', 'const', 'enum', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', 'pattern'];
const rank = (e: ErrorObject) => {
  const at = PLAINEST.indexOf(e.keyword);
  return at < 0 ? PLAINEST.length : at;
};

/** Problems named in the message (all listed ones are in `errors`). */
const MAX_IN_MESSAGE = 10;

/** What a value of these shapes must look like, said as what to change (their descriptions document them, for other readers). */
const PATTERN_HINTS: Record<string, string> = {
  VersionSlug: 'must be lowercase letters and digits, separated by single "-", "_" or "." (for example v2 or 2026.1), and not "latest"',
  NodeSlug: 'must be lowercase letters and digits, separated by single "-" or "_" (for example getting-started)',
  LanguageCode: 'is not a valid language code (BCP 47, e.g. en, pt-BR)',
  Title: 'must not be only white space',
  Icon: 'must be an icon name such as rocket or book-open: lowercase letters and digits, words joined by single "-"',
  FontFileName: 'must be the name of a font file a PDF bundle lists, such as noto-sans-400.ttf',
  RequestId: 'must be the id of a publish request, as its answer gave it',
};
/** What a value that may take several forms (anyOf) must be, by its schema. */
const ANY_OF_HINTS: Record<string, string> = {
  VersionRef: 'must be a version slug (lowercase letters and digits, separated by single "-", "_" or ".", for example v2 or 2026.1) or "latest" for the version marked latest',
};
const WINDOWS_HINT = 'is a name Windows keeps for devices (con, prn, aux, nul, com1-com9, lpt1-lpt9): a file or folder so named cannot be checked out there; choose another';
const LATEST_HINT = 'is "latest", which stands for the version marked latest only in pdf-bundle; name the version by its slug here (GET /versions lists them)';
const LATEST_TAKEN_HINT = 'must not be "latest": that name stands for the version marked latest (in pdf-bundle and the portal); choose another';

const TYPE_NAMES: Record<string, string> = { string: 'a string', number: 'a number', integer: 'an integer', boolean: 'true or false', object: 'an object', array: 'an array', null: 'null' };

/** "a number or null", "a string, an array or null". */
function typeList(types: string | string[]): string {
  const names = (Array.isArray(types) ? types : types.split(',')).map((t) => TYPE_NAMES[t] ?? t);
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** What is wrong with a title, label or summary that fails its pattern by holding a control character; null otherwise. */
function controlPattern(e: ErrorObject): string | null {
  const pattern = (e.params as { pattern: string }).pattern;
  return typeof e.data === 'string' && (pattern === TITLE_PATTERN || pattern === TEXT_PATTERN) ? controlProblem(e.data) : null;
}

/** The key an error of a `propertyNames` schema is about (ajv puts it on the error), or undefined. */
const keyOf = (e: ErrorObject) => (e.keyword === 'propertyNames' ? (e.params as { propertyName: string }).propertyName : (e as ErrorObject & { propertyName?: string }).propertyName);

function describe(e: ErrorObject, where: string): { field: string; message: string } {
  // A bad key is named where it is, like any field: body/translations/fr_FR.
  const key = keyOf(e);
  let field = `${where}${e.instancePath}${key === undefined ? '' : `/${key.slice(0, 60)}`}`;
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'additionalProperties') {
    const name = (e.params as { additionalProperty: string }).additionalProperty;
    field = `${field}/${name}`;
    // An export document posted to import as it is: its own fields at the top.
    const exported = (e.parentSchema as { $id?: string } | undefined)?.$id === 'ImportRequest' && name === 'version';
    message = exported ? 'is not a field of an import: send an export document as it is inside "document": { "version", "nodes" }' : 'is not a known field';
  } else if (e.keyword === 'required') {
    field = `${field}/${(e.params as { missingProperty: string }).missingProperty}`;
    message = 'is required';
  } else if (e.keyword === 'propertyNames') {
    message = 'is not a valid key here';
  } else if (e.keyword === 'type') {
    // JSON's 1e400 parses as Infinity: a number, but none the service can store.
    message = typeof e.data === 'number' && !Number.isFinite(e.data) ? 'must be a finite number (this one is too large to hold)' : `must be ${typeList((e.params as { type: string | string[] }).type)}`;
  } else if (e.keyword === 'minItems' || e.keyword === 'maxItems') {
    const limit = (e.params as { limit: number }).limit;
    message = e.keyword === 'maxItems' ? `must hold at most ${limit} items` : limit === 1 ? 'must not be empty' : `must hold at least ${limit} items`;
  } else if (e.keyword === 'uniqueItems') {
    const { i, j } = e.params as { i: number; j: number };
    message = `must not hold the same value twice (items ${j} and ${i} are the same)`;
  } else if (e.keyword === 'minimum' || e.keyword === 'maximum') {
    message = `must be ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${(e.params as { limit: number }).limit}`;
  } else if (e.keyword === 'format' && (e.params as { format: string }).format === 'date-time') {
    message = 'must be an ISO timestamp such as 2026-01-31T12:00:00.000Z (as updatedAt answers give them)';
  } else if (e.keyword === 'enum') {
    const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v));
    message = `must be one of ${allowed.join(', ')}`;
  } else if (e.keyword === 'oneOf') {
    const description = (e.parentSchema as { description?: string } | undefined)?.description;
    // No branch fits (passingSchemas null), or more than one does.
    const both = (e.params as { passingSchemas: number[] | null }).passingSchemas !== null;
    if (description) message = `${description} (this one ${both ? 'has both' : 'has neither'})`;
  } else if (e.keyword === 'anyOf') {
    const schema = e.parentSchema as { $id?: string; description?: string } | undefined;
    message = ANY_OF_HINTS[schema?.$id ?? ''] ?? (schema?.description ? `must be one of these: ${schema.description}` : 'matches none of the forms it may take');
  } else if (e.keyword === 'format' && (e.params as { format: string }).format === 'language-tag') {
    message = 'is not a valid language code (BCP 47, e.g. en, pt-BR)';
  } else if (e.keyword === 'minLength' || e.keyword === 'maxLength') {
    const limit = (e.params as { limit: number }).limit;
    message = e.keyword === 'maxLength' ? `must be at most ${limit} characters` : limit === 1 ? 'must not be empty' : `must be at least ${limit} characters`;
  } else if (e.keyword === 'pattern' && controlPattern(e) !== null) {
    message = controlPattern(e)!;
  } else if (e.keyword === 'pattern') {
    const schema = e.parentSchema as { $id?: string; description?: string } | undefined;
    const slug = schema?.$id === 'VersionSlug' || schema?.$id === 'NodeSlug';
    const hint =
      schema?.$id === 'VersionSlug' && e.data === 'latest'
        ? field.startsWith('path/')
          ? LATEST_HINT
          : LATEST_TAKEN_HINT
        : slug && typeof e.data === 'string' && isWindowsReserved(e.data)
          ? WINDOWS_HINT
          : (PATTERN_HINTS[schema?.$id ?? ''] ?? (schema ? SCHEMA_PATTERN_HINTS.get(schema) : undefined) ?? INLINE_PATTERN_HINTS.get((e.params as { pattern: string }).pattern) ?? (schema?.description ? `has an invalid format (${schema.description})` : undefined));
    message = hint ?? `must match ${(e.params as { pattern: string }).pattern}`;
  }
  return { field, message };
}
