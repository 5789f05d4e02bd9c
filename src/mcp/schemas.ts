import { allSchemas } from '../schemas/registry.ts';
import { FOLLOWED_OUTPUT, TOPIC_ID_MAX } from './topic-links.ts';

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

/** Keywords that say how to write a value, not what an answer holds. */
const WRITERS_ONLY = new Set(['description', 'examples', 'pattern', 'minLength', 'maxLength', 'default']);

/** A registry schema by `$id` (throws for an unknown id: a tool declared with a typo fails at start). */
export function registrySchema(id: string): JsonSchema {
  const schema = BY_ID.get(id);
  if (!schema) throw new Error(`No schema ${id}`);
  return schema;
}

/**
 * A registry answer with the `redirect` a tool that follows old slugs adds: among its properties, as
 * an `allOf` would leave it to an answer that allows no property it does not name (NodeHistory,
 * FeedbackEntry), and a client checking the answer would refuse it.
 */
export function followedOutput(id: string): JsonSchema {
  const schema = registrySchema(id);
  return { ...schema, properties: { ...(schema.properties as JsonSchema), redirect: FOLLOWED_OUTPUT } };
}

/**
 * Makes a schema built from the registry self-contained, for clients that have no registry: every
 * schema reachable by `$ref` goes into `$defs` and `$ref: 'X'` becomes `$ref: '#/$defs/X'` (so
 * recursive schemas such as the tree stay finite), `$id`s are dropped, and so are formats only the
 * service knows. With `shapeOnly`, what only a writer of values needs goes too (descriptions,
 * examples, patterns and lengths): a keyword's value is a string, a number or an array, where a
 * property of that name would hold a schema, an object.
 */
export function selfContained(root: JsonSchema, { shapeOnly = false }: { shapeOnly?: boolean } = {}): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  const pending: string[] = [];
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const out: JsonSchema = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === '$id' && typeof v === 'string') continue;
      if (key === 'format' && typeof v === 'string' && !STANDARD_FORMATS.has(v)) continue;
      if (shapeOnly && WRITERS_ONLY.has(key) && (v === null || typeof v !== 'object' || Array.isArray(v))) continue;
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

/*
 * The tool server's own schemas: the search and fetch tools answer what MCP clients expect of a
 * search (an id to fetch, a page to cite) beside the API's fields, and take their arguments as
 * a client writes them (numbers as numbers, the latest version by default).
 */

const queryProperty = (name: string) => ((registrySchema('SearchQuery') as { properties: Record<string, JsonSchema> }).properties[name]);

/** A topic's id, as search answers it and fetch takes it: three parts, none of which can hold a "/". */
const topicId = (description: string): JsonSchema => ({ type: 'string', maxLength: TOPIC_ID_MAX, pattern: '^[^/]+/[^/]+/[^/]+$', description });

/** The address of a node's page in the portal. */
const PAGE_URL: JsonSchema = {
  type: ['string', 'null'],
  description: 'The page in the portal, absolute (with "#anchor" for the section a search matched in); null when the portal does not show the version (drafts, archived versions, working copies, versions HELP_PORTAL_VERSIONS leaves out) or the service is still starting.',
};

/** The search tool's arguments. */
export const SEARCH_INPUT: Record<string, JsonSchema> = {
  q: queryProperty('q'),
  version: { $ref: 'VersionRef', description: 'A version slug, or "latest" (the default).' },
  language: { type: 'string', description: 'Default en, or the version\'s primary language when it has no English.' },
  order: { enum: ['relevance', 'document'], description: '"relevance" (default): best first, typos and word forms forgiven. "document": topics holding every word, up to 50, in tree order, unpaged.' },
  limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Hits per answer (default 10).' },
  offset: { type: 'integer', minimum: 0, maximum: 9999, description: 'Hits to skip: limit 10, offset 10 is the second page.' },
};

/** The fetch tool's arguments. */
export const FETCH_INPUT: Record<string, JsonSchema> = {
  id: topicId('The id of a search hit: "{version}/{language}/{slug}", such as "v2/en/getting-started" ("latest" may stand for the version).'),
};

/** The id in answers. */
const ANSWERED_ID = topicId('"{version}/{language}/{slug}", the id fetch takes; with the version\'s own slug, never "latest", so it names the same page later.');

/** What a search hit carries beyond the API's fields. */
const HIT_LINKS: JsonSchema = { type: 'object', required: ['id', 'url'], properties: { id: ANSWERED_ID, url: PAGE_URL } };
const withLinks = (id: string): JsonSchema => ({ allOf: [{ $ref: id }, { type: 'object', properties: { hits: { type: 'array', items: HIT_LINKS } } }] });

/** The search tool's answer: the API's answer in the order asked for, each hit with its id and page. */
export const SEARCH_OUTPUT: JsonSchema = { type: 'object', anyOf: [withLinks('RankedSearchResult'), withLinks('SearchResult')] };

/** The fetch tool's answer: one translation of a node as a document, in the shape search-and-fetch clients read. */
export const FETCH_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['id', 'title', 'text', 'url', 'metadata'],
  properties: {
    id: ANSWERED_ID,
    title: { type: 'string' },
    text: { type: 'string', description: 'The topic as Markdown, as its page shows it: the title as a level-1 heading, the summary, then the body.' },
    url: PAGE_URL,
    metadata: {
      type: 'object',
      required: ['version', 'versionLabel', 'language', 'slug', 'kind', 'summary', 'updatedAt', 'availableLanguages', 'breadcrumbs'],
      properties: {
        version: { $ref: 'VersionSlug' },
        versionLabel: { type: 'string', description: "The version's name as readers see it." },
        language: { $ref: 'LanguageCode' },
        slug: { $ref: 'NodeSlug' },
        kind: { enum: ['section', 'topic'] },
        summary: { type: 'string' },
        updatedAt: { $ref: 'Timestamp', description: "This translation's last change." },
        availableLanguages: { type: 'array', items: { $ref: 'LanguageCode' }, description: 'The languages the node has: the same id with another of them fetches it in that language.' },
        breadcrumbs: {
          type: 'array',
          description: "The node's ancestors, the root first.",
          items: { type: 'object', required: ['slug', 'kind', 'title'], properties: { slug: { $ref: 'NodeSlug' }, kind: { enum: ['section', 'topic'] }, title: { type: 'string' } } },
        },
      },
    },
  },
};
