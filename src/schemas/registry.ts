import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { AppError } from '../errors.ts';
import { commonSchemas } from './common.ts';
import { contentSchemas } from './content.ts';
import { identitySchemas } from './identity.ts';
import { pdfSchemas } from './pdf.ts';
import { publishingSchemas } from './publishing.ts';
import { importSchemas, transferSchemas } from './transfer.ts';
import { versionSchemas } from './versions.ts';
import { writeSchemas } from './writes.ts';

/** Every schema with an `$id`: what ajv validates with and what openapi.json publishes. */
export const allSchemas: ReadonlyArray<{ $id: string }> = [...commonSchemas, ...versionSchemas, ...contentSchemas, ...writeSchemas, ...transferSchemas, ...importSchemas, ...identitySchemas, ...pdfSchemas, ...publishingSchemas];

/** The one ajv instance; each schema is compiled once, on first use. */
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
(addFormats as unknown as typeof addFormats.default)(ajv, ['date-time', 'date']);
for (const schema of allSchemas) ajv.addSchema(schema);

export function validator(id: string): ValidateFunction {
  const fn = ajv.getSchema(id);
  if (!fn) throw new Error(`No schema ${id}`);
  return fn;
}

/** Checks `data` against the schema `id`; on failure throws 400 `validation_failed` naming every field at fault. */
export function check<T>(id: string, data: unknown, where: string): T {
  const fn = validator(id);
  if (fn(data)) return data as T;
  const errors = (fn.errors ?? []).map((e) => describe(e, where));
  const first = errors[0];
  throw new AppError('validation_failed', errors.map((e) => `${e.field} ${e.message}`).join('; '), { field: first.field, errors });
}

function describe(e: ErrorObject, where: string): { field: string; message: string } {
  let field = `${where}${e.instancePath}`;
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'additionalProperties') {
    field = `${field}/${(e.params as { additionalProperty: string }).additionalProperty}`;
    message = 'is not a known field';
  } else if (e.keyword === 'required') {
    field = `${field}/${(e.params as { missingProperty: string }).missingProperty}`;
    message = 'is required';
  } else if (e.keyword === 'propertyNames') {
    message = `has an invalid key ${JSON.stringify((e.params as { propertyName: string }).propertyName)}`;
  } else if (e.keyword === 'pattern') {
    const description = (e.parentSchema as { description?: string } | undefined)?.description;
    message = description ? `has an invalid format (${description})` : `must match ${(e.params as { pattern: string }).pattern}`;
  }
  return { field, message };
}
