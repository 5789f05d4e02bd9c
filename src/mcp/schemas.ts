import { allSchemas } from '../schemas/registry.ts';

/** A JSON Schema as the tool server publishes it. */
export type JsonSchema = Record<string, unknown>;

/** The registry's schemas by `$id`. */
const BY_ID = new Map<string, JsonSchema>(allSchemas.map((s) => [s.$id, s as JsonSchema]));

/**
 * Formats a client's validator knows (JSON Schema's own). Others are the service's own ajv formats
 * (`language-tag`): a client would not know them, and a strict validator refuses unknown formats, so
 * they are left out of what is published; the service still checks them with the registry.
 */
const STANDARD_FORMATS = new Set(['date-time', 'date', 'time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uri-reference', 'uuid', 'regex']);

/** A registry schema by `$id` (throws for an unknown id: a tool declared with a typo fails at start). */
export function registrySchema(id: string): JsonSchema {
  const schema = BY_ID.get(id);
  if (!schema) throw new Error(`No schema ${id}`);
  return schema;
}

/**
 * Makes a schema built from the registry self-contained, for clients that have no registry: every
 * schema reachable by `$ref` goes into `$defs` and `$ref: 'X'` becomes `$ref: '#/$defs/X'` (so
 * recursive schemas such as the tree stay finite), `$id`s are dropped, and so are formats only the
 * service knows.
 */
export function selfContained(root: JsonSchema): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  const pending: string[] = [];
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const out: JsonSchema = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === '$id' && typeof v === 'string') continue;
      if (key === 'format' && typeof v === 'string' && !STANDARD_FORMATS.has(v)) continue;
      if (key === '$ref' && typeof v === 'string' && !v.startsWith('#')) {
        if (!(v in defs)) {
          defs[v] = {};
          pending.push(v);
        }
        out.$ref = `#/$defs/${v}`;
        continue;
      }
      out[key] = rewrite(v);
    }
    return out;
  };
  const result = rewrite(root) as JsonSchema;
  for (let id = pending.shift(); id !== undefined; id = pending.shift()) defs[id] = rewrite(registrySchema(id)) as JsonSchema;
  if (Object.keys(defs).length === 0) return result;
  // Sorted, so the published schemas do not depend on the order they were reached in.
  return { ...result, $defs: Object.fromEntries(Object.entries(defs).sort(([a], [b]) => a.localeCompare(b))) };
}
