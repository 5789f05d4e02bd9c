import { ICON_MAX, ICON_PATTERN, LANGUAGE_PATTERN, NODE_SLUG_MAX, NODE_SLUG_PATTERN, TEXT_PATTERN, TITLE_PATTERN, VERSION_SLUG_MAX, VERSION_SLUG_PATTERN } from '../domain/names.ts';
import { LABEL_MAX } from '../content/version-file.ts';
import { SUMMARY_MAX, TITLE_MAX } from '../content/markdown-file.ts';

/**
 * What a value must look like for a pattern of a schema without an `$id` (a query parameter), said
 * as what to change: the descriptions document the parameters for other readers, and "has an invalid
 * format (At most this many versions …)" told nobody that 0 is too small. Keyed by the pattern.
 */
export const INLINE_PATTERN_HINTS = new Map<string, string>();

/**
 * The same hints keyed by the schema itself: two parameters may share a pattern and not a meaning
 * (the cursor of the version list and that of a history are both opaque text of the same alphabet),
 * and keyed by pattern alone the one declared last spoke for both.
 */
export const SCHEMA_PATTERN_HINTS = new WeakMap<object, string>();

/** `schema`, with `hint` as the message when a value does not match its pattern. */
export function withHint<S extends { pattern: string }>(schema: S, hint: string): S {
  INLINE_PATTERN_HINTS.set(schema.pattern, hint);
  SCHEMA_PATTERN_HINTS.set(schema, hint);
  return schema;
}

/** The cursor of one kind of list: its own alphabet, where a caller finds it, and what to say when it is wrong. */
export interface CursorShape {
  pattern: string;
  description: string;
  hint: string;
}

/** The query parameters of a list answered a page at a time, as the route handlers receive them (checked, still text). */
export interface PageParams {
  limit?: string;
  cursor?: string;
}

/** A query-string pattern for a whole number from 1 to `max`, a power of ten: no sign, no leading zero. */
const oneTo = (max: 100 | 1000) => `^(?:[1-9][0-9]${max === 100 ? '?' : `{0,${String(max).length - 2}}`}|${max})$`;

/**
 * `limit` and `cursor` of a query answered a page at a time, to spread into its `properties`. Every
 * paged list takes them the same way (digits for the limit, an opaque cursor given back as it came),
 * so a caller who pages one pages them all; what differs is the largest page, the words, and the
 * cursor's alphabet.
 */
export function pagedQuery({ max, limit, cursor }: { max: 100 | 1000; limit: string; cursor: CursorShape }) {
  return {
    limit: withHint({ type: 'string', pattern: oneTo(max), description: limit } as const, `must be a whole number from 1 to ${max}`),
    cursor: withHint({ type: 'string', pattern: cursor.pattern, description: cursor.description } as const, cursor.hint),
  };
}

/** Shared building blocks, registered by `$id` and referenced with `$ref`. */
export const VersionSlug = {
  $id: 'VersionSlug',
  type: 'string',
  minLength: 1,
  maxLength: VERSION_SLUG_MAX,
  pattern: VERSION_SLUG_PATTERN,
  description: 'Lowercase letters and digits, separated by single `-`, `_` or `.`; 1–64 characters; `latest` and the names Windows keeps for devices (`con`, `nul`, `com1`, … alone or before a dot) are reserved.',
  examples: ['v2', '2026.1'],
} as const;

export const NodeSlug = {
  $id: 'NodeSlug',
  type: 'string',
  minLength: 1,
  maxLength: NODE_SLUG_MAX,
  pattern: NODE_SLUG_PATTERN,
  description: 'Lowercase letters and digits, separated by single `-` or `_`; 1–100 characters; not a name Windows keeps for devices (`con`, `prn`, `aux`, `nul`, `com1`–`com9`, `lpt1`–`lpt9`); unique within the version.',
  examples: ['getting-started'],
} as const;

export const LanguageCode = {
  $id: 'LanguageCode',
  type: 'string',
  maxLength: 35,
  pattern: LANGUAGE_PATTERN,
  format: 'language-tag',
  description: 'A BCP 47 language tag such as `en`, `de` or `pt-BR`, valid as a whole (no repeated variant); stored in canonical case.',
  examples: ['en', 'pt-BR'],
} as const;

export const SortKey = {
  $id: 'SortKey',
  type: 'number',
  description:
    "A node's sort key among its siblings: any number, fractions and negatives included, stored and answered exactly as given. Siblings are in ascending order of it; among equal keys, the node that was there first comes first.",
} as const;
export const Timestamp = { $id: 'Timestamp', type: 'string', format: 'date-time', description: 'ISO 8601 timestamp with milliseconds, UTC.' } as const;

export const Icon = {
  $id: 'Icon',
  type: ['string', 'null'],
  maxLength: ICON_MAX,
  pattern: ICON_PATTERN,
  description: 'An icon name as icon sets spell them (`rocket`, `book-open`): lowercase words joined by `-`; null for none.',
} as const;

export const Title = { $id: 'Title', type: 'string', minLength: 1, maxLength: TITLE_MAX, pattern: TITLE_PATTERN, description: '1 to 200 characters, not only white space; no control characters other than tabs and line breaks.' } as const;
export const Summary = { $id: 'Summary', type: 'string', maxLength: SUMMARY_MAX, pattern: TEXT_PATTERN, description: 'A short description, at most 2,000 characters, without control characters other than tabs and line breaks; empty when absent.' } as const;
export const Label = { $id: 'Label', type: 'string', minLength: 1, maxLength: LABEL_MAX, pattern: TEXT_PATTERN, description: "A version's name as readers see it: 1 to 200 characters, without control characters other than tabs and line breaks." } as const;
export const BodyMd = { $id: 'BodyMd', type: 'string', description: 'Markdown body; empty when absent.' } as const;

export const ErrorBody = {
  $id: 'Error',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'A stable code from the error catalogue.' },
        message: { type: 'string', description: 'What went wrong, in words.' },
        field: { type: 'string', description: 'The field at fault, as `body/title`, `query/language`, `path/version` or `header/if-unmodified-since`.' },
        errors: { type: 'array', items: { type: 'object' }, description: 'Every problem found, when there are several.' },
        requestId: { type: 'string' },
      },
      additionalProperties: true,
    },
  },
} as const;

export const Ok = { $id: 'Ok', type: 'object', required: ['ok'], properties: { ok: { const: true } } } as const;

/** The fields every node answer carries (node lists and write answers). */
export const nodeFields = {
  id: { type: 'string', description: 'Assigned by the service; kept when the version is duplicated.' },
  slug: { $ref: 'NodeSlug' },
  kind: { enum: ['section', 'topic'] },
  parentSlug: { type: ['string', 'null'] },
  icon: { $ref: 'Icon' },
  sortOrder: { $ref: 'SortKey' },
  updatedAt: { $ref: 'Timestamp', description: "The newest of the node's own stamp and its translations' stamps; usable as `expectedUpdatedAt` on PATCH." },
} as const;
export const nodeFieldNames = ['id', 'slug', 'kind', 'parentSlug', 'icon', 'sortOrder', 'updatedAt', 'translations'];

/** The fields of one translation as answers carry it. */
export const translationFields = {
  slug: { $ref: 'NodeSlug' },
  language: { $ref: 'LanguageCode' },
  title: { type: 'string' },
  summary: { type: 'string' },
  bodyMd: { type: 'string' },
  updatedAt: { $ref: 'Timestamp' },
} as const;
export const translationFieldNames = ['slug', 'language', 'title', 'summary', 'bodyMd', 'updatedAt'];

export const FontFileName = { $id: 'FontFileName', type: 'string', pattern: '^[a-z0-9-]+\\.ttf$', description: 'A font file name from a PDF bundle.' } as const;

export const VersionRef = {
  $id: 'VersionRef',
  anyOf: [{ $ref: 'VersionSlug' }, { const: 'latest' }],
  description: 'A version slug, or `latest` for the version marked latest.',
} as const;

export const commonSchemas = [FontFileName, VersionRef, VersionSlug, NodeSlug, LanguageCode, SortKey, Timestamp, Icon, Title, Summary, Label, BodyMd, ErrorBody, Ok];
